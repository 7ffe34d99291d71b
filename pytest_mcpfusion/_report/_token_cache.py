"""What the report's tokenizer keeps in pytest's cache between runs: its ranks and its counts.

Both are files of ``.pytest_cache/d/mcpfusion``, framed the same way: a
magic line, the SHA-256 of the payload, the payload (``marshal``). A file
is used only when its frame holds, is never read past :data:`MAX_BYTES`,
and is written whole, then renamed into place (an xdist worker reading it
meanwhile sees the old file or the new, never half of one); one that cannot
be written is skipped.

**The counts (a measured reason).** A ``--fusion`` run of a suite sends the
same calls as the run before it (the contract tests' seeds are fixed) and
counts the same texts: on the bundled example, counting them again was
0.04-0.07 s of the 0.45 s run, the ranks' load (0.01-0.02 s) included.
:class:`CountCache` keeps the count of each text by a 16-byte BLAKE2b digest
of it, so a text counted by an earlier run is neither split nor merged and,
when every text of a run was, the ranks are not loaded at all. The counts
belong to one tokenizer: the file's name holds the encoding's SHA-256, the
counting's version (:data:`COUNTING`), the interpreter, and the installed
``regex`` and ``tiktoken`` (their files' sizes and times: an upgrade is a
new file), so counts made by another never count here.
"""

from __future__ import annotations

import contextlib
import hashlib
import importlib.util
import marshal
import os
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Final

__all__ = ["COUNTING", "MAX_BYTES", "CountCache", "digest", "read_framed", "write_framed"]

MAX_BYTES: Final = 8 << 20
"""The largest cache file read (cl100k's ranks take 1.6 MB, a run's counts a few KB)."""
COUNTING: Final = 1
"""The version of how a text is counted: a change to the split or the merge bumps it."""
MAX_COUNTS: Final = 1 << 16
"""Texts whose counts the file keeps: past it, only the last run's."""

_COUNTS_MAGIC: Final = b"pytest-mcpfusion token counts 1\n"


def read_framed(path: Path, magic: bytes) -> bytes | None:
    """The payload of a cache file whose frame holds; ``None`` if missing, damaged or too big."""
    try:
        if path.stat().st_size > MAX_BYTES:  # not ours: never read a huge file whole
            return None
        blob = path.read_bytes()
    except OSError:
        return None
    digest_line, _, payload = blob.removeprefix(magic).partition(b"\n")
    if not blob.startswith(magic) or hashlib.sha256(payload).hexdigest().encode() != digest_line:
        return None
    return payload


def write_framed(directory: Path, target: Path, magic: bytes, payload: bytes) -> None:
    """Write ``payload`` framed to ``target``, atomically; nothing if it cannot be written."""
    blob = magic + hashlib.sha256(payload).hexdigest().encode() + b"\n" + payload
    try:
        handle, name = tempfile.mkstemp(dir=directory, prefix=f".{target.stem[:24]}-")
    except OSError:
        return
    try:
        with os.fdopen(handle, "wb") as out:
            out.write(blob)
        os.replace(name, target)
    except OSError:
        with contextlib.suppress(OSError):
            os.unlink(name)


def digest(text: str) -> bytes:
    """The key of a text's count (lone surrogates kept, as the count sees them)."""
    return hashlib.blake2b(text.encode("utf-8", "surrogatepass"), digest_size=16).digest()


class CountCache:
    """Token counts of texts earlier runs counted, by :func:`digest`; read on first use.

    ``directory()`` is the run's cache folder (``None``: nothing is read or
    written); ``encoding`` the encoding's SHA-256. :meth:`save` writes the
    counts back when this run counted a text none had.
    """

    __slots__ = ("_directory", "_encoding", "_fresh", "_known", "_path", "_used")

    def __init__(self, directory: Callable[[], Path | None], encoding: str) -> None:
        self._directory: Callable[[], Path | None] | None = directory
        self._encoding = encoding
        self._path: Path | None = None
        self._known: dict[bytes, int] | None = None
        self._used: dict[bytes, int] = {}
        self._fresh = False

    def get(self, key: bytes) -> int | None:
        """The count an earlier run (or this one) made of the text with this key, else ``None``."""
        known = self._known if self._known is not None else self._load()
        count = known.get(key)
        if count is not None:
            self._used[key] = count
        return count

    def put(self, key: bytes, count: int) -> None:
        """Keep this run's count of a text."""
        if self._known is None:
            self._load()
        assert self._known is not None
        self._known[key] = self._used[key] = count
        self._fresh = True

    def save(self) -> None:
        """Write the counts for the next run, if this one counted a text none had."""
        if not self._fresh or self._path is None:
            return
        self._fresh = False
        known = self._known or {}
        counts = known if len(known) <= MAX_COUNTS else self._used
        write_framed(self._path.parent, self._path, _COUNTS_MAGIC, marshal.dumps(counts))

    def _load(self) -> dict[bytes, int]:
        where, self._directory = self._directory, None  # asked once (it may hold a config)
        directory = where() if where is not None else None
        self._known = {}
        if directory is None:
            return self._known
        self._path = directory / f"cl100k-counts-{_fingerprint(self._encoding)}.bin"
        payload = read_framed(self._path, _COUNTS_MAGIC)
        if payload is None:
            return self._known
        try:
            counts = marshal.loads(payload)  # noqa: S302 - our own file, its SHA-256 checked
        except (EOFError, ValueError, TypeError):
            return self._known
        if type(counts) is dict and all(
            type(key) is bytes and len(key) == 16 and type(count) is int and count >= 0
            for key, count in counts.items()
        ):
            self._known = counts
        return self._known


def _fingerprint(encoding: str) -> str:
    """What the counts depend on, hashed: the encoding, the counting, Python, regex, tiktoken."""
    parts = [encoding, str(COUNTING), sys.implementation.cache_tag or "", str(marshal.version)]
    for package in ("regex", "tiktoken"):
        spec = importlib.util.find_spec(package)
        origin = None if spec is None else spec.origin
        try:
            stat = os.stat(origin) if origin else None
        except OSError:
            stat = None
        parts.append(f"{package}:{origin}:{stat and (stat.st_size, stat.st_mtime_ns)}")
    return hashlib.sha256("\n".join(parts).encode()).hexdigest()[:24]
