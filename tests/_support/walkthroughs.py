"""Following a walkthrough page (getting started, the CLI) as a stranger does.

A walkthrough page is followed top to bottom in a new project directory, as
a stranger follows it: a fenced block with a title= writes that file (a
```diff block edits it, each "-" line replaced by the "+" line after it),
```sh lines run (`pytest`, `fusion` and `python -m pytest_mcpfusion` or
`python -m fusion_core`, with the environment's scripts and python;
"# exits N" states an expected failure), and a ```text block lists lines
that must appear in the output of the commands just run. Installing is the
one step not repeated here: the package is installed already.
"""

from __future__ import annotations

import os
import re
import shlex
import subprocess
from pathlib import Path

__all__ = ["ROOT", "WALKTHROUGHS", "follow_walkthrough"]

ROOT = Path(__file__).resolve().parents[2]
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
_EXTRAS = re.compile(r"pip install '?pytest-mcpfusion\[([\w,-]+)\]'?$")


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


def follow_walkthrough(page: Path, folder: Path, scripts: Path, wheel: Path | None = None) -> int:
    """Write every file, apply every edit, run every command of ``page`` in ``folder``.

    Commands run with the console scripts in ``scripts``; each ```text block's
    lines must be in the output of the commands just run. Returns the number
    of steps followed. Set-up lines are skipped (the environment is made
    already), except, with ``wheel``, a ``pip install 'pytest-mcpfusion[X]'``:
    it installs that wheel with the extras the page asks for.
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
                extras = _EXTRAS.match(command)
                if wheel is not None and extras is not None:
                    pip = [str(scripts / "python"), "-m", "pip", "install", "--quiet"]
                    installed = subprocess.run(
                        [*pip, f"{wheel}[{extras.group(1)}]"],
                        capture_output=True,
                        text=True,
                        check=False,
                        timeout=900,
                    )
                    assert installed.returncode == 0, installed.stdout + installed.stderr
                    continue
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
