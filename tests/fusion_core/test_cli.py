"""The ``fusion`` command line, run as a user runs it: a subprocess, against the billing example.

The stdio cases start the example with ``python -m fusion_core serve``, so
the CLI reaches it through the same client any other MCP server would get.
"""

from __future__ import annotations

import json
import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

import anyio
import pytest

import fusion_core
from tests._support.servers import serving_asgi

ROOT = Path(__file__).resolve().parents[2]
APP = "examples.billing.app:app"
STDIO = f"{sys.executable} -m fusion_core serve {APP}"


def _fusion(
    *args: str, stdin: str | None = None, cwd: Path = ROOT
) -> subprocess.CompletedProcess[str]:
    """``python -m fusion_core ARGS`` (from the repository root by default); output captured."""
    return subprocess.run(
        [sys.executable, "-m", "fusion_core", *args],
        capture_output=True,
        text=True,
        cwd=cwd,
        input=stdin,
        check=False,
        timeout=180,
    )


def test_version_prints_the_package_version() -> None:
    """``--version`` names the program and the installed version."""
    run = _fusion("--version")
    assert run.returncode == 0
    assert run.stdout.strip() == f"fusion {fusion_core.__version__}"


def _getting_started_app(folder: Path) -> None:
    """Write ``tasks_app.py`` of the Getting started page into ``folder``."""
    page = (ROOT / "docs" / "getting-started.md").read_text(encoding="utf-8")
    found = re.search(r'^```python title="tasks_app.py"\n(.*?)^```', page, re.MULTILINE | re.DOTALL)
    assert found is not None, "docs/getting-started.md writes tasks_app.py"
    (folder / "tasks_app.py").write_text(found.group(1), encoding="utf-8")


def _examples(help_text: str) -> list[str]:
    """The example command lines of a ``--help`` (continuation lines joined)."""
    joined = help_text.replace("\\\n", " ")
    return [line.strip() for line in joined.splitlines() if line.startswith("  fusion ")]


@pytest.mark.parametrize("command", ["list", "call", "check"])
def test_each_command_has_help_with_examples_that_run(command: str, tmp_path: Path) -> None:
    """``COMMAND --help`` shows examples; each one needing no other server runs as shown.

    They run where a Getting started reader has ``tasks_app.py``, with the
    installed ``fusion`` script, exactly as printed.
    """
    run = _fusion(command, "--help")
    assert run.returncode == 0
    assert "examples (tasks_app.py: the app of the docs' Getting started):" in run.stdout
    examples = _examples(run.stdout)
    local = [line for line in examples if "tasks_app:app" in line]
    assert local
    assert len(examples) >= 2
    _getting_started_app(tmp_path)
    scripts = Path(sys.executable).parent
    # As in an activated virtual environment: `python` is the one with the package.
    env = {**os.environ, "PATH": f"{scripts}{os.pathsep}{os.environ.get('PATH', '')}"}
    for line in local:
        words = shlex.split(line)
        ran = subprocess.run(
            [str(scripts / "fusion"), *words[1:]],
            capture_output=True,
            text=True,
            cwd=tmp_path,
            env=env,
            check=False,
            timeout=180,
        )
        assert ran.returncode == 0, f"{line}\n{ran.stdout}{ran.stderr}"
        assert ran.stdout.strip(), line


def test_top_level_help_lists_every_command() -> None:
    """``--help`` lists serve, list, call and check."""
    run = _fusion("--help")
    assert run.returncode == 0
    for command in ("serve", "list", "call", "check"):
        assert f"    {command}" in run.stdout


def test_list_over_stdio_prints_every_action_as_a_table() -> None:
    """``list`` of a stdio server: a header and one row per action, with its description."""
    run = _fusion("list", STDIO)
    assert run.returncode == 0, run.stderr
    lines = run.stdout.splitlines()
    assert lines[0].split() == ["TOOL", "ACTION", "DESCRIPTION"]
    actions = [line.split()[1] for line in lines[1:]]
    assert actions == [
        "invoices.list",
        "invoices.get",
        "invoices.pay",
        "invoices.void",
        "clients.list",
        "clients.get",
    ]
    assert "One invoice with its line items" in run.stdout


