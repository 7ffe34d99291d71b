"""pytest_mcpfusion._snapshots._syrupy_private: the one home of syrupy's private parts.

Fails loudly, naming each changed name and the installed version, when a
syrupy release changes the shape of what the module reaches into; and checks
no other module of the package reaches into syrupy's private names.
"""

from __future__ import annotations

import importlib.metadata
import re
from pathlib import Path

import pytest
from syrupy.assertion import SnapshotAssertion
from syrupy.session import SnapshotSession

from pytest_mcpfusion._snapshots import _syrupy_private
from pytest_mcpfusion._snapshots._syrupy_private import (
    CHECKED_AGAINST,
    HookedAssertion,
    session_of,
    shape_problems,
)

PACKAGE = Path(_syrupy_private.__file__).resolve().parents[1]
# What reaching into syrupy's private parts looks like in the source.
PRIVATE = re.compile(
    r"\._syrupy\b|\"_syrupy\"|\._assert\(|_execution_results|\b_executions\b|_write_mode"
)


def test_syrupy_still_has_the_shape_the_module_expects() -> None:
    """Every private name used exists with the expected signature; else the list says which."""
    installed = importlib.metadata.version("syrupy")
    problems = shape_problems()
    assert problems == [], (
        f"syrupy {installed} changed what _syrupy_private reaches into (checked against "
        f"{CHECKED_AGAINST}): {problems}; read that module against the new syrupy"
    )


def test_the_module_opens_with_the_version_it_was_checked_against() -> None:
    """The docstring's first line names CHECKED_AGAINST, a version syrupy really had."""
    first = (_syrupy_private.__doc__ or "").splitlines()[0]
    assert first.endswith(f"checked against syrupy {CHECKED_AGAINST}.")
    assert re.fullmatch(r"\d+\.\d+\.\d+", CHECKED_AGAINST)


def test_no_other_module_reaches_into_syrupy_private_names() -> None:
    """Only _syrupy_private uses ``config._syrupy``, ``_assert``, ``_execution_results``..."""
    reaching = [
        f"{path.relative_to(PACKAGE)}:{number}"
        for path in sorted(PACKAGE.rglob("*.py"))
        if path.name != "_syrupy_private.py"
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
        if PRIVATE.search(line)
    ]
    assert reaching == []


def test_the_hooks_run_around_syrupys_comparison() -> None:
    """before_assert runs before syrupy's ``_assert``, after_assert after it with its outcome."""
    seen: list[str] = []

    class Probe(HookedAssertion):
        def before_assert(self) -> None:
            seen.append("before")

        def after_assert(self, success: bool) -> None:
            seen.append(f"after {success}")

    def compare(self: SnapshotAssertion, data: object) -> bool:
        del self
        seen.append(f"syrupy {data}")
        return True

    original = SnapshotAssertion._assert
    SnapshotAssertion._assert = compare  # type: ignore[method-assign]
    try:
        probe = object.__new__(Probe)
        assert probe._assert("x") is True
    finally:
        SnapshotAssertion._assert = original  # type: ignore[method-assign]
    assert seen == ["before", "syrupy x", "after True"]


def test_the_session_is_syrupys_or_none(request: pytest.FixtureRequest) -> None:
    """With syrupy's plugin loaded the run has a SnapshotSession; a bare object has none."""
    assert isinstance(session_of(request.config), SnapshotSession)
    assert session_of(object()) is None  # type: ignore[arg-type]
