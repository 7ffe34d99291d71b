"""Overridden ``fusion_app``/``fusion_context`` in the closure of a test that calls tools.

The call fixtures (``fusion_call``, ``fusion_call_async``) resolve the app and
the context themselves instead of depending on them as fixtures: for a
one-call test pytest's work per fixture weighed more than the call. A test
naming only ``fusion_call`` then has neither in its fixture closure, which
is where pytest looks for what to parametrize. So when the test
parametrizes one (``parametrize``) or sees an override of it (a conftest,
module or class fixture, which may have ``params`` or depend on
parametrized fixtures), its closure is added at collection, as it was when
the call fixtures depended on them, and pytest's own hook parametrizes it.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Final

import pytest

__all__ = ["add_overrides", "overridden"]

RESOLVED: Final = frozenset({"fusion_app", "fusion_context"})
_PLUGIN: Final = "pytest_mcpfusion.plugin"  # where the default fixtures are defined


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
