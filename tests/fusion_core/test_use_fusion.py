"""``fusion_core.mcpserver.use_fusion`` and ``fusion_core.fastmcp.use_fusion``.

A tool of either framework returns a ``ToolResponse``, a builder or a
Presenter's result and the client gets those blocks exactly; refused
arguments come back as the ``<validation_error>`` envelope, naming fields and
never the values sent; everything else is the framework's own answer (but
an unknown tool's: test_use_fusion_unknown.py).
"""

from __future__ import annotations

import asyncio
import collections
import re
import subprocess
import sys
import uuid
from collections.abc import Callable
from typing import Annotated, Any, Literal

import pytest
from fastmcp import FastMCP
from hypothesis import given
from hypothesis import strategies as st
from mcp.server.mcpserver import MCPServer
from pydantic import BaseModel, ConfigDict, Field

from fusion_core import (
    BlockingFusionClient,
    Presenter,
    ResponseBuilder,
    SerializationError,
    ToolResponse,
    check,
    parse,
    response,
    tool_error,
)
from fusion_core import fastmcp as fusion_fastmcp
from fusion_core import mcpserver as fusion_mcpserver
from fusion_core._mcp._adapter import Answers
from tests._support.hooked import hooked_server

CANARY = "s3cr3t-canary-<&>"
"""A value sent as a bad argument: it must never come back in an envelope."""
UUID = "6ba7b810-9dad-11d1-80b4-00c04fd430c8"


class Ticket(BaseModel):
    id: int
    title: str


class Filter(BaseModel):
    status: int


class Cat(BaseModel):
    kind: Literal["cat"]
    lives: int


class Dog(BaseModel):
    kind: Literal["dog"]
    name: str


TICKET = Presenter("Ticket", schema=Ticket, rules=["Quote ticket ids as #id."])
ROW = {"id": 7, "title": "printer", "internal_note": "never on the wire"}


def _server(kind: str, *, fusion: bool) -> Any:
    """A helpdesk on ``kind``, with its tools registered before and after ``use_fusion``."""
    server: Any
    if kind == "MCPServer":
        server = MCPServer("helpdesk")
        decorate: Callable[[Any], Any] = server.tool()
        install: Callable[[Any], Any] = fusion_mcpserver.use_fusion
    else:
        server = FastMCP("helpdesk")
        decorate = server.tool
        install = fusion_fastmcp.use_fusion

    @decorate
    def presented(ticket: int) -> ResponseBuilder:
        """A Presenter's result, unbuilt."""
        return TICKET.make({**ROW, "id": ticket})

    if fusion:
        assert install(server) is server
        assert install(server) is server  # a second call changes nothing

    @decorate
    def built(ticket: int) -> ToolResponse:
        """A built response, annotated."""
        return response({"id": ticket}).llm_hint("Say hello.").build()

    @decorate
    def refused(ticket: int) -> ResponseBuilder | ToolResponse:
        """The tool's own error envelope."""
        return tool_error("NOT_FOUND", f"Ticket {ticket} does not exist.", suggestion="List them.")

    @decorate
    def plain(ticket: int) -> str:
        """A plain value: the framework's own answer."""
        return f"ticket {ticket}"

    @decorate
    def nested(query: Filter) -> str:
        """A nested model argument."""
        return str(query.status)

    @decorate
    def typed(pet: Annotated[Cat | Dog, Field(discriminator="kind")], ref: uuid.UUID) -> str:
        """Arguments whose pydantic messages quote some of the input."""
        return f"{pet.kind} {ref}"

    return server


def _calls(server: Any, *calls: tuple[str, dict[str, Any]]) -> list[dict[str, Any]]:
    with BlockingFusionClient.in_memory(server) as client:
        return [client.call(name, arguments) for name, arguments in calls]


KINDS = ["MCPServer", "FastMCP"]


