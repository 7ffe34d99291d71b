r"""Strings matching a JSON Schema ``pattern``, drawn a whole run of characters at a time.

``hypothesis.strategies.from_regex`` draws a repeated character class
(``\d{3,}``, ``[a-z0-9]{1,12}``) as a list of one-character strings: one
choice per character, each with its own span and bookkeeping. The contract
tests draw such a pattern in nearly every example (an id of an action's
arguments), and measured it at 1.2-1.7 ms a draw, against about 0.5 ms for the
same values drawn as one ``st.text`` of that class.

:func:`pattern_strings` builds the same values from the parsed pattern for
the plain subset ids and codes are written in: literals, character classes
(ranges, ``\d``, ``\w``, ``\s``, negated classes, ``.``), groups,
alternation, repeats and the ``^``/``$`` anchors. A repeated character class
becomes one ``st.text`` over that class; the classes are hypothesis's own
(``\d`` is Unicode ``Nd``, ``\w`` the letters, numbers and ``_``, ``\s`` the
separators and ASCII spaces, every class UTF-8 encodable, as in
``from_regex``); every draw must still ``fullmatch`` the pattern, checked by a
filter unless every string built from the pattern matches it (literals,
ranges, ``\d``, edge anchors: an id's pattern), as a filter is one more
draw with its own span. Literals around one drawn part are added to it,
not drawn. Anything else (flags, lookarounds, backreferences, ``\b``, huge
ranges) is left to ``from_regex``.

Upstream coupling: the stdlib's regex parser (``re._parser``, ``re._constants``:
the module hypothesis's ``from_regex`` reads too), checked against CPython
3.11-3.13; ``tests/pytest_mcpfusion/test_patterns.py`` checks its shape.
"""

from __future__ import annotations

import importlib
import re
from typing import Any, Final

from hypothesis import strategies as st
from hypothesis.strategies import SearchStrategy

__all__ = ["pattern_strings"]

_parser: Any = importlib.import_module("re._parser")
_sre: Any = importlib.import_module("re._constants")

_RANGE_CHARS: Final = 4096  # characters a class may list; a wider one is from_regex's
_DIGIT: Final = ("Nd",)  # hypothesis's UNICODE_DIGIT_CATEGORIES
_WORD: Final = ("Lu", "Ll", "Lt", "Lm", "Lo", "Nd", "Nl", "No")  # L and N, plus "_"
_SPACE: Final = ("Zs", "Zl", "Zp")  # Z, plus the ASCII spaces and \x1c-\x1f, \x85
_SPACE_CHARS: Final = " \t\n\r\f\v\x1c\x1d\x1e\x1f\x85"
_ANCHORS: Final = frozenset(
    getattr(_sre, f"AT_{name}") for name in ("BEGINNING", "BEGINNING_STRING", "END", "END_STRING")
)
_STARTS: Final = frozenset((_sre.AT_BEGINNING, _sre.AT_BEGINNING_STRING))
_REPEATS: Final = frozenset(
    getattr(_sre, name) for name in ("MAX_REPEAT", "MIN_REPEAT", "POSSESSIVE_REPEAT")
)
# The classes \d, \w, \s: categories and characters, as hypothesis's from_regex draws them.
_CATEGORIES: Final = {
    _sre.CATEGORY_DIGIT: (_DIGIT, ""),
    _sre.CATEGORY_WORD: (_WORD, "_"),
    _sre.CATEGORY_SPACE: (_SPACE, _SPACE_CHARS),
}
_COMPLEMENTS: Final = {
    _sre.CATEGORY_NOT_DIGIT: _sre.CATEGORY_DIGIT,
    _sre.CATEGORY_NOT_WORD: _sre.CATEGORY_WORD,
    _sre.CATEGORY_NOT_SPACE: _sre.CATEGORY_SPACE,
}


class _UnsupportedError(Exception):
    """A construct left to ``from_regex``."""


def pattern_strings(pattern: re.Pattern[str]) -> SearchStrategy[str]:
    """Strings that ``pattern.fullmatch`` (what ``from_regex(pattern, fullmatch=True)`` draws)."""
    if pattern.flags & ~re.UNICODE:
        return st.from_regex(pattern, fullmatch=True)
    try:
        codes = _parser.parse(pattern.pattern, pattern.flags).data
        built = _sequence(codes)
    except _UnsupportedError:
        return st.from_regex(pattern, fullmatch=True)
    if _exact(codes, top=True):  # every string built matches: no filter to draw through
        return built
    return built.filter(pattern.fullmatch)


def _exact(codes: list[tuple[Any, Any]], *, top: bool = False) -> bool:
    r"""Whether every string :func:`_sequence` builds from ``codes`` is a full match.

    So for literals, ``.``, classes of literals, ranges and ``\d`` (Unicode
    ``Nd``, exactly ``str.isdecimal``, what ``\d`` matches), groups,
    alternation and greedy or lazy repeats (the regex backtracks through
    them), with ``^`` or ``\A`` only first and ``$`` or ``\Z`` only last.
    Not for a possessive repeat (``a*+a`` gives up no character), an anchor
    elsewhere, nor ``\w`` and ``\s``, whose categories are hypothesis's
    reading of Python's: the fullmatch filter stays for those.
    """
    last = len(codes) - 1
    for index, (code, value) in enumerate(codes):
        if code is _sre.AT:
            at = 0 if value in _STARTS else last  # ^ or \A first, $ or \Z last
            if not top or index != at:
                return False
        elif code is _sre.IN:
            if any(kind is _sre.CATEGORY and name is not _sre.CATEGORY_DIGIT
                   for kind, name in value):  # fmt: skip
                return False
        elif code is _sre.CATEGORY:
            if value is not _sre.CATEGORY_DIGIT:
                return False
        elif code is _sre.SUBPATTERN:
            if not _exact(value[3].data):
                return False
        elif code is _sre.BRANCH:
            if not all(_exact(branch.data) for branch in value[1]):
                return False
        elif code in (_sre.MAX_REPEAT, _sre.MIN_REPEAT):
            if not _exact(value[2].data):
                return False
        elif code not in (_sre.LITERAL, _sre.NOT_LITERAL, _sre.ANY):
            return False
    return True


