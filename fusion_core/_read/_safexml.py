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
from fusion_core._write._text import sub_distinct

__all__ = ["MAX_XML_SIZE", "new_parser", "parse_xml"]

_DTD: Final = re.compile(r"<!(?:DOCTYPE|ENTITY)", re.IGNORECASE)
_CHAR_REF: Final = re.compile(r"&#(x[0-9A-Fa-f]+|[0-9]+);")


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


def _xml_char(code: int) -> bool:
    return (
        code in (0x9, 0xA, 0xD)
        or 0x20 <= code <= 0xD7FF
        or 0xE000 <= code <= 0xFFFD
        or 0x10000 <= code <= 0x10FFFF
    )


def _legal_ref(number: str) -> str:
    hexadecimal = number[0] == "x"
    # Leading zeros are legal; past them, more than 7 digits is out of range
    # (and int() of thousands of digits is slow, then refused).
    digits = (number[1:] if hexadecimal else number).lstrip("0") or "0"
    if len(digits) > 7:
        return "&#xFFFD;"
    code = int(digits, 16 if hexadecimal else 10)
    return f"&#{number};" if _xml_char(code) else "&#xFFFD;"


def parse_xml(text: str, *, block: int | None = None) -> etree._Element:
    """Parse one block as an XML element, safely; ``WireFormatError`` if it is not one."""
    if len(text) > MAX_XML_SIZE:
        msg = f"the block is {len(text)} characters; XML blocks are read up to {MAX_XML_SIZE}"
        raise WireFormatError(msg, block=block)
    if _DTD.search(text):
        msg = "the block declares a DTD or entities (<!DOCTYPE/<!ENTITY); Fusion never does"
        raise WireFormatError(msg, block=block)
    if "&#" in text:
        text = sub_distinct(_CHAR_REF, _legal_ref, text)
    try:
        data = text.encode()
    except UnicodeEncodeError:
        msg = "the block contains a lone surrogate; write it as a character reference"
        raise WireFormatError(msg, block=block) from None
    try:
        return etree.fromstring(data, new_parser())
    except etree.XMLSyntaxError as exc:
        msg = f"the block is not well-formed XML: {exc}"
        raise WireFormatError(msg, block=block) from None
