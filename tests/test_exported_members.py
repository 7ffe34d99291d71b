"""The front doors: ``__all__`` is sorted, complete, and every name exists."""

from __future__ import annotations

import ast
import importlib
import inspect
import types

import pytest

PACKAGES = [
    "fusion_core",
    "fusion_core.fastmcp",
    "fusion_core.mcpserver",
    "fusion_core.ui",
    "pytest_mcpfusion",
    "pytest_mcpfusion.strategies",
]


def _module(name: str) -> types.ModuleType:
    return importlib.import_module(name)


def _isort_key(name: str) -> tuple[int, str]:
    """Ruff's RUF022 isort-style order: CONSTANTS, then Classes, then the rest."""
    if name.isupper():
        return (0, name)
    if name[:1].isupper():
        return (1, name)
    return (2, name)


@pytest.mark.parametrize("name", PACKAGES)
def test_all_is_sorted(name: str) -> None:
    """__all__ is sorted isort-style (constants, classes, then functions) without repeats."""
    exported = list(_module(name).__all__)
    assert exported == sorted(exported, key=_isort_key)
    assert len(exported) == len(set(exported))


@pytest.mark.parametrize("name", PACKAGES)
def test_every_exported_name_exists(name: str) -> None:
    """Every name in __all__ is an attribute of the module."""
    module = _module(name)
    missing = [member for member in module.__all__ if not hasattr(module, member)]
    assert missing == []


def _public_bindings(module: types.ModuleType) -> set[str]:
    """Public names the module's own source binds (imports and assignments)."""
    tree = ast.parse(inspect.getsource(module))
    names: set[str] = set()
    for node in tree.body:
        if isinstance(node, ast.ImportFrom) and node.level > 0:
            names.update(alias.asname or alias.name for alias in node.names)
        elif isinstance(node, ast.Assign):
            names.update(target.id for target in node.targets if isinstance(target, ast.Name))
        elif isinstance(node, ast.FunctionDef | ast.ClassDef):
            names.add(node.name)
    return {name for name in names if not name.startswith("_")}


@pytest.mark.parametrize("name", PACKAGES)
def test_all_is_complete(name: str) -> None:
    """Every public name the front door binds is exported."""
    module = _module(name)
    exported_objects = [getattr(module, member) for member in module.__all__]
    unexported = {
        binding
        for binding in _public_bindings(module) - set(module.__all__)
        # ui.list and ui.json are exported aliases of list_block and json_block.
        if not any(getattr(module, binding) is obj for obj in exported_objects)
    }
    assert unexported == set()


def test_star_import_gives_exactly_all() -> None:
    """``from fusion_core import *`` yields exactly __all__."""
    namespace: dict[str, object] = {}
    exec("from fusion_core import *", namespace)
    namespace.pop("__builtins__")
    assert sorted(namespace) == sorted(_module("fusion_core").__all__)


def test_exports_are_documented() -> None:
    """Every exported class and function has a docstring."""
    module = _module("fusion_core")
    undocumented = [
        member
        for member in module.__all__
        if callable(getattr(module, member)) and not inspect.getdoc(getattr(module, member))
    ]
    assert undocumented == []


def test_ui_helpers_are_the_reference_names() -> None:
    """The ui module exposes the reference's helper names."""
    from fusion_core import ui  # noqa: PLC0415 - the subject under test

    for helper in (
        "echarts",
        "mermaid",
        "markdown",
        "code_block",
        "table",
        "list",
        "json",
        "summary",
    ):
        assert callable(getattr(ui, helper))
