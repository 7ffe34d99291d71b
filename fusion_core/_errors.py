"""The one exception tree of fusion_core.

::

    FusionError                      base of everything this library raises on purpose
    ├── SerializationError(TypeError)  a value cannot become JSON; names its JSON path
    │   └── CycleError                 a container contains itself
    ├── NestingError(ValueError)       data nested deeper than MAX_DEPTH
    ├── UIError(ValueError)            invalid UI meta (width, priority) or language tag
    ├── PresenterValidationError(ValueError)  data a Presenter's schema rejects (_presenter)
    ├── OutputSchemaError(ValueError)  structured content outside a tool's output schema
    ├── ContractError(ValueError)      a response breaks the wire contract (_check)
    ├── WireFormatError(ValueError)    text that is not a well-formed Fusion block
    │   └── CharacterReferenceError    a character reference no character has (&#x110000;)
    ├── SizeLimitError(ValueError)     a response beyond the size policy (_limits)
    ├── ArgumentsError(ValueError)     a call's arguments the wire would not carry as given
    ├── SchemaConflictError(TypeError)  two actions give one parameter different types
    ├── AppLoadError(ImportError)      a "pkg.module:app" spec that leads to no app
    ├── ServerConnectionError(ConnectionError)  the client could not reach a server
    └── ServerResultError(RuntimeError)  a server answered with no tool result
        └── ServerLimitError           a call went over the client's timeout or size limit

Each error carries the offending object (``value``) and, where it applies, the
JSON path of that object inside the data (``path``, e.g. ``$.rows[3].amount``),
so the message says what to change and where.

The errors about a server's answers (``ServerResultError``,
``ServerConnectionError``) quote what the server sent (its error text, its
stderr): their messages are terminal-safe (``_terminal``), so a traceback
printed on a terminal shows a server's control characters instead of obeying
them.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final

from fusion_core._terminal import terminal_safe

__all__ = [
    "AppLoadError",
    "ArgumentsError",
    "CharacterReferenceError",
    "CycleError",
    "FusionError",
    "NestingError",
    "OutputSchemaError",
    "SchemaConflictError",
    "SerializationError",
    "ServerConnectionError",
    "ServerLimitError",
    "ServerResultError",
    "SizeLimitError",
    "UIError",
    "WireFormatError",
    "leaves",
]


class FusionError(Exception):
    """Base class of every error fusion_core raises on purpose."""


_PATH_ENDS: Final = 72  # characters of a long path shown at each end of a message


def _at(path: str) -> str:
    """`` (at PATH)`` for a message; a path past 160 characters shows its two ends.

    Data nested 512 levels deep has a path of 1.5 KB (``$[0][0]...``), and an
    envelope carries the message to the model: the ends say where, the
    ``path`` attribute keeps all of it.
    """
    if len(path) <= 160:
        return f" (at {path})"
    head = path[:_PATH_ENDS]
    tail = path[-_PATH_ENDS:]
    # Cut between segments where one starts near the cut, so no key is halved.
    cut = max(head.rfind("["), head.rfind("."))
    head = head[:cut] if cut > _PATH_ENDS // 2 else head
    starts = [i for i in (tail.find("["), tail.find(".")) if i >= 0]
    tail = tail[min(starts) :] if starts and min(starts) < _PATH_ENDS // 2 else tail
    hidden = len(path) - len(head) - len(tail)
    return f" (at {head}…{hidden:,} more characters…{tail})"


class SerializationError(FusionError, TypeError):
    """A value has no JSON form; ``path`` says where it sits in the data."""

    def __init__(self, message: str, *, path: str, value: Any) -> None:
        super().__init__(message + _at(path))
        self.path = path
        self.value = value


class CycleError(SerializationError):
    """A list, dict or object contains itself, so its JSON would be infinite."""


class NestingError(FusionError, ValueError):
    """Data is nested deeper than the documented limit."""

    def __init__(self, message: str, *, path: str, limit: int) -> None:
        super().__init__(message + _at(path))
        self.path = path
        self.limit = limit


class UIError(FusionError, ValueError):
    """A UI block was given invalid meta or an invalid language tag."""

    def __init__(self, message: str, *, value: Any) -> None:
        super().__init__(message)
        self.value = value


class OutputSchemaError(FusionError, ValueError):
    """A structured result does not match the tool's declared output schema."""


