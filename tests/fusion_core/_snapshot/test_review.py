"""The review: finding pending files, deciding them, and Markdown that keeps its shape."""

from __future__ import annotations

import io
from collections.abc import Callable
from pathlib import Path

import pytest
from markdown_it import MarkdownIt

from fusion_core import response, ui
from fusion_core._cli._main import main
from fusion_core._snapshot._format import dump_snapshot
from fusion_core._snapshot._review import Pending, find_pending, review_interactively
from fusion_core._snapshot._review_markdown import render_markdown

HOSTILE_TEXTS = {
    "backtick-runs": "```\n````\n`````````` inline ``` and\n```python\n~~~\n",
    "fence-at-line-start": "``````````\nnot code\n``````````",
    "html": "</details></summary><script>alert(1)</script><!-- <details> -->",
    "markdown": "# heading\n\n- list\n\n<details>\n\n[link](javascript:alert(1))",
    "long-line": "x" * 200_000,
    "control": "a\x00b\x1b[31mred\r\nc\u2028d\u202eevil",
}


def _write(folder: Path, name: str, text: str | None, pending: str) -> Pending:
    """An accepted snapshot (unless ``text`` is None) and its pending replacement."""
    snapshots = folder / "__snapshots__" / "test_mod"
    snapshots.mkdir(parents=True, exist_ok=True)
    if text is not None:
        (snapshots / f"{name}.wire").write_text(text, encoding="utf-8")
    path = snapshots / f"{name}.wire.new"
    path.write_bytes(pending.encode("utf-8", "surrogatepass"))
    return Pending(path)


def _wire(*texts: str) -> str:
    builder = response({"id": 1})
    for text in texts:
        builder = builder.raw_block(text)
    return dump_snapshot(builder.build())


@pytest.mark.parametrize("content", HOSTILE_TEXTS.values(), ids=HOSTILE_TEXTS)
def test_markdown_review_keeps_its_structure_for_hostile_content(
    tmp_path: Path, content: str
) -> None:
    """Fences, <details> and escaping hold whatever the blocks contain (CommonMark)."""
    pendings = [  # as context lines (" ```"), added lines ("+```") and in a new snapshot
        _write(tmp_path, "test_a[`<b>`]", _wire(f"{content}\nold"), _wire(f"{content}\nnew")),
        _write(tmp_path, "test_b", None, _wire(content, "second")),
    ]
    document = render_markdown(pendings)
    parser = MarkdownIt("commonmark")
    fences = [token for token in parser.parse(document) if token.type == "fence"]
    expected = ["".join(change.diff) for pending in pendings for change in pending.change().changes]
    assert [token.content for token in fences] == expected
    assert all(token.info == "diff" for token in fences)
    html = parser.render(document)
    assert html.count("<details>") == html.count("</details>") == 2
    assert html.count("<summary>") == 2
    assert "<script>" not in html
    assert "<b>" not in html  # the test id's HTML is escaped inside <summary>


def test_markdown_review_of_nothing_says_so(tmp_path: Path) -> None:
    """An empty review is still a valid document."""
    assert "Nothing is pending" in render_markdown(find_pending([tmp_path]))


def test_test_ids_come_from_the_snapshot_path(tmp_path: Path) -> None:
    """<dir>/__snapshots__/<file>/<name>.wire.new is <dir>/<file>.py::<name>."""
    pending = _write(tmp_path, "TestShop.test_get[INV-1]", None, _wire("x"))
    assert pending.test_id.endswith("test_mod.py::TestShop::test_get[INV-1]")
    assert pending.accepted.name == "TestShop.test_get[INV-1].wire"


def test_find_pending_skips_virtualenvs_and_temporary_files(tmp_path: Path) -> None:
    """Files under .venv, .git or node_modules and half-written temporaries are not pending."""
    wanted = _write(tmp_path / "tests", "test_x", None, _wire("x"))
    for skipped in (".venv", ".git", "node_modules"):
        _write(tmp_path / skipped, "test_y", None, _wire("y"))
    (wanted.path.parent / ".test_x.wire.new.123.tmp").write_text("half")
    (wanted.path.parent / ".hidden.wire.new").write_text("half")
    assert find_pending([tmp_path, wanted.path]) == [wanted]


