"""The block-kinds table is the one home of every kind: each layer reads it, none spells a tag.

Adding a kind must mean one row in ``fusion_core/_kinds.py`` and the code
that is truly new (its writer, its reader); these tests fail when a module
spells a block's tag itself, when a row names a parsed type, a view field or
a result property that does not exist, or when the table and the wire
disagree on the tail's order.
"""

from __future__ import annotations

import ast
import dataclasses
import itertools
import json
import typing
from pathlib import Path

import pytest

from fusion_core import ResponseView, Suggestion, UiBlock, parse, response, view_of
from fusion_core._kinds import (
    DATA,
    EMBED,
    ENVELOPES,
    FUSION_ELEMENTS,
    KINDS,
    TAIL,
    TAIL_ORDER,
    UI,
    BlockKind,
    kind_named,
    kind_of,
)
from fusion_core._read import _parsed_blocks
from fusion_core._snapshot._format import block_kinds
from pytest_mcpfusion import FusionResult

ROOT = Path(__file__).resolve().parents[2]
_PACKAGES = ("fusion_core", "pytest_mcpfusion")


def _spellings() -> set[str]:
    """Every way code names a block's element: ``tag``, ``<tag``, ``<tag>``, ``</tag>``."""
    return {
        form
        for kind in KINDS
        if kind.tag
        for form in (kind.tag, f"<{kind.tag}", f"<{kind.tag}>", f"</{kind.tag}>")
    }


def _docstrings(tree: ast.AST) -> set[int]:
    """The ids of the string nodes that are docstrings (prose, not code)."""
    found: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef):
            body = node.body
            if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
                found.add(id(body[0].value))
        # An attribute docstring: a bare string right after an assignment.
        for field in ("body", "orelse"):
            statements = getattr(node, field, None)
            if not isinstance(statements, list):
                continue
            for before, after in itertools.pairwise(statements):
                if (
                    isinstance(before, ast.Assign | ast.AnnAssign)
                    and isinstance(after, ast.Expr)
                    and isinstance(after.value, ast.Constant)
                ):
                    found.add(id(after.value))
    return found


def _public_names(tree: ast.AST) -> set[int]:
    """The ids of the strings that name functions: ``__all__`` and ``_SOURCES`` entries.

    ``tool_error`` is a helper's name as well as an element's.
    """
    found: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Assign | ast.AnnAssign):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            names = {target.id for target in targets if isinstance(target, ast.Name)}
            if names & {"__all__", "_SOURCES"} and node.value is not None:
                value = node.value
                keys = value.keys if isinstance(value, ast.Dict) else getattr(value, "elts", [])
                found.update(id(key) for key in keys if key is not None)
    return found


def tag_spellings(path: Path) -> list[tuple[int, str]]:
    """``(line, text)`` of each string literal in ``path`` that is a block's tag."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    prose = _docstrings(tree) | _public_names(tree)
    spellings = _spellings()
    return sorted(
        (node.lineno, node.value)
        for node in ast.walk(tree)
        if isinstance(node, ast.Constant)
        and isinstance(node.value, str)
        and id(node) not in prose
        and node.value in spellings
    )


def test_no_module_but_the_table_spells_a_block_tag() -> None:
    """The tags live in ``_kinds.py``; every other module reads them from its rows."""
    spelled = {
        str(path.relative_to(ROOT)): found
        for package in _PACKAGES
        for path in sorted((ROOT / package).rglob("*.py"))
        if path.name != "_kinds.py" and (found := tag_spellings(path))
    }
    assert spelled == {}


def test_the_scan_sees_a_spelled_tag(tmp_path: Path) -> None:
    """The scan above finds a tag in code (so its empty answer means something)."""
    module = tmp_path / "spelled.py"
    module.write_text(
        '"""Prose may name <llm_directives>."""\n'
        'X = "<domain_rules>"\n'
        '"""An attribute docstring: <tool_error>."""\n'
        'def f():\n    return text.startswith("<ui_passthrough")\n'
        '__all__ = ["tool_error"]\n'
        'TAGS = ("tool_error",)\n',
        encoding="utf-8",
    )
    assert tag_spellings(module) == [
        (2, "<domain_rules>"),
        (5, "<ui_passthrough"),
        (7, "tool_error"),
    ]


def test_every_parsed_block_type_has_one_row() -> None:
    """Each type in the ``Block`` union is one row's parsed type, and each row names one."""
    union = typing.get_args(_parsed_blocks.Block)
    assert sorted(kind.parsed for kind in KINDS) == sorted(cls.__name__ for cls in union)
    for cls in union:
        assert getattr(_parsed_blocks, kind_of_type(cls).parsed) is cls