class WireFormatError(FusionError, ValueError):
    """Text that does not follow the Fusion wire format.

    ``block`` is the content block's index and ``offset`` the character
    offset inside that block, where known.
    """

    def __init__(
        self, message: str, *, block: int | None = None, offset: int | None = None
    ) -> None:
        places = []
        if block is not None:
            places.append(f"block {block}")
        if offset is not None:
            places.append(f"offset {offset}")
        where = ", ".join(places) + ": " if places else ""
        super().__init__(f"{where}{message}")
        self.detail = message
        self.block = block
        self.offset = offset

    def in_block(self, block: int) -> WireFormatError:
        """The same error, located in content block ``block``."""
        return type(self)(self.detail, block=block, offset=self.offset)


class CharacterReferenceError(WireFormatError):
    """A character reference that names no character (``&#x110000;``, ``&#xFFFFFFFFF;``).

    Raised by the readers where they decode references (item text, envelope
    text, attribute values); ``offset`` points at its ``&``.
    """


class SizeLimitError(FusionError, ValueError):
    """A response larger than the size policy allows (the docs' *Limits* section)."""

    def __init__(self, message: str, *, size: int, limit: int) -> None:
        super().__init__(message)
        self.size = size
        self.limit = limit


class ArgumentsError(FusionError, ValueError):
    """A call's arguments JSON cannot carry as given (a NaN, an ``object()``), named by place."""


class SchemaConflictError(FusionError, TypeError):
    """Two actions of one tool declare a parameter with different types (or nullability).

    Raised when the second action is added, so the tool's one input schema
    never has to choose: ``parameter`` is the parameter's name and ``action``
    the key of the action that disagrees with an earlier one.
    """

    def __init__(self, message: str, *, parameter: str, action: str) -> None:
        super().__init__(message)
        self.parameter = parameter
        self.action = action


class AppLoadError(FusionError, ImportError):
    """An ``"pkg.module:attr"`` app spec that does not lead to an app.

    ``spec`` is the string as given; the message says which part is wrong.
    """

    def __init__(self, message: str, *, spec: str) -> None:
        super().__init__(message)
        self.spec = spec


class ServerResultError(FusionError, RuntimeError):
    """The server answered ``tools/call`` with something other than a tool result.

    For example an ``input_required`` result, which a test client cannot
    satisfy. ``result`` holds the result dict as received.
    """

    def __init__(self, message: str, *, result: Mapping[str, Any]) -> None:
        super().__init__(terminal_safe(message, multiline=True))
        self.result = result


class ServerLimitError(ServerResultError):
    """A call got no answer within the timeout, or an answer larger than the size limit.

    ``call`` names the request (tool and arguments), ``limit`` is the limit
    that was reached (seconds for ``kind == "timeout"``, bytes for
    ``kind == "size"``) and ``received`` how many bytes had arrived (size
    only; ``None`` for a server-sent event, which the SDK's own limit stops
    without saying). ``took`` is how long a late answer took, in seconds: a
    server in this process whose tool held the event loop answered past the
    limit, which no timer can cut short (``None``: no answer came). The
    message says which constructor argument raises the limit; the pytest
    plugin names its own option instead.
    """

    def __init__(
        self,
        message: str,
        *,
        call: str,
        kind: str,
        limit: float,
        received: int | None = None,
        took: float | None = None,
    ) -> None:
        super().__init__(message, result={})
        self.call = call
        self.kind = kind
        self.limit = limit
        self.received = received
        self.took = took


class ServerConnectionError(FusionError, ConnectionError):
    """The client could not connect to the server, or the connection ended during a request.

    The message names the server (and the request); ``__cause__`` is the SDK's
    own error. A stdio server's stderr usually says why it stopped: the
    message ends with its last lines, which ``stderr`` holds too (``""`` when
    it wrote none; ``None`` for a server the client did not start).
    ``returncode`` is the exit status of a stdio server that ended (negative:
    the signal that killed it), else ``None``.
    """

    def __init__(
        self, message: str, *, returncode: int | None = None, stderr: str | None = None
    ) -> None:
        super().__init__(terminal_safe(message, multiline=True))
        self.returncode = returncode
        self.stderr = None if stderr is None else terminal_safe(stderr, multiline=True)


def leaves(error: BaseException) -> list[BaseException]:
    """The failures inside (nested) exception groups, in order; ``[error]`` for any other.

    The SDK's transports and hypothesis both gather failures in groups; what
    went wrong is their leaves.
    """
    if isinstance(error, BaseExceptionGroup):
        return [leaf for inner in error.exceptions for leaf in leaves(inner)]
    return [error]
