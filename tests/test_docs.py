"""Every example in the README and docs/ runs, and passes.

Plain ```python blocks run as scripts; walkthrough pages (getting started)
are followed top to bottom in a new project directory, commands included.
Every other block (shell commands, ini and toml, sample output) is checked
or classed by ``test_docs_blocks.py``.
"""

from __future__ import annotations

import os
import re
import shlex
import subprocess
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


# ---------------------------------------------------------------- walkthroughs
# A walkthrough page is followed top to bottom in a new project directory, as
# a stranger follows it: a fenced block with a title= writes that file (a
# ```diff block edits it, each "-" line replaced by the "+" line after it),
# ```sh lines run (`pytest`, `fusion` and `python -m pytest_mcpfusion` or
# `python -m fusion_core`, with the environment's scripts and python;
# "# exits N" states an expected failure), and a ```text block lists lines
# that must appear in the output of the commands just run. Installing is the
# one step not repeated here: the package is installed already.

WALKTHROUGHS = [
    ROOT / "docs" / "getting-started.md",
    ROOT / "docs" / "cli.md",
    ROOT / "docs" / "mcpserver.md",
    ROOT / "docs" / "fastmcp.md",
]
_FENCE = re.compile(r"^```(\w+)([^\n]*)\n(.*?)^```", re.MULTILINE | re.DOTALL)
_TITLE = re.compile(r'title="([^"]+)"')
_EXITS = re.compile(r"#\s*exits (\d+)")
_SETUP = ("python -m venv ", ". .venv/bin/activate", "pip install ")


def _apply_diff(path: Path, diff: str) -> None:
    """Replace each ``-`` line of ``diff`` in ``path`` by the ``+`` line after it."""
    text = path.read_text(encoding="utf-8")
    lines = diff.splitlines()
    for old, new in zip(lines[::2], lines[1::2], strict=True):
        assert old.startswith("-"), old
        assert new.startswith("+"), new
        assert text.count(old[1:] + "\n") == 1, f"{path.name}: {old[1:]!r} is not one line"
        text = text.replace(old[1:] + "\n", new[1:] + "\n")
    path.write_text(text, encoding="utf-8")


def _run(command: str, cwd: Path, scripts: Path) -> tuple[int, str]:
    """Run one documented command with the console scripts of ``scripts`` (a venv's bin)."""
    words = shlex.split(command, comments=True)
    ours = words[:3] in (["python", "-m", "pytest_mcpfusion"], ["python", "-m", "fusion_core"])
    assert words[0] in {"pytest", "fusion"} or ours, f"the runner cannot run {command!r}"
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTEST_", "PYTHONPATH"))}
    # As in an activated virtual environment: `python` is the one with the package.
    env["PATH"] = f"{scripts}{os.pathsep}{env.get('PATH', '')}"
    run = subprocess.run(
        [str(scripts / words[0]), *words[1:]],
        capture_output=True,
        text=True,
        cwd=cwd,
        env=env,
        check=False,
        timeout=600,
    )
    return run.returncode, run.stdout + run.stderr


def follow_walkthrough(page: Path, folder: Path, scripts: Path) -> int:
    """Write every file, apply every edit, run every command of ``page`` in ``folder``.

    Commands run with the console scripts in ``scripts``; each ```text block's
    lines must be in the output of the commands just run. Returns the number
    of steps followed.
    """
    output = ""
    steps = 0
    for match in _FENCE.finditer(page.read_text(encoding="utf-8")):
        lang, info, body = match.groups()
        title = _TITLE.search(info)
        if title is not None:
            target = folder / title.group(1)
            if lang == "diff":
                _apply_diff(target, body)
            else:
                target.parent.mkdir(parents=True, exist_ok=True)
                target.write_text(body, encoding="utf-8")
        elif lang == "sh":
            output = ""
            for command in filter(None, (line.strip() for line in body.splitlines())):
                if command.startswith(_SETUP):
                    continue
                code, out = _run(command, folder, scripts)
                expected = _EXITS.search(command)
                assert code == (int(expected.group(1)) if expected else 0), f"{command}\n{out}"
                output += out
        elif lang == "text":
            missing = [line for line in body.splitlines() if line and line not in output]
            assert missing == [], f"not in the output:\n{output}"
        else:
            continue
        steps += 1
    return steps


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
