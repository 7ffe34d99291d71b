"""Upstream coupling: pytest's fixture internals, for the call fixtures' shortcut.

Checked against pytest 9.2.0 (``FixtureManager.getfixturedefs(argname, node)``,
``FixtureManager.getfixtureclosure(parentnode, initialnames, ignore_args)``,
``Metafunc._arg2fixturedefs``, ``FixtureRequest._fixturemanager``,
``FixtureDef.func``); ``tests/integration/test_fixture_shortcut.py`` fails
loudly when pytest's shape changes.

Why: ``fusion_call`` and ``fusion_call_async`` resolve ``fusion_app`` and
``fusion_context`` themselves instead of depending on them as fixtures. For a
one-call test pytest's work per fixture (a definition, a request, its
dependencies resolved again even for a session-scoped one) weighs more than
the call: ``benchmarks/bench_plugin.py --part fixtures`` measured the plain
``fusion_call(fusion_app, fusion_context)`` at 1.14x this shortcut's session
CPU (IQR 1.08-1.21, 5 rounds, 500 one-call tests; 1.04x of the whole
process's CPU), over the 1.10x the plain form was allowed.

So a test naming only ``fusion_call`` has neither fixture in its closure,
which is where pytest looks for what to parametrize. When the test resolves
one of them anyway (it names it, or a ``usefixtures`` or ``parametrize``
does) or something overrides it (a conftest, a module, a class, which may
have ``params`` or depend on parametrized fixtures), its closure is added at
collection (:func:`add_overrides`) and pytest resolves it as before, so the
test and the call see one value. Otherwise the default ``fusion_app`` is
resolved by pytest for the session's first call fixture only (so a failure
to load the app is reported as before), and the default ``fusion_context``'s
work runs here: the ``pytest_fusion_context`` hook.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Final

import pytest

__all__ = ["RESOLVED", "add_overrides", "app_and_context", "overridden"]

RESOLVED: Final = frozenset({"fusion_app", "fusion_context"})
_PLUGIN: Final = "pytest_mcpfusion.plugin"  # where the default fixtures are defined
# Whether a test's parent (class, module) sees a fusion_app / fusion_context override,
# and what the default fusion_app gave once a call fixture asked for it.
_OVERRIDES: Final = pytest.StashKey[dict[tuple[object, str], bool]]()
_DEFAULT_APP: Final = pytest.StashKey[tuple[Any]]()


def overrides_of(config: pytest.Config) -> dict[tuple[object, str], bool]:
    """The session's cache of "overridden?" per (parent node, name)."""
    found = config.stash.get(_OVERRIDES, None)
    if found is None:
        found = config.stash[_OVERRIDES] = {}
    return found


def app_and_context(request: pytest.FixtureRequest) -> tuple[Any, Any]:
    """The ``fusion_app`` and ``fusion_context`` fixtures' values, for a call fixture."""
    config = request.config
    if _resolved_by_pytest(request, "fusion_app"):
        app = request.getfixturevalue("fusion_app")
    elif _DEFAULT_APP in config.stash:
        (app,) = config.stash[_DEFAULT_APP]
    else:  # the default, a session fixture: pytest runs it (or reports its failure) once
        app = request.getfixturevalue("fusion_app")
        config.stash[_DEFAULT_APP] = (app,)
    if _resolved_by_pytest(request, "fusion_context"):
        return app, request.getfixturevalue("fusion_context")
    return app, config.hook.pytest_fusion_context(app=app, request=request)


def _resolved_by_pytest(request: pytest.FixtureRequest, name: str) -> bool:
    """Whether the test resolves fixture ``name`` itself, or anything overrides the default."""
    node = request.node
    if name in getattr(node, "fixturenames", ()):
        return True
    callspec = getattr(node, "callspec", None)
    if callspec is not None and name in callspec.params:
        return True
    # What else a test sees is defined on its parents (class, module, conftests, plugins).
    return overridden(overrides_of(request.config), request._fixturemanager, node, name)


def add_overrides(metafunc: pytest.Metafunc, overrides: dict[tuple[object, str], bool]) -> None:
    """Add each overridden or parametrized one of ``RESOLVED`` (and its closure) to the test's.

    ``overrides`` caches "overridden?" per (parent node, name), the question
    the call fixtures ask again at run time.
    """
    names = metafunc.fixturenames
    wanted = {
        name
        for marker in metafunc.definition.iter_markers("parametrize")
        for name in _argnames(marker)
        if name in RESOLVED
    }
    definition = metafunc.definition
    manager = definition.session._fixturemanager
    for name in sorted(RESOLVED - set(names)):
        if name in wanted:
            names.append(name)
        elif overridden(overrides, manager, definition, name):
            closure, definitions = manager.getfixtureclosure(definition, (name,), wanted)
            names.extend(needed for needed in closure if needed not in names)
            for needed, defs in definitions.items():
                metafunc._arg2fixturedefs.setdefault(needed, defs)


def overridden(
    overrides: dict[tuple[object, str], bool], manager: Any, node: pytest.Item, name: str
) -> bool:
    """Whether the ``name`` fixture ``node`` sees is not the plugin's (cached per parent).

    Asked at collection (of the test's definition) and again at run time (of
    the test), with one answer for every test of a class or module.
    """
    key = (node.parent, name)
    found = overrides.get(key)
    if found is None:
        try:
            definitions = manager.getfixturedefs(name, node)
        except Exception:  # noqa: BLE001 - another pytest: let it resolve the fixture
            definitions = None
        found = overrides[key] = _not_ours(definitions, name)
    return found


def _not_ours(definitions: Sequence[Any] | None, name: str) -> bool:
    """Whether the last (visible) of ``definitions`` is not the plugin's ``name`` fixture."""
    if not definitions:
        return True
    function = definitions[-1].func
    return (getattr(function, "__module__", None), getattr(function, "__name__", None)) != (
        _PLUGIN,
        name,
    )


def _argnames(marker: pytest.Mark) -> list[str]:
    argnames = marker.args[0] if marker.args else marker.kwargs.get("argnames", ())
    if isinstance(argnames, str):
        return [name.strip() for name in argnames.split(",")]
    return list(argnames)
