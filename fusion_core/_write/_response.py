"""The response type: the MCP wire dict itself, with a hidden view.

``ToolResponse`` *is* a ``dict`` holding exactly the MCP ``CallToolResult``
wire form (``content``, then ``isError`` and ``structuredContent`` when set),
so ``json.dumps``, pydantic and the ``mcp`` SDK see that and nothing else.
The structured view lives in a slot, not a key: no serializer walks slots of
a dict. :func:`view_of` reads it. ``to_mcp()`` gives the SDK's own
``CallToolResult`` (``mcp`` is imported only then: it costs a second).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, NoReturn, final

from fusion_core._limits import require_response_size
from fusion_core._write._view import ResponseView

if TYPE_CHECKING:
    from mcp.types import CallToolResult
    from pydantic import GetCoreSchemaHandler
    from pydantic_core import core_schema

    from fusion_core._write._toon import ToonOptions

__all__ = ["ToolResponse", "json_data_of", "origin_of", "view_of", "with_json_data", "with_origin"]

_MISSING: Any = object()


def _readonly(self: object, *_args: object, **_kwargs: object) -> NoReturn:
    kind = type(self).__name__[1:].lower()
    part = "" if isinstance(self, ToolResponse) else f" (its content {kind} too)"
    msg = f"a ToolResponse is immutable{part}: build a new response with the response helpers"
    raise TypeError(msg)


class _Block(dict[str, Any]):
    """One content block: a read-only dict, so the wire cannot drift from the view."""

    __slots__ = ()
    __setitem__ = __delitem__ = clear = pop = popitem = setdefault = update = _readonly
    __ior__ = _readonly

    def __reduce__(self) -> tuple[Any, ...]:
        return (_Block, (dict(self),))


class _Content(list[_Block]):
    """The content list: read-only, for the same reason."""

    __slots__ = ()
    __setitem__ = __delitem__ = append = extend = insert = pop = remove = _readonly
    clear = sort = reverse = __iadd__ = __imul__ = _readonly

    def __reduce__(self) -> tuple[Any, ...]:
        return (_Content, (list(self),))


@final
class ToolResponse(dict[str, Any]):
    """An MCP tool result in wire form, carrying its structured view privately.

    Build one with :func:`fusion_core.response`, :func:`fusion_core.success`,
    :func:`fusion_core.error` and the other helpers rather than by hand.
    """

    __slots__ = ("_json", "_origin", "_view")

    def __init__(
        self,
        texts: Sequence[str],
        *,
        view: ResponseView,
        is_error: bool | None = None,
        structured_content: Any = _MISSING,
    ) -> None:
        require_response_size(texts)
        wire: dict[str, Any] = {
            "content": _Content([_Block(type="text", text=text) for text in texts])
        }
        if is_error is not None:
            wire["isError"] = is_error
        if structured_content is not _MISSING:
            wire["structuredContent"] = structured_content
        super().__init__(wire)
        self._view = view
        self._origin: tuple[Any, ToonOptions] | None = None
        self._json: str | None = None  # block 0, when orjson wrote it (with_json_data)

    @property
    def texts(self) -> list[str]:
        """The text of every content block, in order."""
        return [block["text"] for block in self["content"]]

    @property
    def is_error(self) -> bool:
        """``isError`` as MCP reads it (absent means ``False``)."""
        return bool(self.get("isError", False))

    def to_mcp(self) -> CallToolResult:
        """The ``mcp`` SDK's ``CallToolResult`` with exactly these fields."""
        from mcp.types import CallToolResult  # noqa: PLC0415 - mcp costs ~1 s to import

        return CallToolResult.model_validate(dict(self))

    def __repr__(self) -> str:
        return f"ToolResponse({dict.__repr__(self)})"

    __setitem__ = __delitem__ = clear = pop = popitem = setdefault = update = _readonly
    __ior__ = _readonly

    def __reduce__(self) -> tuple[Any, ...]:
        return (_restore, (dict(self), self._view, self._origin))

    @classmethod
    def __get_pydantic_core_schema__(
        cls, _source: Any, _handler: GetCoreSchemaHandler
    ) -> core_schema.CoreSchema:
        """Pydantic accepts instances and serializes them as the plain wire dict."""
        from pydantic_core import core_schema  # noqa: PLC0415 - only pydantic asks for it

        return core_schema.is_instance_schema(
            cls,
            serialization=core_schema.plain_serializer_function_ser_schema(
                dict, when_used="always"
            ),
        )

    @classmethod
    def __get_pydantic_json_schema__(cls, _schema: Any, _handler: Any) -> NoReturn:
        """No JSON schema: a response is a tool's whole result, not structured output.

        Raised as pydantic's schema-generation error, which frameworks deriving
        an ``outputSchema`` from a ``-> ToolResponse`` annotation (FastMCP,
        ``MCPServer``) take as "no output schema" (pydantic's invalid-for-JSON-
        schema error would fail the tool's registration).
        """
        from pydantic import PydanticSchemaGenerationError  # noqa: PLC0415

        msg = f"a {cls.__name__} is a whole tool result: it has no JSON schema (no outputSchema)"
        raise PydanticSchemaGenerationError(msg)


def _restore(
    wire: dict[str, Any], view: ResponseView, origin: tuple[Any, ToonOptions] | None = None
) -> ToolResponse:
    response = ToolResponse.__new__(ToolResponse)
    dict.update(response, wire)
    response._view = view
    response._origin = origin
    response._json = None  # a copy's text is another object: the reader checks it again
    return response


def with_json_data(response: ToolResponse, text: str) -> ToolResponse:
    """Remember that block 0 is ``text``, JSON that orjson wrote (``_json.write_json``).

    The reader trusts it only while block 0 *is* that very str, which no
    change to the response can fake (it is immutable, and a copy holds other
    objects), and then skips its check that the text is canonical JSON.
    """
    response._json = text
    return response


def json_data_of(response: ToolResponse) -> str | None:
    """Block 0 as :func:`with_json_data` remembered it, else ``None``."""
    return response._json


def with_origin(response: ToolResponse, data: Any, options: ToonOptions) -> ToolResponse:
    """Remember what a text block was encoded from (TOON), for the egress firewall."""
    response._origin = (data, options)
    return response


def origin_of(response: ToolResponse) -> tuple[Any, ToonOptions] | None:
    """``(data, encoder options)`` of a TOON response, else ``None``."""
    return response._origin


def view_of(response: object) -> ResponseView:
    """The structured view a response was built with.

    Raises ``TypeError`` for anything that is not a :class:`ToolResponse`
    (parse the bytes of foreign responses instead).
    """
    if not isinstance(response, ToolResponse):
        msg = (
            f"view_of() needs a ToolResponse built by fusion_core, got "
            f"{type(response).__qualname__}; parse its bytes to read a foreign response"
        )
        raise TypeError(msg)
    return response._view
