"""The child process of ``test_determinism``: wire bytes of generated inputs, hashed.

Run as ``python -m tests._support.determinism_child EXAMPLES`` under some
``PYTHONHASHSEED``. A derandomized hypothesis run draws *recipes* (plain JSON
descriptions); the sets, frozensets and hash-ordered values are built here, in
this process, so their iteration order is this process's. Each example prints
one line: the recipe's digest and the digest of every output (the bytes, or the
error message). The parent compares the lines of processes with different seeds.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import sys
from decimal import Decimal
from typing import Annotated, Any, NamedTuple

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from pydantic import BaseModel, ConfigDict, PlainSerializer, RootModel
from typing_extensions import TypedDict

import fusion_core as fc
from fusion_core import FusionApp, Presenter, Tool

_LEAVES = (
    st.none()
    | st.booleans()
    | st.integers(-(2**70), 2**70)
    | st.floats()  # NaN too: its hash is its identity, so a set of NaNs has no fixed order
    | st.text(max_size=6)
    | st.sampled_from(["a", "b", "ab", "\x01", "é", "10", "9"])
)
# Members Python's ``<`` cannot order totally: frozensets (``<`` is "subset"),
# NaN, Decimal NaN, mixed types, and tuples and frozensets holding them.
_MEMBERS = _LEAVES | st.builds(lambda x: {"decimal": x}, st.sampled_from(["NaN", "10", "9", "-0"]))
_HASHABLE = st.recursive(
    _MEMBERS,
    lambda inner: (
        st.builds(lambda x: {"tuple": x}, st.lists(inner, max_size=3))
        | st.builds(lambda x: {"frozenset": x}, st.lists(inner, max_size=4))
    ),
    max_leaves=8,
)
# Keys that collide once written: 1 and "1", True and "true", None and "None".
_KEYS = (
    st.text(max_size=4)
    | st.integers(-2, 12)
    | st.booleans()
    | st.none()
    | st.sampled_from(["1", "10", "-1", "true", "false", "None"])
)
RECIPES = st.recursive(
    _LEAVES,
    lambda inner: (
        st.lists(inner, max_size=4)
        | st.builds(lambda x: {"set": x}, st.lists(_HASHABLE, max_size=6))
        | st.builds(lambda x: {"frozenset": x}, st.lists(_HASHABLE, max_size=6))
        | st.builds(lambda x: {"dict": x}, st.lists(st.tuples(_KEYS, inner), max_size=4))
        | st.builds(lambda x: {"frozenset_key": x}, st.lists(st.text(max_size=3), max_size=4))
        | st.builds(lambda x: {"collide": x}, st.lists(inner, min_size=2, max_size=2))
    ),
    max_leaves=12,
)  # fmt: skip


def build(recipe: Any) -> Any:
    """The value a recipe describes, built in this process."""
    if isinstance(recipe, list):
        return [build(item) for item in recipe]
    if not isinstance(recipe, dict):
        return recipe
    ((kind, body),) = recipe.items()
    if kind == "tuple":
        return tuple(build(item) for item in body)
    if kind == "decimal":
        return Decimal(body)
    if kind in ("set", "frozenset"):
        members = [build(item) for item in body]
        return set(members) if kind == "set" else frozenset(members)
    if kind == "dict":
        return {key: build(value) for key, value in body}
    if kind == "collide":  # one key once written, holding the second value
        return {1: build(body[0]), "1": build(body[1])}
    return {frozenset(body): 1}  # a key JSON cannot hold: the error must be stable too


class Row(BaseModel):
    """A Presenter schema with a set field (written sorted) among ordered ones."""

    name: str
    tags: list[str]
    meta: dict[str, int]
    labels: set[str] = set()


ROWS = Presenter("Row", schema=Row, rules=["Rows are sorted by name."])


class Loose(BaseModel):
    """Values pydantic writes by inference: an ``Any`` field and ``extra="allow"`` extras."""

    model_config = ConfigDict(extra="allow")

    name: str
    anything: Any = None


class SlowLoose(Loose):
    """The same on the model path (a serializer elsewhere in the model)."""

    card: Annotated[str, PlainSerializer(lambda _v: "****")] = ""


@dataclasses.dataclass
class Bag:
    """A dataclass holding a set."""

    labels: set[str]


class Typed(TypedDict):
    """A TypedDict holding a set."""

    labels: set[str]


class Pair(NamedTuple):
    """A NamedTuple holding a set."""

    labels: set[str]


class Labels(RootModel[set[str]]):
    """A root model that is a set."""


class Nodes(BaseModel):
    """Sets inside the node kinds the model path's planner once took for set-free."""

    bag: Bag
    typed: Typed
    pair: Pair
    root: Labels
    anything: Any = None