@pytest.mark.parametrize("kind", KINDS)
def test_fusion_results_reach_the_client_block_for_block(kind: str) -> None:
    """Builder, built response and error envelope: exactly their blocks, no JSON copy."""
    presented, built, refused = _calls(
        _server(kind, fusion=True),
        ("presented", {"ticket": 7}),
        ("built", {"ticket": 8}),
        ("refused", {"ticket": 9}),
    )
    expected = [
        TICKET.make(ROW).build(),
        response({"id": 8}).llm_hint("Say hello.").build(),
        tool_error("NOT_FOUND", "Ticket 9 does not exist.", suggestion="List them."),
    ]
    for wire, want in zip([presented, built, refused], expected, strict=True):
        assert wire["content"] == want["content"]
        assert "structuredContent" not in wire
        assert wire["isError"] is want.is_error  # the framework always sends isError
        assert check(wire, strict=True) == []
    assert "never on the wire" not in str(presented)


@pytest.mark.parametrize("kind", KINDS)
def test_without_it_a_response_is_json_text(kind: str) -> None:
    """Pinned framework behaviour, the reason for the integration: one JSON text block."""
    (wire,) = _calls(_server(kind, fusion=False), ("built", {"ticket": 8}))
    assert len(wire["content"]) == 1
    assert wire["content"][0]["text"].lstrip().startswith("{")
    assert '"content"' in wire["content"][0]["text"]


@pytest.mark.parametrize("kind", KINDS)
def test_everything_else_is_the_frameworks_own_answer(kind: str) -> None:
    """Plain values are answered byte for byte as without the integration.

    (An unknown tool is not: tests/fusion_core/test_use_fusion_unknown.py.)
    """
    calls = [("plain", {"ticket": 3})]
    assert _calls(_server(kind, fusion=True), *calls) == _calls(_server(kind, fusion=False), *calls)


BAD_ARGUMENTS = [
    pytest.param("presented", {"ticket": CANARY}, ["ticket"], id="wrong-type"),
    pytest.param("presented", {}, ["ticket"], id="missing"),
    pytest.param("nested", {"query": {"status": CANARY}}, ["query.status"], id="nested"),
    pytest.param("nested", {"query": CANARY}, ["query"], id="not-an-object"),
    # pydantic's own message quotes the tag ("Input tag '...' found using ...").
    pytest.param("typed", {"pet": {"kind": CANARY}, "ref": UUID}, ["pet"], id="discriminator-tag"),
    # ... and the character a UUID fails at ("found `s` at 1"): none is sent.
    pytest.param("typed", {"pet": {"kind": "cat", "lives": 9}, "ref": CANARY}, ["ref"], id="uuid"),
]


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize(("tool", "arguments", "fields"), BAD_ARGUMENTS)
def test_refused_arguments_are_a_validation_envelope(
    kind: str, tool: str, arguments: dict[str, Any], fields: list[str]
) -> None:
    """The ``<validation_error>`` a FusionApp writes: field names, no value sent."""
    (wire,) = _calls(_server(kind, fusion=True), (tool, arguments))
    assert wire["isError"] is True
    assert check(wire, strict=True) == []
    validation = parse(wire).view.validation
    assert validation is not None
    assert validation.action == tool
    assert [field.name for field in validation.fields] == fields
    assert "s3cr3t" not in str(wire)
    assert "`s`" not in str(wire)
    assert "pydantic" not in str(wire)


@pytest.mark.parametrize("kind", KINDS)
def test_without_it_refused_arguments_are_plain_text(kind: str) -> None:
    """Pinned framework behaviour: pydantic's text, the value sent included."""
    (wire,) = _calls(_server(kind, fusion=False), ("presented", {"ticket": CANARY}))
    assert wire["isError"] is True
    assert CANARY in wire["content"][0]["text"]


@pytest.mark.parametrize("kind", KINDS)
def test_an_annotated_response_publishes_no_output_schema(kind: str) -> None:
    """``-> ToolResponse``, ``-> ResponseBuilder`` and their union register, no ``outputSchema``."""
    with BlockingFusionClient.in_memory(_server(kind, fusion=True)) as client:
        definitions = {tool["name"]: tool for tool in client.list_tools()}
    assert "outputSchema" not in definitions["built"]
    assert "outputSchema" not in definitions["presented"]
    assert "outputSchema" not in definitions["refused"]


