"""The stranger test: the built wheel, a fresh environment, the docs followed literally.

Run by ``./dev stranger`` (not by ``./dev test``: it needs PyPI for the
dependencies and takes a few minutes, most of it ``pip install``). The file
name keeps pytest from collecting it with the suite; ``./dev stranger`` names
it explicitly.

1. ``python -m build`` makes the sdist and the wheel without one warning; the
   sdist holds the docs and no tests.
2. A fresh virtual environment outside the repository installs the wheel
   (``pip install <wheel>``: what ``pip install pytest-mcpfusion`` does) and
   follows docs/getting-started.md and docs/cli.md top to bottom, in new
   directories, with that environment's ``pytest`` and ``fusion``.
3. The command line from the wheel: ``python -m fusion_core --help``,
   ``fusion --version``, ``serve``'s banner and its MCP serverInfo.
4. A production environment: the run-time dependencies the README lists and
   the wheel with ``--no-deps``: the app answers and nothing of pytest,
   hypothesis or syrupy is installed. Adding pytest alone, the plugin loads,
   ``fusion_call`` tests pass and ``fusion_snapshot`` names what is missing.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import tarfile
import tomllib
import venv
from pathlib import Path

import pytest

from tests._support.walkthroughs import WALKTHROUGHS, follow_walkthrough

ROOT = Path(__file__).resolve().parents[1]
VERSION = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]["version"]
TEST_ONLY = ("pytest", "hypothesis", "syrupy")


def _run(*command: str | Path, cwd: Path, stdin: str | None = None) -> str:
    """Run a command (no inherited PYTHON* settings); its output, failing on a bad exit."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTHON", "PYTEST_"))}
    run = subprocess.run(
        [str(part) for part in command],
        capture_output=True,
        text=True,
        cwd=cwd,
        env=env,
        input=stdin,
        check=False,
        timeout=900,
    )
    assert run.returncode == 0, f"{command}\n{run.stdout}\n{run.stderr}"
    return run.stdout + run.stderr


def _venv(folder: Path) -> Path:
    """A fresh virtual environment with pip; its bin directory."""
    venv.EnvBuilder(with_pip=True, clear=True).create(folder)
    return folder / "bin"


@pytest.fixture(scope="module")
def dist(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str]:
    """The sdist and wheel built from this tree, and the build's output."""
    out = tmp_path_factory.mktemp("dist")
    log = _run(sys.executable, "-m", "build", "--outdir", out, ROOT, cwd=out)
    return out, log


@pytest.fixture(scope="module")
def wheel(dist: tuple[Path, str]) -> Path:
    """The built wheel."""
    (found,) = dist[0].glob("*.whl")
    return found


@pytest.fixture(scope="module")
def stranger(tmp_path_factory: pytest.TempPathFactory, wheel: Path) -> Path:
    """A fresh environment, outside the repository, with the wheel installed."""
    scripts = _venv(tmp_path_factory.mktemp("stranger") / ".venv")
    _run(scripts / "python", "-m", "pip", "install", "--quiet", wheel, cwd=scripts)
    return scripts


def test_build_prints_no_warning(dist: tuple[Path, str]) -> None:
    """Building the sdist and the wheel prints no warning (setuptools' included)."""
    folder, log = dist
    assert sorted(path.suffix for path in folder.iterdir()) == [".gz", ".whl"]
    warnings = [line for line in log.splitlines() if re.search(r"warn", line, re.IGNORECASE)]
    assert warnings == []


def test_sdist_holds_the_docs_and_no_tests(dist: tuple[Path, str]) -> None:
    """The sdist has every docs page, the licence and the C source; no tests, no examples."""
    (sdist,) = dist[0].glob("*.tar.gz")
    with tarfile.open(sdist) as archive:
        names = {name.split("/", 1)[1] for name in archive.getnames() if "/" in name}
    pages = {f"docs/{page.name}" for page in (ROOT / "docs").glob("*.md")}
    assert pages <= names
    assert {"LICENSE", "mkdocs.yml", "fusion_core/_write/_speedups.c", "README.md"} <= names
    strays = sorted(n for n in names if n.startswith(("tests/", "examples/", "benchmarks/")))
    assert strays == []


