"""Every ```python example in the README and docs/ runs, and passes."""

from __future__ import annotations

import re
import sys
import types
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
    """The example executes without error (its own asserts are the checks).

    Each example runs as a real module (registered in ``sys.modules``, no
    ``__future__`` flags inherited from this file), as a user's script would.
    """
    module = types.ModuleType("docs_example")
    sys.modules[module.__name__] = module
    try:
        exec(compile(source, where, "exec", dont_inherit=True), module.__dict__)
    finally:
        del sys.modules[module.__name__]


def test_docs_have_examples() -> None:
    """The docs keep executable examples, so this test cannot pass vacuously."""
    assert len(EXAMPLES) >= 4
