r"""Every form a value takes in text: what an error message can quote it as.

A handler's exception message quotes data the way Python writes it: an
f-string of a row writes each str by its ``repr()`` (``'a\nb'``: a newline
is two characters, a backslash doubled, a quote escaped or the other quote
chosen), ``json.dumps`` escapes non-ASCII (``\u00e9``), ``ascii()`` escapes it
another way, a ``datetime`` is written as ``datetime.datetime(2025, 1, 31,
...)`` by ``repr()`` and ``2025-01-31 10:00:00`` by ``str()``. Scrubbing a
hidden value from a message (``fusion_core._present._redact``) must find it
in each of these forms:

* :func:`leaf_texts` gives the texts of one scalar of the data (a str
  itself; an int or a float its ``repr``; a date its ``str``, ``repr`` and
  ISO form; a UUID also its hex; bytes their ``repr`` and their text; any
  other object its ``str`` and ``repr``);
* :func:`text_forms` gives the forms of one text: itself, the inside of its
  ``repr()``, ``ascii()`` and ``json.dumps`` (ASCII and not), its
  ``unicode_escape`` and the ``repr`` of its UTF-8 bytes, its HTML-escaped
  and URL-quoted forms.

A value changed by the handler's own code — cut, upper-cased, encoded in
base64 — is not one of these forms: ``docs/errors.md`` says to use
``expose_errors="type"`` or ``"none"`` when a message may carry one.
"""

from __future__ import annotations

import contextlib
import datetime
import html
import json
import urllib.parse
import uuid
from collections.abc import Iterator
from typing import Any

__all__ = ["leaf_texts", "text_forms"]


def leaf_texts(value: Any) -> Iterator[str]:
    """The texts a scalar of the data is written as (an int too long for ``str()``: none)."""
    if isinstance(value, str):
        yield str.__str__(value)  # a subclass's own __str__ may say otherwise
        if type(value) is not str:
            yield from _own_texts(value)
    elif isinstance(value, int | float):
        base = int if isinstance(value, int) else float
        with contextlib.suppress(ValueError):  # an int too long for str() is in no text
            yield base.__repr__(value)  # what json.dumps and an IntEnum's str() write
        if type(value) is not base and not isinstance(value, bool):
            yield from _own_texts(value)  # an IntEnum's repr names its member too
    elif isinstance(value, bytes | bytearray | memoryview):
        data = bytes(value)
        yield repr(data)
        yield data.decode("utf-8", "replace")
    else:
        with contextlib.suppress(Exception):  # a __str__ or __repr__ that raises
            yield str(value)
        with contextlib.suppress(Exception):
            yield repr(value)
        if isinstance(value, datetime.date | datetime.time):
            yield value.isoformat()
        elif isinstance(value, uuid.UUID):
            yield value.hex


def _own_texts(value: Any) -> Iterator[str]:
    """``str()`` and ``repr()`` of a subclass's value, as its own methods write them."""
    with contextlib.suppress(Exception):  # a __str__ or __repr__ that raises
        yield str(value)
    with contextlib.suppress(Exception):
        yield repr(value)


def text_forms(text: str) -> set[str]:
    """``text`` and the forms Python's writers give it inside a larger text."""
    forms = {
        text,
        repr(text)[1:-1],
        ascii(text)[1:-1],
        json.dumps(text)[1:-1],
        json.dumps(text, ensure_ascii=False)[1:-1],
        html.escape(text, quote=False),
        html.escape(text),
    }
    # Both quotes escaped, as a writer that always uses one quote would.
    escaped = text.replace("\\", "\\\\")
    forms.update({escaped.replace("'", "\\'"), escaped.replace('"', '\\"')})
    with contextlib.suppress(UnicodeError):
        forms.add(text.encode("unicode_escape").decode("ascii"))
        forms.add(repr(text.encode())[2:-1])
        forms.add(urllib.parse.quote(text, safe=""))
        forms.add(urllib.parse.quote_plus(text, safe=""))
    return forms
