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
from tests._support.raw_answers import RESULT as RAW_RESULT
from tests._support.raw_answers import raw_asgi_app, raw_stdio_server
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
    """``--help`` lists serve, list, call, check and review."""
    run = _fusion("--help")
    assert run.returncode == 0
    for command in ("serve", "list", "call", "check", "review"):
        assert f"    {command}" in run.stdout


def test_the_fusion_script_and_both_aliases_run_review(tmp_path: Path) -> None:
    """``fusion review`` and its aliases ``python -m fusion_core`` / ``pytest_mcpfusion review``.

    The same command: the same listing of a pending snapshot, exit 1 while it waits.
    """
    _pending_snapshot(tmp_path)
    scripts = Path(sys.executable).parent
    runs = [
        [str(scripts / "fusion"), "review", "--list", str(tmp_path)],
        [sys.executable, "-m", "fusion_core", "review", "--list", str(tmp_path)],
        [sys.executable, "-m", "pytest_mcpfusion", "review", "--list", str(tmp_path)],
    ]
    outputs = []
    for argv in runs:
        ran = subprocess.run(argv, capture_output=True, text=True, check=False, timeout=180)
        assert ran.returncode == 1, ran.stderr
        outputs.append(ran.stdout)
    assert outputs[0] == outputs[1] == outputs[2]
    assert outputs[0].endswith("1 pending\n")
    assert "test_get" in outputs[0]


def test_review_never_imports_pytest(tmp_path: Path) -> None:
    """``fusion review`` runs with pytest blocked: the review lives in fusion_core."""
    _pending_snapshot(tmp_path)
    blocked = "import sys\nsys.modules['pytest'] = None\nsys.modules['_pytest'] = None\n"
    argv = ["review", "--accept", str(tmp_path)]
    code = blocked + f"from fusion_core._cli._main import main\nsys.exit(main({argv!r}))\n"
    ran = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=False, timeout=180
    )
    assert ran.returncode == 0, ran.stderr
    assert ran.stdout.startswith("accepted: ")


def _pending_snapshot(folder: Path) -> Path:
    """A pending ``test_get.wire.new`` beside its accepted ``.wire``, under ``folder``."""
    from fusion_core import response  # noqa: PLC0415
    from fusion_core._snapshot._format import dump_snapshot  # noqa: PLC0415

    snapshots = folder / "__snapshots__" / "test_wire"
    snapshots.mkdir(parents=True)
    (snapshots / "test_get.wire").write_text(dump_snapshot(response({"a": 1}).build()))
    pending = snapshots / "test_get.wire.new"
    pending.write_text(dump_snapshot(response({"a": 2}).build()))
    return pending


@pytest.mark.parametrize(
    "command",
    [
        ("list", APP),
        ("call", APP, "billing", "invoices.list"),
        ("call", APP, "billing", "invoices.list", "--raw"),
        ("check", APP, "--call", "billing", "invoices.list"),
        ("review", "--list", "{tmp}"),
        ("review", "--format=markdown", "{tmp}"),
    ],
)
def test_a_reader_that_goes_away_ends_the_command_quietly(
    command: tuple[str, ...], tmp_path: Path
) -> None:
    """``fusion ... | head``: a stdout closed before the output is written ends in silence.

    No ``[Errno 32] Broken pipe``, no traceback, nothing on stderr; exit 1
    (the Python docs' recipe for SIGPIPE).
    """
    _pending_snapshot(tmp_path)
    argv = [word.format(tmp=tmp_path) for word in command]
    process = subprocess.Popen(
        [sys.executable, "-m", "fusion_core", *argv],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        cwd=ROOT,
    )
    assert process.stdout is not None
    assert process.stderr is not None
    process.stdout.close()  # the reader is gone before the first byte
    try:
        errors = process.stderr.read()
        status = process.wait(timeout=180)
    finally:
        process.stderr.close()
    assert errors == b"", errors.decode(errors="replace")
    assert status == 1


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