def test_list_of_an_app_spec_matches_the_stdio_listing() -> None:
    """An app spec is served in process, and lists the same table as over stdio."""
    in_process = _fusion("list", APP)
    assert in_process.returncode == 0, in_process.stderr
    assert "billing  invoices.void" in in_process.stdout


def test_call_over_stdio_prints_the_blocks() -> None:
    """``call`` prints each block with its kind, then its exact text."""
    run = _fusion("call", STDIO, "billing", "invoices.get", "invoice_id=INV-001")
    assert run.returncode == 0, run.stderr
    assert run.stdout.startswith("── block 0 · data")
    assert '"id": "INV-001"' in run.stdout
    assert "── block 1 · ui_passthrough(summary)" in run.stdout


def test_call_raw_prints_the_wire_json() -> None:
    """``--raw`` prints the MCP result as JSON; ``--json`` gives the arguments."""
    run = _fusion(
        "call", APP, "billing", "invoices.get", "--json", '{"invoice_id": "INV-404"}', "--raw"
    )
    assert run.returncode == 1, run.stderr  # the answer is isError: true
    wire = json.loads(run.stdout)
    assert wire["isError"] is True
    assert 'code="INVOICE_NOT_FOUND"' in wire["content"][0]["text"]


def test_check_over_stdio_passes_clean_calls_with_exit_zero(tmp_path: Path) -> None:
    """``check`` with calls from flags and from a file: all clean, exit status 0."""
    calls = tmp_path / "calls.json"
    calls.write_text(
        json.dumps(
            [{"tool": "billing", "action": "invoices.list", "arguments": {"status": "paid"}}]
        ),
        encoding="utf-8",
    )
    run = _fusion(
        "check", STDIO, "--calls", str(calls),
        "--call", "billing", "invoices.get", '{"invoice_id": "INV-404"}',
    )  # fmt: skip
    assert run.returncode == 0, run.stdout + run.stderr
    assert "2 clean, 0 with violations" in run.stdout


def test_check_reports_violations_with_exit_one(tmp_path: Path) -> None:
    """A server whose output breaks the contract makes ``check`` print it and exit 1."""
    (tmp_path / "broken_app.py").write_text(
        "from fusion_core import FusionApp, Tool\n"
        "class Broken:\n"
        "    def definitions(self):\n"
        "        return [{'name': 'bad', 'inputSchema': {'type': 'object'}}]\n"
        "    async def call(self, name, arguments, context=None):\n"
        "        return {'content': [{'type': 'text', 'text': '{\"a\": 1}'},\n"
        "                            {'type': 'text', 'text': '<ui_passthrough type=\"x\">'}]}\n"
        "app = Broken()\n",
        encoding="utf-8",
    )
    run = _fusion("check", "broken_app:app", "--call", "bad", cwd=tmp_path)
    assert run.returncode == 1, run.stdout + run.stderr
    assert "FAIL  bad" in run.stdout
    assert "0 clean, 1 with violations" in run.stdout


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("check", APP, "--call", "billing", "nope", "{"), "is not valid JSON"),
        (("call", "examples.nowhere:app", "billing"), "examples.nowhere"),
        (("check", APP, "--calls", "/nonexistent/calls.json"), "cannot read"),
    ],
)
def test_bad_input_is_one_clear_line_and_exit_one(args: tuple[str, ...], message: str) -> None:
    """Bad arguments or targets give one line on stderr naming the problem, no traceback."""
    run = _fusion(*args)
    assert run.returncode == 1
    assert message in run.stderr
    assert "Traceback" not in run.stderr
    assert run.stderr.startswith(f"fusion {args[0]}: ")


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("check", APP), "no calls to check"),
        (("check", APP, "--call", "billing", "a", "b", "{}", "c"), "has 5 words"),
        (("call", APP, "billing", "invoices.get", "invoice_id"), "is not KEY=VALUE"),
        (("call", APP, "billing", "invoices.get", "=INV-1"), "is not KEY=VALUE"),
    ],
)
def test_a_command_line_that_cannot_run_is_a_usage_error(
    args: tuple[str, ...], message: str
) -> None:
    """Nothing to call, or an argument that is not KEY=VALUE: exit 2, as docs/cli.md says."""
    run = _fusion(*args)
    assert run.returncode == 2, run.stderr
    assert message in run.stderr
    assert "Traceback" not in run.stderr
    assert run.stderr.startswith(f"fusion {args[0]}: ")


