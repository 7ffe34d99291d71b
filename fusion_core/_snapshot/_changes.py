"""What changed between two wire snapshots, block by block, with the meaning named.

A review (``python -m pytest_mcpfusion review``) shows a reviewer, for each
pending snapshot, which blocks changed and how; the bytes alone often hide
what a change *means*, so each change carries a hint when it is one of:

- ``only reorders JSON keys`` — the same JSON value, members in another order;
- ``only whitespace changes`` — equal once all whitespace is removed (JSON
  reformatted, a trailing space, CR LF for LF);
- ``only numbers change`` — equal once every number is replaced by ``#``;
- ``whole block added`` / ``whole block removed``.

This module computes the changes (:func:`compare_snapshots`): the one model
of a snapshot difference. Its renderings show the same facts wherever a
change is read: :func:`explain_snapshots`, what a failing ``.wire`` or inline
snapshot prints (every changed block named on the first line, within pytest's
default verbosity), :func:`diff_snapshots`, a unified diff per change with
both sides named, and the review's terminal and Markdown pages
(``pytest_mcpfusion._review``).
"""

from __future__ import annotations

import difflib
import json
import re
from dataclasses import dataclass
from typing import Any, Final

from fusion_core._errors import WireFormatError
from fusion_core._snapshot._format import _dump_json, block_kinds, load_snapshot, visible_lines
from fusion_core._write._numbers import read_json

__all__ = [
    "BlockChange",
    "SnapshotChange",
    "change_hint",
    "compare_snapshots",
    "diff_snapshots",
    "explain_snapshots",
]

_WHITESPACE: Final = re.compile(r"\s+")
# A number standing alone: not glued to a letter, digit, underscore, dot or
# hyphen before it, nor to a letter, digit or ".digit" after it, so "INV-002"
# and "v1.2.3" are identifiers, and "100." ending a sentence is a number.
_NUMBER: Final = re.compile(r"(?<![\w.-])-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?(?!\w|\.\d)")
# What pytest keeps of an assertion's explanation below -vv: 8 lines (plus the
# 2 of its footer's room, less the line syrupy or pytest puts first) and 640
# characters; a failure's changed lines are cut to _WIDTH characters there.
_LINES: Final = 9
_CHARS: Final = 600
_WIDTH: Final = 72
_UNCHANGED_LINES: Final = 2
_TAGS: Final = 2  # an element's opening and closing lines
# A hint only needs to know whether two texts are JSON; past this size the
# answer is not worth parsing twice more.
_JSON_HINT_LIMIT: Final = 1_000_000


@dataclass(frozen=True, slots=True)
class BlockChange:
    """One differing part of a snapshot: a block, ``isError`` or ``structuredContent``.

    ``status`` is ``added``, ``removed`` or ``changed``; ``diff`` holds unified
    diff lines (without file headers) with CR and invisible characters shown.
    ``old_index``/``new_index`` are the block's index on each side (``None``
    on the side without it, and for ``isError``, ``structuredContent`` and an
    unreadable file).
    """

    label: str
    kind: str
    status: str
    old_length: int | None
    new_length: int | None
    hint: str | None
    diff: tuple[str, ...]
    lines_changed: int = 0
    lines_added: int = 0
    lines_removed: int = 0
    old_index: int | None = None
    new_index: int | None = None

    def side(self, index: int | None) -> str:
        """What one side calls the changed part: ``block 3``, or the label of a non-block."""
        return f"block {index}" if index is not None else self.label

    @property
    def summary(self) -> str:
        """One phrase, e.g. ``block 3 domain_rules: 1 line changed``."""
        if self.status != "changed":
            return f"{self.label} {self.status} ({self.kind})"
        counts = [
            _count(number, word)
            for number, word in (
                (self.lines_changed, "changed"),
                (self.lines_added, "added"),
                (self.lines_removed, "removed"),
            )
            if number
        ]
        text = f"{self.label} {self.kind}: {', '.join(counts) or 'changed'}"
        return f"{text} ({self.hint})" if self.hint else text

    @property
    def header(self) -> str:
        """The change's title: label, kind, status and lengths in characters."""
        lengths = " → ".join(
            f"{length} chars" for length in (self.old_length, self.new_length) if length is not None
        )
        return f"{self.label} · {self.kind} · {self.status} · {lengths}"


@dataclass(frozen=True, slots=True)
class SnapshotChange:
    """Every difference between an accepted snapshot (or none) and a pending one.

    ``unchanged`` names the blocks equal on both sides, ``(label, kind)`` in
    block order, for a failure to summarise them in one line each.
    """

    new: bool
    changes: tuple[BlockChange, ...]
    unchanged: tuple[tuple[str, str], ...] = ()

    @property
    def summary(self) -> str:
        """``block 3 domain_rules: 1 line changed; block 5 added (…)``, or why nothing shows."""
        text = "; ".join(change.summary for change in self.changes)
        if self.new:
            return f"new snapshot: {text}" if text else "new snapshot (empty)"
        return text or "no difference (the pending file equals the accepted one)"


def _count(number: int, word: str) -> str:
    return f"{number} line{'s' if number != 1 else ''} {word}"