def _answers(*replies: str) -> io.StringIO:
    return io.StringIO("".join(f"{reply}\n" for reply in replies))


def _ask(replies: io.StringIO) -> Callable[[str], str]:
    def ask(prompt: str) -> str:
        del prompt
        line = replies.readline()
        if not line:
            raise EOFError
        return line.rstrip("\n")

    return ask


def test_interactive_choices_accept_reject_skip(tmp_path: Path) -> None:
    """Answer a replaces the accepted file, r deletes the pending one, s leaves both."""
    one = _write(tmp_path, "test_1", _wire("old 1"), _wire("new 1"))
    two = _write(tmp_path, "test_2", _wire("old 2"), _wire("new 2"))
    three = _write(tmp_path, "test_3", _wire("old 3"), _wire("new 3"))
    out = io.StringIO()
    tally = review_interactively([one, two, three], ask=_ask(_answers("accept", "r", "s")), out=out)
    assert tally.line() == "accepted 1, rejected 1, skipped 1; 1 still pending"
    assert one.accepted.read_text() == _wire("new 1")
    assert not one.path.exists()
    assert two.accepted.read_text() == _wire("old 2")
    assert not two.path.exists()
    assert three.path.exists()


def test_accept_all_remaining_and_end_of_input(tmp_path: Path) -> None:
    """A accepts the rest without asking; end of input quits, leaving the rest pending."""
    pendings = [_write(tmp_path, f"test_{n}", _wire("old"), _wire(f"new {n}")) for n in range(3)]
    tally = review_interactively(pendings, ask=_ask(_answers("s", "A")), out=io.StringIO())
    assert (tally.accepted, tally.skipped, tally.remaining) == (2, 1, 1)
    rest = find_pending([tmp_path])
    tally = review_interactively(rest, ask=_ask(_answers()), out=io.StringIO())
    assert (tally.accepted, tally.remaining) == (0, 1)


def test_the_terminal_review_shows_summary_hint_and_invisible_characters(tmp_path: Path) -> None:
    """The text review names the test, summarizes, hints and shows CR and zero-width."""
    pending = _write(
        tmp_path,
        "test_hint",
        dump_snapshot(response({"a": 1, "b": 2}).build()),
        dump_snapshot(response({"b": 2, "a": 1}).ui_block(ui.summary("x\u200b\r")).build()),
    )
    out = io.StringIO()
    review_interactively([pending], ask=_ask(_answers("s")), out=out)
    text = out.getvalue()
    assert "test_mod.py::test_hint" in text
    assert "summary: block 0 data: 2 lines changed (only reorders JSON keys); block 1 added" in text
    assert "x⟨U+200B⟩␍" in text


def test_cli_help_has_examples(capsys: pytest.CaptureFixture[str]) -> None:
    """--help explains the command with runnable examples and the exit status."""
    with pytest.raises(SystemExit) as exited:
        main(["review", "--help"])
    assert exited.value.code == 0
    text = capsys.readouterr().out
    assert "fusion review --accept" in text
    assert "python -m pytest_mcpfusion review" in text  # the alias is named
    assert "exit status" in text


def test_cli_usage_errors_exit_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A missing path, or --accept with --reject, is a usage error."""
    assert main(["review", str(tmp_path / "missing")]) == 2
    assert "no such file or folder" in capsys.readouterr().err
    with pytest.raises(SystemExit) as exited:
        main(["review", "--accept", "--reject"])
    assert exited.value.code == 2


def test_cli_exit_status_says_whether_anything_is_pending(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """--list exits 1 while something is pending, 0 once --accept took it all."""
    pending = _write(tmp_path, "test_1", _wire("old"), _wire("new"))
    assert main(["review", "--list", str(tmp_path)]) == 1
    assert capsys.readouterr().out.endswith("1 pending\n")
    assert main(["review", "--accept", str(tmp_path)]) == 0
    assert pending.accepted.read_text() == _wire("new")
    assert main(["review", "--list", str(tmp_path)]) == 0
    assert "no pending wire snapshots" in capsys.readouterr().out