@pytest.mark.parametrize("raw", [(), ("--raw",)])
def test_call_exits_one_when_the_answer_is_an_error(raw: tuple[str, ...]) -> None:
    """An ``isError`` answer is printed, then exit 1 with a line saying so (a script sees it)."""
    run = _fusion("call", APP, "billing", "invoices.get", "invoice_id=NOPE", *raw)
    assert run.returncode == 1, run.stdout + run.stderr
    assert "isError" in run.stdout  # printed first, as any answer
    assert run.stderr == "fusion call: billing answered with isError: true\n"


DYING_SERVERS = {
    "exit code": (
        "import sys\nsys.stderr.write('no DATABASE_URL\\n')\nsys.exit(3)\n",
        "it exited with code 3",
    ),
    "signal": (
        "import os, signal\nos.kill(os.getpid(), signal.SIGKILL)\n",
        "it was killed by signal SIGKILL (9)",
    ),
}


@pytest.mark.parametrize("server", list(DYING_SERVERS))
@pytest.mark.parametrize(
    "command", [("list",), ("call", "billing", "list"), ("check", "--call", "billing", "list")]
)
def test_a_server_that_exits_at_start_is_a_usage_error_naming_its_status(
    tmp_path: Path, server: str, command: tuple[str, ...]
) -> None:
    """Every command against a server that dies: exit 4, its exit code or signal, no traceback."""
    source, status = DYING_SERVERS[server]
    script = tmp_path / "dies.py"
    script.write_text(source, encoding="utf-8")
    target = f"{sys.executable} {script}"
    run = _fusion(command[0], target, *command[1:])
    assert run.returncode == 4, run.stderr
    assert f"could not connect to the MCP server '{target}': {status}" in run.stderr
    assert "Traceback" not in run.stderr


def test_a_program_that_does_not_exist_is_a_usage_error() -> None:
    """A server command naming no program: exit 4, one line."""
    run = _fusion("list", "no-such-program-here")
    assert run.returncode == 4
    assert run.stderr.startswith("fusion list: could not connect")
    assert "Traceback" not in run.stderr


def test_serve_still_reports_usage_errors() -> None:
    """``serve`` is reached through the new command line and keeps its usage errors."""
    run = _fusion("serve", APP, "--port", "80")
    assert run.returncode == 2
    assert "need --http (stdio has no address)" in run.stderr


@pytest.mark.anyio
@pytest.mark.parametrize("case", ["not JSON", "deep nesting", "truncated"])
async def test_a_hostile_answer_is_one_clear_line_and_exit_one(case: str) -> None:
    """A server answering ``tools/call`` with a body the SDK cannot read: no traceback."""
    from tests._support.hostile_http import HOSTILE, hostile_asgi_app  # noqa: PLC0415

    async with serving_asgi(hostile_asgi_app(HOSTILE[case][0])) as url:
        run = await anyio.to_thread.run_sync(lambda: _fusion("call", url, "hostile"))
    assert run.returncode == 1, run.stderr
    assert run.stderr.startswith("fusion call: "), run.stderr
    assert "Traceback" not in run.stderr
