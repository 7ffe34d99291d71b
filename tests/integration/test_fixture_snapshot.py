"""``fusion_snapshot``: exact wire snapshots on syrupy, reviewable and byte-exact."""

from __future__ import annotations

from pathlib import Path

import pytest

from pytest_mcpfusion._snapshots._names import clean

TESTS = """
def test_get(fusion_call, fusion_snapshot):
    assert fusion_call("billing", "get", id="INV-1") == fusion_snapshot


def test_list(fusion_call, fusion_snapshot):
    assert fusion_call("billing", "list") == fusion_snapshot
"""


def _snapshots(root: Path) -> dict[str, bytes]:
    return {path.relative_to(root).as_posix(): path.read_bytes() for path in root.rglob("*.wire")}


def test_update_then_compare(shop: pytest.Pytester) -> None:
    """--snapshot-update writes .wire files; the next run compares and passes."""
    shop.makepyfile(test_shop=TESTS)
    first = shop.runpytest("--fusion-app=shop:app", "--snapshot-update", "-p", "no:cacheprovider")
    first.assert_outcomes(passed=2)
    files = _snapshots(shop.path)
    assert sorted(files) == [
        "__snapshots__/test_shop/test_get.wire",
        "__snapshots__/test_shop/test_list.wire",
    ]
    text = files["__snapshots__/test_shop/test_get.wire"].decode()
    assert text.startswith("fusion-wire-snapshot 1\n── block 0 · data · ")
    assert "── block 1 · domain_rules · " in text
    shop.runpytest("--fusion-app=shop:app", "-p", "no:cacheprovider").assert_outcomes(passed=2)


def test_a_one_character_change_names_the_block(shop: pytest.Pytester) -> None:
    """A changed rule fails with a per-block diff that names the block's kind."""
    shop.makepyfile(test_shop=TESTS)
    shop.runpytest("--fusion-app=shop:app", "--snapshot-update", "-p", "no:cacheprovider")
    source = (shop.path / "shop.py").read_text()
    (shop.path / "shop.py").write_text(source.replace("divide by 100.", "divide by 1000."))
    result = shop.runpytest("--fusion-app=shop:app", "-p", "no:cacheprovider")
    result.assert_outcomes(failed=2)
    result.stdout.fnmatch_lines(
        [
            "*the wire differs: block 1 (domain_rules) (- snapshot, + actual)",
            "*block 1 (domain_rules):",
            "*- Amounts are in cents: divide by 100.*",
            "*- Amounts are in cents: divide by 1000.*",
        ]
    )
    # The traceback names the fixture in brief, not as escaped UTF-8 bytes.
    result.stdout.fnmatch_lines(["fusion_snapshot = <fusion_snapshot: 2 block(s), * characters>"])
    assert "fusion_snapshot = b'" not in result.stdout.str()


def _invoice(rows: int, directive: str) -> str:
    """A test file whose response has ``rows`` data lines, a rule, and maybe a directive."""
    hint = f".llm_hint({directive!r})" if directive else ""
    return f"""
from fusion_core import response


def test_invoice(fusion_snapshot):
    data = {{"id": "INV-1", "lines": [f"line {{n}}" for n in range({rows})]}}
    built = response(data){hint}.system_rules(["Amounts are in cents."]).build()
    assert built == fusion_snapshot
"""