@pytest.mark.parametrize("page", WALKTHROUGHS, ids=[page.name for page in WALKTHROUGHS])
def test_walkthrough_from_the_wheel(
    page: Path, wheel: Path, tmp_path_factory: pytest.TempPathFactory, tmp_path: Path
) -> None:
    """The page, top to bottom, in a new directory, with the wheel and the extras it names."""
    scripts = _venv(tmp_path_factory.mktemp("walkthrough") / ".venv")
    _run(scripts / "python", "-m", "pip", "install", "--quiet", wheel, cwd=scripts)
    assert follow_walkthrough(page, tmp_path, scripts, wheel) >= 5


def test_command_line_from_the_wheel(stranger: Path, tmp_path: Path) -> None:
    """``--help`` with examples, ``--version``, and ``serve`` names the app and version."""
    python = stranger / "python"
    assert "serve" in _run(python, "-m", "fusion_core", "--help", cwd=tmp_path)
    for command in ("serve", "list", "call", "check"):
        assert "examples" in _run(stranger / "fusion", command, "--help", cwd=tmp_path)
    assert _run(stranger / "fusion", "--version", cwd=tmp_path).strip() == f"fusion {VERSION}"
    (tmp_path / "ping_app.py").write_text(
        "from fusion_core import FusionApp, Tool\n"
        'ping = Tool("ping", "Ping")\n'
        'ping.action("echo", lambda text: {"text": text}, description="Echo")\n'
        'app = FusionApp([ping], name="ping-server")\n',
        encoding="utf-8",
    )
    hello = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "initialize",
        "params": {
            "protocolVersion": "2025-06-18",
            "capabilities": {},
            "clientInfo": {"name": "stranger", "version": "1"},
        },
    }
    out = _run(stranger / "fusion", "serve", "ping_app:app", cwd=tmp_path, stdin=json.dumps(hello))
    assert f"serving ping-server {VERSION} over stdio" in out
    reply = json.loads(next(line for line in out.splitlines() if line.startswith("{")))
    assert reply["result"]["serverInfo"] == {"name": "ping-server", "version": VERSION}


def test_production_install_needs_no_test_tools(
    wheel: Path, tmp_path_factory: pytest.TempPathFactory
) -> None:
    """The README's production install runs an app without pytest, hypothesis or syrupy.

    Then, with pytest added alone, the plugin loads: ``fusion_call`` tests
    pass and ``fusion_snapshot`` fails naming syrupy.
    """
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    (runtime,) = re.findall(r"^pip install ((?:pydantic|orjson)[^\n]*)$", readme, re.MULTILINE)
    scripts = _venv(tmp_path_factory.mktemp("production") / ".venv")
    pip = (scripts / "python", "-m", "pip", "install", "--quiet")
    _run(*pip, *runtime.split(), cwd=scripts)
    _run(*pip, "--no-deps", wheel, cwd=scripts)
    project = tmp_path_factory.mktemp("project")
    (project / "ping_app.py").write_text(
        "from fusion_core import FusionApp, Tool\n"
        'ping = Tool("ping", "Ping")\n'
        'ping.action("echo", lambda text: {"text": text}, description="Echo")\n'
        'app = FusionApp([ping], name="ping")\n',
        encoding="utf-8",
    )
    source = (
        "import importlib.util, anyio\n"
        "from ping_app import app\n"
        "result = anyio.run(app.call, 'ping', {'action': 'echo', 'text': 'hi'})\n"
        "print(result['content'][0]['text'])\n"
        f"print([n for n in {TEST_ONLY!r} if importlib.util.find_spec(n) is not None])\n"
    )
    out = _run(scripts / "python", "-c", source, cwd=project)
    assert '"text": "hi"' in out
    assert out.rstrip().endswith("[]")  # none of them installed
    assert "echo" in _run(scripts / "fusion", "list", "ping_app:app", cwd=project)

    _run(*pip, "pytest", cwd=scripts)
    (project / "test_ping.py").write_text(
        "def test_echo(fusion_call):\n"
        '    assert fusion_call("ping", "echo", text="hi").data == {"text": "hi"}\n\n'
        "def test_wire(fusion_call, fusion_snapshot):\n"
        '    assert fusion_call("ping", "echo", text="hi") == fusion_snapshot\n',
        encoding="utf-8",
    )
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTHON", "PYTEST_"))}
    options = ("-p", "no:cacheprovider", "-o", "fusion_app=ping_app:app", "-o", "pythonpath=.")
    run = subprocess.run(
        [scripts / "pytest", *options],
        capture_output=True,
        text=True,
        cwd=project,
        env=env,
        check=False,
        timeout=600,
    )
    assert run.returncode == 1, run.stdout + run.stderr
    assert "1 passed, 1 error" in run.stdout
    assert "fusion_snapshot needs syrupy" in run.stdout