def _json_or_none(text: str, **options: Any) -> Any:
    if len(text) > _JSON_HINT_LIMIT:
        return None
    try:
        return read_json(text, **options)
    except (ValueError, RecursionError):
        return None


def change_hint(before: str, after: str) -> str | None:
    """What a change means when it only reorders keys, touches whitespace or numbers."""
    if before == after:
        return None
    old, new = _json_or_none(before), _json_or_none(after)
    if old is not None and new is not None and old == new and type(old) is type(new):
        pairs = {"object_pairs_hook": list}
        if _json_or_none(before, **pairs) != _json_or_none(after, **pairs):
            return "only reorders JSON keys"
        return "only whitespace changes"
    if _WHITESPACE.sub("", before) == _WHITESPACE.sub("", after):
        return "only whitespace changes"
    if _NUMBER.sub("#", before) == _NUMBER.sub("#", after):
        return "only numbers change"
    return None


def _text_change(
    label: str,
    kind: str,
    before: str | None,
    after: str | None,
    *,
    context: int,
    indexes: tuple[int | None, int | None] = (None, None),
) -> BlockChange:
    """The change of one text (``None`` for a side that does not have it)."""
    mark_end = (before or "").endswith("\n") != (after or "").endswith("\n")
    old_lines = visible_lines(before or "", mark_end=mark_end)
    new_lines = visible_lines(after or "", mark_end=mark_end)
    changed = added = removed = 0
    matcher = difflib.SequenceMatcher(None, old_lines, new_lines, autojunk=False)
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag == "equal":
            continue
        changed += min(i2 - i1, j2 - j1)
        added += max(0, (j2 - j1) - (i2 - i1))
        removed += max(0, (i2 - i1) - (j2 - j1))
    diff = tuple(
        line if line.endswith("\n") else line + "\n"
        for line in difflib.unified_diff(old_lines, new_lines, n=context)
    )[2:]  # the ---/+++ file headers: the change's own header names both sides
    if before is None or after is None:
        status = "added" if before is None else "removed"
        hint: str | None = f"whole block {status}" if label.startswith("block") else None
    else:
        status, hint = "changed", change_hint(before, after)
    return BlockChange(
        label=label,
        kind=kind,
        status=status,
        old_length=None if before is None else len(before),
        new_length=None if after is None else len(after),
        hint=hint,
        diff=diff,
        lines_changed=changed,
        lines_added=added,
        lines_removed=removed,
        old_index=indexes[0],
        new_index=indexes[1],
    )


def _texts(wire: dict[str, Any]) -> list[str]:
    return [str(block.get("text", "")) for block in wire["content"]]


def _aligned(
    old_kinds: list[str], new_kinds: list[str]
) -> list[tuple[int | None, int | None, str]]:
    """Pairs of block indexes (``None``: no such block on that side), aligned by kind.

    A block inserted before others is one added block, not a change of every
    block after it: blocks pair up in runs of the same kind, and a run on
    one side only is added or removed.
    """
    pairs: list[tuple[int | None, int | None, str]] = []
    matcher = difflib.SequenceMatcher(None, old_kinds, new_kinds, autojunk=False)
    for _tag, i1, i2, j1, j2 in matcher.get_opcodes():
        common = min(i2 - i1, j2 - j1)
        pairs.extend((i1 + k, j1 + k, new_kinds[j1 + k]) for k in range(common))
        pairs.extend((i, None, old_kinds[i]) for i in range(i1 + common, i2))
        pairs.extend((None, j, new_kinds[j]) for j in range(j1 + common, j2))
    return sorted(pairs, key=_position)


def _position(pair: tuple[int | None, int | None, str]) -> tuple[int, int]:
    old_index, new_index, _ = pair
    return (new_index if new_index is not None else old_index or 0, 0 if new_index is None else 1)


def compare_snapshots(expected: str | None, actual: str, *, context: int = 3) -> SnapshotChange:
    """The changes from ``expected`` (``None``: no accepted snapshot) to ``actual``.

    A file that is not a readable snapshot is compared as plain text, as one
    change labelled ``snapshot file``.
    """
    try:
        old = load_snapshot(expected) if expected is not None else {"content": []}
        new = load_snapshot(actual)
    except WireFormatError:
        change = _text_change("snapshot file", "text", expected, actual, context=context)
        return SnapshotChange(new=expected is None, changes=(change,))
    changes: list[BlockChange] = []
    if old.get("isError") != new.get("isError") and expected is not None:
        before, after = (json.dumps(side.get("isError")) for side in (old, new))
        changes.append(_text_change("isError", "flag", before, after, context=context))
    if "structuredContent" in old or "structuredContent" in new:
        before_text, after_text = (
            _dump_json(side["structuredContent"]) + "\n" if "structuredContent" in side else None
            for side in (old, new)
        )
        if before_text != after_text:
            changes.append(
                _text_change("structuredContent", "json", before_text, after_text, context=context)
            )
    old_texts, new_texts = _texts(old), _texts(new)
    unchanged: list[tuple[str, str]] = []
    for old_index, new_index, kind in _aligned(block_kinds(old), block_kinds(new)):
        old_text = old_texts[old_index] if old_index is not None else None
        new_text = new_texts[new_index] if new_index is not None else None
        label = f"block {new_index if new_index is not None else old_index}"
        if old_index is not None and new_index is not None and old_index != new_index:
            label += f" (was block {old_index})"
        if old_text == new_text:
            unchanged.append((label, kind))
            continue
        changes.append(
            _text_change(
                label, kind, old_text, new_text, context=context, indexes=(old_index, new_index)
            )
        )
    return SnapshotChange(new=expected is None, changes=tuple(changes), unchanged=tuple(unchanged))