def _sequence(codes: list[tuple[Any, Any]]) -> SearchStrategy[str]:
    parts: list[str | SearchStrategy[str]] = []  # literal text, or what is drawn
    for code, value in codes:
        if code is _sre.LITERAL:
            text = _char(value)
            if parts and isinstance(parts[-1], str):
                parts[-1] += text
            else:
                parts.append(text)
        elif code is _sre.AT:
            if value not in _ANCHORS:  # \b, \B
                raise _UnsupportedError(str(value))
            # matches the empty string; _exact or the fullmatch filter checks its place
        else:
            parts.append(_one(code, value))
    drawn = [part for part in parts if not isinstance(part, str)]
    if not drawn:
        return st.just("".join(parts))  # type: ignore[arg-type] # all str
    if len(drawn) == 1:  # literals around one drawn part: one draw, not one per part
        # Runs of literals are merged, so the parts are [before,] drawn[, after].
        at = parts.index(drawn[0])
        before, after = "".join(parts[:at]), "".join(parts[at + 1 :])  # type: ignore[arg-type]
        return drawn[0].map(_Around(before, after)) if before or after else drawn[0]
    return st.tuples(*[st.just(part) if isinstance(part, str) else part for part in parts]).map(
        "".join
    )


class _Around:
    """``before + drawn + after``, as a named callable (hypothesis prints strategies' maps)."""

    __slots__ = ("after", "before")

    def __init__(self, before: str, after: str) -> None:
        self.before, self.after = before, after

    def __call__(self, drawn: str) -> str:
        return f"{self.before}{drawn}{self.after}"

    def __repr__(self) -> str:
        return f"lambda s: {self.before!r} + s + {self.after!r}"


def _one(code: Any, value: Any) -> SearchStrategy[str]:
    alphabet = _alphabet(code, value)
    if alphabet is not None:
        return alphabet
    if code in _REPEATS:
        low, high, sub = value
        most = None if high == _sre.MAXREPEAT else high
        if len(sub.data) == 1:
            each = _alphabet(*sub.data[0])
            if each is not None:  # a run of one class: one draw
                return st.text(each, min_size=low, max_size=most)
        return st.lists(_sequence(sub.data), min_size=low, max_size=most).map("".join)
    if code is _sre.SUBPATTERN:
        _group, add_flags, del_flags, sub = value
        if add_flags or del_flags:
            raise _UnsupportedError("scoped flags")
        return _sequence(sub.data)
    if code is _sre.BRANCH:
        return st.one_of([_sequence(branch.data) for branch in value[1]])
    raise _UnsupportedError(str(code))


def _alphabet(code: Any, value: Any) -> SearchStrategy[str] | None:
    """The characters one single-character code matches; ``None`` for any other code."""
    if code is _sre.LITERAL:
        return st.characters(codec="utf-8", categories=(), include_characters=_char(value))
    if code is _sre.NOT_LITERAL:
        return st.characters(codec="utf-8", exclude_characters=_char(value))
    if code is _sre.ANY:
        return st.characters(codec="utf-8", exclude_characters="\n")
    if code is _sre.IN:
        return _class(value)
    if code is _sre.CATEGORY:  # Python 3.16+ writes a lone \d so
        return _class([(code, value)])
    return None


def _char(value: int) -> str:
    if 0xD800 <= value <= 0xDFFF:  # a lone surrogate: not UTF-8, never drawn by from_regex
        raise _UnsupportedError("a surrogate")
    return chr(value)


def _class(items: list[tuple[Any, Any]]) -> SearchStrategy[str]:
    r"""A character class: ``[...]``, ``[^...]``, ``\d``, ``\w``, ``\s`` and their complements."""
    negate = bool(items) and items[0][0] is _sre.NEGATE
    members = items[1:] if negate else items
    if len(members) == 1 and members[0][0] is _sre.CATEGORY and members[0][1] in _COMPLEMENTS:
        if negate:  # [^\D]
            raise _UnsupportedError("a negated complement")
        negate, members = True, [(_sre.CATEGORY, _COMPLEMENTS[members[0][1]])]
    categories: list[Any] = []  # general category names (hypothesis types them as literals)
    characters: list[str] = []
    for code, value in members:
        if code is _sre.LITERAL:
            characters.append(_char(value))
        elif code is _sre.RANGE:
            low, high = value
            if high - low >= _RANGE_CHARS or len(characters) >= _RANGE_CHARS:
                raise _UnsupportedError("a wide range")
            characters.extend(map(_char, range(low, high + 1)))
        elif code is _sre.CATEGORY and value in _CATEGORIES:
            names, extra = _CATEGORIES[value]
            categories.extend(names)
            characters.extend(extra)
        else:  # \D, \W, \S within a union of more
            raise _UnsupportedError(str(value))
    chars = "".join(dict.fromkeys(characters))
    if negate:
        return st.characters(codec="utf-8", exclude_categories=categories, exclude_characters=chars)
    if not categories and not chars:
        raise _UnsupportedError("an empty class")
    return st.characters(codec="utf-8", categories=categories, include_characters=chars)
