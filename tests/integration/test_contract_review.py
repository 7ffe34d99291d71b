"""The per-result review asks ``tools/list`` only for answers that name tools or actions."""

from __future__ import annotations

import pytest

# A hand-written app that logs every tools/list it answers.
COUNTING = """
from pathlib import Path

from fusion_core import response, success


class CountingApp:
    def definitions(self):
        with Path("listed.log").open("a") as log:
            log.write("listed\\n")
        return [
            {
                "name": "notes",
                "annotations": {"readOnlyHint": True},
                "inputSchema": {"type": "object", "properties": {}},
            }
        ]

    async def call(self, name, arguments, ctx=None):
        if arguments.get("hint"):
            return response({"note": "x"}).system_hint([("nowhere", "a tool it lacks")]).build()
        return success({"note": "plain"})


app = CountingApp()
"""
TESTS = """
import pytest


@pytest.mark.parametrize("n", range(20))
def test_plain(fusion_call, n):
    fusion_call("notes")


def test_hint(fusion_call):
    fusion_call("notes", hint=True)
"""


def test_answers_naming_no_tool_are_reviewed_without_tools_list(pytester: pytest.Pytester) -> None:
    """20 plain answers cost no ``tools/list``; a suggestion is still checked against it."""
    pytester.makefile(".ini", pytest="[pytest]\n")
    pytester.makepyfile(counting=COUNTING, test_notes=TESTS)
    pytester.syspathinsert()
    result = pytester.runpytest("--fusion", "--fusion-app=counting:app", "-p", "no:cacheprovider")
    result.assert_outcomes(passed=21, failed=1, skipped=1)  # notes[invalid]: nothing to refuse
    result.stdout.fnmatch_lines(["*the suggestion names 'nowhere', which is not a tool*"])
    listed = (pytester.path / "listed.log").read_text().split()
    assert len(listed) <= 4, listed  # collection, start-up, test_hint: not one per answer
