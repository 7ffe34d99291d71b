"""The wire extension's shortcuts give syrupy's own answers, and pending files stay exact.

``FusionWireExtension`` answers several of syrupy's questions itself, once
per test or per folder instead of once per call or per file: a snapshot's
name and path, which files a discovery claims, which test owns a file after
the run. Each shortcut is compared here with syrupy's implementation (the
parent class's method) on trees holding every kind of file a snapshot folder
can hold, so a shortcut never claims, names or keeps a file differently.
``PendingFiles`` lists a folder's ``.wire.new`` files once per session: it
must still remove exactly the files it would have removed by asking the file
system each time.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from syrupy.extensions.base import AbstractSyrupyExtension
from syrupy.extensions.single_file import SingleFileSnapshotExtension
from syrupy.location import PyTestLocation

from pytest_mcpfusion._snapshots._extension import FusionWireExtension
from pytest_mcpfusion._snapshots._names import MAX_NAME_BYTES, snapshot_stem
from pytest_mcpfusion._snapshots._pending import PendingFiles

# Names a test and its snapshot can have: plain, parametrized (brackets, odd
# characters, slashes syrupy drops, non-ASCII, control characters), a class, and
# one past the 255-character limit of a file name.
TEST_NAMES = [
    "test_get",
    "test_get[INV-1]",
    "test_get[a/b\\\\c?*:|<>]",
    "test_get[naïve ünïcode 🎉]",
    "test_get[tab\there]",
    "test_get[" + "x" * 300 + "]",
    "test_get[..]",
    "test_get[1.5-2]",
]


@dataclass
class _Function:
    """What syrupy reads of a test function."""

    __module__: str
    __name__: str


@dataclass
class _Item:
    """The parts of a ``pytest.Item`` that ``PyTestLocation`` reads."""

    path: Path
    name: str
    nodeid: str
    obj: Any = field(default=None)


def _location(test_file: Path, name: str, cls: str | None = None) -> PyTestLocation:
    """A test ``name`` (in class ``cls``) of ``test_file``, as syrupy sees it."""
    nodeid = f"{test_file.name}::" + (f"{cls}::" if cls else "") + name
    function = _Function(test_file.stem, name.split("[", maxsplit=1)[0])
    return PyTestLocation(_Item(path=test_file, name=name, nodeid=nodeid, obj=function))  # type: ignore[arg-type]


def _session_class() -> type[FusionWireExtension]:
    """An extension class as the plugin makes one per session (with its folder memo)."""
    return type("FusionWireSnapshot", (FusionWireExtension,), {"hook": None, "_sites": {}})


def _syrupy(method: str, extension: FusionWireExtension | type[FusionWireExtension]) -> Any:
    """The parent class's (syrupy's) ``method``, bound to ``extension`` (a class or instance)."""
    return getattr(super(FusionWireExtension, extension), method)


@pytest.mark.parametrize("name", TEST_NAMES)
@pytest.mark.parametrize("cls_name", [None, "TestInvoices"])
@pytest.mark.parametrize("index", [0, 1, 7, "totals", "a/b"])
def test_names_and_paths_are_syrupys(
    tmp_path: Path, name: str, cls_name: str | None, index: int | str
) -> None:
    """The cached name and path of a snapshot equal syrupy's, where its name leaves room.

    syrupy cuts a name at 250 characters: its ``.wire.new`` (or, past ASCII,
    its ``.wire``) does not fit in 255 bytes. Such a name is cut by
    ``_names.snapshot_stem`` (tested in test_names.py).
    """
    extension = _session_class()
    location = _location(tmp_path / "test_mod.py", name, cls_name)
    expected_name = _syrupy("get_snapshot_name", extension)(test_location=location, index=index)
    expected_path = _syrupy("get_location", extension)(test_location=location, index=index)
    if len(f"{expected_name}.wire.new".encode()) > MAX_NAME_BYTES:
        test_name = AbstractSyrupyExtension.get_snapshot_name(test_location=location)
        expected_name = snapshot_stem(test_name, index, ".wire")
        expected_path = os.path.join(os.path.dirname(expected_path), f"{expected_name}.wire")
    for _ in range(2):  # computed, then cached
        assert extension.get_snapshot_name(test_location=location, index=index) == expected_name
        assert extension.get_location(test_location=location, index=index) == expected_path


def _tree(root: Path) -> Path:
    """A test file and a snapshot folder holding every kind of file; returns the test file."""
    test_file = root / "test_mod.py"
    test_file.write_text("")
    snapshots = root / "__snapshots__"
    own = snapshots / "test_mod"
    other = snapshots / "test_other"
    deeper = own / "nested"
    hidden = snapshots / ".hidden"
    for folder in (own, other, deeper, hidden):
        folder.mkdir(parents=True)
    for path in (
        own / "test_get.wire",
        own / "test_get.1.wire",
        own / "test_get[totals].wire",
        own / "test_get.wire.new",
        own / ".test_get.wire.new.abc.tmp",
        own / ".hidden.wire",
        own / "test_get.wire.lock",
        own / "notes.txt",
        own / "test_x.ambr",
        other / "test_y.wire",
        deeper / "too_deep.wire",
        hidden / "in_hidden.wire",
        snapshots / "test_mod.ambr",
        snapshots / "top.wire",
    ):
        path.write_text("x")
    (own / "folder.wire").mkdir()
    outside = root / "elsewhere"
    outside.mkdir()
    (outside / "linked.wire").write_text("x")
    (outside / "in_linked_folder.wire").write_text("x")
    (own / "link.wire").symlink_to(outside / "linked.wire")
    foreign = root / "other_tests" / "__snapshots__" / "test_mod"
    foreign.mkdir(parents=True)
    (foreign / "foreign.wire").write_text("x")
    (own / "link_to_another_test_folder.wire").symlink_to(foreign / "foreign.wire")
    (own / "dangling.wire").symlink_to(outside / "missing.wire")
    (snapshots / "linked_folder").symlink_to(outside, target_is_directory=True)
    return test_file


@pytest.mark.parametrize("ignore", [None, [], ["wire"], ["ambr", "txt"]])
def test_discovery_finds_what_syrupy_finds(tmp_path: Path, ignore: list[str] | None) -> None:
    """The same collections, in the same order, with the same snapshot names."""
    test_file = _tree(tmp_path)
    extension = _session_class()()
    location = _location(test_file, "test_get")
    found = extension.discover_snapshots(test_location=location, ignore_extensions=ignore)
    expected = _syrupy("discover_snapshots", extension)(
        test_location=location, ignore_extensions=ignore
    )
    assert [c.location for c in found] == [c.location for c in expected]
    assert [[s.name for s in c] for c in found] == [[s.name for s in c] for c in expected]
    if not ignore:
        assert str(tmp_path / "__snapshots__" / "test_mod" / "test_get[totals].wire") in {
            c.location for c in found
        }


def test_discovery_of_a_missing_folder_is_empty(tmp_path: Path) -> None:
    """No snapshot folder yet: nothing discovered, as syrupy says."""
    (tmp_path / "test_mod.py").write_text("")
    extension = _session_class()()
    location = _location(tmp_path / "test_mod.py", "test_get")
    assert list(extension.discover_snapshots(test_location=location)) == []
    assert list(_syrupy("discover_snapshots", extension)(test_location=location)) == []


@pytest.mark.parametrize("test_name", ["test_get", "test_get[totals]", "test_mod"])
def test_ownership_after_the_run_is_syrupys(tmp_path: Path, test_name: str) -> None:
    """Which test owns which file: syrupy's answer for every file, symlinks included."""
    test_file = _tree(tmp_path)
    (tmp_path / "sub").mkdir()
    elsewhere_test = tmp_path / "sub" / "test_mod.py"
    elsewhere_test.write_text("")
    files = sorted(str(path) for path in (tmp_path / "__snapshots__").rglob("*"))
    for test in (test_file, elsewhere_test):
        extension = _session_class()
        location = _location(test, test_name)
        for path in files * 2:  # the second round answers from the folder memo
            mine = extension.matches_test_location(test_location=location, snapshot_location=path)
            syrupys = _syrupy("matches_test_location", extension)(
                test_location=location, snapshot_location=path
            )
            assert mine == syrupys, (test, test_name, path)


