"""The shape of hypothesis that ``_upstream_hypothesis`` relies on: a test's database key."""

from __future__ import annotations

import hashlib
import sys
from collections.abc import Callable
from pathlib import Path

import pytest
from hypothesis import Phase, given, settings
from hypothesis import strategies as st
from hypothesis.database import InMemoryExampleDatabase

from pytest_mcpfusion._upstream_hypothesis import database_key


def _same_source(database: InMemoryExampleDatabase, seen: list[int]) -> Callable[[], None]:
    """A failing ``@given`` test; each call makes one of the same source (as ``_collect``)."""

    @settings(database=database, phases=[Phase.reuse, Phase.generate, Phase.shrink])
    @given(st.integers(0, 1000))
    def run(number: int) -> None:
        seen.append(number)
        assert number < 500

    return run


def test_the_named_key_is_where_a_failure_is_saved() -> None:
    """The failing example is saved under the key we set, and under no other."""
    database = InMemoryExampleDatabase()
    run = _same_source(database, [])
    run = database_key("first")(run)
    with pytest.raises(AssertionError):
        run()
    key = hashlib.sha384(b"pytest-mcpfusion contract first").digest()
    assert database.fetch(key), "hypothesis no longer reads _hypothesis_internal_database_key"
    assert {name for name in database.data if not name.startswith(key)} == set()


def test_tests_of_one_source_with_their_own_keys_replay_only_their_own() -> None:
    """A failure saved by one test is not replayed first by another test of the same source."""
    database = InMemoryExampleDatabase()
    failing = _same_source(database, [])
    failing = database_key("first")(failing)
    with pytest.raises(AssertionError):
        failing()
    seen: list[int] = []
    other = _same_source(database, seen)
    other = database_key("second")(other)
    with pytest.raises(AssertionError):
        other()
    assert seen[0] != 500  # the first test's smallest failure, had it been replayed
    shared: list[int] = []
    unkeyed = _same_source(database, shared)  # the old way: a key from the source
    with pytest.raises(AssertionError):
        unkeyed()
    again: list[int] = []
    unkeyed_again = _same_source(database, again)
    with pytest.raises(AssertionError):
        unkeyed_again()
    assert again[0] == 500  # same source, same key: the saved failure comes back first


def test_the_primed_random_is_hypothesis_own_and_managed() -> None:
    """In a fresh thread: prime_random makes the thread's Random, hypothesis manages and uses it.

    No ``register_random`` (its gc pass) runs for it, and a ``@given`` test in
    that thread keeps it: hypothesis would have made and registered its own.
    """
    import threading  # noqa: PLC0415

    from hypothesis import core  # noqa: PLC0415
    from hypothesis.internal import entropy  # noqa: PLC0415

    from pytest_mcpfusion._upstream_hypothesis import prime_random  # noqa: PLC0415

    seen: dict[str, object] = {}

    @given(st.integers())
    def run(number: int) -> None:
        seen.setdefault("during", core.threadlocal._hypothesis_global_random)

    def in_thread() -> None:
        assert core.threadlocal._hypothesis_global_random is None, "hypothesis renamed it"
        real = entropy.register_random
        entropy.register_random = lambda r: seen.setdefault("registered", r)  # type: ignore[assignment]
        try:
            prime_random()
            seen["primed"] = core.threadlocal._hypothesis_global_random
            run()
        finally:
            entropy.register_random = real

    thread = threading.Thread(target=in_thread)
    thread.start()
    thread.join()
    primed = seen["primed"]
    assert primed is not None
    assert seen["during"] is primed
    assert "registered" not in seen
    assert any(managed is primed for managed in entropy.RANDOMS_TO_MANAGE.values())


def test_own_modules_are_kept_out_of_the_local_constants(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An editable install searches like a wheel: the user's constants are drawn, the plugin's not.

    Two modules on a local path, one named inside this package (as an
    editable install's are), one the user's: after ``skip_own_constants``,
    hypothesis's own scan finds the user's string and not the plugin's.
    """
    import importlib  # noqa: PLC0415

    from hypothesis.internal.conjecture import providers  # noqa: PLC0415

    from pytest_mcpfusion._upstream_hypothesis import skip_own_constants  # noqa: PLC0415

    own_dir = tmp_path / "own"
    own_dir.mkdir()
    (own_dir / "_constants_probe.py").write_text('OWN = "plugin-constant-qzx"\n')
    (tmp_path / "user_constants_probe.py").write_text('USER = "user-constant-qzx"\n')
    monkeypatch.syspath_prepend(str(tmp_path))
    import pytest_mcpfusion  # noqa: PLC0415

    monkeypatch.setattr(pytest_mcpfusion, "__path__", [*pytest_mcpfusion.__path__, str(own_dir)])
    for name in ("pytest_mcpfusion._constants_probe", "user_constants_probe"):
        monkeypatch.delitem(sys.modules, name, raising=False)
    try:
        own = importlib.import_module("pytest_mcpfusion._constants_probe")
        importlib.import_module("user_constants_probe")
        assert own.__file__ is not None
        assert own.__file__.startswith(str(own_dir))

        skip_own_constants()
        strings = providers._get_local_constants().set_for_type("string")
    finally:  # the import set the probe on the package too; the public-surface tests read it
        vars(pytest_mcpfusion).pop("_constants_probe", None)
    assert "user-constant-qzx" in strings
    assert "plugin-constant-qzx" not in strings


def test_kept_restores_hypothesis_forced_seed_and_profile() -> None:
    """What the repository's ``pytester`` fixture relies on: ``kept`` undoes a seed and a profile.

    An in-process run with ``--hypothesis-seed`` set hypothesis's forced seed
    for the rest of the worker, where an unkeyed ``@given`` test then lost
    its database: the replay test above failed (``0 == 500``) whenever xdist
    gave it a worker that had run ``test_same_seed_gives_the_same_bytes``.
    """
    from hypothesis import core  # noqa: PLC0415

    from tests._support import hypothesis_globals  # noqa: PLC0415

    seed, profile = core.global_force_seed, settings.get_current_profile_name()
    settings.register_profile("kept-probe", max_examples=3)
    with hypothesis_globals.kept():
        core.global_force_seed = 7  # type: ignore[assignment]  # typed None upstream
        settings.load_profile("kept-probe")
        assert settings().max_examples == 3
    assert core.global_force_seed == seed
    assert settings.get_current_profile_name() == profile


def test_standard_library_modules_are_marked_seen_without_resolving_their_paths(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A stdlib module is seen without a path resolution; the scan still finds the user's modules.

    ``ModuleLocation.from_path`` (a ``Path.resolve`` each) was asked about every
    loaded stdlib module on the first contract test.
    """
    import json.decoder  # noqa: PLC0415 - a stdlib module, loaded

    from hypothesis.internal import scrutineer  # noqa: PLC0415
    from hypothesis.internal.conjecture import providers  # noqa: PLC0415

    from pytest_mcpfusion._upstream_hypothesis import skip_own_constants  # noqa: PLC0415

    assert json.decoder.__file__ is not None
    assert any(
        Path(json.decoder.__file__).resolve().is_relative_to(d) for d in scrutineer.STDLIB_DIRS
    )
    monkeypatch.setattr(providers, "_seen_modules", set())
    skip_own_constants()
    assert id(json.decoder) in providers._seen_modules
    assert id(sys.modules["pytest_mcpfusion"]) in providers._seen_modules
    assert id(sys.modules[__name__]) not in providers._seen_modules  # left to hypothesis's scan
