"""``--fusion-pending`` (ini ``fusion_pending``, on when ``CI`` is set): pending snapshots."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests._support.output import files_in, pending_in

TESTS = """
def test_get(fusion_call, fusion_snapshot):
    assert fusion_call("billing", "get", id="INV-1") == fusion_snapshot


def test_list(fusion_call, fusion_snapshot):
    assert fusion_call("billing", "list") == fusion_snapshot
"""
BASE = ("--fusion-app=shop:app", "-p", "no:cacheprovider")
SNAPSHOTS = Path("__snapshots__/test_shop")


def _files(root: Path) -> dict[str, bytes]:
    return files_in(root / SNAPSHOTS)


def _accepted_then_changed(shop: pytest.Pytester) -> dict[str, bytes]:
    """Accept both snapshots, then change the rule both responses carry."""
    shop.makepyfile(test_shop=TESTS)
    shop.runpytest(*BASE, "--snapshot-update").assert_outcomes(passed=2)
    accepted = _files(shop.path)
    source = (shop.path / "shop.py").read_text()
    (shop.path / "shop.py").write_text(source.replace("divide by 100.", "divide by 1000."))
    return accepted


def test_a_changed_snapshot_is_written_as_pending_and_the_test_fails(
    shop: pytest.Pytester,
) -> None:
    """Each mismatch writes <name>.wire.new; the accepted file is untouched; the run fails."""
    accepted = _accepted_then_changed(shop)
    result = shop.runpytest(*BASE, "--fusion-pending")
    result.assert_outcomes(failed=2)
    result.stdout.fnmatch_lines(
        [
            "*Fusion pending snapshots*",
            "2 pending wire snapshots written*",
            "*__snapshots__/test_shop/test_get.wire.new",
            "review them with: python -m pytest_mcpfusion review*",
        ]
    )
    files = _files(shop.path)
    assert sorted(files) == [
        "test_get.wire",
        "test_get.wire.new",
        "test_list.wire",
        "test_list.wire.new",
    ]
    assert files["test_get.wire"] == accepted["test_get.wire"]
    assert b"divide by 1000." in files["test_get.wire.new"]
    assert files["test_get.wire.new"].startswith(b"fusion-wire-snapshot 1\n")


def test_ci_turns_pending_on_and_the_option_turns_it_off(
    shop: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    """With CI set pending files are written by default; --no-fusion-pending writes none."""
    _accepted_then_changed(shop)
    monkeypatch.setenv("CI", "true")
    shop.runpytest(*BASE, "--no-fusion-pending").assert_outcomes(failed=2)
    assert not any(name.endswith(".new") for name in _files(shop.path))
    result = shop.runpytest(*BASE)
    result.assert_outcomes(failed=2)
    result.stdout.fnmatch_lines(["2 pending wire snapshots written*"])


def test_the_ini_key_decides_without_the_option(
    shop: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    """fusion_pending = false wins over CI; fusion_pending = true works without CI."""
    _accepted_then_changed(shop)
    monkeypatch.setenv("CI", "1")
    shop.makeini("[pytest]\nfusion_pending = false\n")
    shop.runpytest(*BASE).assert_outcomes(failed=2)
    assert not any(name.endswith(".new") for name in _files(shop.path))
    monkeypatch.delenv("CI")
    shop.makeini("[pytest]\nfusion_pending = true\n")
    shop.runpytest(*BASE).assert_outcomes(failed=2)
    assert sum(name.endswith(".new") for name in _files(shop.path)) == 2


def test_without_ci_or_option_nothing_is_pending(
    shop: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Outside CI the default stays syrupy's: a failing diff, no pending files."""
    monkeypatch.delenv("CI", raising=False)
    _accepted_then_changed(shop)
    result = shop.runpytest(*BASE)
    result.assert_outcomes(failed=2)
    assert "pending wire" not in result.stdout.str()
    assert not any(name.endswith(".new") for name in _files(shop.path))