def test_call_raw_of_an_app_spec_prints_the_result_dict_in_its_own_order() -> None:
    """In process no bytes travel: ``--raw`` is ``json.dumps`` of the result, keys as built."""
    run = _fusion(
        "call", APP, "billing", "invoices.get", "--json", '{"invoice_id": "INV-404"}', "--raw"
    )
    assert run.returncode == 1, run.stderr  # the answer is isError: true
    wire = json.loads(run.stdout)
    assert wire["isError"] is True
    assert 'code="INVOICE_NOT_FOUND"' in wire["content"][0]["text"]
    assert run.stdout == json.dumps(wire, ensure_ascii=False) + "\n"


def _spelled_by_us(text: str) -> list[str]:
    """The ways our own encoder would write ``text``'s value (none of them is ``text``)."""
    value = json.loads(text)
    return [
        json.dumps(value, **options)
        for options in ({}, {"sort_keys": True}, {"ensure_ascii": False, "indent": 2})
    ]


def test_call_raw_over_stdio_prints_the_result_as_the_server_sent_it(tmp_path: Path) -> None:
    r"""``--raw`` over stdio: the result's text byte for byte (order, ``1E2``, ``\u00e9``)."""
    assert RAW_RESULT not in _spelled_by_us(RAW_RESULT)
    run = _fusion("call", raw_stdio_server(tmp_path), "anything", "--raw")
    assert run.returncode == 0, run.stderr
    assert run.stdout == RAW_RESULT + "\n"


@pytest.mark.anyio
@pytest.mark.parametrize("sse", [False, True], ids=["json-body", "event-stream"])
async def test_call_raw_over_http_prints_the_result_as_the_server_sent_it(sse: bool) -> None:
    """``--raw`` over streamable HTTP, a JSON body or a server-sent event after a notification."""
    async with serving_asgi(raw_asgi_app(sse=sse)) as url:
        run = await anyio.to_thread.run_sync(lambda: _fusion("call", url, "anything", "--raw"))
    assert run.returncode == 0, run.stderr
    assert run.stdout == RAW_RESULT + "\n"


def test_call_raw_to_a_terminal_is_shown_not_obeyed(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """On a terminal the server's text is shown terminal-safe; into a pipe it stays as sent."""
    from fusion_core._cli import _main  # noqa: PLC0415

    monkeypatch.setattr(sys.stdout, "isatty", lambda: True)
    _main._print_raw('{"text": "\u202eevil\u009b"}')
    assert capsys.readouterr().out == '{"text": "⟨U+202E⟩evil⟨U+009B⟩"}\n'


def test_call_without_raw_still_prints_the_blocks_of_such_a_server(tmp_path: Path) -> None:
    """The block view reads the same answer (it is the bytes' value, shown as snapshots do)."""
    run = _fusion("call", raw_stdio_server(tmp_path), "anything")
    assert run.returncode == 0, run.stderr
    assert run.stdout.startswith("isError: false\nstructuredContent · ")
    assert '── block 0 · data · 11 chars\n{"z": 1.50}\n' in run.stdout


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
    assert f"could not connect to the MCP server '{target}': {status} before answering\n" in (
        run.stderr
    )
    assert "Connection closed" not in run.stderr
    assert "Traceback" not in run.stderr


def test_a_server_that_exits_at_start_is_reported_with_the_tail_of_its_stderr(
    tmp_path: Path,
) -> None:
    """The error line, then the server's last stderr lines: bounded, each shown terminal-safe."""
    script = tmp_path / "dies.py"
    script.write_text(
        "import sys\n"
        "for n in range(40):\n"
        "    sys.stderr.write(f'line {n}\\n')\n"
        "sys.stderr.write('\\x1b[2Jconfig error: ' + 'x' * 5000 + '\\n')\n"
        "sys.exit(3)\n",
        encoding="utf-8",
    )
    target = f"{sys.executable} {script}"
    run = _fusion("list", target)
    assert run.returncode == 4, run.stderr
    error = run.stderr[run.stderr.index("fusion list: ") :].splitlines()
    assert error[0].endswith("it exited with code 3 before answering")
    assert error[1] == "the server's stderr (last lines):"
    assert error[2:-1] == [f"  | line {n}" for n in range(29, 40)]  # the last 12 lines
    assert error[-1].startswith("  | ⟨U+001B⟩[2Jconfig error: xxx")
    assert error[-1].endswith("…")
    assert len(error[-1]) < 320
    assert "\x1b" not in run.stderr


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
