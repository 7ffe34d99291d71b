r"""One name per snapshot file: what the writer, pending files, clean-up and the clash check use.

A wire snapshot is stored as ``__snapshots__/<test file>/<stem>.wire`` (and,
pending review, ``<stem>.wire.new``). :func:`snapshot_stem` makes the stem
from the test's name (``TestClass.test_get[INV-1]``) and the assertion's index
(``.1`` for the second assertion, ``[totals]`` for ``fusion_snapshot(name="totals")``):

- **characters**: as syrupy cleans a file name, ``\ / ? * : | " < >`` and every
  character of Unicode category C (control, format, surrogate, unassigned,
  private use) are dropped; every other character is kept as the test id
  spells it (not normalized: the name stays the id's, as syrupy's);
- **length**: the longest file written for it, ``<stem>.wire.new``, fits in
  255 bytes of UTF-8 (the limit of ext4, APFS and, counted in UTF-16, NTFS);
  a longer stem is cut at a character boundary. A test name is cut to
  leave 16 bytes for the index (``.1``, ``[totals]``), then the index to fit,
  so ``test[<300 x>]`` and its second assertion are two files and every
  stem of a test starts with its first;
- **identity**: two stems name one file when they are equal after Unicode
  NFC normalization and lower case (:func:`file_key`), as on the default
  file systems of macOS and Windows: ``test[A]`` and ``test[a]``, or ``é``
  composed and decomposed, are one file there, so they are a clash everywhere;
- **reserved names**: a stem whose part before its first dot is a Windows
  device name (``CON``, ``PRN``, ``AUX``, ``NUL``, ``COM0``-``COM9``,
  ``LPT0``-``LPT9``, any case) cannot be a file on Windows
  (:func:`windows_reserved`); the test fails naming it. A stem never ends a
  file name, so a trailing dot or space (which Windows drops) cannot occur.

:func:`owner` says which test a stem belongs to, given the stems of the
tests of its folder: the longest test stem it extends by nothing, ``.N`` or
``[...]``. So ``test_get[a][b]`` is the test ``test_get[a][b]``'s when there is
one, and the custom-named snapshot ``b`` of ``test_get[a]`` only when there
is not.
"""

from __future__ import annotations

import os
import re
import unicodedata
from typing import TYPE_CHECKING, Final

from fusion_core._snapshot._suffixes import PENDING_SUFFIX

if TYPE_CHECKING:
    from collections.abc import Iterable

    from syrupy.types import SnapshotIndex

__all__ = [
    "INDEX_ROOM",
    "MAX_NAME_BYTES",
    "PENDING_SUFFIX",
    "SHARED_FILE_RULES",
    "NameTable",
    "clean",
    "file_key",
    "owner",
    "snapshot_stem",
    "windows_reserved",
]

MAX_NAME_BYTES: Final = 255
INDEX_ROOM: Final = 16  # bytes kept for ``.N`` or ``[name]`` after a cut test name
SHARED_FILE_RULES: Final = (
    'Snapshot file names drop \\ / ? * : | " < > and control characters, stop at 255 bytes, '
    "and are compared ignoring case and Unicode normalization (as macOS and Windows do)"
)
_DROPPED: Final = frozenset('\\/?*:|"<>')
# A name with nothing to drop, whose file name fits in any case (syrupy's answer as it is).
_PLAIN: Final = re.compile(r"\w[\w.\[\]-]{0,199}", re.ASCII)
_NUMBERED: Final = re.compile(r"\.[0-9]+")
_RESERVED: Final = frozenset(
    ["CON", "PRN", "AUX", "NUL"]
    + [f"{port}{n}" for port in ("COM", "LPT") for n in [*"0123456789", "¹", "²", "³"]]
)


def clean(name: str) -> str:
    """``name`` without the characters no file name may hold (syrupy's rule, see above)."""
    if _PLAIN.fullmatch(name) is not None:
        return name
    return "".join(
        char
        for char in name
        if char not in _DROPPED and not unicodedata.category(char).startswith("C")
    )


def _index_suffix(index: SnapshotIndex) -> str:
    """What syrupy appends to a test's name for an assertion: ``""``, ``.N`` or ``[name]``."""
    if isinstance(index, str):
        return f"[{index}]"
    return f".{index}" if index else ""


