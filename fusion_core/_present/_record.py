"""What Presenters did during one tool call: the data blocks they wrote, the data they were given.

A call enters :func:`recording` around its handler; every Presenter's
``make()`` and ``mask()`` then record into the call's :class:`CallRecord`,
found through a context variable. The data blocks let the app tell a
response a Presenter built from one it must mask; the data given lets an
error text be cleaned of the values a Presenter dropped
(``fusion_core._present._redact``).

**Threads without the call's context.** A context variable reaches the
threads the call's own machinery starts (``asyncio.to_thread``, the app's
and the frameworks' worker threads copy the context), not a thread the
handler starts itself (``ThreadPoolExecutor.submit``,
``loop.run_in_executor``): there, a Presenter finds no record, and a crash
quoting the row it masked went out uncleaned; so did a task or thread that
kept the context of a call that is over (a worker started lazily in the
first call), whose record no longer counts. Such data is kept by
:data:`_ORPHANS` while any call records, and every call that was recording
meanwhile counts it as its own: over-cleaning another call's error text
hides nothing the client may see, and the alternative is a leak. The
registry holds at most :data:`ORPHANS_KEPT` entries; a call that lost some
(more data given without a context during it than that) knows what was
hidden only in part, and its error text shows the exception's type only.
"""

from __future__ import annotations

import json
import threading
from collections import deque
from contextlib import AbstractContextManager
from contextvars import ContextVar, Token
from typing import TYPE_CHECKING, Any, Final, final

from fusion_core._write._json import to_json

if TYPE_CHECKING:
    from fusion_core._present._presenter import Presenter

__all__ = ["NOT_RECORDED", "ORPHANS_KEPT", "CallRecord", "current_record", "given", "recording"]

ORPHANS_KEPT: Final = 256
"""Data given to Presenters outside any call's context that the registry keeps."""
NOT_RECORDED: Final = (object(), None)
"""The pair that stands for data given during the call that was not kept."""


@final
class CallRecord:
    """What Presenters did during one pipeline call.

    ``blocks`` maps ``id(text)`` of every data block a Presenter wrote to
    ``(presenter, text)`` (holding the str keeps its id unique); ``given``
    holds ``[data given, data masked]`` pairs (``None`` until masked);
    ``written`` maps ``id(presenter)`` to the texts of its data blocks, so
    data that serializes to one of them is known as that Presenter's output;
    :meth:`items` gives the texts of their items (one item of a list it
    wrote, or several in a new list, is its output too). ``orphans`` are
    the pairs given without a context while the call recorded (``None``:
    some were not kept).
    """

    __slots__ = ("_items", "blocks", "given", "orphans", "recording", "written")

    def __init__(self) -> None:
        self.blocks: dict[int, tuple[Presenter[Any], str]] = {}
        self.given: list[list[Any]] = []
        self.written: dict[int, set[str]] = {}
        self.orphans: list[list[Any]] | None = []
        self.recording = 0
        """How many :func:`recording` blocks have it entered now (none: the call is over)."""
        self._items: dict[int, tuple[int, set[str]]] = {}

    def pairs(self) -> list[tuple[Any, Any]]:
        """Every ``(data given, data masked)`` pair of the call, orphans included.

        :data:`NOT_RECORDED` stands in for orphans that were not kept.
        """
        pairs = [(pair[0], pair[1]) for pair in self.given]
        if self.orphans is None:
            pairs.append(NOT_RECORDED)
        else:
            pairs.extend((pair[0], pair[1]) for pair in self.orphans)
        return pairs

    def items(self, presenter: Presenter[Any]) -> set[str]:
        """The JSON text of every object a Presenter wrote: its data blocks' items, its objects.

        Built on first need (data that is not a whole data block of its own),
        again only when the Presenter wrote more since.
        """
        written = self.written.get(id(presenter), set())
        cached = self._items.get(id(presenter))
        if cached is not None and cached[0] == len(written):
            return cached[1]
        found: set[str] = set()
        for text in written:
            value = json.loads(text)
            if isinstance(value, list):
                found.update(to_json(item) for item in value if isinstance(item, dict))
            elif isinstance(value, dict):
                found.add(text)
        self._items[id(presenter)] = (len(written), found)
        return found

    def made_by(self, presenter: Presenter[Any], text: object) -> bool:
        """Whether ``presenter`` wrote this very data block during the call."""
        entry = self.blocks.get(id(text))
        return entry is not None and entry[0] is presenter and entry[1] is text


_RECORD: ContextVar[CallRecord | None] = ContextVar("fusion_presenter_record", default=None)


def current_record() -> CallRecord | None:
    """The record of the call this code runs in, if any."""
    return _RECORD.get()


def given(data: Any) -> list[Any]:
    """Record that a Presenter was given ``data``; returns the pair to complete with its mask."""
    pair = [data, None]
    record = _RECORD.get()
    if record is not None and record.recording:
        record.given.append(pair)
    elif _ORPHANS.recording:  # no context, or one a call that is over left behind
        _ORPHANS.add(pair)
    return pair


@final
class _Orphans:
    """Pairs given without a call's context, kept while calls record (see the module doc)."""

    __slots__ = ("_entries", "_lock", "_next", "_starts")

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._entries: deque[tuple[int, list[Any]]] = deque(maxlen=ORPHANS_KEPT)
        self._next = 0
        self._starts: dict[int, int] = {}  # a recording call's first sequence number: its calls

    @property
    def recording(self) -> bool:
        """Whether any call records now (a read of one dict's size: no lock)."""
        return bool(self._starts)

    def enter(self) -> int:
        """A call starts recording; its first sequence number."""
        with self._lock:
            start = self._next
            self._starts[start] = self._starts.get(start, 0) + 1
            return start

    def add(self, pair: list[Any]) -> None:
        with self._lock:
            self._entries.append((self._next, pair))
            self._next += 1

    def leave(self, start: int) -> list[list[Any]] | None:
        """A call stops recording: the pairs given since ``start`` (``None``: not all kept)."""
        with self._lock:
            expected = self._next - start
            found = [pair for number, pair in self._entries if number >= start]
            left = self._starts[start] - 1
            if left:
                self._starts[start] = left
            else:
                del self._starts[start]
            oldest = min(self._starts, default=self._next)
            while self._entries and self._entries[0][0] < oldest:
                self._entries.popleft()
            return found if len(found) == expected else None


_ORPHANS: Final = _Orphans()


@final
class _Recording:
    """The context manager :func:`recording` returns.

    A class: a generator-based one costs ten times more, and every tool call
    enters one.
    """

    __slots__ = ("_record", "_start", "_token")

    def __init__(self, record: CallRecord) -> None:
        self._record = record
        self._token: Token[CallRecord | None] | None = None
        self._start = 0

    def __enter__(self) -> CallRecord:
        self._token = _RECORD.set(self._record)
        self._start = _ORPHANS.enter()
        self._record.recording += 1
        return self._record

    def __exit__(self, *_exc: object) -> None:
        if self._token is not None:
            _RECORD.reset(self._token)
            self._token = None
            self._record.recording -= 1
            found = _ORPHANS.leave(self._start)
            orphans = self._record.orphans
            if found is None or orphans is None:
                self._record.orphans = None
            else:
                orphans.extend(found)


def recording(record: CallRecord) -> AbstractContextManager[CallRecord]:
    """Record into ``record``, for the duration of a call, what every Presenter does."""
    return _Recording(record)
