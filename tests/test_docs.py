"""Every example in the README and docs/ runs, and passes.

Plain ```python blocks run as scripts; walkthrough pages (getting started)
are followed top to bottom in a new project directory, commands included.
Every other block (shell commands, ini and toml, sample output) is checked
or classed by ``test_docs_blocks.py``.
"""

from __future__ import annotations

import re
import sys
import types
from pathlib import Path

import pytest

from tests._support.walkthroughs import ROOT, WALKTHROUGHS, follow_walkthrough

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


@pytest.mark.parametrize("page", WALKTHROUGHS, ids=[p.name for p in WALKTHROUGHS])
def test_walkthrough_works_in_a_new_project(page: Path, tmp_path: Path) -> None:
    """Every file, edit, command and output of the page, in order, in an empty directory.

    With this environment's scripts; ``./dev stranger`` follows the same
    pages with a fresh environment that installed the built wheel.
    """
    steps = follow_walkthrough(page, tmp_path, Path(sys.executable).parent)
    assert steps >= 5  # the page was followed, not skipped


def test_walkthrough_installs_the_package_by_name() -> None:
    """The install step is the one the stranger test runs: ``pip install pytest-mcpfusion``."""
    page = ROOT / "docs" / "getting-started.md"
    assert "pip install pytest-mcpfusion\n" in page.read_text(encoding="utf-8")