def test_a_symlinked_snapshot_folder_is_judged_by_syrupy(tmp_path: Path) -> None:
    """A snapshot folder that is a link out of the test's folder is not the test's."""
    real = tmp_path / "real" / "__snapshots__" / "test_mod"
    real.mkdir(parents=True)
    (real / "test_get.wire").write_text("x")
    tests = tmp_path / "tests"
    (tests / "__snapshots__").mkdir(parents=True)
    (tests / "__snapshots__" / "test_mod").symlink_to(real, target_is_directory=True)
    (tests / "test_mod.py").write_text("")
    extension = _session_class()
    location = _location(tests / "test_mod.py", "test_get")
    path = str(tests / "__snapshots__" / "test_mod" / "test_get.wire")
    expected = _syrupy("matches_test_location", extension)(
        test_location=location, snapshot_location=path
    )
    assert extension.matches_test_location(test_location=location, snapshot_location=path) is (
        expected
    )


def test_claims_and_reads_are_syrupys(tmp_path: Path) -> None:
    """owns_snapshot_collection and read_snapshot_collection agree with syrupy on every file."""
    test_file = _tree(tmp_path)
    extension = _session_class()()
    location = _location(test_file, "test_get")
    for path in sorted(str(p) for p in tmp_path.rglob("*")):
        owns = extension.owns_snapshot_collection(filepath=path, test_location=location)
        assert owns == _syrupy("owns_snapshot_collection", extension)(
            filepath=path, test_location=location
        ), path
        if path.endswith(".wire"):
            mine = extension.read_snapshot_collection(snapshot_location=path)
            syrupys = _syrupy("read_snapshot_collection", extension)(snapshot_location=path)
            assert mine.location == syrupys.location
            assert [s.name for s in mine] == [s.name for s in syrupys]