@pytest.mark.parametrize(
    ("install", "name"),
    [
        (fusion_mcpserver.use_fusion, "an MCPServer"),
        (fusion_fastmcp.use_fusion, "a fastmcp.FastMCP"),
    ],
)
def test_another_object_is_refused_by_name(install: Callable[[Any], Any], name: str) -> None:
    """Each ``use_fusion`` names the server class it needs and what it got."""
    with pytest.raises(TypeError, match=f"needs {name}, got dict"):
        install({})


def test_importing_fusion_core_imports_no_framework() -> None:
    """``import fusion_core`` (and the MCPServer integration) never loads fastmcp."""
    code = (
        "import sys, fusion_core, fusion_core.mcpserver; "
        "assert 'fastmcp' not in sys.modules, 'fastmcp'; "
        "assert 'mcp.server.mcpserver' not in sys.modules, 'mcpserver'"
    )
    subprocess.run([sys.executable, "-c", code], check=True, timeout=120)


class Owner(BaseModel):
    id: int
    owner_email: str  # a field the Presenter hides: the data cannot fit this schema


def _typed_server(kind: str) -> Any:
    """Tools whose return annotation makes the framework publish an ``outputSchema``."""
    server, decorate = hooked_server(kind, "helpdesk", expose_errors="message")

    @decorate
    def one(ticket: int) -> Ticket:
        """A Presenter's result where the annotation says Ticket."""
        return TICKET.make({**ROW, "id": ticket})  # type: ignore[return-value]

    @decorate
    def many(count: int) -> list[Ticket]:
        """A list: both frameworks wrap it as {"result": [...]}."""
        return TICKET.make([{**ROW, "id": n} for n in range(count)])  # type: ignore[return-value]

    @decorate
    def missing(ticket: int) -> Ticket:
        """An error envelope needs no structured content."""
        return tool_error("NOT_FOUND", f"No ticket {ticket}.")  # type: ignore[return-value]

    @decorate
    def hidden(ticket: int) -> Owner:
        """The schema wants a field the Presenter drops."""
        return TICKET.make({**ROW, "id": ticket, "owner_email": "ann@example.com"})  # type: ignore[return-value]

    return server


async def _through_the_framework_client(
    kind: str, calls: list[tuple[str, dict[str, Any]]]
) -> list[Any]:
    """The framework's own client, which refuses a success without the structured content."""
    from fastmcp import Client as FastMCPClient  # noqa: PLC0415
    from mcp import Client as MCPClient  # noqa: PLC0415

    server = _typed_server(kind)
    client: Any = MCPClient(server) if kind == "MCPServer" else FastMCPClient(server)
    async with client:
        if kind == "MCPServer":
            return [await client.call_tool(name, arguments) for name, arguments in calls]
        return [
            await client.call_tool(name, arguments, raise_on_error=False)
            for name, arguments in calls
        ]


@pytest.mark.parametrize("kind", KINDS)
def test_a_typed_tool_answers_with_the_structured_content_its_schema_asks(kind: str) -> None:
    """``-> Ticket``: the blocks as built, and the masked data as structuredContent."""
    one, many, missing = _calls(
        _typed_server(kind),
        ("one", {"ticket": 7}),
        ("many", {"count": 2}),
        ("missing", {"ticket": 3}),
    )
    assert one["content"] == TICKET.make({**ROW, "id": 7}).build()["content"]
    assert one["structuredContent"] == {"id": 7, "title": "printer"}
    assert many["structuredContent"] == {
        "result": [{"id": 0, "title": "printer"}, {"id": 1, "title": "printer"}]
    }
    assert missing["isError"] is True
    assert "structuredContent" not in missing
    for wire in (one, many, missing):
        assert check(wire, strict=True) == []
        assert "never on the wire" not in str(wire)
    results = asyncio.run(
        _through_the_framework_client(kind, [("one", {"ticket": 7}), ("many", {"count": 1})])
    )
    assert [result.is_error for result in results] == [False, False]


