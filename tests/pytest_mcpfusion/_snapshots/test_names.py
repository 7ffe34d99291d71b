"""``_names``: the one naming function of snapshot files, against every kind of hostile name.

The writer, the pending files, the clean-up and the clash check all name a
file through ``snapshot_stem`` and compare names through ``file_key``;
``owner`` says whose a file is. Each class of name that lost or mixed up a
snapshot is a row here (and the properties below try many more of it).
"""

from __future__ import annotations

import os
import unicodedata
from pathlib import Path

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from pytest_mcpfusion._snapshots._atomic import write_atomically
from pytest_mcpfusion._snapshots._names import (
    MAX_NAME_BYTES,
    PENDING_SUFFIX,
    NameTable,
    clean,
    file_key,
    owner,
    snapshot_stem,
    windows_reserved,
)

SUFFIX = ".wire"
LONGEST = SUFFIX + PENDING_SUFFIX
indexes = st.one_of(st.integers(min_value=0, max_value=10**6), st.text(min_size=1, max_size=300))


def _fits(stem: str) -> bool:
    return len((stem + LONGEST).encode("utf-8")) <= MAX_NAME_BYTES


@given(st.text(max_size=400), indexes)
@settings(max_examples=500)
@example("test_get[" + "é" * 200 + "]", 0)  # 250 characters, 409 bytes
@example("test_get[" + "x" * 240 + "]", 1)  # fits syrupy's 250 characters, not .wire.new
@example("test_get", "🎉" * 100)  # a custom name of 400 bytes
@example("test_get[\ud800]", 0)  # a lone surrogate
def test_every_stem_fits_its_pending_file_and_belongs_to_its_test(
    test_name: str, index: int | str
) -> None:
    """<stem>.wire.new fits in 255 bytes of UTF-8; each stem of a test is the test's."""
    stem = snapshot_stem(test_name, index, SUFFIX)
    first = snapshot_stem(test_name, 0, SUFFIX)
    assert _fits(stem)
    stem.encode("utf-8")  # no lone surrogate is left to fail a file name
    assert not set(stem) & set('\\/?*:|"<>')
    assert owner(stem, {first}) == first


@given(st.text(max_size=300), st.integers(min_value=1, max_value=10**6))
def test_numbered_assertions_of_one_test_never_share_a_file(test_name: str, index: int) -> None:
    """The first and any later assertion of a test have two names, however long the test's."""
    assert file_key(snapshot_stem(test_name, 0, SUFFIX)) != file_key(
        snapshot_stem(test_name, index, SUFFIX)
    )


@pytest.mark.parametrize(
    "name",
    ["test_get", "test_get[INV-1]", "TestA.test_b[1.5-2]", "test_get[naïve ünïcode 🎉]", "t" * 220],
)
def test_a_name_that_fits_is_syrupys(name: str) -> None:
    """Names that fit are stored as syrupy stores them: existing snapshots keep their files."""
    assert snapshot_stem(name, 0, SUFFIX) == name
    assert snapshot_stem(name, 3, SUFFIX) == f"{name}.3"
    assert snapshot_stem(name, "totals", SUFFIX) == f"{name}[totals]"


def test_cleaning_drops_what_no_file_name_holds() -> None:
    """Separators, reserved punctuation and every Unicode category C character go."""
    assert clean('a/b\\c?d*e:f|g"h<i>j') == "abcdefghij"
    assert clean("tab\there\x00\u200b\ue000\ud800") == "tabhere"  # Cc, Cf, Co, Cs


@pytest.mark.parametrize(
    ("first", "second"),
    [
        ("test_get[A]", "test_get[a]"),  # case: one file on macOS and Windows
        ("test_get[ÉTÉ]", "test_get[été]"),  # beyond ASCII
        ("test_get[caf\u00e9]", "test_get[cafe\u0301]"),  # NFC and NFD (macOS HFS+ stores NFD)
        ("test_get[\u212b]", "test_get[\u00c5]"),  # the Angstrom sign normalizes to Å
    ],
    ids=["case", "accented-case", "nfc-nfd", "angstrom"],
)
def test_names_one_file_system_would_merge_are_one_key(first: str, second: str) -> None:
    """Two stems a case-insensitive, normalizing file system stores as one are one key."""
    assert first != second
    assert file_key(snapshot_stem(first, 0, SUFFIX)) == file_key(snapshot_stem(second, 0, SUFFIX))


