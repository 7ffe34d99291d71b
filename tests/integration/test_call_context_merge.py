"""``fusion_call(merge_context=...)`` merges into the context; ``context=`` replaces it.

The reference's tester shallow-merges an override into its context factory's
result; ``merge_context=`` does that (into the ``fusion_context`` fixture's
value, else the app's ``context_factory()``), so a test proves "this role is
refused" by a middleware guard while keeping the rest of the context.
"""

from __future__ import annotations

import pytest

GUARDED = """
import asyncio
from dataclasses import dataclass

from fusion_core import FusionApp, Tool, error


def require_admin(ctx, args):
    role = ctx["role"] if isinstance(ctx, dict) else ctx.role
    if role != "admin":
        return error(f"role {role} may not delete projects", "FORBIDDEN")
    return None


def deleted(ctx):
    user = ctx["user"] if isinstance(ctx, dict) else ctx.user
    return {"deleted_by": user}


def tool():
    projects = Tool("projects").use(require_admin)
    projects.action("delete", deleted)
    return projects


app = FusionApp([tool()], context_factory=lambda: {"user": "ana", "role": "admin"})


async def make_context():
    await asyncio.sleep(0)
    return {"user": "ana", "role": "admin"}


async_app = FusionApp([tool()], context_factory=make_context)


async def make_text():
    return "a string"


text_app = FusionApp([tool()], context_factory=make_text)


@dataclass(frozen=True)
class Ctx:
    user: str
    role: str
"""


@pytest.fixture
def guarded(pytester: pytest.Pytester) -> pytest.Pytester:
    """A pytester directory holding the ``guarded`` app module."""
    pytester.makepyfile(guarded=GUARDED)
    pytester.syspathinsert()
    return pytester


@pytest.mark.parametrize("app", ["app", "async_app"])
def test_merge_context_keeps_the_factorys_other_keys(guarded: pytest.Pytester, app: str) -> None:
    """Merged into the app's (sync or async) context_factory result; replaced by context=."""
    guarded.makepyfile(
        test_merge="""
import pytest


def test_admin_by_default(fusion_call):
    assert fusion_call("projects", "delete").data == {"deleted_by": "ana"}


def test_viewer_is_refused(fusion_call):
    result = fusion_call("projects", "delete", merge_context={"role": "viewer"})
    assert result.is_error
    assert result.error.message == "role viewer may not delete projects"


def test_another_user_keeps_the_role(fusion_call):
    result = fusion_call("projects", "delete", merge_context={"user": "bo"})
    assert result.data == {"deleted_by": "bo"}


def test_context_replaces_the_whole_context(fusion_call):
    result = fusion_call("projects", "delete", context={"role": "admin"})
    assert result.is_error  # no "user" any more: the handler fails
    assert "user" in result.error.message


@pytest.mark.anyio
async def test_async_twin_merges_too(fusion_call_async):
    result = await fusion_call_async("projects", "delete", merge_context={"role": "guest"})
    assert result.error.message == "role guest may not delete projects"
"""
    )
    result = guarded.runpytest(f"--fusion-app=guarded:{app}", "-p", "no:cacheprovider")
    result.assert_outcomes(passed=5)


def test_merge_context_merges_into_the_fixtures_context(guarded: pytest.Pytester) -> None:
    """A fusion_context fixture is the base; a dataclass context is merged with replace()."""
    guarded.makepyfile(
        test_fixture_base="""
import pytest

from guarded import Ctx


@pytest.fixture
def fusion_context():
    return {"user": "cy", "role": "admin"}


def test_merged_into_the_fixture(fusion_call):
    assert fusion_call("projects", "delete", merge_context={"role": "ops"}).is_error
    assert fusion_call("projects", "delete", merge_context={}).data == {"deleted_by": "cy"}


class TestDataclass:
    @pytest.fixture
    def fusion_context(self):
        return Ctx(user="di", role="admin")

    def test_replace(self, fusion_call):
        result = fusion_call("projects", "delete", merge_context={"user": "ed"})
        assert result.data == {"deleted_by": "ed"}
"""
    )
    guarded.runpytest("--fusion-app=guarded:app", "-p", "no:cacheprovider").assert_outcomes(
        passed=2
    )


def test_merge_context_misuse_is_one_clear_failure(guarded: pytest.Pytester) -> None:
    """Both options at once, or a context that cannot be merged into: a failure naming why."""
    guarded.makepyfile(
        test_misuse="""
import pytest


def test_both(fusion_call):
    fusion_call("projects", "delete", context={}, merge_context={"role": "x"})


@pytest.mark.parametrize("fusion_context", ["a string"])
def test_not_a_mapping(fusion_call):
    fusion_call("projects", "delete", merge_context={"role": "x"})
"""
    )
    result = guarded.runpytest("--fusion-app=guarded:app", "-p", "no:cacheprovider")
    result.assert_outcomes(failed=2)
    result.stdout.fnmatch_lines(
        [
            "*pass context= (replaces the context) or merge_context= (merges into it), not both*",
            "*merge_context= merges into a mapping or a dataclass, but the context is a str*",
        ]
    )
    assert "Traceback" not in result.stdout.str()


def test_an_async_factory_context_that_cannot_merge_is_one_clear_failure(
    guarded: pytest.Pytester,
) -> None:
    """An async ``context_factory`` whose context is no mapping: the same failure, sync or async.

    The merge waits for the factory, so it ran after the call's own checks:
    its UsageError came out of the test as a traceback through the plugin.
    """
    guarded.makepyfile(
        test_misuse="""
import pytest


def test_sync(fusion_call):
    fusion_call("projects", "delete", merge_context={"role": "x"})


@pytest.mark.anyio
async def test_async(fusion_call_async):
    await fusion_call_async("projects", "delete", merge_context={"role": "x"})
"""
    )
    result = guarded.runpytest("--fusion-app=guarded:text_app", "-p", "no:cacheprovider")
    result.assert_outcomes(failed=2)
    out = result.stdout.str()
    assert (
        out.count("merge_context= merges into a mapping or a dataclass, but the context is a str")
        >= 2
    )
    assert "_session.py" not in out  # no traceback through the plugin's internals
    assert "UsageError" not in out
