r"""Raw blocks that read back as raw blocks, whatever text they imitate.

A raw block (``raw_block``, a child Presenter's embedded block) is written
verbatim. The reader types blocks by their place (``_parse``'s layout rule):
a raw block right after the UI blocks that reads as a UI block, or one at
the end that reads as ``<domain_rules>`` or ``<action_suggestions>``, or any
that reads as ``<llm_directives>``, is read as that block. Where reading it
so says the same thing (a child Presenter's well-formed block: the same
bytes, ``ResponseView`` equality), nothing changes. Where it would say
something else — a raw block whose text imitates a Fusion block but is not
what the writer writes for it (``<domain_rules>``, ``- a < b``, ``</domain_rules>`` as lines),
or one that moves or merges blocks when read so — the writer gives the raw
block a backslash after its opening ``<`` (``<\domain_rules>``), so no
reader takes it for structure, and the reader removes it again.

To keep that reversible, a raw block that already starts with ``<``,
backslashes and a block name gains one more backslash, always; the reader
takes one away from every embed that starts so. Nothing else in a raw block
ever changes.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Final

from fusion_core._errors import FusionError
from fusion_core._kinds import DIRECTIVES, RULES, SUGGESTIONS, UI
from fusion_core._read._parsed_blocks import EmbedBlock
from fusion_core._write._blocks import render_blocks

__all__ = ["guard_raw", "misread_raw", "restore_raw"]

_NAMES: Final = "|".join(kind.tag for kind in (UI, DIRECTIVES, RULES, SUGGESTIONS))
# A raw block the reader could take for another block starts with one of these.
_OPENINGS: Final = tuple(kind.opening for kind in (UI, DIRECTIVES, RULES, SUGGESTIONS))
_BACKSLASHED: Final = re.compile(r"<\\+(?:" + _NAMES + ")")


def _neutral(text: str) -> str:
    return "<\\" + text[1:]


def restore_raw(text: str) -> str:
    """An embed's text as the builder was given it (inverts the writer's backslash)."""
    if text.startswith("<\\") and _BACKSLASHED.match(text):
        return "<" + text[2:]
    return text


def guard_raw(ui: Sequence[str], raw: Sequence[str], tail: Sequence[str]) -> list[str]:
    """The texts the writer puts on the wire for ``raw``, between ``ui`` and ``tail`` blocks."""
    texts = [_neutral(text) if _BACKSLASHED.match(text) else text for text in raw]
    if not any(text.startswith(_OPENINGS) for text in texts):
        return texts
    candidates = _candidates(texts, tail)
    if candidates is not None and all(_harmless(texts[index]) for index in candidates):
        return texts  # the common case: a child Presenter's own blocks
    # Each pass neutralizes every block read as another; a neutralized block
    # is always an embed, so the misread set shrinks and this ends.
    for _ in range(len(texts)):
        wrong = misread_raw(ui, texts, tail)
        if not wrong:
            break
        for index in wrong:
            texts[index] = _neutral(texts[index])
    return texts


def _candidates(raw: Sequence[str], tail: Sequence[str]) -> list[int] | None:
    """The raw blocks the layout rule could read as another block; ``None``: ask the reader.

    As ``_parse``'s layout: the raw blocks that start like UI right after the
    UI blocks, and the last ones that start like rules or suggestions where
    the response has no such block of its own. A raw block that starts like
    ``<llm_directives>`` moves the tail: only the reader can say what then.
    """
    if any(text.startswith(DIRECTIVES.opening) for text in raw):
        return None
    found = []
    for index, text in enumerate(raw):
        if not text.startswith(UI.opening):
            break
        found.append(index)
    kinds = {text[: text.find(">") + 1] for text in tail}
    if DIRECTIVES.opening in kinds or RULES.opening in kinds:
        return found
    end = len(raw)
    if SUGGESTIONS.opening not in kinds and end and raw[end - 1].startswith(SUGGESTIONS.opening):
        end -= 1
        found.append(end)
    if end and raw[end - 1].startswith(RULES.opening):
        found.append(end - 1)
    return found


_HARMLESS: dict[str, bool] = {}
_HARMLESS_ENTRIES: Final = 1024


def _harmless(text: str) -> bool:
    """Whether ``text``, read as the block it starts like, is written back as itself.

    Remembered per text (a child Presenter writes the same blocks on every
    call), in a bounded dict emptied when full.
    """
    known = _HARMLESS.get(text)
    if known is None:
        known = _reads_back(text)
        if len(_HARMLESS) >= _HARMLESS_ENTRIES:
            _HARMLESS.clear()
        _HARMLESS[text] = known
    return known


def _reads_back(text: str) -> bool:
    from fusion_core._read._parse import _read_ui, _view, read_items, read_ui  # noqa: PLC0415 - _parse imports restore_raw

    try:
        if text.startswith(UI.opening):
            ui = read_ui(text)
            return ui is None or render_blocks([_read_ui(ui)], [], (), (), ()) == [text]
        items = read_items(text)
        if items is None:
            return True
        view = _view([items], None)
        return render_blocks((), (), view.directives, view.rules, view.suggestions) == [text]
    except (FusionError, ValueError, TypeError):
        return False


def misread_raw(ui: Sequence[str], raw: Sequence[str], tail: Sequence[str]) -> list[int]:
    """Indexes of the ``raw`` blocks a reader would take for other blocks, with another meaning.

    ``ui`` and ``tail`` are the written UI blocks and the written directives,
    rules and suggestions blocks around them.
    """
    from fusion_core._read._parse import _layout, _view  # noqa: PLC0415 - _parse imports restore_raw

    texts = ["", *ui, *raw, *tail]
    first = 1 + len(ui)
    try:
        blocks, _, _ = _layout(texts, structured=False, enveloped=False)
    except FusionError as exc:  # a reference naming no character, in a block read as items
        block = getattr(exc, "block", None)
        if block is not None and first <= block < first + len(raw):
            return [block - first]
        raise  # pragma: no cover - the writer's own blocks always read
    wrong = [i for i in range(len(raw)) if not isinstance(blocks[first + i], EmbedBlock)]
    if not wrong:
        return []
    view = _view(blocks, None)
    embeds = [block.text for block in blocks if isinstance(block, EmbedBlock)]
    try:
        again = render_blocks(view.ui_blocks, embeds, view.directives, view.rules, view.suggestions)
    except (FusionError, ValueError, TypeError):  # read leniently, not writable: another meaning
        return wrong
    return [] if again == texts[1:] else wrong