class Keyed(BaseModel):
    """A typed dict whose keys may collide once written (``1`` and ``"1"``)."""

    by: dict[int | str, set[str]]


NODES = Presenter("Nodes", schema=Nodes)
KEYED = Presenter("Keyed", schema=Keyed)
LOOSE = Presenter("Loose", schema=Loose)
SLOW_LOOSE = Presenter("SlowLoose", schema=SlowLoose)
TOOL = Tool("records", "Records of the shop")


@TOOL.action("find", description="Find records", returns=ROWS, read_only=True)
def find(tags: set[str], kind: frozenset[int] = frozenset({3, 1, 2})) -> object:
    """An action whose parameters are sets (their schemas must not vary)."""
    return [{"name": tag, "tags": sorted(tags), "meta": {"n": len(tag)}} for tag in tags]


APP = FusionApp([TOOL.enable_select().toon_description()])


def _digest(function: Any, *args: Any, **kwargs: Any) -> str:
    try:
        out = function(*args, **kwargs)
    except (TypeError, ValueError) as exc:  # SerializationError is a ValueError
        out = f"{type(exc).__name__}: {exc}"
    text = out if isinstance(out, str) else json.dumps(out, ensure_ascii=True, default=repr)
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()[:16]


def outputs(recipe: Any) -> list[str]:
    """One digest per way a value reaches the wire."""
    value = build(recipe)
    shown = str(recipe)
    labels = {shown[start : start + 3] for start in range(len(shown))}
    rows = [{"name": str(i), "tags": ["x"], "meta": {"k": i}, "labels": labels, "secret": value}
            for i in range(2)]  # fmt: skip
    return [
        _digest(fc.to_json, value),
        _digest(lambda: fc.success(value).texts),
        _digest(lambda: fc.response(value).llm_hint(str(value)[:0]).build().texts),
        _digest(lambda: fc.toon_success(value).texts),
        _digest(lambda: fc.toon_success(value, version=4).texts),
        _digest(lambda: fc.tool_error("E", "m", details={"v": value}).texts),
        _digest(lambda: ROWS.make(rows).build().texts),
        _digest(lambda: LOOSE.make({"name": "n", "anything": value, "more": value}).build().texts),
        _digest(
            lambda: SLOW_LOOSE.make({"name": "n", "anything": value, "more": value}).build().texts
        ),
        _digest(
            lambda: (
                NODES.make(
                    {
                        "bag": Bag(set(labels)),
                        "typed": {"labels": labels},
                        "pair": (labels,),
                        "root": labels,
                        "anything": Labels(set(labels)),
                    }
                )
                .build()
                .texts
            )
        ),
        _digest(
            lambda: (
                KEYED.make({"by": {1: labels, "1": {label[::-1] for label in labels}}})
                .build()
                .texts
            )
        ),
    ]


def main(examples: int) -> None:
    """Print the definitions' digest, then one line per example."""
    print("definitions", _digest(APP.definitions))

    @settings(
        max_examples=examples,
        derandomize=True,
        database=None,
        deadline=None,
        suppress_health_check=list(HealthCheck),
    )
    @given(RECIPES)
    def run(recipe: Any) -> None:
        line = json.dumps(recipe, sort_keys=True, default=repr, allow_nan=True)
        print(hashlib.sha256(line.encode("utf-8", "surrogatepass")).hexdigest()[:16],
              *outputs(recipe))  # fmt: skip

    run()


if __name__ == "__main__":
    main(int(sys.argv[1]))