def diff_snapshots(
    expected: str, actual: str, *, labels: tuple[str, str] = ("snapshot", "actual")
) -> list[str]:
    """The failure diff: each change of :func:`compare_snapshots` as a unified diff.

    Headers name both sides, the block and its kind (``snapshot block 1
    (domain_rules)``, ``actual block 2 (domain_rules)`` when a block was
    inserted before it); an added or removed block has a line saying so.
    ``labels`` name the two sides. Every line ends with a line feed.
    """
    out: list[str] = []
    for change in compare_snapshots(expected, actual).changes:
        out.extend(_unified(change, labels))
    return out


def _unified(change: BlockChange, labels: tuple[str, str]) -> list[str]:
    """One change as a unified diff whose headers name both sides and the kind."""
    old_side, new_side = change.side(change.old_index), change.side(change.new_index)
    out: list[str] = []
    if change.status == "added":
        out.append(f"{new_side} ({change.kind}): not in the {labels[0]}\n")
    elif change.status == "removed":
        out.append(f"{old_side} ({change.kind}): only in the {labels[0]}\n")
    out.append(f"--- {labels[0]} {old_side} ({change.kind})\n")
    out.append(f"+++ {labels[1]} {new_side} ({change.kind})\n")
    out.extend(change.diff)
    return out


def _named(change: BlockChange) -> str:
    """``block 1 (domain_rules)``, ``block 2 (llm_directives, added)``."""
    status = "" if change.status == "changed" else f", {change.status}"
    return f"{change.label} ({change.kind}{status})"


def explain_snapshots(
    expected: str,
    actual: str,
    *,
    verbose: int = 0,
    subject: str = "the wire",
    labels: tuple[str, str] = ("snapshot", "actual"),
) -> list[str]:
    """A failing snapshot comparison in lines (no line feeds) that fit pytest's default verbosity.

    Below ``-vv`` pytest keeps 8 lines and 640 characters of an assertion's
    explanation (with room for its own footer), so the first line names every
    changed block with its kind (``the wire differs: block 0 (data), block 3
    (llm_directives, added)``), then each changed block gets its share of the
    rest: its name and its first changed lines (``3 of 7 changed lines``
    when it has more); unchanged blocks follow, one line each, as far as they
    fit. With ``-vv`` (nothing truncated) the unified diff of every change,
    then every unchanged block.
    """
    found = compare_snapshots(expected, actual)
    named = ", ".join(_named(change) for change in found.changes) or "no block"
    lines = [f"{subject} differs: {named} (- {labels[0]}, + {labels[1]})"]
    unchanged = [f"{label} ({kind}): unchanged" for label, kind in found.unchanged]
    if verbose >= 2:
        for change in found.changes:
            lines.extend(line.rstrip("\n") for line in _unified(change, labels))
        return lines + unchanged
    if len(unchanged) > _UNCHANGED_LINES:  # beyond that, one line for all of them
        listed = ", ".join(f"{label} ({kind})" for label, kind in found.unchanged)
        unchanged = [f"{len(unchanged)} blocks unchanged: {listed}"]
    changed = [_changed_lines(change) for change in found.changes]
    room = _LINES - 1 - len(unchanged)
    share = max(1, room // max(1, len(changed)) - 1)
    while True:
        body = [
            line
            for change, shown in zip(found.changes, changed, strict=True)
            for line in _glimpse(change, shown, share)
        ]
        if share == 1 or sum(map(len, lines + body + unchanged)) <= _CHARS:
            break
        share -= 1
    return lines + body + unchanged


def _changed_lines(change: BlockChange) -> list[str]:
    """The ``-``/``+`` lines of a change; an added element's tags left out (they name its kind)."""
    lines = [line.rstrip("\n") for line in change.diff if line.startswith(("-", "+"))]
    if (
        change.status != "changed"
        and len(lines) > _TAGS
        and lines[0][1:].startswith("<")
        and lines[-1][1:].startswith("</")
    ):
        return lines[1:-1]
    return lines


def _glimpse(change: BlockChange, changed: list[str], share: int) -> list[str]:
    """A change's name and its first ``share`` changed lines, each cut to a short width."""
    head = f"{_named(change)}:"
    if len(changed) > share:
        head = f"{_named(change)}: first {share} of {len(changed)} changed lines (-vv: all)"
    cut = [line if len(line) <= _WIDTH else f"{line[: _WIDTH - 1]}…" for line in changed[:share]]
    return [head, *cut]
