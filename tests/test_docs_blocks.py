"""Every fenced block of the README and docs/ is run, checked, or classed on purpose.

``test_docs.py`` runs the ```python blocks and follows the walkthrough pages
(files, commands and their output). This module covers every other block, so
none is left untested by accident:

* ```sh / ```bash: every command is one a user can run — a ``pytest``,
  ``fusion``, ``python -m ...`` or ``./dev`` command whose options appear in
  that command's ``--help``, a ``pip install`` of this package's real extras
  or of its real run-time dependencies, a script that exists;
* ```ini / ```toml: every pytest ini key is one the plugin registers;
* anything else (sample output, a host's config, the TypeScript reference)
  is listed in ``CLASSED`` with the reason it is not run; an output sample
  names a phrase the package really prints, which must stay in its source.

A new block of a new kind fails ``test_every_block_is_run_checked_or_classed``
until it gets a checker or a reason.
"""

from __future__ import annotations

import configparser
import functools
import json
import re
import shlex
import subprocess
import sys
import tomllib
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests._support.walkthroughs import WALKTHROUGHS

ROOT = Path(__file__).resolve().parents[1]
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
_FENCE = re.compile(r"^```(\w*)([^\n]*)\n(.*?)^```", re.MULTILINE | re.DOTALL)
# Walkthrough pages write titled files, run ```sh and compare ```text (test_docs.py).
_WALKTHROUGH_LANGS = {"sh", "text"}
# Programs a docs command may call without a check here: not ours.
EXTERNAL = {"jq", "gh"}

# (page, how the block's first line starts) -> (why it is not run, a phrase
# of the package's own output it shows, or "" when it shows none).
CLASSED: dict[tuple[str, str], tuple[str, str]] = {
    ("docs/migrating.md", "const invoices = createTool"): (
        "MCP Fusion's TypeScript, shown beside its Python port (which runs)",
        "",
    ),
    ("docs/plugin.md", "tools/call 'grow'"): (
        "a failure message from a server that needs node",
        "bytes read",
    ),
    ("docs/plugin.md", "ERROR: could not start the MCP server"): (
        "a start-up error of a node server",
        "could not start the MCP server",
    ),
    ("docs/plugin.md", "tools/call 'crash' {} on 'python dies.py'"): (
        "the failure of a server dying in a call; tests/integration/test_server_dies.py makes it",
        "the server's stderr (last lines):",
    ),
    ("docs/plugin.md", "this server writes no Fusion blocks"): (
        "the headline of a run against mcp-server-time; test_reference_servers.py makes it",
        "writes no Fusion blocks",
    ),
    ("docs/report.md", "contract tests failed: 1"): (
        "the report's failed tests; tests/integration/test_report_failures.py makes them",
        "      reproduce: ",
    ),
    ("docs/plugin.md", ">       assert result == fusion_snapshot"): (
        "a .wire failure at default verbosity; test_fixture_snapshot.py makes one like it",
        "): unchanged",
    ),
    ("docs/plugin.md", "fusion-wire-snapshot 1"): (
        "the shape of a .wire file, abridged; the walkthrough makes real ones",
        "fusion-wire-snapshot 1",
    ),
    ("docs/plugin.md", "=========================" + "===== Fusion wire report"): (
        "the wire report of the billing example, abridged",
        "Fusion wire report",
    ),
    ("docs/plugin.md", "$ pytest --fusion --collect-only -q"): (
        "a collection listing, abridged",
        "fusion-contract",
    ),
    ("docs/plugin.md", "______________________ fusion-contract::users/get"): (
        "a contract failure of a leaking server",
        "broke the Fusion contract",
    ),
    ("docs/review.md", "$ CI=1 pytest examples/billing/tests"): (
        "a CI run's pending snapshots, abridged",
        "pending wire snapshot",
    ),
    ("docs/review.md", "$ fusion review"): (
        "an interactive review session",
        "changed snapshot",
    ),
    ("docs/serving.md", "fusion_core: serving billing 0.1.0 over streamable"): (
        "serve's banner (tests/fusion_core/_mcp/test_server.py checks the real one)",
        "over streamable HTTP at",
    ),
    ("docs/serving.md", '{"command": "/path/to/project/.venv/bin/fusion"'): (
        "an MCP host's configuration, in the host's own format",
        "",
    ),
}


def _classed(page: str, first_line: str) -> tuple[str, str] | None:
    """The CLASSED entry of a block, if any."""
    for (where, start), entry in CLASSED.items():
        if where == page and first_line.startswith(start):
            return entry
    return None


@dataclass(frozen=True)
class Fence:
    """One fenced block of a page."""

    page: str
    lang: str
    info: str
    body: str

    @property
    def first_line(self) -> str:
        return self.body.splitlines()[0] if self.body else ""

    def __str__(self) -> str:
        return f"{self.page}: ```{self.lang} {self.first_line[:60]}"