def test_names_kept_apart_by_every_file_system_are_two_keys() -> None:
    """Different letters, or an accent, are different files everywhere."""
    assert file_key("test_get[a]") != file_key("test_get[b]")
    assert file_key("test_get[e]") != file_key("test_get[é]")
    assert file_key("test_get[ß]") != file_key("test_get[SS]")  # no full case folding
    assert unicodedata.is_normalized("NFC", file_key("cafe\u0301"))


@pytest.mark.parametrize(
    ("stem", "reserved"),
    [
        ("CON", "CON"),
        ("nul", "nul"),
        ("Aux.test_get", "Aux"),
        ("COM1.1", "COM1"),
        ("LPT9[totals]", None),  # the part before the first dot is LPT9[totals]
        ("CON .test", "CON "),
        ("COM¹", "COM¹"),
        ("test_con", None),
        ("CONSOLE", None),
        ("TestCon.test_nul", None),
    ],
)
def test_windows_device_names_are_found(stem: str, reserved: str | None) -> None:
    """A stem whose first part is a device name cannot be a file on Windows."""
    found = windows_reserved(stem)
    assert found == (reserved.rstrip(" ") if reserved else None)


@pytest.mark.parametrize(
    ("stem", "tests", "expected"),
    [
        ("test_get[a][b]", {"test_get[a]", "test_get[a][b]"}, "test_get[a][b]"),
        ("test_get[a][b]", {"test_get[a]"}, "test_get[a]"),  # b: test_get[a]'s custom name
        ("test_get[a].1", {"test_get[a]"}, "test_get[a]"),
        ("test_get[a].x", {"test_get[a]"}, None),  # not an index
        ("test_get_all", {"test_get"}, None),
        ("test_get", {"test_get[a]"}, None),
        ("TestA.test_b.2", {"TestA.test_b", "TestA"}, "TestA.test_b"),
    ],
)
def test_a_file_belongs_to_the_longest_test_it_extends(
    stem: str, tests: set[str], expected: str | None
) -> None:
    """Nothing, ``.N`` or ``[...]`` after a test's stem; a longer test stem wins."""
    assert owner(stem, tests) == expected


def test_the_table_refuses_a_second_claim_on_one_file() -> None:
    """One (folder, key) per test and index; the same claim again is fine."""
    table = NameTable(SUFFIX)
    folder = os.path.join("__snapshots__", "test_mod")
    assert table.claim("t.py::test_get", 0, os.path.join(folder, "test_get.wire")) is None
    assert table.claim("t.py::test_get", 0, os.path.join(folder, "test_get.wire")) is None
    assert table.claim("t.py::test_get", "ab", os.path.join(folder, "test_get[ab].wire")) is None
    assert table.claim("t.py::test_get", "a/b", os.path.join(folder, "test_get[ab].wire")) == (
        "t.py::test_get",
        "ab",
    )
    assert table.claim("t.py::test_x", 0, os.path.join(folder, "TEST_GET.wire")) == (
        "t.py::test_get",
        0,
    )
    assert table.claim("u.py::test_get", 0, os.path.join("other", "test_get.wire")) is None
    assert table.stems(folder) == {"test_get"}


@pytest.mark.parametrize("length", [240, 246, 250])
def test_a_name_near_the_limit_gets_its_files_written(tmp_path: Path, length: int) -> None:
    """The accepted and the pending file of a 250-character id are written (was OSError 36)."""
    stem = snapshot_stem("test_get[" + "x" * length + "]", 0, SUFFIX)
    accepted = tmp_path / f"{stem}{SUFFIX}"
    write_atomically(accepted, b"accepted")
    write_atomically(accepted.with_name(accepted.name + PENDING_SUFFIX), b"pending")
    assert sorted(os.listdir(tmp_path)) == [accepted.name, accepted.name + PENDING_SUFFIX]