def _cut(text: str, budget: int) -> str:
    """The longest start of ``text`` whose UTF-8 fits in ``budget`` bytes (whole characters)."""
    encoded = text.encode("utf-8")
    if len(encoded) <= budget:
        return text
    return encoded[: max(budget, 0)].decode("utf-8", "ignore")


def snapshot_stem(test_name: str, index: SnapshotIndex, suffix: str) -> str:
    """The file stem of assertion ``index`` of the test named ``test_name``.

    ``suffix`` is the accepted file's (``.wire``); the pending file adds
    ``.new``, and both fit in :data:`MAX_NAME_BYTES`. A test name longer than
    the room less :data:`INDEX_ROOM` is cut to that for every index, so
    each of its stems starts with its first one (:func:`owner`).
    """
    base, tail = clean(test_name), clean(_index_suffix(index))
    budget = MAX_NAME_BYTES - len((suffix + PENDING_SUFFIX).encode("utf-8"))
    if len(base) > (budget - INDEX_ROOM) // 4:  # else it fits, whatever its characters
        base = _cut(base, budget - INDEX_ROOM)
    if tail and len(base) + len(tail) > budget // 4:
        tail = _cut(tail, budget - len(base.encode("utf-8")))
    return base + tail


def file_key(file_name: str) -> str:
    """What a case-insensitive, normalizing file system compares: NFC, lower case.

    Lower case letter by letter (``str.lower``), as APFS and NTFS compare
    (not full case folding: ``ß`` and ``SS`` are two files there).
    """
    return unicodedata.normalize("NFC", unicodedata.normalize("NFC", file_name).lower())


def windows_reserved(stem: str) -> str | None:
    """The Windows device name ``stem`` starts with (``CON`` of ``con.1``), if it does."""
    first = stem.split(".", maxsplit=1)[0].rstrip(" ")
    return first if first.upper() in _RESERVED else None


def owner(stem: str, test_stems: Iterable[str]) -> str | None:
    """The test stem (index 0) among ``test_stems`` that ``stem`` belongs to, if any.

    ``stem`` belongs to a test stem it equals or extends by ``.N`` or
    ``[...]`` (a cut custom name may have lost its ``]``); of several, the
    longest, since a longer one is a test of its own.
    """
    found: str | None = None
    for candidate in test_stems:
        if (found is None or len(candidate) > len(found)) and _extends(stem, candidate):
            found = candidate
    return found


def _extends(stem: str, base: str) -> bool:
    if not stem.startswith(base):
        return False
    rest = stem[len(base) :]
    return not rest or rest.startswith("[") or _NUMBERED.fullmatch(rest) is not None


class NameTable:
    """Which test claims which snapshot file, per session (and per xdist worker).

    Filled at collection with every ``fusion_snapshot`` test's first file
    (each worker collects every test, so each knows them all), then with each
    further file an assertion names (``.1``, ``[totals]``) as it runs. A file
    is compared by its folder and :func:`file_key`, so a claim fails before
    anything is written for a file another test or assertion already owns.
    Two custom names of tests run by two different workers are not compared.
    """

    __slots__ = ("_claims", "_stems", "suffix")

    def __init__(self, suffix: str) -> None:
        self.suffix = suffix
        self._stems: dict[str, set[str]] = {}
        self._claims: dict[tuple[str, str], tuple[str, SnapshotIndex]] = {}

    def claim(
        self, nodeid: str, index: SnapshotIndex, path: str
    ) -> tuple[str, SnapshotIndex] | None:
        """Record that assertion ``index`` of test ``nodeid`` uses file ``path``.

        Returns the test and index that already own that file, if another does
        (nothing is recorded then).
        """
        folder, name = os.path.split(path)
        key = (folder, file_key(name))
        claimant = self._claims.setdefault(key, (nodeid, index))
        if claimant == (nodeid, index):
            if index == 0:
                self._stems.setdefault(folder, set()).add(name[: -len(self.suffix) or None])
            return None
        return claimant

    def stems(self, folder: str) -> set[str]:
        """The first stems of the tests collected with a snapshot file in ``folder``."""
        return self._stems.get(folder, set())
