"""Server text on a terminal: shown, never obeyed (issue 25.8), and one-line CLI errors (25.9).

The hostile table (``tests/_support/hostile_terminal``) holds the class of
input: every C0 and C1 control, DEL, CSI/OSC/DCS sequences and their 8-bit
forms, lone CR, backspace, bidi controls, zero-width characters, a lone
surrogate. A server puts one (or all at once) into every field it controls,
and each ``fusion`` command that prints it runs against that server.
"""

from __future__ import annotations

import logging
import subprocess
import sys
from pathlib import Path

import pytest
from pydantic import BaseModel, ValidationError

from fusion_core._terminal import SafeLogFilter, one_line, terminal_safe
from tests._support.hostile_terminal import (
    ALL_HOSTILE,
    HOSTILE_TEXTS,
    hostile_server,
    unsafe_characters,
)

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize("name", sorted(HOSTILE_TEXTS))
def test_terminal_safe_leaves_nothing_a_terminal_acts_on(name: str) -> None:
    """Every hostile character becomes a visible mark; the text around it stays."""
    text = HOSTILE_TEXTS[name]
    shown = terminal_safe(text)
    assert unsafe_characters(shown) == []
    assert "\n" not in shown
    assert "⟨U+" in shown or "␍" in shown
    for part in ("a", "b") if text.startswith("a") and text.endswith("b") else ():
        assert part in shown


def test_terminal_safe_keeps_printable_text_and_lines_when_asked() -> None:
    """Letters, other scripts, emoji and spaces are unchanged; LF stays only in multiline."""
    text = "Ünïcode 日本語 emoji 👍🏽 ❤️ tabs and spaces"
    assert terminal_safe(text) == text
    assert terminal_safe("a\nb", multiline=True) == "a\nb"
    assert terminal_safe("a\nb") == "a⟨U+000A⟩b"
    assert terminal_safe("a\r\nb", multiline=True) == "a␍\nb"


def test_one_line_of_a_validation_error_names_each_place_and_reason() -> None:
    """Pydantic's multi-line error (quoting the input) becomes one line of locations."""

    class Listing(BaseModel):
        name: str
        size: int

    with pytest.raises(ValidationError) as info:
        Listing.model_validate({"name": ["\x1b[2J"], "size": "x"})
    line = one_line(info.value)
    assert line == (
        "name: Input should be a valid string; size: Input should be a valid integer, "
        "unable to parse string as an integer"
    )


def test_the_log_formatter_shows_what_a_client_sent() -> None:
    """A log record quoting a client's bytes (message and traceback) is terminal-safe."""
    try:
        raise ValueError("bad \x1b]0;title\x07 input")
    except ValueError:
        record = logging.LogRecord(
            "x", logging.ERROR, __file__, 1, "tool \x1b[2J%s", ("\u202ename",), sys.exc_info()
        )
    assert SafeLogFilter().filter(record)
    text = logging.Formatter("%(message)s").format(record)
    assert unsafe_characters(text) == []
    assert "tool ⟨U+001B⟩[2J⟨U+202E⟩name" in text
    assert "bad ⟨U+001B⟩]0;title⟨U+0007⟩ input" in text


def _fusion(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "fusion_core", *args],
        capture_output=True,
        text=True,
        errors="surrogateescape",
        cwd=ROOT,
        check=False,
        timeout=120,
    )


# Each row: the command's words after the target, the exit status, and the
# stream that shows the server's text.
CLI_PATHS: dict[str, tuple[tuple[str, ...], int]] = {
    "list: names, actions, descriptions": (("list",), 0),
    "call: block text": (("call", "{target}", "plain"), 0),
    "call: error envelope": (("call", "{target}", "t" + "{text}"), 1),  # isError: exit 1
    "call: JSON-RPC error message": (("call", "{target}", "fails"), 1),
    "call: stderr of a server that exits": (("call", "{target}", "exits"), 1),
    "check: violations": (("check", "{target}", "--call", "plain"), 1),
}


@pytest.mark.parametrize("path", sorted(CLI_PATHS))
def test_no_server_text_reaches_the_terminal_raw_on_any_cli_path(path: str, tmp_path: Path) -> None:
    """Every hostile character at once, on each path: stdout and stderr hold none raw."""
    words, status = CLI_PATHS[path]
    text = ALL_HOSTILE.replace("\x00", "")  # argv cannot carry NUL (the tool name is one)
    target = hostile_server(tmp_path, text)
    args = [w.replace("{target}", target).replace("{text}", text) for w in words]
    if args[0] == "list":
        args.append(target)
    run = _fusion(*args)
    assert run.returncode == status, run.stderr
    assert unsafe_characters(run.stdout) == [], path
    assert unsafe_characters(run.stderr) == [], path
    assert "⟨U+001B⟩" in run.stdout + run.stderr  # shown, not dropped
    assert "Traceback" not in run.stderr


def test_call_raw_keeps_the_exact_wire(tmp_path: Path) -> None:
    """``--raw`` is the wire JSON: the server's bytes (its own JSON escapes), not marked."""
    run = _fusion("call", hostile_server(tmp_path, "\x1b[2J\u202e"), "plain", "--raw")
    assert run.returncode == 0, run.stderr
    # The server writes with json.dumps (ASCII escapes): exactly those bytes arrive.
    assert '"text": "\\u001b[2J\\u202e"' in run.stdout
    assert "⟨U+" not in run.stdout


@pytest.mark.parametrize("name", ["CSI clear screen", "lone CR", "RLO override", "C1 U+009B"])
def test_a_definition_the_sdk_refuses_is_one_line(name: str, tmp_path: Path) -> None:
    """Issue 25.9: ``fusion list`` names the field and the reason in one line, exit 1."""
    run = _fusion("list", hostile_server(tmp_path, HOSTILE_TEXTS[name], refused=True))
    assert run.returncode == 1
    error = run.stderr.splitlines()[-1]
    assert error.startswith("fusion list: ")
    assert error.endswith(
        "answered tools/list with a result the MCP SDK refuses: "
        "tools.0.name: Input should be a valid string"
    )
    assert "validation error for" not in run.stderr
    assert unsafe_characters(run.stderr) == []


def test_a_lone_surrogate_from_a_server_is_one_safe_line(tmp_path: Path) -> None:
    """JSON with a lone surrogate: the SDK cannot read it; the error says so in one line."""
    run = _fusion("list", hostile_server(tmp_path, HOSTILE_TEXTS["lone surrogate"]))
    assert run.returncode == 1
    error = run.stderr.splitlines()[-1]
    assert error.startswith("fusion list: ")
    assert "cannot parse" in error
    assert unsafe_characters(run.stderr) == []
