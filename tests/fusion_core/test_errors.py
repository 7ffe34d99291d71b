"""One exception tree, drawn in ``_errors``'s docstring; the version written in one place.

Every exception class fusion_core defines for its users derives from
``FusionError``, is exported, and is drawn in the tree; the version is the
installed distribution's, read from its metadata, never a second hand copy.
"""

from __future__ import annotations

import ast
import importlib
import inspect
import pkgutil
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest
from pydantic import BaseModel

import fusion_core
from fusion_core import FusionError, SchemaConflictError, Tool
from fusion_core import _errors as errors

ROOT = Path(__file__).resolve().parents[2]
_PACKAGES = ("fusion_core", "pytest_mcpfusion")


def _exception_classes() -> dict[str, type[BaseException]]:
    """Every public exception class defined in a module of fusion_core, by name."""
    modules = [
        importlib.import_module(info.name)
        for info in pkgutil.walk_packages(fusion_core.__path__, "fusion_core.")
        if not info.name.endswith("__main__")
    ]
    return {
        name: value
        for module in modules
        for name, value in vars(module).items()
        if inspect.isclass(value)
        and issubclass(value, BaseException)
        and not issubclass(value, Warning)
        and value.__module__ == module.__name__
        and not name.startswith("_")
    }


def test_every_exception_of_the_library_is_in_the_tree() -> None:
    """Each one derives from FusionError, is exported, and is drawn in the docstring."""
    classes = _exception_classes()
    assert "SchemaConflictError" in classes
    drawn = errors.__doc__ or ""
    for name, cls in classes.items():
        assert issubclass(cls, FusionError), name
        assert name in fusion_core.__all__, name
        assert getattr(fusion_core, name) is cls, name
        assert f" {name}" in drawn, name


def test_a_schema_conflict_names_the_parameter_and_the_action() -> None:
    """Two actions giving ``ref`` two types: a FusionError and a TypeError naming both."""

    class AsStr(BaseModel):
        ref: str

    class AsInt(BaseModel):
        ref: int

    tool = Tool("t").action("a", lambda p: p, params=AsStr)
    with pytest.raises(SchemaConflictError) as raised:
        tool.action("b", lambda p: p, params=AsInt)
    assert isinstance(raised.value, FusionError)
    assert isinstance(raised.value, TypeError)
    assert (raised.value.parameter, raised.value.action) == ("ref", "b")
    assert "parameter 'ref' of action 'b'" in str(raised.value)


def _pyproject_version() -> str:
    text = (ROOT / "pyproject.toml").read_text(encoding="utf-8")
    version: str = tomllib.loads(text)["project"]["version"]
    return version


def test_the_version_is_the_installed_distributions() -> None:
    """``fusion_core.__version__`` is the metadata's, which pyproject.toml wrote."""
    from importlib.metadata import version  # noqa: PLC0415

    assert fusion_core.__version__ == version("pytest-mcpfusion") == _pyproject_version()


def test_no_module_writes_the_version_by_hand() -> None:
    """No string literal of the packages is the version: pyproject.toml is its one home."""
    written = _pyproject_version()
    copies = [
        f"{path.relative_to(ROOT)}:{node.lineno}"
        for package in _PACKAGES
        for path in sorted((ROOT / package).rglob("*.py"))
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8")))
        if isinstance(node, ast.Constant) and node.value == written
    ]
    assert copies == []


def test_importing_the_package_does_not_read_the_metadata() -> None:
    """The front door stays cheap: the metadata is read when ``__version__`` is first used."""
    code = (
        "import sys, fusion_core; assert 'importlib.metadata' not in sys.modules, 'eager'; "
        "print(fusion_core.__version__)"
    )
    run = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=False, timeout=60
    )
    assert run.returncode == 0, run.stderr
    assert run.stdout.strip() == _pyproject_version()
