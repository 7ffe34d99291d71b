"""XML parsing that a hostile server's output cannot turn against the reader.

Fusion blocks are XML-like text from servers we do not control. Wherever the
library hands such text to lxml it goes through :func:`parse_xml`, which:

* refuses DTDs outright (``<!DOCTYPE`` / ``<!ENTITY`` → ``WireFormatError``),
  before lxml sees the text: Fusion never declares entities, and refusing
  them is what makes XXE (``SYSTEM "file:///etc/passwd"``) and entity bombs
  ("billion laughs") impossible rather than merely limited;
* uses a parser with ``resolve_entities=False``, ``no_network=True``,
  ``load_dtd=False`` and ``huge_tree=False`` as a second line of defence;
* reads at most :data:`MAX_XML_SIZE` characters per block.

Fusion writes characters that XML 1.0 cannot carry (C0 controls, lone
surrogates) as character references, as XML 1.1 does; such references are
read as U+FFFD here, because this module checks structure, not text (the
exact text comes from ``_text.unescape``).
"""

from __future__ import annotations

import re
from typing import Final

from lxml import etree

from fusion_core._errors import WireFormatError
from fusion_core._limits import MAX_XML_SIZE

__all__ = ["MAX_XML_SIZE", "new_parser", "parse_xml"]

_DTD: Final = re.compile(r"<!(?:DOCTYPE|ENTITY)", re.IGNORECASE)
# A character reference to what XML 1.0 cannot carry, and only that: a C0
# control but tab, newline and carriage return, a surrogate, U+FFFE, U+FFFF,
# or past U+10FFFF (``0*+`` takes leading zeros for good, so a value is read
# from its first significant digit; all zeros is U+0000; no digit, as in
# ``&#;``, is no reference: lxml refuses it). A block goes to lxml first and
# is rewritten only when lxml refuses a character in it: the pass costs 5-8x
# lxml's own decoding of the same references (Python's re tries the pattern
# at each one), and rewriting every block made legal ``&#65;`` cost 7-12x.
_ILLEGAL_REF: Final = re.compile(
    "&#(?:"
    "x(?:0++|0*+(?:"
    "[1-8BCEFbcef]|1[0-9A-Fa-f]"  # U+0001-U+0008, U+000B, U+000C, U+000E-U+001F
    "|[Dd][89A-Fa-f][0-9A-Fa-f]{2}|[Ff]{3}[EeFf]"  # U+D800-U+DFFF, U+FFFE, U+FFFF
    "|1[1-9A-Fa-f][0-9A-Fa-f]{4}|[2-9A-Fa-f][0-9A-Fa-f]{5}|[1-9A-Fa-f][0-9A-Fa-f]{6,}"
    "))"
    "|0++|0*+(?:"
    "[1-8]|1[124-9]|2[0-9]|3[01]"  # 1-8, 11, 12, 14-31
    "|5529[6-9]|55[3-9][0-9]{2}|56[0-9]{3}|57[0-2][0-9]{2}|573[0-3][0-9]|5734[0-3]"
    "|6553[45]"
    "|111411[2-9]|11141[2-9][0-9]|1114[2-9][0-9]{2}|111[5-9][0-9]{3}|11[2-9][0-9]{4}"
    "|1[2-9][0-9]{5}|[2-9][0-9]{6}|[1-9][0-9]{7,}"  # 1114112 and more
    ")"
    ");"
)
# lxml's errors for a character or character reference it refuses (one of
# a value too large to read is "invalid hexadecimal value", not "invalid char").
_REFUSED_CHAR: Final = frozenset(
    (
        etree.ErrorTypes.ERR_INVALID_HEX_CHARREF,
        etree.ErrorTypes.ERR_INVALID_DEC_CHARREF,
        etree.ErrorTypes.ERR_INVALID_CHARREF,
        etree.ErrorTypes.ERR_INVALID_CHAR,
    )
)


def new_parser() -> etree.XMLParser:
    """A fresh hardened lxml parser (parsers must not be shared across threads)."""
    return etree.XMLParser(
        resolve_entities=False,
        no_network=True,
        load_dtd=False,
        dtd_validation=False,
        huge_tree=False,
        recover=False,
        collect_ids=False,
    )


def parse_xml(text: str, *, block: int | None = None) -> etree._Element:
    """Parse one block as an XML element, safely; ``WireFormatError`` if it is not one."""
    if len(text) > MAX_XML_SIZE:
        msg = f"the block is {len(text)} characters; XML blocks are read up to {MAX_XML_SIZE}"
        raise WireFormatError(msg, block=block)
    if _DTD.search(text):
        msg = "the block declares a DTD or entities (<!DOCTYPE/<!ENTITY); Fusion never does"
        raise WireFormatError(msg, block=block)
    try:
        data = text.encode()
    except UnicodeEncodeError:
        msg = "the block contains a lone surrogate; write it as a character reference"
        raise WireFormatError(msg, block=block) from None
    try:
        return etree.fromstring(data, new_parser())
    except etree.XMLSyntaxError as exc:
        error = exc
    # lxml refuses every reference _ILLEGAL_REF matches, and stops at its
    # first error: only a block refused for a character pays for the pass.
    rewritten = 0
    code = getattr(error, "code", None)  # ParseError.code, absent from lxml-stubs 0.5
    if code in _REFUSED_CHAR and "&#" in text:
        readable, rewritten = _ILLEGAL_REF.subn("&#xFFFD;", text)
    if rewritten:
        try:
            return etree.fromstring(readable.encode(), new_parser())
        except etree.XMLSyntaxError as exc:
            error = exc
    msg = f"the block is not well-formed XML: {error}"
    raise WireFormatError(msg, block=block) from None
