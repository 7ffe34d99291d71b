"""Parameters pydantic cannot build or describe are refused when they are registered.

Pydantic fails on such a field deep inside its own code, with no place (a
``RecursionError`` a thousand frames long, or a bare ``Maximum serialization
depth exceeded``), and some of them only when the schema is first written: at
the first ``tools/list``. A tool refuses them when the action (or the common
model, or the output schema) is added, with a ``TypeError`` naming the tool,
the action and the parameter.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Annotated, Any

import pytest
from pydantic import BaseModel, Field, create_model

from fusion_core import FusionApp, Tool


def _deep_list(levels: int) -> list[Any]:
    root: list[Any] = []
    node = root
    for _ in range(levels):
        child: list[Any] = []
        node.append(child)
        node = child
    return root


def _deep_dict(levels: int) -> dict[str, Any]:
    root: dict[str, Any] = {}
    node = root
    for _ in range(levels):
        child: dict[str, Any] = {}
        node["k"] = child
        node = child
    return root


def _deep_type(levels: int) -> Any:
    kind: Any = int
    for _ in range(levels):
        kind = list[kind]
    return kind


class Opaque:
    """A class pydantic has no schema for."""


def _handler(annotation: Any, default: Any) -> Callable[..., Any]:
    def handler(x: Any = default) -> dict[str, int]:
        return {"ok": 1}

    handler.__annotations__["x"] = annotation
    return handler


def _model(annotation: Any, default: Any) -> type[BaseModel]:
    return create_model("Params", x=(annotation, default))


# name -> (annotation, default, what the message says)
DEEP = "nested too deeply"
FIELDS: dict[str, tuple[Any, Any, str]] = {
    "a default list nested 5,000 levels": (Any, _deep_list(5000), DEEP),
    "a default dict nested 5,000 levels": (Any, _deep_dict(5000), DEEP),
    "a type nested 400 levels": (_deep_type(400), None, DEEP),
    "examples nested 5,000 levels": (Annotated[Any, Field(examples=[_deep_list(5000)])], 1, DEEP),
    "json_schema_extra nested 600 levels": (
        Annotated[Any, Field(json_schema_extra={"x": _deep_dict(600)})],
        1,
        DEEP,
    ),
    "a callable type": (Callable[[], int], None, "pydantic cannot describe it"),
}


@pytest.mark.parametrize("case", FIELDS, ids=list(FIELDS))
def test_a_signature_parameter_pydantic_cannot_describe_is_refused(case: str) -> None:
    """A handler parameter: the error names the action and the parameter, nothing is added."""
    annotation, default, says = FIELDS[case]
    tool = Tool("t", "x").action("ok", lambda: {"ok": 1})
    with pytest.raises(TypeError, match=rf"action 'bad': parameter 'x': {says}") as caught:
        tool.action("bad", _handler(annotation, default))
    assert len(str(caught.value)) < 400
    assert list(tool.actions) == ["ok"]
    assert FusionApp([tool]).call_sync("t", {"action": "ok"}).texts == ['{\n  "ok": 1\n}']


# Pydantic refuses the others when the user's own model is defined.
MODEL_FIELDS = [
    c for c in FIELDS if any(w in c for w in ("default", "json_schema_extra", "callable"))
]


@pytest.mark.parametrize("case", MODEL_FIELDS, ids=str)
def test_a_params_model_pydantic_cannot_describe_is_refused(case: str) -> None:
    """A ``params=`` model's field: refused when the action is added, named with the tool."""
    annotation, default, says = FIELDS[case]
    tool = Tool("t", "x")
    with pytest.raises(TypeError, match=rf"tool 't': action 'bad': parameter 'x': {says}"):
        tool.action("bad", lambda p: p, params=_model(annotation, default))
    assert tool.actions == {}


def test_common_parameters_pydantic_cannot_describe_are_refused() -> None:
    """A ``common=`` model's field is named as a common parameter."""
    common = _model(Any, _deep_list(5000))
    tool = Tool("t", "x", common=common)
    with pytest.raises(TypeError, match=rf"tool 't': common parameters: parameter 'x': {DEEP}"):
        tool.action("a", lambda: None)


def test_an_output_schema_pydantic_cannot_describe_is_refused_when_declared() -> None:
    """``with_output_schema`` writes the schema at once, not at the first ``tools/list``."""
    tool = Tool("t", "x").action("a", lambda: {"x": 1})
    with pytest.raises(TypeError, match=rf"tool 't': output schema: parameter 'x': {DEEP}"):
        tool.with_output_schema(_model(Any, _deep_dict(5000)))
    assert tool.output_schema is None
    assert "outputSchema" not in tool.definition()


def test_an_unknown_type_is_named_with_pydantics_reason() -> None:
    """A type pydantic has no validator for keeps pydantic's reason, now with the place."""
    with pytest.raises(TypeError, match=r"action 'a': parameter 'x': .*Opaque") as caught:
        Tool("t", "x").action("a", _handler(Opaque, None))
    assert caught.value.__cause__ is not None  # pydantic's own error stays chained


def test_a_default_nested_moderately_is_kept() -> None:
    """A default pydantic can write is advertised and used, as before."""
    tool = Tool("t", "x").action("a", _handler(Any, _deep_list(20)))
    schema = tool.definition()["inputSchema"]["properties"]["x"]
    assert schema["default"] == _deep_list(20)
