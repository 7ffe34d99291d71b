"""Users are only ever sent to public names.

The modules behind the front doors (``fusion_core._present._mask``,
``pytest_mcpfusion._report._summary``...) are private: they may move or change in any
release. So no docs page, README or example imports one, no message, warning
or help text a user reads names one, and no docstring the API reference
renders points at one. A user who needs a name gets it from ``fusion_core``,
``fusion_core.ui``, the integrations ``fusion_core.mcpserver`` and
``fusion_core.fastmcp``, ``pytest_mcpfusion`` or ``pytest_mcpfusion.strategies``.
"""

from __future__ import annotations

import ast
import importlib
import inspect
import re
from collections.abc import Iterator
from pathlib import Path

import pytest

import fusion_core

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("fusion_core", "pytest_mcpfusion")
# `fusion_core._present._mask`, `pytest_mcpfusion/_report/_summary.py`,
# `from fusion_core._x import`: a private module named by its dotted or file
# path (`__main__` is the public `python -m` entry point, not private).
PRIVATE = re.compile(r"\b(?:fusion_core|pytest_mcpfusion)[./]_(?!_)\w+")
# The public front doors and the hook specifications (the hooks reference).
FRONT_DOORS = (
    "fusion_core",
    "fusion_core.fastmcp",
    "fusion_core.mcpserver",
    "fusion_core.ui",
    "pytest_mcpfusion",
    "pytest_mcpfusion.hookspecs",
    "pytest_mcpfusion.strategies",
)


def _pages() -> list[Path]:
    """Every page a user reads: README, the docs site and its config, the examples."""
    pages = [ROOT / "README.md", ROOT / "mkdocs.yml", *sorted((ROOT / "docs").rglob("*.md"))]
    examples = ROOT / "examples"
    pages += sorted(p for p in examples.rglob("*") if p.suffix in {".py", ".md", ".toml"})
    return pages


PAGES = _pages()


@pytest.mark.parametrize("page", PAGES, ids=[str(p.relative_to(ROOT)) for p in PAGES])
def test_page_names_no_private_module(page: Path) -> None:
    """No docs page, README or example imports or names a private module."""
    found = [
        f"line {number}: {line.strip()}"
        for number, line in enumerate(page.read_text(encoding="utf-8").splitlines(), 1)
        if PRIVATE.search(line)
    ]
    assert found == [], "use the public name (fusion_core.X, pytest_mcpfusion.X) instead"


def test_the_pattern_catches_private_imports() -> None:
    """The check above can fail: it sees the usual spellings of a private module."""
    caught = [
        "from fusion_core._present._mask import Mask",
        "import pytest_mcpfusion._report._summary",
        "see fusion_core/_limits.py",
        "(fusion_core._limits): page the data",
    ]
    allowed = ["from pytest_mcpfusion.__main__ import main", "fusion_core.MAX_DEPTH", "_select"]
    assert all(PRIVATE.search(text) for text in caught)
    assert not any(PRIVATE.search(text) for text in allowed)


def _sources() -> list[Path]:
    return sorted(p for package in PACKAGES for p in (ROOT / package).rglob("*.py"))


def _strings(tree: ast.AST) -> Iterator[tuple[int, str]]:
    """Every string constant of a module but its docstrings (messages, help, warnings)."""
    docstrings = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef):
            first = node.body[0] if node.body else None
            if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant):
                docstrings.add(id(first.value))
    for node in ast.walk(tree):
        if (
            isinstance(node, ast.Constant)
            and isinstance(node.value, str)
            and id(node) not in docstrings
        ):
            yield node.lineno, node.value


@pytest.mark.parametrize("source", _sources(), ids=lambda p: f"{p.parent.name}/{p.name}")
def test_user_facing_strings_name_no_private_module(source: Path) -> None:
    """Error messages, warnings and CLI help name public things (constants, options, pages)."""
    tree = ast.parse(source.read_text(encoding="utf-8"))
    found = [f"line {line}: {text!r:.100}" for line, text in _strings(tree) if PRIVATE.search(text)]
    assert found == []


def _documented(module_name: str) -> Iterator[tuple[str, str]]:
    """The docstrings the API reference renders: a module, its public names, their members."""
    module = importlib.import_module(module_name)
    yield module_name, inspect.getdoc(module) or ""
    names = getattr(module, "__all__", None) or [n for n in vars(module) if n.startswith("pytest_")]
    for name in names:
        value = getattr(module, name)
        yield f"{module_name}.{name}", inspect.getdoc(value) or ""
        if inspect.isclass(value):
            for member, attribute in vars(value).items():
                if member.startswith("_") and member != "__init__":
                    continue
                function = getattr(attribute, "__func__", attribute)
                yield f"{module_name}.{name}.{member}", inspect.getdoc(function) or ""


DOCUMENTED = [entry for module in FRONT_DOORS for entry in _documented(module)]


def test_api_reference_docstrings_name_no_private_module() -> None:
    """No docstring of a public name (or its public members) sends users to a private module."""
    assert len(DOCUMENTED) > 100  # the walk saw the API, not an empty list
    found = [f"{where}: {PRIVATE.findall(doc)}" for where, doc in DOCUMENTED if PRIVATE.search(doc)]
    assert found == []


def test_size_limit_errors_name_the_public_constant(monkeypatch: pytest.MonkeyPatch) -> None:
    """Writer and reader refusals name ``fusion_core.MAX_RESPONSE_SIZE``, which users can import."""
    monkeypatch.setattr("fusion_core._limits.MAX_RESPONSE_SIZE", 100)
    monkeypatch.setattr("fusion_core._read._parse.MAX_RESPONSE_SIZE", 100)
    with pytest.raises(fusion_core.SizeLimitError) as written:
        fusion_core.response("x" * 101).build()
    with pytest.raises(fusion_core.WireFormatError) as read:
        fusion_core.parse({"content": [{"type": "text", "text": "x" * 101}]})
    for raised in (written, read):
        assert "(fusion_core.MAX_RESPONSE_SIZE)" in str(raised.value)
    assert fusion_core.MAX_RESPONSE_SIZE == 1 << 30
    assert fusion_core.MAX_MESSAGE_SIZE == 4 * fusion_core.MAX_RESPONSE_SIZE
