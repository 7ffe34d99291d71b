"""The ``fusion`` marker: registered with its signature, and ``check=False``."""

from __future__ import annotations

import pytest

BROKEN = '''
from fusion_core import ResponseView, ToolResponse

TEXTS = ["ok", "<domain_rules>\\n- a ]]> b\\n</domain_rules>"]


class BrokenApp:
    """A hand-written app whose rules block holds a raw ]]> (not XML text)."""

    def definitions(self):
        return [{"name": "broken", "inputSchema": {"type": "object"}}]

    async def call(self, name, arguments, ctx=None):
        return ToolResponse(TEXTS, view=ResponseView(data="ok", rules=("a ]]> b",)))


app = BrokenApp()
'''


def test_marker_is_registered_with_its_signature(pytester: pytest.Pytester) -> None:
    """``pytest --markers`` documents fusion(*, check=True, strict=None, check_references=None)."""
    result = pytester.runpytest("--markers")
    signature = "@pytest.mark.fusion(*, check=True, strict=None, check_references=None)*"
    result.stdout.fnmatch_lines([signature])


def test_check_false_exempts_a_test(pytester: pytest.Pytester) -> None:
    """A contract violation fails under --fusion, unless the test opts out."""
    pytester.makepyfile(broken=BROKEN)
    pytester.syspathinsert()
    pytester.makepyfile(
        test_broken="""
import pytest


def test_checked(fusion_call):
    fusion_call("broken", "raw")


@pytest.mark.fusion(check=False)
def test_exempt(fusion_call):
    assert fusion_call("broken", "raw").content[1].endswith("]]> b\\n</domain_rules>")
"""
    )
    result = pytester.runpytest(
        "--fusion", "--fusion-app=broken:app", "-p", "no:cacheprovider", "-k", "checked or exempt"
    )
    result.assert_outcomes(passed=1, failed=1)
    result.stdout.fnmatch_lines(["*breaks the Fusion contract*"])
