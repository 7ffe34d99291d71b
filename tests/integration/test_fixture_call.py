"""``fusion_call`` and the result object, in a downstream project (in process)."""

from __future__ import annotations

import sys

import pytest

from tests._support.pytester_app import CALL_TESTS


def test_fusion_call_in_process(shop: pytest.Pytester) -> None:
    """With --fusion-app, fusion_call reads the hidden view in process."""
    shop.makepyfile(test_shop=CALL_TESTS)
    result = shop.runpytest("--fusion-app=shop:app", "-p", "no:cacheprovider")
    result.assert_outcomes(passed=5)


ECHO_APP = """
from fusion_core import FusionApp, Tool

tool = Tool("echo", description="Says what it got.")


@tool.action("show", description="The argument's type and value.")
async def show(x: object = None) -> dict:
    return {"type": type(x).__name__, "value": repr(x)}


app = FusionApp([tool])
"""
ECHO_TESTS = """
import math

import pytest


def test_a_set_arrives_as_the_list_a_server_reads(fusion_call):
    assert fusion_call("echo", "show", x={2, 1}).data == {"type": "list", "value": "[1, 2]"}


def test_an_int_key_arrives_as_a_str(fusion_call):
    assert fusion_call("echo", "show", x={1: "a"}).data == {"type": "dict", "value": "{'1': 'a'}"}


def test_a_nan_is_refused(fusion_call):
    fusion_call("echo", "show", x=[0.5, math.nan])
"""


@pytest.mark.parametrize(
    "where",
    ["--fusion-app=echo:app", f"--fusion-server={sys.executable} -m fusion_core serve echo:app"],
    ids=["in-process", "stdio"],
)
def test_fusion_call_sends_the_same_arguments_on_every_transport(
    pytester: pytest.Pytester, where: str
) -> None:
    """Python values go as the wire carries them, in process too; a NaN fails naming its place."""
    pytester.makepyfile(echo=ECHO_APP, test_echo=ECHO_TESTS)
    result = pytester.runpytest_subprocess(where, "-p", "no:cacheprovider")
    result.assert_outcomes(passed=2, failed=1)
    assert (
        "fusion_call('echo'): arguments['x'][1] is nan: NaN and the infinities are not "
        "JSON (the wire would carry null)"
    ) in result.stdout.str()
    assert "Traceback" not in result.stdout.str()