def test_a_new_snapshot_is_pending_not_accepted(shop: pytest.Pytester) -> None:
    """A test without an accepted snapshot gets only a pending one (and fails)."""
    shop.makepyfile(test_shop=TESTS)
    result = shop.runpytest(*BASE, "--fusion-pending")
    result.assert_outcomes(failed=2)
    assert sorted(_files(shop.path)) == ["test_get.wire.new", "test_list.wire.new"]


def test_a_matching_snapshot_removes_its_stale_pending_file(shop: pytest.Pytester) -> None:
    """Once the wire matches the accepted snapshot again, its .wire.new disappears."""
    _accepted_then_changed(shop)
    shop.runpytest(*BASE, "--fusion-pending").assert_outcomes(failed=2)
    source = (shop.path / "shop.py").read_text()
    (shop.path / "shop.py").write_text(source.replace("divide by 1000.", "divide by 100."))
    result = shop.runpytest(*BASE, "--fusion-pending")
    result.assert_outcomes(passed=2)
    assert sorted(_files(shop.path)) == ["test_get.wire", "test_list.wire"]
    assert "pending wire" not in result.stdout.str()


def test_pending_mode_never_deletes_an_accepted_snapshot(shop: pytest.Pytester) -> None:
    """Accepted snapshots of failing and of vanished tests stay byte for byte."""
    accepted = _accepted_then_changed(shop)
    shop.makepyfile(test_shop=TESTS.split("def test_list", maxsplit=1)[0])
    shop.runpytest(*BASE, "--fusion-pending").assert_outcomes(failed=1)
    files = _files(shop.path)
    assert {name: files[name] for name in accepted} == accepted


def test_pending_snapshots_under_xdist(shop: pytest.Pytester) -> None:
    """Workers write their own pending files; the controller counts all of them."""
    many = "".join(
        f"\n\ndef test_get_{n}(fusion_call, fusion_snapshot):\n"
        f"    assert fusion_call('billing', 'get', id='INV-{1 + n % 2}') == fusion_snapshot\n"
        for n in range(8)
    )
    shop.makepyfile(test_shop=many)
    # Accepting is set-up (in process, one pytest); the pending run is under xdist.
    shop.runpytest(*BASE, "--snapshot-update").assert_outcomes(passed=8)
    args = (*BASE, "-p", "xdist", "-n", "2")
    source = (shop.path / "shop.py").read_text()
    (shop.path / "shop.py").write_text(source.replace("divide by 100.", "divide by 1000."))
    result = shop.runpytest_subprocess(*args, "--fusion-pending")
    result.assert_outcomes(failed=8)
    result.stdout.fnmatch_lines(["8 pending wire snapshots written*"])
    files = _files(shop.path)
    assert sum(name.endswith(".wire.new") for name in files) == 8
    assert not any(name.startswith(".") for name in files), "a temporary file was left"


def test_a_derived_assertion_still_writes_pending_files(pytester: pytest.Pytester) -> None:
    """fusion_snapshot.with_defaults(...) keeps pending mode (syrupy copies the assertion)."""
    pytester.makepyfile(
        test_derived="""
from fusion_core import response


def test_derived(fusion_snapshot):
    derived = fusion_snapshot.with_defaults()
    assert response("changed").build() == derived
"""
    )
    result = pytester.runpytest("--fusion-pending", "-p", "no:cacheprovider")
    result.assert_outcomes(failed=1)
    pending = sorted(path.name for path in pytester.path.rglob("*.wire.new"))
    assert pending == ["test_derived.wire.new"]


FAILS_EARLY = """
def test_get(fusion_call, fusion_snapshot):
    raise RuntimeError("fails before its snapshot assertion")


def test_list(fusion_call, fusion_snapshot):
    assert fusion_call("billing", "list") == fusion_snapshot
"""


