"""Determinism: the same input gives the same bytes in every process.

Sets, frozensets, frozenset keys and NaN members iterate in an order that
``PYTHONHASHSEED`` (and, for NaN, object identity) decides. The child module
(``tests/_support/determinism_child.py``) builds such values from generated recipes and prints
digests of every way they reach the wire — ``to_json``, ``success``, the
builder, TOON 2.1.0 and v4, error details, Presenter output, error messages —
and of the app's tool definitions (set-typed parameters). Processes with
different hash seeds must print the same lines. The example count follows the
loaded hypothesis profile (``fusion-thorough``: 100,000 per process).

Not covered on purpose: a ``dict`` built from a set (``dict.fromkeys(s)``) is
ordered by that set, and Fusion keeps a dict's order (it is the caller's), so
its bytes differ between processes as its order does; sort it to fix them.

Found while writing this: an error message showed a frozenset key's hash-ordered
repr (fixed: ``stable_repr``); a Presenter wrote a field typed ``set[str]`` in
the set's order, because the mask's serializer turned the set into a list
before ``to_json`` could sort it (fixed: ``fusion_core._present._sets`` sorts every set
the schema declares, on both mask paths; pinned below). Later (issue 11): sets
were sorted by Python's ``<``, a partial order on frozensets and NaN, so a set
of frozensets came out in other orders; and sets in ``Any`` fields and
``extra="allow"`` extras kept hash order (fixed: one total order on the
members' JSON values, ``fusion_core._present._order``; the recipes now draw nested
frozensets, tuples of them, Decimal NaN and mixed types, and the child writes
them through ``Any`` fields and extras on both mask paths). Mutation testing
(issue 11) found sets in dataclasses, TypedDicts, NamedTuples and root models
written in hash order on the model path (fixed: every node kind but the leaves
is planned or walked; the child writes those too).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Annotated

import pytest
from hypothesis import settings
from pydantic import BaseModel, PlainSerializer

import fusion_core as fc

ROOT = Path(__file__).resolve().parents[2]
SEEDS = ("0", "1", "4242")


def _run(code: list[str], seed: str) -> list[str]:
    env = {**os.environ, "PYTHONHASHSEED": seed}
    done = subprocess.run(
        [sys.executable, *code], cwd=ROOT, env=env, capture_output=True, text=True, check=False
    )
    assert done.returncode == 0, done.stderr[-2000:]
    return done.stdout.splitlines()


def test_generated_inputs_give_the_same_bytes_under_every_hash_seed() -> None:
    """Each seed's child prints the same digests, line by line, for the same recipes."""
    current = settings.default
    examples = str(current.max_examples if current is not None else 100)
    runs = {seed: _run(["-m", "tests._support.determinism_child", examples], seed)
            for seed in SEEDS}  # fmt: skip
    first = runs[SEEDS[0]]
    assert first[0].startswith("definitions ")
    assert len(first) > 1
    for seed in SEEDS[1:]:
        assert [line.split()[0] for line in runs[seed]] == [line.split()[0] for line in first], (
            "hypothesis drew other recipes: the comparison below would be meaningless"
        )
        differing = [(a, b) for a, b in zip(first, runs[seed], strict=True) if a != b]
        assert differing == [], f"PYTHONHASHSEED={seed} changed {len(differing)} outputs"


_PROBE = """
import fusion_core as fc
from pydantic import BaseModel, PlainSerializer

class Tagged(BaseModel):
    tags: set[str]
    codes: frozenset[int]

tagged = fc.Presenter("Tagged", schema=Tagged)
print(repr(fc.to_json({"k": {"delta", "alpha", "gamma", "beta"}})))
try:
    fc.to_json({frozenset({"ab", "cd", "ef", "gh"}): 1})
except fc.SerializationError as exc:
    print(str(exc))
print(repr(fc.toon_success({"s": {"delta", "alpha", "gamma"}}).texts))
"""


def test_sets_and_error_messages_are_the_same_under_every_hash_seed() -> None:
    """Pinned cases: set order and the frozenset-key error message (was hash-ordered)."""
    outputs = {tuple(_run(["-c", _PROBE], seed)) for seed in SEEDS}
    assert len(outputs) == 1
    (lines,) = outputs
    assert "frozenset({'ab', 'cd', 'ef', 'gh'})" in lines[1]


class Tagged(BaseModel):
    """A Presenter schema with set fields (the fast mask path)."""

    tags: set[str]


class SlowTagged(BaseModel):
    """The same field on the model path (a serializer elsewhere in the model)."""

    tags: set[str]
    card: Annotated[str, PlainSerializer(lambda _v: "****")] = ""


@pytest.mark.parametrize("schema", [Tagged, SlowTagged], ids=["fast path", "model path"])
def test_presenter_set_fields_are_written_sorted(schema: type[BaseModel]) -> None:
    """A ``set[str]`` field reaches the wire sorted, as ``to_json`` writes a set."""
    tags = {f"tag{i}" for i in range(12)}
    text = fc.Presenter("Tagged", schema=schema).make({"tags": tags}).build().texts[0]
    assert fc.to_json(json.loads(text)["tags"]) == fc.to_json(sorted(tags))


_SET_PROBE = """
from typing import Annotated
from pydantic import BaseModel, PlainSerializer
import fusion_core as fc

class Inner(BaseModel):
    codes: frozenset[str]

class Fast(BaseModel):
    tags: set[str]
    nested: list[set[str]]
    by_key: dict[str, frozenset[str]]
    inner: Inner
    either: set[str] | int
    pair: tuple[set[str], int]

class Slow(Fast):
    card: Annotated[str, PlainSerializer(lambda _v: "****")] = ""

words = {"delta", "alpha", "gamma", "beta", "omega", "kappa", "sigma", "tau"}
row = {"tags": words, "nested": [words], "by_key": {"k": words}, "inner": {"codes": words},
       "either": words, "pair": (words, 1), "card": "1234"}
for schema in (Fast, Slow):
    print(fc.Presenter("P", schema).make([row]).build().texts[0])
"""


def test_nested_set_fields_are_the_same_under_every_hash_seed() -> None:
    """Sets in lists, dict values, nested models, unions and tuples: sorted, on both paths."""
    outputs = {tuple(_run(["-c", _SET_PROBE], seed)) for seed in SEEDS}
    assert len(outputs) == 1
    (lines,) = outputs
    text = "\n".join(lines)
    ordered = ", ".join(f'"{word}"' for word in sorted(
        {"delta", "alpha", "gamma", "beta", "omega", "kappa", "sigma", "tau"}))  # fmt: skip
    assert text.replace("\n", "").replace(" ", "").count(ordered.replace(" ", "")) == 12
