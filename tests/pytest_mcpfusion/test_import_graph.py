"""The plugin's modules import each other without cycles, and its entry point loads light.

The graph is read from the source (every ``import`` a module runs, at its
top or inside a function; not those under ``if TYPE_CHECKING:``), so a cycle
hidden behind a function-level import counts as one: ``plugin``, ``_session``
and ``_contract`` used to reach each other that way. The load itself is
checked in a fresh interpreter: what ``import pytest_mcpfusion.plugin`` (the
``pytest11`` entry point, loaded by every pytest run) brings in.
"""

from __future__ import annotations

import ast
import json
import os
import subprocess
import sys
from graphlib import CycleError, TopologicalSorter
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PACKAGE = ROOT / "pytest_mcpfusion"
# Lazy imports that close a cycle, known (none through plugin, _session or _options):
KNOWN_BACK_EDGES = (
    # open_transport hands a framework server to the in-memory transport, built on Remote
    ("pytest_mcpfusion._transport", "pytest_mcpfusion._inmemory"),
    # the JSON-schema strategies use the public json_values strategy
    ("pytest_mcpfusion._jsonschema", "pytest_mcpfusion.strategies"),
)


def _module_name(path: Path) -> str:
    parts = path.relative_to(ROOT).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _is_type_checking(node: ast.If) -> bool:
    test = node.test
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


def _imports(path: Path) -> set[str]:
    """The package's modules that ``path`` imports when it runs (TYPE_CHECKING blocks aside)."""
    name = _module_name(path)
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found: set[str] = set()

    def visit(node: ast.AST) -> None:
        if isinstance(node, ast.If) and _is_type_checking(node):
            for child in node.orelse:
                visit(child)
            return
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join([*anchor, *([base] if base else [])])
            found.add(base)
            found.update(f"{base}.{alias.name}" for alias in node.names)
        for inner in ast.iter_child_nodes(node):
            visit(inner)

    visit(ast.parse(path.read_text(encoding="utf-8")))
    modules = {_module_name(p) for p in PACKAGE.rglob("*.py")}
    return {imported for imported in found if imported in modules and imported != name}


def _graph() -> dict[str, set[str]]:
    graph = {_module_name(path): _imports(path) for path in PACKAGE.rglob("*.py")}
    # A package's __init__ runs before its submodules: importing one imports it.
    for name, imported in graph.items():
        for module in list(imported):
            parent = module.rpartition(".")[0]
            if parent and parent != name and parent in graph:
                imported.add(parent)
    return graph


def test_the_plugin_s_modules_import_each_other_without_a_cycle() -> None:
    """No module of pytest_mcpfusion reaches itself through imports (top-level or lazy).

    But for the lazy back-edges in ``KNOWN_BACK_EDGES``, each of them a
    function-level import the module explains, outside the plugin's own
    modules; a new one fails here.
    """
    graph = _graph()
    for module, imported in KNOWN_BACK_EDGES:
        graph[module].discard(imported)
    try:
        order = list(TopologicalSorter(graph).static_order())
    except CycleError as error:
        pytest.fail(f"an import cycle in pytest_mcpfusion: {' -> '.join(error.args[1])}")
    # plugin -> _lifecycle -> _contract -> _session -> _options -> _keys, never back.
    chain = ["_keys", "_options", "_session", "_contract._verdicts", "_lifecycle", "plugin"]
    positions = [order.index(f"pytest_mcpfusion.{name}") for name in chain]
    assert positions == sorted(positions)


def test_the_stash_keys_module_imports_nothing_of_the_package() -> None:
    """_keys sits below every module (its types are for checkers only)."""
    assert _graph()["pytest_mcpfusion._keys"] == set()


def test_the_entry_point_loads_without_the_heavy_parts() -> None:
    """Loading the plugin imports neither fusion_core's reader nor pydantic, mcp or hypothesis."""
    code = (
        "import json, sys, pytest, pytest_mcpfusion.plugin\n"
        "print(json.dumps(sorted(m for m in sys.modules if m.split('.')[0] in "
        "('fusion_core', 'pydantic', 'mcp', 'anyio', 'hypothesis', 'syrupy', 'lxml') "
        "or m.startswith('pytest_mcpfusion'))))"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=ROOT
    ).stdout
    loaded = set(json.loads(out))
    assert loaded == {
        "pytest_mcpfusion",
        "pytest_mcpfusion._keys",
        "pytest_mcpfusion._options",
        "pytest_mcpfusion._profiles",
        "pytest_mcpfusion.hookspecs",
        "pytest_mcpfusion.plugin",
    }