def _fences() -> list[Fence]:
    return [
        Fence(str(page.relative_to(ROOT)), *match.groups())
        for page in PAGES
        for match in _FENCE.finditer(page.read_text(encoding="utf-8"))
    ]


FENCES = _fences()
WALKED = {str(page.relative_to(ROOT)) for page in WALKTHROUGHS}


def _kind(fence: Fence) -> str | None:
    """How the block is tested, or None when nothing tests it."""
    if fence.page in WALKED and ("title=" in fence.info or fence.lang in _WALKTHROUGH_LANGS):
        return "walkthrough"
    if fence.lang == "python" and "title=" not in fence.info:
        return "executed"
    if fence.lang in {"sh", "bash"}:
        return "commands"
    if fence.lang in {"ini", "toml"}:
        return "config"
    if _classed(fence.page, fence.first_line) is not None:
        return "classed"
    return None


def test_every_block_is_run_checked_or_classed() -> None:
    """No fenced block of the docs or the README escapes every test."""
    assert len(FENCES) > 50
    untested = [str(fence) for fence in FENCES if _kind(fence) is None]
    assert untested == [], "give each a checker here or a reason in CLASSED"


def test_every_classed_block_exists_and_quotes_real_output() -> None:
    """Each CLASSED entry is one block of the docs, and its phrase is one the package prints."""
    sources = "".join(
        path.read_text(encoding="utf-8")
        for package in ("fusion_core", "pytest_mcpfusion")
        for path in (ROOT / package).rglob("*.py")
    )
    for (page, start), (reason, phrase) in CLASSED.items():
        bodies = [f.body for f in FENCES if f.page == page and f.first_line.startswith(start)]
        assert len(bodies) == 1, f"{page}: {start!r} starts {len(bodies)} blocks"
        assert reason
        assert phrase in bodies[0]
        assert phrase in sources, f"{page}: {phrase!r} is no longer printed by the package"


# ------------------------------------------------------------------ commands


@functools.cache
def _help(*command: str) -> str:
    """A command's ``--help`` text, run with this interpreter from an empty folder."""
    run = subprocess.run(
        [sys.executable, *command, "--help"],
        capture_output=True,
        text=True,
        cwd=ROOT / "docs",  # no pytest config here: only the installed plugins
        check=False,
        timeout=120,
    )
    assert run.returncode == 0, run.stderr
    return run.stdout


def _has_option(help_text: str, option: str) -> bool:
    return re.search(rf"(?<![\w-]){re.escape(option)}(?![\w-])", help_text) is not None


@functools.cache
def _project() -> dict[str, object]:
    text = (ROOT / "pyproject.toml").read_text(encoding="utf-8")
    project: dict[str, object] = tomllib.loads(text)["project"]
    return project


def _requirement_name(requirement: str) -> str:
    return re.split(r"[\[<>=!~;\s]", requirement, maxsplit=1)[0].lower().replace("_", "-")


def _check_pip(args: list[str]) -> None:
    """``pip install`` of this package (with real extras) or of its real dependencies."""
    assert args[0] == "install", args
    project = _project()
    dependencies = {_requirement_name(dep) for dep in project["dependencies"]}  # type: ignore[attr-defined]
    extras = set(project["optional-dependencies"])  # type: ignore[call-overload]
    for arg in args[1:]:
        if arg.startswith("-"):
            assert arg == "--no-deps", arg
            continue
        name = _requirement_name(arg)
        if name == "pytest-mcpfusion":
            asked = re.findall(r"\[([^\]]*)\]", arg)
            assert set(",".join(asked).split(",")) - {""} <= extras, arg
        else:
            assert name in dependencies, f"{arg} is not a dependency of the package"


def _check_dev(args: list[str]) -> None:
    """``./dev JOB``: a job of the dev script; ``bench`` names real benchmarks."""
    jobs = re.findall(r"^    (\w+)\)$", (ROOT / "dev").read_text(encoding="utf-8"), re.MULTILINE)
    assert args[0] in jobs, args
    if args[0] == "bench":
        rest = iter(args[1:])
        for arg in rest:
            if arg == "--rounds":
                assert next(rest).isdigit()
            else:
                assert (ROOT / "benchmarks" / f"bench_{arg}.py").exists(), arg


def _check_options(words: list[str], help_text: str) -> None:
    for word in words:
        if word.startswith("--"):
            option = word.split("=", 1)[0]
            assert _has_option(help_text, option), f"{option} is not in the --help of {words}"