def kind_of_type(cls: type) -> BlockKind:
    """The row whose parsed type is ``cls``."""
    return next(kind for kind in KINDS if kind.parsed == cls.__name__)


def test_every_row_names_a_view_field_and_a_result_property() -> None:
    """``view`` is a ResponseView field and ``result`` the FusionResult property with its values."""
    fields = {field.name for field in dataclasses.fields(ResponseView)}
    built = response({"id": 1}).llm_hint("d").system_rules(["r"]).system_hint([("t", "why")])
    wire = built.build()
    result = FusionResult(dict(wire), view_of(wire), tool="t", arguments={})
    for kind in KINDS:
        assert kind.view in fields, kind.name
        assert isinstance(getattr(FusionResult, kind.result), property), kind.name
        assert getattr(result, kind.result) == getattr(result.view, kind.view), kind.name


def test_names_and_tags_are_unique_and_tags_name_their_kind() -> None:
    """One row per name; an element's tag is its name; the data and raw blocks have none."""
    assert len({kind.name for kind in KINDS}) == len(KINDS)
    for kind in KINDS:
        assert kind_named(kind.name) is kind
        assert kind.tag in ("", kind.name)
        assert bool(kind.tag) is (kind not in (DATA, EMBED))
    with pytest.raises(KeyError):
        kind_named("secret_notes")


def test_the_tail_is_the_order_the_writer_writes_and_the_parser_reads() -> None:
    """Directives, rules, suggestions: the builder's order, the parser's, and the table's."""
    built = (
        response({"id": 1})
        .system_hint([("next", "then")])
        .system_rules(["r"])
        .ui_blocks([UiBlock("markdown", "**x**")])
        .llm_hint("d")
        .build()
    )
    parsed = parse(built)
    assert [kind_of(block) for block in parsed.blocks] == [DATA, UI, *TAIL]
    assert [kind.name for kind in (DATA, *TAIL)] == [
        name for name in block_kinds(dict(built)) if not name.startswith(UI.name)
    ]
    assert [kind.tail for kind in TAIL] == [0, 1, 2]
    assert TAIL_ORDER == "<llm_directives>, <domain_rules>, <action_suggestions>"
    assert parsed.view.suggestions == (Suggestion("next", "then"),)


def test_envelopes_and_elements() -> None:
    """The envelopes are the rows with parts; every tag and part is a neutralized element."""
    assert [kind.name for kind in ENVELOPES] == ["tool_error", "validation_error"]
    tags = {kind.tag for kind in KINDS if kind.tag}
    parts = {part for kind in ENVELOPES for part in kind.parts}
    assert set(FUSION_ELEMENTS) == tags | parts
    assert list(FUSION_ELEMENTS) == sorted(FUSION_ELEMENTS)


def test_the_report_schema_names_the_kinds_of_the_table() -> None:
    """``report.schema.json`` describes its block kinds with the table's names, in order."""
    schema = json.loads((ROOT / "pytest_mcpfusion" / "report.schema.json").read_text("utf-8"))
    descriptions = [
        value
        for value in _strings(schema)
        if value.startswith("block kind (") and value.endswith(") -> sizes")
    ]
    assert descriptions, "the schema describes its block kinds"
    for description in descriptions:
        names = description.removeprefix("block kind (").removesuffix(") -> sizes")
        # The report adds one kind of its own after the table's: an error answer's
        # plain text, which is no data block (pytest_mcpfusion._report._summary).
        table, _, report_only = names.partition(", plain_error: ")
        assert table.split(", ") == [kind.name for kind in KINDS]
        assert report_only == "the text of an error answer without an envelope"


def _strings(value: object) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        return [text for item in value.values() for text in _strings(item)]
    if isinstance(value, list):
        return [text for item in value for text in _strings(item)]
    return []
