"""Forbidden fields and canaries (ini keys and hooks), suggestions against ``tools/list``."""

from __future__ import annotations

import pytest

APP = """
from fusion_core import FusionApp, Tool, response

crm = Tool("crm", "Customers")


@crm.action("get", read_only=True)
def get(ctx: object = None) -> object:
    return {"name": "Ada", "api_token": "tok-123"}


@crm.action("hint", read_only=True)
def hint(ctx: object = None) -> object:
    return response({"ok": True}).system_hint([("crm.delete", "remove it"), ("crm.get", "x")])


@crm.action("plain", read_only=True)
def plain(ctx: object = None) -> object:
    return {"name": "Bob"}


app = FusionApp([crm], name="crm")
"""
TESTS = """
def test_get(fusion_call):
    fusion_call("crm", "get")


def test_hint(fusion_call):
    fusion_call("crm", "hint")


def test_plain(fusion_call):
    fusion_call("crm", "plain")
"""


@pytest.fixture
def crm(pytester: pytest.Pytester) -> pytest.Pytester:
    """The crm app and tests calling each action."""
    pytester.makepyfile(crm=APP, test_crm=TESTS)
    pytester.syspathinsert()
    return pytester


def _run(pytester: pytest.Pytester) -> pytest.RunResult:
    return pytester.runpytest(
        "--fusion", "--fusion-app=crm:app", "--fusion-examples=1", "-p", "no:cacheprovider",
        "-v", "test_crm.py",
    )  # fmt: skip


def test_ini_keys_forbid_fields_and_canaries(crm: pytest.Pytester) -> None:
    """A forbidden field and a canary from the ini file fail the test that met them."""
    crm.makeini("[pytest]\nfusion_forbidden_fields =\n    api_token\nfusion_canaries = Ada\n")
    result = _run(crm)
    result.stdout.fnmatch_lines(
        [
            "*test_crm.py::test_get FAILED*",
            "*test_crm.py::test_plain PASSED*",
            "*the forbidden field 'api_token' reached the wire at $.api_token*",
            "*the canary value 'Ada' reached the wire*",
        ]
    )


def test_hooks_forbid_fields_and_canaries(crm: pytest.Pytester) -> None:
    """pytest_fusion_forbidden_fields and pytest_fusion_canaries add to the ini keys."""
    crm.makeconftest(
        """
import pytest


@pytest.hookimpl(optionalhook=True)
def pytest_fusion_forbidden_fields(config):
    return ["api_token"]


@pytest.hookimpl(optionalhook=True)
def pytest_fusion_canaries(config):
    return ["Bob"]
"""
    )
    result = _run(crm)
    result.stdout.fnmatch_lines(
        ["*test_crm.py::test_get FAILED*", "*test_crm.py::test_plain FAILED*"]
    )
    result.stdout.fnmatch_lines(["*the canary value 'Bob' reached the wire*"])


def test_a_suggestion_of_a_missing_action_fails(crm: pytest.Pytester) -> None:
    """``crm.delete`` is not in tools/list: the suggestion is a violation; ``crm.get`` is fine."""
    result = _run(crm)
    result.stdout.fnmatch_lines(
        [
            "*test_crm.py::test_hint FAILED*",
            "*the suggestion names 'crm.delete', which is not a tool (or tool.action)*",
        ]
    )
    assert "'crm.get', which" not in result.stdout.str()


@pytest.mark.parametrize(
    ("how", "args"),
    [
        ("option", ("--fusion-no-check-references",)),
        ("ini key", ()),
    ],
)
def test_the_references_check_can_be_turned_off(
    crm: pytest.Pytester, how: str, args: tuple[str, ...]
) -> None:
    """``--fusion-no-check-references`` or ``fusion_check_references = false``: no violation."""
    if how == "ini key":
        crm.makeini("[pytest]\nfusion_check_references = false\n")
    result = crm.runpytest(
        "--fusion", "--fusion-app=crm:app", "--fusion-examples=1", "-p", "no:cacheprovider",
        "-v", "test_crm.py::test_hint", *args,
    )  # fmt: skip
    result.assert_outcomes(passed=1)
    assert "is not a tool" not in result.stdout.str()


def test_the_marker_turns_the_references_check_off_or_on_per_test(crm: pytest.Pytester) -> None:
    """``fusion(check_references=...)`` overrides the option and the ini key for one test."""
    crm.makeini("[pytest]\nfusion_check_references = false\n")
    crm.makepyfile(
        test_marked="""
import pytest


@pytest.mark.fusion(check_references=True)
def test_checked(fusion_call):
    fusion_call("crm", "hint")


def test_unchecked(fusion_call):
    fusion_call("crm", "hint")


@pytest.mark.fusion(check_references=False)
def test_exempt(fusion_call):
    fusion_call("crm", "hint")
"""
    )
    result = crm.runpytest(
        "--fusion", "--fusion-app=crm:app", "--fusion-examples=1", "-p", "no:cacheprovider",
        "-v", "test_marked.py",
    )  # fmt: skip
    result.stdout.fnmatch_lines(
        [
            "*test_marked.py::test_checked FAILED*",
            "*test_marked.py::test_unchecked PASSED*",
            "*test_marked.py::test_exempt PASSED*",
        ]
    )
