"""Table cells: each scalar is written as JavaScript's ``String()`` writes it.

Added for mutants the mutation check found alive (``./dev mutate``): a table
cell's ``false`` and the ``str()`` of a non-JSON value (``Decimal``, ``date``)
were never asserted, nor the offending meta an unknown-key ``UIError`` carries.
Hostile text in cells (pipes, line breaks, fences) is the fence property's.
"""

from __future__ import annotations

import datetime
from decimal import Decimal
from typing import Any

import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from fusion_core import UIError, UiMeta, ui
from fusion_core._write._numbers import js_number
from fusion_core._write._text import LINE_BREAK

# Pipes and line breaks (str.splitlines' set, \x1c-\x1e included) are escaped.
# Lone surrogates are refused (SerializationError: MCP text must be valid
# Unicode; tests/fusion_core/_write/test_hostile_data.py), so plain text has none.
_PLAIN_TEXT = st.text(st.characters(exclude_characters="|\\", exclude_categories=["Cs"])).filter(
    lambda text: LINE_BREAK.search(text) is None
)
_SCALARS = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-(2**70), 2**70),
    st.floats(allow_nan=False, allow_infinity=False),
    st.decimals(allow_nan=False, allow_infinity=False),
    st.dates(),
    _PLAIN_TEXT,
)


def _expected(value: Any) -> str:
    """The cell text of ``value`` (no pipes or line breaks to escape)."""
    if value is None:
        return ""
    if value is True or value is False:
        return "true" if value else "false"
    if isinstance(value, float):
        return js_number(value)
    return str(value)


@given(st.lists(st.lists(_SCALARS, min_size=2, max_size=2), min_size=1, max_size=4))
@example([[False, True], [None, 0], [Decimal("2.50"), datetime.date(2020, 1, 2)]])
@example([[10**21, 1e21], [-0.0, "text"]])
@example([[None, "\x1f"], ["a b", " "]])
def test_table_cells_are_written_as_javascript_would(rows: list[list[Any]]) -> None:
    """Each body row is ``| a | b |`` with every cell's JavaScript string."""
    lines = ui.table(["a", "b"], rows).content.split("\n")
    assert lines[:2] == ["| a | b |", "| --- | --- |"]
    assert lines[2:] == [f"| {_expected(a)} | {_expected(b)} |" for a, b in rows]


@pytest.mark.parametrize("meta", [{"colour": "red"}, {"title": "t", "size": 1}])
def test_unknown_meta_keys_name_the_meta(meta: dict[str, Any]) -> None:
    """The UIError for unknown meta keys names them and carries the meta itself."""
    with pytest.raises(UIError, match="unknown UI meta keys") as raised:
        UiMeta.of(meta)
    assert raised.value.value is meta
