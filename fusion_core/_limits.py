"""One size policy for every writer and reader of Fusion responses.

The rule is simple: **whatever the library writes, it reads back.** So there
is one limit on what a response may hold, and every component derives its
own bound from it instead of inventing one:

* the **writer** (every :class:`~fusion_core.ToolResponse`, hence ``build()``
  and the response helpers) refuses a response whose content text is longer
  than :data:`MAX_RESPONSE_SIZE` characters, with a :class:`SizeLimitError`
  saying how large it is;
* the **reader** (:func:`~fusion_core.parse`, :func:`~fusion_core.check`)
  reads every response up to that size, and refuses larger ones with its own
  ``WireFormatError``; JSON text handed to it may be up to
  :data:`MAX_MESSAGE_SIZE` long (bytes or characters);
* the **client** and the **plugin** accept messages up to
  :data:`MAX_MESSAGE_SIZE` bytes. The MCP SDK's HTTP client refuses a
  server-sent event larger than 1 MiB unless told otherwise
  (``max_sse_event_size``); the stdio transport has no limit. Whoever opens a
  transport passes :data:`MAX_MESSAGE_SIZE`, so a response the writer accepts
  is never cut off in transit.

Why these numbers: 1 GiB of text is far beyond what any model reads (a large
context is a few MB), yet a million rows of tabular JSON (about 120 MB) fits
many times over, so no real response hits the limit and a hostile one cannot
make a reader hold unbounded memory. Every reader is linear in its input
(tests/fusion_core/_read/test_linearity.py), so time is bounded by size alone.

:data:`MAX_XML_SIZE` is a separate, smaller bound only for the optional XML
well-formedness check that :func:`~fusion_core.check` runs on a malformed
envelope: lxml refuses text nodes over 10 MB without ``huge_tree``, which a
reader of hostile text must not enable.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Final

from fusion_core._errors import SizeLimitError

__all__ = [
    "MAX_MESSAGE_SIZE",
    "MAX_RESPONSE_SIZE",
    "MAX_XML_SIZE",
    "require_response_size",
]

MAX_RESPONSE_SIZE: Final = 1 << 30
"""Most characters of text all content blocks of one response may hold: 1 GiB."""

MAX_MESSAGE_SIZE: Final = 4 * MAX_RESPONSE_SIZE
"""Most bytes (or characters) of JSON text of one response or MCP message: 4 GiB.

Four times :data:`MAX_RESPONSE_SIZE`: room for the UTF-8 of any character
(at most 4 bytes) and for a ``structuredContent`` copy of the data. Only text
made mostly of escaped control characters has a longer JSON form; such a
response is still read from the dict or the ``ToolResponse`` itself.
"""

MAX_XML_SIZE: Final = 10 * 1024 * 1024
"""Most characters of one block handed to lxml for a well-formedness check: 10 MiB."""


def require_response_size(texts: Iterable[str]) -> None:
    """Raise :class:`SizeLimitError` if ``texts`` together exceed :data:`MAX_RESPONSE_SIZE`."""
    size = sum(map(len, texts))
    if size > MAX_RESPONSE_SIZE:
        msg = (
            f"the response holds {size:,} characters of text; a Fusion response holds at "
            f"most {MAX_RESPONSE_SIZE:,} (fusion_core.MAX_RESPONSE_SIZE): page the data instead"
        )
        raise SizeLimitError(msg, size=size, limit=MAX_RESPONSE_SIZE)