def test_reading_a_snapshot_is_its_bytes(tmp_path: Path) -> None:
    """The expected file is read as bytes, exactly (CR, NUL, invalid UTF-8); None if absent."""
    path = tmp_path / "test_get.wire"
    data = b"fusion-wire-snapshot 1\r\n\x00\xff\xfe" + bytes(range(256)) * 1000
    path.write_bytes(data)
    extension = FusionWireExtension()
    read = extension.read_snapshot_data_from_location
    assert read(snapshot_location=str(path), snapshot_name="test_get", session_id="1") == data
    missing = str(tmp_path / "missing.wire")
    assert read(snapshot_location=missing, snapshot_name="missing", session_id="1") is None
    assert SingleFileSnapshotExtension.read_snapshot_data_from_location(
        extension, snapshot_location=str(path), snapshot_name="test_get", session_id="1"
    ) == read(snapshot_location=str(path), snapshot_name="test_get", session_id="1")


def test_without_a_session_class_nothing_is_remembered(tmp_path: Path) -> None:
    """FusionWireExtension itself (no session memo) asks syrupy for every file, every time."""
    test_file = _tree(tmp_path)
    location = _location(test_file, "test_get")
    path = str(tmp_path / "__snapshots__" / "test_mod" / "test_get.wire")
    assert FusionWireExtension._sites is None
    assert FusionWireExtension.matches_test_location(test_location=location, snapshot_location=path)
    assert FusionWireExtension._sites is None


# ------------------------------------------------------------ pending files


def _pending_folder(root: Path) -> Path:
    folder = root / "__snapshots__" / "test_mod"
    folder.mkdir(parents=True)
    for name in (
        "test_get.wire",
        "test_get.wire.new",
        "test_get.1.wire.new",
        "test_get[totals].wire.new",
        "test_get_all.wire.new",
        "test_get.wire.new.bak",
        "other.new",
    ):
        (folder / name).write_text("x")
    (folder / "test_get.2.wire.new").mkdir()
    return folder


def test_remove_stale_removes_exactly_the_tests_own_pending_files(tmp_path: Path) -> None:
    """Its own .wire.new files (any index or name), never another test's, a folder or a .wire."""
    folder = _pending_folder(tmp_path)
    removed = PendingFiles().remove_stale(folder / "test_get.wire")
    assert sorted(path.name for path in removed) == [
        "test_get.1.wire.new",
        "test_get.wire.new",
        "test_get[totals].wire.new",
    ]
    assert sorted(os.listdir(folder)) == [
        "other.new",
        "test_get.2.wire.new",
        "test_get.wire",
        "test_get.wire.new.bak",
        "test_get_all.wire.new",
    ]