@pytest.mark.parametrize("kind", KINDS)
def test_data_that_does_not_fit_the_schema_is_an_error_naming_the_fix(kind: str) -> None:
    """The hidden field never reaches the schema: an INTERNAL_ERROR that says what to do."""
    (wire,) = _calls(_typed_server(kind), ("hidden", {"ticket": 7}))
    assert wire["isError"] is True
    assert check(wire, strict=True) == []
    error = parse(wire).view.error
    assert error is not None
    assert error.code == "INTERNAL_ERROR"
    assert "does not fit its outputSchema" in error.message
    assert "annotate the tool -> ResponseBuilder" in error.message
    assert "ann@example.com" not in str(wire)


class Query(BaseModel, extra="forbid"):
    status: int


class Labelled(BaseModel):
    kind: Literal["labelled"]
    tags: dict[str, int]


KEY = "sk-live-" + CANARY
"""A key of a ``dict`` argument: data the caller sent, never named in a field."""


def _keyed_server(kind: str) -> Any:
    """Tools whose arguments hold mappings, so pydantic's locations hold the keys sent."""
    server, decorate = hooked_server(kind, "helpdesk")

    @decorate
    def tagged(meta: dict[str, int]) -> str:
        return str(meta)

    @decorate
    def rows(items: list[dict[str, int]]) -> str:
        return str(items)

    @decorate
    def maybe(meta: dict[str, int] | None = None) -> str:
        return str(meta)

    @decorate
    def either(x: int | dict[str, int]) -> str:
        return str(x)

    @decorate
    def pets(pet: Annotated[Cat | Labelled, Field(discriminator="kind")]) -> str:
        return pet.kind

    @decorate
    def keyed(numbers: dict[int, int]) -> str:
        return str(numbers)

    @decorate
    def queries(q: dict[str, Query]) -> str:
        return str(q)

    return server


KEYED = [
    pytest.param("tagged", {"meta": {KEY: "x"}}, ["meta.*"], id="dict"),
    pytest.param("rows", {"items": [{"a": 1}, {KEY: "x"}]}, ["items.1.*"], id="dicts-in-a-list"),
    pytest.param("maybe", {"meta": {KEY: "x"}}, ["meta.*"], id="optional-dict"),
    pytest.param("either", {"x": {KEY: "x"}}, ["x.int", "x.dict[str,int].*"], id="union-labels"),
    pytest.param("pets", {"pet": {"kind": "cat", "lives": "x"}}, ["pet.cat.lives"], id="tag"),
    pytest.param(
        "pets",
        {"pet": {"kind": "labelled", "tags": {KEY: "x"}}},
        ["pet.labelled.tags.*"],
        id="tag-dict",
    ),
    pytest.param("keyed", {"numbers": {KEY: 1}}, ["numbers.*.[key]"], id="bad-key"),
    pytest.param("queries", {"q": {KEY: {"status": "x"}}}, ["q.*.status"], id="model-in-a-dict"),
    pytest.param(
        "queries", {"q": {KEY: {"status": 1, "extra": 2}}}, ["(root)"], id="unknown-key-in-a-dict"
    ),
]


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize(("tool", "arguments", "fields"), KEYED)
def test_a_key_sent_in_a_mapping_is_never_named(
    kind: str, tool: str, arguments: dict[str, Any], fields: list[str]
) -> None:
    """Field paths show what the input schema declares; a mapping's keys are ``*``."""
    (wire,) = _calls(_keyed_server(kind), (tool, arguments))
    validation = parse(wire).view.validation
    assert validation is not None, wire
    assert [field.name for field in validation.fields] == fields
    assert "s3cr3t" not in str(wire)
    assert check(wire, strict=True) == []


class Closed(BaseModel):
    model_config = ConfigDict(extra="forbid")
    status: int


