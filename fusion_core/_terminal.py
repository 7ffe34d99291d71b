"""Text from a server, made safe to print on a terminal: the one function for it.

A server controls its tool and action names, descriptions, error codes and
messages, block text, schema keys and its stderr. Printed raw, an ESC starts
a control sequence (set the window title, clear the screen, hide a
hyperlink behind text), a CR or backspace overwrites what was printed
before, and a bidi override or a zero-width character makes the text read
differently from its bytes. :func:`terminal_safe` shows every such character
as a visible mark instead (``⟨U+001B⟩``, CR as ``␍``), so the escape
sequence that follows is inert text; every path that prints server text
(the ``fusion`` command line, its server's log, the pytest plugin's failure
screens, warnings and terminal summary, snapshot review) goes through it.
Snapshots and ``fusion call --raw`` keep the exact bytes.
"""

from __future__ import annotations

import contextlib
import logging
import os
import re
import threading
from collections.abc import Iterator
from typing import Final, TextIO

__all__ = ["SafeLogFilter", "one_line", "safe_stderr", "show_invisible", "terminal_safe"]

_ONE_LINE_CHARS: Final = 300  # of an error's own text, in a one-line message
_SHOWN_ERRORS: Final = 3  # of a validation error's list

# Characters a reader cannot see or tell apart from a space, or that a
# terminal acts on: controls (C0 with tab, DEL, C1 — ESC, BEL, backspace, the
# 8-bit CSI/OSC/DCS), format characters (zero-width, bidi embeddings,
# overrides and isolates, BOM, soft hyphen), spaces other than U+0020, line
# and paragraph separators, fillers, variation selectors, lone surrogates
# (which print() cannot even encode) and tags. CR has its own mark; LF is
# kept in multi-line text. The emoji and text presentation selectors
# (U+FE0E, U+FE0F) are left alone: they change how the glyph before them
# looks, and emoji-rich rules would drown in marks.
_INVISIBLE: Final = re.compile(
    "[\x00-\x09\x0b\x0c\x0e-\x1f\x7f-\xa0\xad\u034f\u061c\u115f\u1160\u1680"
    "\u180b-\u180f\u2000-\u200f\u2028-\u202f\u205f-\u206f\u3000\u3164"
    "\ud800-\udfff\ufe00-\ufe0d\ufeff\uffa0\ufff9-\ufffb"
    "\U000e0000-\U000e0fff]"
)


def _mark(match: re.Match[str]) -> str:
    return f"⟨U+{ord(match.group()):04X}⟩"


def show_invisible(text: str) -> str:
    """``text`` with CR as ``␍`` and every invisible character as ``⟨U+XXXX⟩``; LF kept."""
    return _INVISIBLE.sub(_mark, text.replace("\r", "␍"))


def terminal_safe(text: object, *, multiline: bool = False) -> str:
    """``str(text)`` as a terminal may print it: no character it acts on or hides.

    Every control, format and invisible character is shown as ``⟨U+XXXX⟩``
    (CR as ``␍``); printable text, emoji and other scripts are unchanged. One
    line stays one line (LF shown as ``⟨U+000A⟩``) unless ``multiline``.
    """
    shown = show_invisible(str(text))
    return shown if multiline else shown.replace("\n", "⟨U+000A⟩")


def one_line(error: BaseException) -> str:
    """An error as one short, terminal-safe line (for a message that quotes it).

    A pydantic ``ValidationError`` (what the MCP SDK raises on an answer its
    models refuse) prints a dozen lines quoting the input: here it is each
    error's location and reason (``tools.0.name: Input should be a valid
    string``), the first few and a count. Anything else is its text with line
    breaks shown, cut at 300 characters.
    """
    errors = getattr(error, "errors", None)
    if callable(error_count := getattr(error, "error_count", None)) and callable(errors):
        listed = [
            f"{'.'.join(str(part) for part in item.get('loc', ())) or '(root)'}: {item.get('msg')}"
            for item in errors()[:_SHOWN_ERRORS]
        ]
        more = error_count() - len(listed)
        text = "; ".join(listed) + (f"; and {more} more" if more > 0 else "")
    else:
        text = str(error)
    if len(text) > _ONE_LINE_CHARS:
        text = text[: _ONE_LINE_CHARS - 1] + "…"
    return terminal_safe(text)


class SafeLogFilter(logging.Filter):
    """Makes every record it sees terminal-safe: message, arguments and traceback.

    A log line quotes what a client sent (a path, a header, a tool name, an
    exception raised on its input). Set on a handler, it works with any
    formatter (uvicorn's too): the message is formatted and made safe, and so
    is the traceback, line breaks kept.
    """

    def filter(self, record: logging.LogRecord) -> bool:
        """Rewrite ``record`` safely; keep it."""
        record.msg = terminal_safe(record.getMessage(), multiline=True)
        record.args = None
        if record.exc_info and not record.exc_text:
            record.exc_text = logging.Formatter().formatException(record.exc_info)
        if record.exc_text:
            record.exc_text = terminal_safe(record.exc_text, multiline=True)
        if record.stack_info:
            record.stack_info = terminal_safe(record.stack_info, multiline=True)
        return True


@contextlib.contextmanager
def safe_stderr(target: TextIO) -> Iterator[TextIO]:
    """A file for a child process's stderr whose lines reach ``target`` terminal-safe.

    The child writes to the pipe's descriptor (the SDK needs a real one); a
    thread copies each line on as it comes, so the server's stderr is still
    seen live, and not obeyed.
    """
    read_end, write_end = os.pipe()
    writer = os.fdopen(write_end, "w", encoding="utf-8")

    def pump() -> None:
        with os.fdopen(read_end, "rb") as source:
            for line in source:
                text = line.decode("utf-8", "replace").removesuffix("\n")
                target.write(terminal_safe(text) + "\n")
                target.flush()

    thread = threading.Thread(target=pump, name="fusion-stderr", daemon=True)
    thread.start()
    try:
        yield writer
    finally:
        writer.close()
        # A server's own children may hold the pipe open: do not wait for them.
        thread.join(timeout=2)