def test_remove_stale_leaves_the_files_of_tests_whose_names_extend_its_own(
    tmp_path: Path,
) -> None:
    """``test_get[a][b].wire.new`` is the test ``test_get[a][b]``'s when it exists, not ``b``'s.

    A bracketed suffix was taken for a custom name: running ``test_get[a]``
    removed the pending file of ``test_get[a][b]`` (and ``test_get[a].1``'s
    of a test ``test_get[a].1``, were there one).
    """
    folder = tmp_path / "__snapshots__" / "test_mod"
    folder.mkdir(parents=True)
    names = [
        "test_get[a].wire.new",
        "test_get[a][b].wire.new",  # the test test_get[a][b]
        "test_get[a][b].1.wire.new",  # its second assertion
        "test_get[a][b][totals].wire.new",  # its custom name
        "test_get[a][totals].wire.new",  # test_get[a]'s custom name
        "test_get[a].2.wire.new",  # test_get[a]'s third assertion
        ".fusion-abcdefgh.tmp",  # a temporary file
    ]
    for name in names:
        (folder / name).write_text("x")
    tests = {"test_get[a]", "test_get[a][b]"}
    removed = PendingFiles().remove_stale(folder / "test_get[a].wire", tests)
    assert sorted(path.name for path in removed) == [
        "test_get[a].2.wire.new",
        "test_get[a].wire.new",
        "test_get[a][totals].wire.new",
    ]
    removed = PendingFiles().remove_stale(folder / "test_get[a][b].wire", tests)
    assert sorted(path.name for path in removed) == [
        "test_get[a][b].1.wire.new",
        "test_get[a][b].wire.new",
        "test_get[a][b][totals].wire.new",
    ]
    assert os.listdir(folder) == [".fusion-abcdefgh.tmp"]


def test_pending_files_follow_what_the_session_writes_and_removes(tmp_path: Path) -> None:
    """A file written after the folder was listed is known; a removed one is gone once."""
    folder = _pending_folder(tmp_path)
    files = PendingFiles()
    files.discard(str(folder / "test_get.wire.new"))  # lists the folder, removes the file
    assert not (folder / "test_get.wire.new").exists()
    written = folder / "test_new.wire.new"
    written.write_text("x")
    files.wrote(written)
    files.discard(str(written))
    assert not written.exists()
    files.discard(str(folder / "test_get.wire.new"))  # already gone: nothing to do, no error
    assert files.remove_stale(folder / "test_get.wire") == [
        folder / "test_get.1.wire.new",
        folder / "test_get[totals].wire.new",
    ]
    assert (folder / "test_get_all.wire.new").exists()


def test_pending_files_in_a_missing_folder(tmp_path: Path) -> None:
    """A folder that does not exist holds no pending file; a write there is then known."""
    files = PendingFiles()
    folder = tmp_path / "__snapshots__" / "test_mod"
    files.discard(str(folder / "test_get.wire.new"))
    assert files.remove_stale(folder / "test_get.wire") == []
    folder.mkdir(parents=True)
    (folder / "test_get.wire.new").write_text("x")
    files.wrote(folder / "test_get.wire.new")
    assert files.remove_stale(folder / "test_get.wire") == [folder / "test_get.wire.new"]


def test_an_unreadable_folder_is_asked_file_by_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A folder that cannot be listed: each pending file is removed by name, as before."""
    folder = _pending_folder(tmp_path)

    def refuse(path: object) -> None:
        raise PermissionError(13, "Permission denied", str(path))

    monkeypatch.setattr("pytest_mcpfusion._snapshots._pending.os.scandir", refuse)
    files = PendingFiles()
    files.discard(str(folder / "test_get.wire.new"))
    assert not (folder / "test_get.wire.new").exists()
    files.discard(str(folder / "test_get.wire.new"))  # gone: no error
    monkeypatch.undo()
    assert (folder / "test_get.1.wire.new").exists()
