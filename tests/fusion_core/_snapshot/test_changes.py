"""fusion_core._snapshot._changes: per-block changes between snapshots, with semantic hints."""

from __future__ import annotations

import pytest

from fusion_core import response, ui
from fusion_core._snapshot._changes import (
    change_hint,
    compare_snapshots,
    diff_snapshots,
    explain_snapshots,
)
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


# --- the failure diff: a rendering of the same change model ---------------------


def _headers(diff: list[str]) -> list[str]:
    return [line for line in diff if line.startswith(("--- ", "+++ "))]


def test_an_inserted_block_is_one_added_block_in_the_failure_diff() -> None:
    """A UI block inserted after the data: one added block, the rules after it unchanged."""
    before = _snapshot(["one", "two"])
    after = _snapshot(["one", "two"], summary="hi")
    diff = diff_snapshots(before, after)
    assert diff[0] == "block 1 (ui_passthrough(summary)): not in the snapshot\n"
    assert _headers(diff) == [
        "--- snapshot block 1 (ui_passthrough(summary))\n",
        "+++ actual block 1 (ui_passthrough(summary))\n",
    ]
    assert not any(line.startswith("-") and "one" in line for line in diff)


def test_a_moved_block_names_its_index_on_each_side() -> None:
    """A rule changed after an inserted block: each header names that side's block index."""
    before = _snapshot(["one"])
    after = _snapshot(["one!"], summary="hi")
    headers = _headers(diff_snapshots(before, after, labels=("right", "left")))
    assert "--- right block 1 (domain_rules)\n" in headers
    assert "+++ left block 2 (domain_rules)\n" in headers


def test_structured_content_and_is_error_are_diffed_as_text() -> None:
    """StructuredContent is a unified diff of its JSON lines; isError of its value."""
    before = dump_snapshot(
        {"content": [{"type": "text", "text": "x"}], "structuredContent": {"n": 1}}
    )
    after = dump_snapshot(
        {"content": [{"type": "text", "text": "x"}], "structuredContent": {"n": 2}, "isError": True}
    )
    diff = diff_snapshots(before, after)
    assert "--- snapshot isError (flag)\n" in diff
    assert "+true\n" in diff
    assert "--- snapshot structuredContent (json)\n" in diff
    assert '-  "n": 1\n' in diff
    assert '+  "n": 2\n' in diff


PAIRS = {
    "rule-changed": (_snapshot(["one", "two"]), _snapshot(["one", "three"])),
    "block-inserted": (_snapshot(["one"]), _snapshot(["one"], summary="hi")),
    "block-removed": (_snapshot(["one"], summary="hi"), _snapshot(["one"])),
    "data-and-rules": (_snapshot(["a"], data={"x": 1}), _snapshot(["b"], data={"x": 2})),
    "not-a-snapshot": (_snapshot(["a"]), "not a snapshot\n"),
}


@pytest.mark.parametrize(("before", "after"), PAIRS.values(), ids=PAIRS)
def test_the_failure_diff_and_the_review_show_the_same_changes(before: str, after: str) -> None:
    """One change model: the failure diff has a header pair per change, the same diff lines."""
    changes = compare_snapshots(before, after).changes
    diff = diff_snapshots(before, after)
    assert _headers(diff) == [
        header
        for change in changes
        for header in (
            f"--- snapshot {change.side(change.old_index)} ({change.kind})\n",
            f"+++ actual {change.side(change.new_index)} ({change.kind})\n",
        )
    ]
    assert [line for line in diff if line[:1] in "+-@ " and line[:4] not in ("--- ", "+++ ")] == [
        line for change in changes for line in change.diff
    ]


def _many(rows: int, rules: list[str], hints: list[str]) -> str:
    data = {"id": "INV-1", "rows": [f"row {n} " + "x" * 60 for n in range(rows)]}
    builder = response(data).ui_block(ui.summary("1 invoice")).system_rules(rules)
    for hint in hints:
        builder = builder.llm_hint(hint)
    return dump_snapshot(builder.build())


def test_a_failure_names_every_changed_block_within_pytests_default_budget() -> None:
    """Three changed blocks of long lines: all named on line 1, each shown, 9 lines, 600 chars."""
    before = _many(5, ["Amounts are in cents."], [])
    after = _many(12, ["Amounts are in euros.", "Round up."], ["Never mention the discount."])
    lines = explain_snapshots(before, after)
    assert lines[0] == (
        "the wire differs: block 0 (data), block 2 (llm_directives, added), "
        "block 3 (was block 2) (domain_rules) (- snapshot, + actual)"
    )
    assert len(lines) <= 9  # pytest's 8 lines, with its footer's room, less its first line
    assert sum(map(len, lines)) <= 600
    heads = [line for line in lines[1:] if line.startswith("block ")]
    assert [head.split(":")[0] for head in heads] == [
        "block 0 (data)", "block 2 (llm_directives, added)", "block 3 (was block 2) (domain_rules)",
        "block 1 (ui_passthrough(summary))",
    ]  # fmt: skip
    assert heads[-1] == "block 1 (ui_passthrough(summary)): unchanged"
    assert "+- Never mention the discount." in lines
    assert all(len(line) <= 72 for line in lines if line.startswith(("-", "+")))


def test_the_full_failure_at_vv_is_the_unified_diff_of_every_change() -> None:
    """-vv: the first line, then diff_snapshots' lines, then the unchanged blocks."""
    before = _many(5, ["Amounts are in cents."], [])
    after = _many(12, ["Amounts are in euros."], ["Be brief."])
    lines = explain_snapshots(before, after, verbose=2)
    diff = [line.rstrip("\n") for line in diff_snapshots(before, after)]
    assert lines == [lines[0], *diff, "block 1 (ui_passthrough(summary)): unchanged"]
