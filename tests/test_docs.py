"""Every ```python example in the README and docs/ runs, and passes."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
DOCS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
_BLOCK = re.compile(r"^```python\n(.*?)^```", re.MULTILINE | re.DOTALL)


def _examples() -> list[tuple[str, str]]:
    found = []
    for path in DOCS:
        for index, match in enumerate(_BLOCK.finditer(path.read_text(encoding="utf-8"))):
            found.append((f"{path.relative_to(ROOT)}#{index}", match.group(1)))
    return found


EXAMPLES = _examples()


@pytest.mark.parametrize(("where", "source"), EXAMPLES, ids=[w for w, _ in EXAMPLES])
def test_example_runs(where: str, source: str) -> None:
    """The example executes without error (its own asserts are the checks)."""
    exec(compile(source, where, "exec"), {"__name__": "docs_example"})


def test_docs_have_examples() -> None:
    """The docs keep executable examples, so this test cannot pass vacuously."""
    assert len(EXAMPLES) >= 4