def _unknown_keys_server(kind: str) -> Any:
    def lookup(ticket: int, query: Closed | None = None) -> str:
        return f"{ticket} {query}"

    if kind == "MCPServer":
        server: Any = fusion_mcpserver.use_fusion(MCPServer("helpdesk"))
        server.tool(name="lookup")(lookup)
    else:
        server = fusion_fastmcp.use_fusion(FastMCP("helpdesk"))
        server.tool(lookup)
    return server


def _fusionapp_fields(arguments: dict[str, Any]) -> list[tuple[str, str]]:
    """What a FusionApp's envelope says of the same arguments, field by field."""
    from fusion_core import FusionApp, Tool  # noqa: PLC0415

    def lookup(ticket: int, query: Closed | None = None) -> str:
        return f"{ticket} {query}"

    tool = Tool("lookup", "Look one up.")
    tool.action("run", lookup, description="Look one up.")
    wire = asyncio.run(FusionApp([tool]).call("lookup", {"action": "run", **arguments}))
    validation = parse(wire).view.validation
    assert validation is not None
    return [(field.name, field.message) for field in validation.fields]


UNKNOWN_KEYS = [
    # MCPServer's published schema lets unknown top-level keys through (no refusal).
    pytest.param("FastMCP", {"ticket": 1, "zz": 2, "sk-live-9": 3}, id="top-level"),
    pytest.param("FastMCP", {"ticket": 1, "query": {"status": 1, "zz": 2}}, id="nested"),
    pytest.param("MCPServer", {"ticket": 1, "query": {"status": 1, "zz": 2}}, id="nested"),
]


@pytest.mark.parametrize(("kind", "arguments"), UNKNOWN_KEYS)
def test_unknown_keys_are_listed_as_a_fusionapp_lists_them(
    kind: str, arguments: dict[str, Any]
) -> None:
    """A key the schema lacks is named as sent, in one ``(root)`` field, as a FusionApp says it.

    The caller needs the name to fix its call (the reference's wording); the
    value sent under it is never quoted.
    """
    (wire,) = _calls(_unknown_keys_server(kind), ("lookup", arguments))
    validation = parse(wire).view.validation
    assert validation is not None
    fields = [(field.name, field.message) for field in validation.fields]
    assert fields == _fusionapp_fields(arguments)
    assert fields[-1][0] == "(root)"
    assert fields[-1][1].startswith("Unrecognized key")


def _returning(kind: str, value: Callable[[], Any], *, fusion: bool = True) -> Any:
    """A server whose one tool ``give`` returns ``value()``, its crashes' messages shown."""

    def give() -> Any:
        return value()

    if kind == "MCPServer":
        server: Any = MCPServer("helpdesk")
        if fusion:
            fusion_mcpserver.use_fusion(server, expose_errors="message")
        server.tool(name="give")(give)
    else:
        server = FastMCP("helpdesk")
        if fusion:
            fusion_fastmcp.use_fusion(server, expose_errors="message")
        server.tool(give)
    return server


def _generated() -> Any:
    yield {"id": 1}
    yield TICKET.make(ROW)


NESTED = [
    pytest.param(lambda: [TICKET.make(ROW), TICKET.make(ROW)], "list", "$[0]", id="list"),
    pytest.param(lambda: ("ok", response({"a": 1})), "tuple", "$[1]", id="tuple"),
    pytest.param(lambda: {"first": TICKET.make(ROW)}, "dict", "$.first", id="dict"),
    pytest.param(lambda: {"my key": TICKET.make(ROW)}, "dict", '$["my key"]', id="quoted-key"),
    pytest.param(lambda: [{"rows": [1, TICKET.make(ROW)]}], "list", "$[0].rows[1]", id="deeper"),
    pytest.param(_generated, "list", "$[1]", id="generator"),
]


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize(("value", "container", "path"), NESTED)
def test_a_builder_inside_a_returned_value_is_an_error_naming_where(
    kind: str, value: Callable[[], Any], container: str, path: str
) -> None:
    """Builders inside a list, tuple or dict are no response: an envelope says where.

    As a FusionApp's JSON writer refuses the same value; never each builder's
    repr sent as data.
    """
    (wire,) = _calls(_returning(kind, value), ("give", {}))
    text = wire["content"][0]["text"]
    assert wire["isError"] is True
    assert text.startswith('<tool_error code="INTERNAL_ERROR"')
    assert f"returned a ResponseBuilder inside a {container}" in text
    assert f"(at {path})" in text
    assert "ResponseBuilder(data=" not in text
    assert "never on the wire" not in text