def test_a_session_that_never_uses_the_plugin_loads_no_wire_engine(tmp_path: Path) -> None:
    """A whole pytest run of a test that uses nothing of ours loads neither reader nor writer.

    The snapshot bookkeeping every session registers (``_snapshots._names``,
    ``_pending``, ``_cleanup``) needs only the snapshot files' suffixes; it
    used to import the snapshot format, and with it the reader, the writer and
    syrupy's private modules: about a tenth of a one-test run (issue 28).
    """
    (tmp_path / "pytest.ini").write_text("[pytest]\n")
    (tmp_path / "test_unused.py").write_text("def test_nothing():\n    assert 1 + 1 == 2\n")
    loaded = _loaded_by_a_run(tmp_path, "-p", "no:randomly")
    heavy = {m for m in loaded if m.startswith(("fusion_core._read", "fusion_core._write"))}
    assert heavy == set(), heavy
    assert "fusion_core._snapshot._format" not in loaded
    assert "pytest_mcpfusion._snapshots._syrupy_private" not in loaded
    assert "pytest_mcpfusion._snapshots._names" in loaded  # the bookkeeping did load


def test_a_suite_of_calls_without_the_gate_never_loads_the_contract_tests(tmp_path: Path) -> None:
    """``fusion_call`` and wire snapshots without ``--fusion``: no contract-test machinery loads.

    The session's start-up imported the contract collector and its answers
    (about 0.05 s of a 500-test snapshot suite, issue 28) to tell contract items
    apart; a contract item cannot exist before its module is loaded. The wire
    report, the strict reader, the client's constants and the snapshot diff
    cost that suite another 7-10 ms (session 22).
    """
    (tmp_path / "pytest.ini").write_text("[pytest]\nfusion_app = shop:app\npythonpath = .\n")
    (tmp_path / "shop.py").write_text(
        "from fusion_core import FusionApp, Tool\n"
        "billing = Tool('billing', 'Invoices')\n"
        "billing.action('get', lambda id: {'id': id})\n"
        "app = FusionApp([billing], name='shop')\n"
    )
    (tmp_path / "test_calls.py").write_text(
        "def test_get(fusion_call, fusion_snapshot):\n"
        "    result = fusion_call('billing', 'get', id='INV-1')\n"
        "    assert result.data == {'id': 'INV-1'}\n"
        "    assert result == fusion_snapshot\n"
    )
    loaded = _loaded_by_a_run(tmp_path, "--snapshot-update")
    assert "pytest_mcpfusion._session" in loaded  # the calls did go through the plugin
    assert "pytest_mcpfusion._snapshots._extension" in loaded  # and the snapshot
    # Nor what only the gate, its report or a changed snapshot needs: the wire
    # report and its tokenizer, the strict reader, the MCP client, the diff.
    assert {
        "pytest_mcpfusion._contract._collect",
        "pytest_mcpfusion._contract._answers",
        "pytest_mcpfusion._report._summary",
        "pytest_mcpfusion._report._tokens",
        "fusion_core._read._strict",
        "fusion_core._mcp._client",
        "fusion_core._snapshot._changes",
    }.isdisjoint(loaded)


def _loaded_by_a_run(project: Path, *options: str) -> set[str]:
    """Our modules loaded when a whole ``pytest`` run in ``project`` ends (it must pass)."""
    (project / "conftest.py").write_text(
        "import json, sys\n"
        "def pytest_unconfigure(config):\n"
        "    loaded = sorted(m for m in sys.modules if m.startswith(('fusion_core.', "
        "'pytest_mcpfusion.')))\n"
        "    print('LOADED', json.dumps(loaded))\n"
    )
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", *options],
        capture_output=True,
        text=True,
        check=False,
        cwd=project,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )
    assert done.returncode == 0, done.stdout + done.stderr
    line = next(line for line in done.stdout.splitlines() if line.startswith("LOADED "))
    return set(json.loads(line.removeprefix("LOADED ")))