def test_a_test_failing_before_its_assertion_leaves_no_stale_pending_file(
    shop: pytest.Pytester,
) -> None:
    """In pending mode a test's old .wire.new files go when it runs; others' and accepted stay."""
    accepted = _accepted_then_changed(shop)
    shop.runpytest(*BASE, "--fusion-pending").assert_outcomes(failed=2)
    folder = shop.path / SNAPSHOTS
    (folder / "test_get.1.wire.new").write_bytes(b"an older second assertion")
    (folder / "test_get[totals].wire.new").write_bytes(b"an older custom-named assertion")
    (folder / "test_get_all.wire.new").write_bytes(b"another test's pending file")
    (folder / "test_get_all[totals].wire.new").write_bytes(b"another test's custom name")
    shop.makepyfile(test_shop=FAILS_EARLY)
    shop.runpytest(*BASE, "--fusion-pending").assert_outcomes(failed=2)
    files = _files(shop.path)
    assert "test_get.wire.new" not in files
    assert "test_get.1.wire.new" not in files
    assert "test_get[totals].wire.new" not in files
    assert "test_get_all.wire.new" in files
    assert "test_get_all[totals].wire.new" in files
    assert "test_list.wire.new" in files  # still differs: written again
    assert {name: files[name] for name in accepted} == accepted


def test_without_pending_mode_a_pending_file_waits_for_review(shop: pytest.Pytester) -> None:
    """Outside pending mode only a match removes a .wire.new (it may be a CI run's, unreviewed)."""
    _accepted_then_changed(shop)
    shop.runpytest(*BASE, "--fusion-pending").assert_outcomes(failed=2)
    shop.makepyfile(test_shop=FAILS_EARLY)
    shop.runpytest(*BASE, "--no-fusion-pending").assert_outcomes(failed=2)
    assert "test_get.wire.new" in _files(shop.path)


NESTED_IDS = """
import pytest
from fusion_core import response


KEYS = ["a][b", "a", "x" * 240]


@pytest.mark.parametrize("key", KEYS, ids=KEYS)
def test_get(fusion_snapshot, key):
    assert response(key).build() == fusion_snapshot
"""


def test_every_pending_file_is_written_and_kept_whatever_the_id(pytester: pytest.Pytester) -> None:
    """test_get[a] no longer removes test_get[a][b]'s pending file; a 250-character id gets one.

    ``test_get[a][b].wire.new`` was taken for a custom name of ``test_get[a]``
    (removed when it ran, still listed by the summary), and the pending file
    of ``test_get[xxx…]`` (250 characters) was never written (OSError 36).
    """
    pytester.makepyfile(test_ids=NESTED_IDS)
    result = pytester.runpytest("--fusion-pending", "-p", "no:cacheprovider", "-p", "no:randomly")
    result.assert_outcomes(failed=3)
    folder = pytester.path / "__snapshots__" / "test_ids"
    pending = pending_in(folder)
    assert pending[:2] == ["test_get[a].wire.new", "test_get[a][b].wire.new"]
    assert len(pending) == 3
    assert pending[2].startswith("test_get[xxx")
    assert len(pending[2].encode()) <= 255
    result.stdout.fnmatch_lines(["3 pending wire snapshots written*"])
    listed = [line.strip() for line in result.outlines if line.strip().endswith(".wire.new")]
    assert sorted(Path(line).name for line in listed) == pending


FAILS_IN_A_FIXTURE = """
import pytest


@pytest.fixture
def broken():
    raise RuntimeError("fails before fusion_snapshot is set up")


def test_get(fusion_call, broken, fusion_snapshot):
    assert fusion_call("billing", "get", id="INV-1") == fusion_snapshot


def test_list(fusion_call, fusion_snapshot):
    assert fusion_call("billing", "list") == fusion_snapshot
"""


def test_a_test_failing_in_an_earlier_fixture_leaves_no_stale_pending_file(
    shop: pytest.Pytester,
) -> None:
    """A fixture set up before fusion_snapshot fails: the test's older .wire.new still goes."""
    accepted = _accepted_then_changed(shop)
    shop.runpytest(*BASE, "--fusion-pending").assert_outcomes(failed=2)
    shop.makepyfile(test_shop=FAILS_IN_A_FIXTURE)
    shop.runpytest(*BASE, "--fusion-pending").assert_outcomes(failed=1, errors=1)
    files = _files(shop.path)
    assert "test_get.wire.new" not in files
    assert "test_list.wire.new" in files
    assert {name: files[name] for name in accepted} == accepted