@pytest.mark.parametrize("kind", KINDS)
def test_a_large_plain_value_is_the_frameworks_own_answer(kind: str) -> None:
    """The look for builders is bounded and changes nothing of a plain value, however large."""
    rows = [{"id": number, "tags": [str(number)]} for number in range(5_000)]
    (hooked,) = _calls(_returning(kind, lambda: rows), ("give", {}))
    (plain,) = _calls(_returning(kind, lambda: rows, fusion=False), ("give", {}))
    assert hooked == plain
    assert hooked["isError"] is False


_PATH_PART = re.compile(r'\[(\d+)\]|\.([A-Za-z_$][A-Za-z0-9_$]*)|\["((?:[^"\\]|\\.)*)"\]')


def _at_path(value: Any, path: str) -> Any:
    """The member of ``value`` that a JSON path of the error names (``$[0].rows["a b"]``)."""
    assert path.startswith("$")
    rest = path[1:]
    while rest:
        part = _PATH_PART.match(rest)
        assert part is not None, path
        index, name, quoted = part.groups()
        if index is not None:
            value = value[int(index)]
        else:
            key = name if name is not None else re.sub(r"\\(.)", r"\1", quoted)
            value = value[key]
        rest = rest[part.end() :]
    return value


_SCALARS = st.none() | st.booleans() | st.integers() | st.text(max_size=5)
_PLAIN = st.recursive(
    _SCALARS,
    lambda inner: (
        st.lists(inner, max_size=4)
        | st.tuples(inner, inner)
        | st.dictionaries(st.text(max_size=6), inner, max_size=4)
    ),
    max_leaves=12,
)


@st.composite
def _with_a_builder(draw: st.DrawFn) -> Any:
    """A plain container with a builder put somewhere at most two levels down."""
    value = draw(st.lists(_PLAIN, min_size=1, max_size=4))
    target: Any = value
    for _ in range(draw(st.integers(0, 2))):
        members = target.values() if isinstance(target, dict) else target
        children = [item for item in members if isinstance(item, list | dict)]
        if not children:
            break
        target = draw(st.sampled_from(children))
    if isinstance(target, dict):
        target[draw(st.text(max_size=6))] = TICKET.make(ROW)
    else:
        target.insert(draw(st.integers(0, len(target))), TICKET.make(ROW))
    return value


_ANSWERS = Answers(result_of=lambda result: result, exposure="none", logs_crashes=False)


@given(_with_a_builder())
def test_the_path_of_a_refused_builder_leads_to_a_builder(value: Any) -> None:
    """Wherever a builder sits in a small returned value, the error's path leads to one."""
    with pytest.raises(SerializationError) as caught:
        _ANSWERS.result(value, lambda raw: raw)
    assert isinstance(_at_path(value, caught.value.path), ResponseBuilder)


@given(_PLAIN)
def test_a_plain_value_goes_to_the_framework_unchanged(value: Any) -> None:
    """No builder in it: the framework's own conversion gets the very value."""
    assert _ANSWERS.result(value, lambda raw: raw) is value


@pytest.mark.parametrize("kind", KINDS)
def test_a_builder_inside_a_dict_or_list_subclass_is_refused_too(kind: str) -> None:
    """An ``OrderedDict`` or a ``list`` subclass holding a builder is no response either."""

    class Rows(list[Any]):
        pass

    value = collections.OrderedDict(rows=Rows([1, TICKET.make(ROW)]))
    (wire,) = _calls(_returning(kind, lambda: value), ("give", {}))
    assert wire["isError"] is True
    assert "(at $.rows[1])" in wire["content"][0]["text"]
