"""fusion_core._snapshot._changes: per-block changes between snapshots, with semantic hints."""

from __future__ import annotations

import pytest

from fusion_core import response, ui
from fusion_core._snapshot._changes import change_hint, compare_snapshots
from fusion_core._snapshot._format import dump_snapshot

HINTS = [
    ('{"a": 1, "b": 2}', '{"b": 2, "a": 1}', "only reorders JSON keys"),
    ('{\n  "a": {"x": 1, "y": 2}\n}', '{"a": {"y": 2, "x": 1}}', "only reorders JSON keys"),
    ('{"a": 1}', '{\n  "a": 1\n}', "only whitespace changes"),
    ("line one\n", "line one \n", "only whitespace changes"),
    ("a\r\nb", "a\nb", "only whitespace changes"),
    ("tab\there", "tab    here", "only whitespace changes"),
    ("divide by 100.", "divide by 1000.", "only numbers change"),
    ('{"n": 1.5, "m": -2}', '{"n": 2, "m": 3e+21}', "only numbers change"),
    ("5 invoices, 12.5 EUR", "6 invoices, 13.75 EUR", "only numbers change"),
    ("INV-002 is overdue", "INV-003 is overdue", None),
    ("version v1.2.3", "version v1.2.4", None),
    ("1.2.3", "1.2.4", None),
    ("Show status with emojis", "Show status with icons", None),
    ('{"a": 1}', '{"a": "1"}', None),
    ("[1, 2]", "[2, 1]", "only numbers change"),
    ("same", "same", None),
]


@pytest.mark.parametrize(("before", "after", "hint"), HINTS)
def test_a_change_is_named_when_it_only_moves_keys_whitespace_or_numbers(
    before: str, after: str, hint: str | None
) -> None:
    """Each class of meaning-preserving (or number-only) change gets its own hint."""
    assert change_hint(before, after) == hint


def _snapshot(rules: list[str], *, summary: str | None = None, data: object = None) -> str:
    builder = response({"id": "INV-1", "n": 5} if data is None else data).system_rules(rules)
    if summary is not None:
        builder = builder.ui_block(ui.summary(summary))
    return dump_snapshot(builder.build())


def test_the_summary_line_names_each_block_and_what_changed() -> None:
    """A changed rule and an added block read as the issue's example summary does."""
    before = _snapshot(["one", "two"], summary="hi")
    after = dump_snapshot(
        response({"id": "INV-1", "n": 5})
        .ui_block(ui.summary("hi"))
        .system_rules(["one", "three"])
        .raw_block("a new block")
        .build()
    )
    change = compare_snapshots(before, after)
    assert change.summary == (
        "block 2 added (embed); block 3 (was block 2) domain_rules: 1 line changed"
    )
    added = change.changes[0]
    assert (added.status, added.hint, added.old_length) == ("added", "whole block added", None)


def test_an_inserted_block_does_not_shift_every_later_block() -> None:
    """Blocks align by kind: inserting a UI block is one addition, the rules stay paired."""
    before = _snapshot(["one", "two"])
    after = _snapshot(["one", "two"], summary="hi")
    change = compare_snapshots(before, after)
    assert change.summary == "block 1 added (ui_passthrough(summary))"
    removed = compare_snapshots(after, before)
    assert removed.summary == "block 1 removed (ui_passthrough(summary))"
    assert removed.changes[0].hint == "whole block removed"


def test_a_changed_block_reports_kind_lengths_and_visible_lines() -> None:
    """The header gives kind and both lengths; CR and zero-width characters are shown."""
    before = dump_snapshot(response("x").raw_block("a\r\nb").build())
    after = dump_snapshot(response("x").raw_block("a\r\nb\u200b").build())
    (change,) = compare_snapshots(before, after).changes
    assert change.header == "block 1 · embed · changed · 4 chars → 5 chars"
    assert "-b⏎ (no newline at end)\n" not in change.diff
    assert " a␍\n" in change.diff
    assert "+b⟨U+200B⟩\n" in change.diff
    assert change.summary == "block 1 embed: 1 line changed"


def test_a_new_snapshot_lists_every_block_as_added() -> None:
    """Without an accepted snapshot, every block is new."""
    change = compare_snapshots(None, _snapshot(["r"]))
    assert change.new
    assert change.summary == "new snapshot: block 0 added (data); block 1 added (domain_rules)"


def test_structured_content_and_is_error_changes_are_reported() -> None:
    """Changes outside the blocks are named too, with the same hints."""
    before = dump_snapshot({"content": [], "structuredContent": {"a": 1, "b": 2}})
    after = dump_snapshot({"content": [], "structuredContent": {"b": 2, "a": 1}, "isError": True})
    labels = {change.label: change for change in compare_snapshots(before, after).changes}
    assert labels["structuredContent"].hint == "only reorders JSON keys"
    assert labels["isError"].status == "changed"


def test_a_damaged_file_is_compared_as_text() -> None:
    """A pending file that is not a snapshot still gets a diff, labelled as the file."""
    change = compare_snapshots(_snapshot(["r"]), "not a snapshot\n")
    assert [c.label for c in change.changes] == ["snapshot file"]
    assert "+not a snapshot\n" in change.changes[0].diff