def _check_command(words: list[str]) -> None:
    """One documented command (environment assignments already stripped)."""
    program, args = words[0], words[1:]
    if program in EXTERNAL:
        return
    if program == "nice":  # a niced command: check the command itself
        _check_command(args[2:] if args[:1] == ["-n"] else args)
        return
    if program.endswith("python") and args[:2] == ["-m", "pytest"]:
        program, args = "pytest", args[2:]
    if program == "pip":
        _check_pip(args)
    elif program == "./dev":
        _check_dev(args)
    elif program == "pytest":
        _check_options(args, _help("-m", "pytest", "-p", "no:cacheprovider"))
    elif program == "fusion" or args[:2] == ["-m", "fusion_core"]:
        rest = args if program == "fusion" else args[2:]
        _check_options(rest, _help("-m", "fusion_core", rest[0]))
    elif args[:3] == ["-m", "pytest_mcpfusion", "review"]:
        _check_options(args[3:], _help("-m", "pytest_mcpfusion", "review"))
    elif args[:3] == ["-X", "importtime", "-c"]:
        compile(args[3], "<docs>", "exec")  # the statement whose import cost is shown
    elif program.endswith("python") and args and args[0].endswith(".py"):
        assert (ROOT / args[0]).exists(), args[0]
    elif program == "export":
        variable = args[0].split("=", 1)[0]
        _check_variable(variable)
    else:
        pytest.fail(f"no check for the command {words}")


def _check_variable(name: str) -> None:
    """An environment variable the docs set is one the package or ./dev reads."""
    packages = [*(ROOT / "fusion_core").rglob("*.py"), *(ROOT / "pytest_mcpfusion").rglob("*.py")]
    readers = [ROOT / "dev", *packages]
    assert any(name in path.read_text(encoding="utf-8") for path in readers), name


def _commands(body: str) -> list[list[str]]:
    """The commands of a shell block: continuations joined, pipes and || split, redirects gone."""
    commands = []
    for line in body.replace("\\\n", " ").splitlines():
        words = shlex.split(line, comments=True)
        command: list[str] = []
        for word in [*words, "||"]:
            if word in {"||", "|", "&&"}:
                while command and re.fullmatch(r"[A-Z_]+=.*", command[0]):
                    _check_variable(command.pop(0).split("=", 1)[0])
                if command:
                    commands.append(command)
                command = []
            elif command[-1:] == [">"]:
                command.pop()  # a redirection: `> review.md`
            elif word != "...":
                command.append(word)
    return commands


COMMAND_BLOCKS = [fence for fence in FENCES if _kind(fence) == "commands"]


@pytest.mark.parametrize("fence", COMMAND_BLOCKS, ids=[str(f) for f in COMMAND_BLOCKS])
def test_shell_block_commands_are_real(fence: Fence) -> None:
    """Each command exists with the options shown (its --help), installs real names."""
    commands = _commands(fence.body)
    assert commands
    for words in commands:
        _check_command(words)


def test_the_command_check_can_fail() -> None:
    """A misspelt option, extra or dependency is caught."""
    for bad in (
        "pytest --fusion-reprot=x.json",
        "fusion call --rawest app:app tool",
        'pip install "pytest-mcpfusion[token]"',
        "pip install requests",
        "./dev benchmark",
    ):
        (words,) = _commands(bad)
        with pytest.raises(AssertionError):
            _check_command(words)


# -------------------------------------------------------------------- config


def _ini_keys(fence: Fence) -> set[str]:
    if fence.lang == "toml":
        return set(tomllib.loads(fence.body)["tool"]["pytest"]["ini_options"])
    parser = configparser.ConfigParser(interpolation=None)
    parser.read_string(fence.body)
    return set(parser["pytest"])


CONFIG_BLOCKS = [fence for fence in FENCES if _kind(fence) == "config"]


@pytest.mark.parametrize("fence", CONFIG_BLOCKS, ids=[str(f) for f in CONFIG_BLOCKS])
def test_config_block_sets_registered_ini_keys(fence: Fence) -> None:
    """Every ini key a docs config sets is one pytest (with the plugin) knows."""
    registered = _help("-m", "pytest", "-p", "no:cacheprovider")
    keys = _ini_keys(fence)
    assert keys
    unknown = [key for key in keys if not re.search(rf"^\s+{re.escape(key)} \(", registered, re.M)]
    assert unknown == []


# ---------------------------------------------------------- the report schema


def test_report_page_describes_every_key_of_the_schema() -> None:
    """docs/report.md's tables name every key of report.schema.json, and no other."""
    schema = json.loads((ROOT / "pytest_mcpfusion" / "report.schema.json").read_text("utf-8"))
    page = (ROOT / "docs" / "report.md").read_text(encoding="utf-8")
    rows = re.findall(r"^\| `(\w+)` \|", page, re.MULTILINE)
    action = schema["$defs"]["action"]["properties"]
    assert sorted(rows) == sorted([*schema["properties"], *action])
    totals = re.search(r"^\| `totals` \| object \| (.*) \|$", page, re.MULTILINE)
    assert totals is not None
    named = set(re.findall(r"`(\w+)`", totals.group(1))) - {"null"}
    assert named == set(schema["properties"]["totals"]["properties"])