def test_every_changed_block_shows_at_default_verbosity(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A data change and a new llm_directives block: both named, with kinds, untruncated.

    Before, pytest cut the message after the data block's context lines and
    the new instruction to the model never showed.
    """
    for name in ("CI", "BUILD_NUMBER"):  # on CI pytest never truncates: test what users see
        monkeypatch.delenv(name, raising=False)
    pytester.makepyfile(test_invoice=_invoice(6, ""))
    pytester.runpytest("--snapshot-update", "-p", "no:cacheprovider").assert_outcomes(passed=1)
    pytester.makepyfile(test_invoice=_invoice(7, "Never mention the discount."))
    result = pytester.runpytest("-p", "no:cacheprovider")
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(
        [
            "*the wire differs: block 0 (data), block 1 (llm_directives, added)*",
            "*block 0 (data): first 2 of 3 changed lines (-vv: all)",
            '*-    "line 5"',
            '*+    "line 5",',
            "*block 1 (llm_directives, added):",
            "*+- Never mention the discount.",
            "*block 2 (was block 1) (domain_rules): unchanged",
        ]
    )
    assert "truncated" not in result.stdout.str()
    full = pytester.runpytest("-p", "no:cacheprovider", "-vv")
    full.stdout.fnmatch_lines(["*--- snapshot block 0 (data)", "*@@ *", '*     "line 4",'])


def test_crlf_survives_byte_for_byte(pytester: pytest.Pytester) -> None:
    """CR LF inside a block is stored and compared exactly, shown visibly in diffs."""
    pytester.makepyfile(
        test_crlf="""
from fusion_core import response


def test_crlf(fusion_snapshot):
    assert response("line one\\r\\nline two").build() == fusion_snapshot
"""
    )
    pytester.runpytest("--snapshot-update", "-p", "no:cacheprovider").assert_outcomes(passed=1)
    stored = next(iter(_snapshots(pytester.path).values()))
    assert b"line one\r\nline two\n" in stored
    pytester.runpytest("-p", "no:cacheprovider").assert_outcomes(passed=1)


def test_unused_snapshots_are_reported(shop: pytest.Pytester) -> None:
    """A snapshot no test uses is reported as syrupy does (and fails the run)."""
    shop.makepyfile(test_shop=TESTS)
    shop.runpytest("--fusion-app=shop:app", "--snapshot-update", "-p", "no:cacheprovider")
    shop.makepyfile(test_shop=TESTS.split("def test_list", maxsplit=1)[0])
    result = shop.runpytest("--fusion-app=shop:app", "-p", "no:cacheprovider")
    result.stdout.fnmatch_lines(["*1 snapshot unused*"])
    assert result.ret == 1


def test_snapshots_under_xdist(shop: pytest.Pytester) -> None:
    """Two workers write and compare snapshots without losing or corrupting any."""
    many = "".join(
        f"\n\ndef test_get_{n}(fusion_call, fusion_snapshot):\n"
        f"    assert fusion_call('billing', 'get', id='INV-{1 + n % 2}') == fusion_snapshot\n"
        for n in range(12)
    )
    shop.makepyfile(test_many=many)
    args = ["--fusion-app=shop:app", "-p", "xdist", "-n", "2", "-p", "no:cacheprovider"]
    shop.runpytest_subprocess(*args, "--snapshot-update").assert_outcomes(passed=12)
    files = _snapshots(shop.path)
    assert len(files) == 12
    assert all(content.startswith(b"fusion-wire-snapshot 1\n") for content in files.values())
    shop.runpytest_subprocess(*args).assert_outcomes(passed=12)


@pytest.mark.parametrize(
    ("first", "second"),
    [
        ("a/b", "ab"),  # syrupy drops / from a file name
        ('x:"y"', "xy"),  # and : and quotes
        ("p" * 300 + "1", "p" * 300 + "2"),  # and cuts a name to fit 255 bytes
        ("é" * 120 + "1", "é" * 120 + "2"),  # bytes, not characters
        ("INV-A", "inv-a"),  # one file on macOS and Windows
    ],
    ids=["slash", "colon-quote", "long", "long-unicode", "case"],
)
def test_tests_whose_snapshots_would_share_a_file_fail_naming_both(
    shop: pytest.Pytester, first: str, second: str
) -> None:
    """Two ids that clean to one ``.wire`` name: both fail, naming each other; none is written."""
    shop.makepyfile(
        test_clash=f"""
import pytest


@pytest.mark.parametrize("key", [{first!r}, {second!r}], ids=[{first!r}, {second!r}])
def test_get(fusion_call, fusion_snapshot, key):
    assert fusion_call("billing", "get", id=key) == fusion_snapshot


def test_alone(fusion_call, fusion_snapshot):
    assert fusion_call("billing", "get", id="INV-1") == fusion_snapshot
"""
    )
    result = shop.runpytest("--fusion-app=shop:app", "-p", "no:cacheprovider", "--snapshot-update")
    result.assert_outcomes(passed=1, errors=2)
    result.stdout.fnmatch_lines(["*the wire snapshots of 2 tests would share one file*"])
    assert result.stdout.str().count("test_clash.py::test_get[") >= 4  # each names both
    written = sorted(p.name for p in shop.path.rglob("*.wire"))
    assert written == ["test_alone.wire"]


CUSTOM_NAMES = """
import pytest
from fusion_core import response


def test_two_names(fusion_snapshot):
    assert response("first").build() == fusion_snapshot(name={first!r})
    assert response("second").build() == fusion_snapshot(name={second!r})


@pytest.mark.parametrize("key", ["a", "a][b"])
def test_get(fusion_snapshot, key):
    assert response(key).build() == fusion_snapshot
    if key == "a":
        assert response("custom").build() == fusion_snapshot(name="b")
"""


@pytest.mark.parametrize(
    ("first", "second"),
    [("a/b", "ab"), ("Totals", "totals"), ("caf\u00e9", "cafe\u0301")],
    ids=["slash", "case", "nfc-nfd"],  # NFC and NFD: one file on macOS
)
def test_custom_names_that_share_a_file_fail_before_writing(
    pytester: pytest.Pytester, first: str, second: str
) -> None:
    """Two names of one test, or a name and another test's id, that make one file: a failure.

    ``fusion_snapshot(name="a/b")`` and ``name="ab"`` overwrote each other, as
    did ``test_get[a]``'s ``name="b"`` and the test ``test_get[a][b]``.
    """
    pytester.makepyfile(test_names=CUSTOM_NAMES.format(first=first, second=second))
    result = pytester.runpytest("-p", "no:cacheprovider", "-p", "no:randomly", "--snapshot-update")
    result.assert_outcomes(passed=1, failed=2)
    output = result.stdout.str()
    assert (
        f"the wire snapshot fusion_snapshot(name={second!a}) of test_names.py::test_two_names "
        f"would share the file {f'test_two_names[{clean(second)}].wire'!a} with this test's "
        f"fusion_snapshot(name={first!a})"
    ) in output
    assert (
        "the wire snapshot fusion_snapshot(name='b') of test_names.py::test_get[a] would "
        "share the file 'test_get[a][b].wire' with test_names.py::test_get[a][b]'s snapshot #1"
    ) in output
    folder = pytester.path / "__snapshots__" / "test_names"
    written = {path.name: path.read_bytes() for path in folder.iterdir()}
    assert b"first" in written[f"test_two_names[{clean(first)}].wire"]
    assert b"a][b" in written["test_get[a][b].wire"]


def test_a_windows_device_name_fails_naming_it(pytester: pytest.Pytester) -> None:
    """A test named CON (python_functions allows it) would have no file on Windows."""
    pytester.makeini("[pytest]\npython_functions = test_* CON\n")
    pytester.makepyfile(
        test_device="""
from fusion_core import response


def CON(fusion_snapshot):
    assert response("x").build() == fusion_snapshot
"""
    )
    result = pytester.runpytest("-p", "no:cacheprovider", "--snapshot-update")
    result.assert_outcomes(errors=1)
    result.stdout.fnmatch_lines(["*'CON.wire', which Windows cannot hold (CON is a device name)*"])
    assert not list(pytester.path.rglob("*.wire"))
