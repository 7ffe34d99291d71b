"""The review as Markdown, for a pull-request comment (``fusion review --format=markdown``).

One collapsed ``<details>`` section per pending snapshot, its ``<summary>``
naming the test and the change; per block, a header and the diff in a fenced
block. Whatever the snapshots hold, the document keeps its structure under
any CommonMark renderer:

- every fence comes from ``fusion_core.fence``, longer than any backtick run
  in its body, and every diff line starts with `` ``, ``+``, ``-`` or ``@``;
- everything else that comes from content (test ids, kinds, hints) is
  written inside HTML lines, escaped with ``html.escape``, with CR and
  invisible characters made visible first, so a newline, a blank line or a
  ``</details>`` in a name cannot end a section early;
- HTML lines are each followed by a blank line, so a fence after one is
  parsed as Markdown, not swallowed into the HTML block.
"""

from __future__ import annotations

import html
from collections.abc import Sequence

from fusion_core import fence
from fusion_core._snapshot._review import Pending, relative_path
from fusion_core._terminal import show_invisible

__all__ = ["render_markdown"]


def _html(text: str) -> str:
    return html.escape(show_invisible(text).replace("\n", " "), quote=True)


def render_markdown(pendings: Sequence[Pending]) -> str:
    """The Markdown review of every pending snapshot (a complete document)."""
    count = len(pendings)
    noun = "snapshot" if count == 1 else "snapshots"
    parts = [f"### Fusion wire review: {count} pending {noun}\n\n"]
    if not pendings:
        parts.append("<p>Nothing is pending: every wire snapshot matches.</p>\n")
    for pending in pendings:
        change = pending.change()
        state = "new" if change.new else "changed"
        parts.append(
            "<details>\n"
            f"<summary><code>{_html(pending.test_id)}</code> ({state}): "
            f"{_html(change.summary)}</summary>\n\n"
            f"<p><code>{_html(relative_path(pending.path))}</code></p>\n\n"
        )
        for block in change.changes:
            hint = f" — <em>{_html(block.hint)}</em>" if block.hint else ""
            parts.append(f"<p><strong>{_html(block.header)}</strong>{hint}</p>\n\n")
            body = "".join(block.diff).rstrip("\n")
            parts.append(fence("diff", body) + "\n\n")
        parts.append("</details>\n\n")
    parts.append(
        "<p>Review locally with <code>fusion review</code>, or accept all "
        "with <code>--accept</code>.</p>\n"
    )
    return "".join(parts)
