"""Contract items have a place in the collection tree: ids that run, selection, counts.

They hang from the ini file (``pytest.ini::fusion-contract::billing/get[valid]``),
else the rootdir's conftest.py, else the gated app's or server script's file,
so an id printed by ``--collect-only`` runs when passed back, ``-k``, ``-m``,
``--deselect`` and ``--lf`` select them as any test, and every count is right.
"""

from __future__ import annotations

import sys

import pytest

from tests._support.leaky import LEAKY
from tests._support.pytester_app import ROOT

GATE = ("--fusion", "--fusion-app=shop:app", "--fusion-examples=3")
ONE_TEST = "def test_file():\n    pass\n"


@pytest.fixture
def project(shop: pytest.Pytester) -> pytest.Pytester:
    """The shop app, an ini file and one ordinary test file in ``suite/``."""
    shop.makefile(".ini", pytest="[pytest]\n")
    shop.mkdir("suite")
    (shop.path / "suite" / "test_file.py").write_text(ONE_TEST)
    return shop


def test_collect_only_prints_ids_that_run(project: pytest.Pytester) -> None:
    """Every id ``--collect-only -q`` prints selects exactly that test when passed back."""
    listed = project.runpytest("--collect-only", "-q", *GATE, "-p", "no:cacheprovider")
    ids = [line for line in listed.outlines if "::" in line]
    assert "pytest.ini::fusion-contract::billing/get[valid]" in ids
    assert "suite/test_file.py::test_file" in ids
    assert len(ids) == 7
    assert "Fusion wire report" not in listed.stdout.str()
    listed.stdout.fnmatch_lines(["7 tests collected*"])
    again = project.runpytest(*GATE, "pytest.ini::fusion-contract::billing/get[invalid]", "-v")
    again.assert_outcomes(passed=1)
    again.stdout.fnmatch_lines(["*pytest.ini::fusion-contract::billing/get[[]invalid[]] PASSED*"])


def test_a_path_without_the_ini_file_still_runs_the_gate(project: pytest.Pytester) -> None:
    """``pytest --fusion suite/`` runs the contract tests too, with the same ids."""
    result = project.runpytest(*GATE, "suite", "-v", "-p", "no:cacheprovider")
    result.assert_outcomes(passed=7)
    result.stdout.fnmatch_lines(["*pytest.ini::fusion-contract::billing/list[[]valid[]] PASSED*"])


def test_a_chosen_node_id_runs_alone(project: pytest.Pytester) -> None:
    """Naming one file test runs that test only, not the gate's items."""
    result = project.runpytest(*GATE, "suite/test_file.py::test_file", "-p", "no:cacheprovider")
    result.assert_outcomes(passed=1)


def test_keyword_and_marker_selection_counts(project: pytest.Pytester) -> None:
    """``-k`` and ``-m`` select contract items with honest counts."""
    by_keyword = project.runpytest(*GATE, "-k", "billing/get", "-p", "no:cacheprovider")
    by_keyword.assert_outcomes(passed=2, deselected=5)
    by_keyword.stdout.fnmatch_lines(["collected 7 items / 5 deselected / 2 selected"])
    by_marker = project.runpytest(*GATE, "-m", "not fusion", "-p", "no:cacheprovider")
    by_marker.assert_outcomes(passed=1, deselected=6)


def test_deselect_an_item(project: pytest.Pytester) -> None:
    """``--deselect`` takes a contract item's id."""
    result = project.runpytest(
        *GATE, "--deselect", "pytest.ini::fusion-contract::billing/whoami[valid]",
        "-p", "no:cacheprovider",
    )  # fmt: skip
    result.assert_outcomes(passed=6, deselected=1)


def test_last_failed_reruns_the_failed_contract_items(pytester: pytest.Pytester) -> None:
    """``--lf`` runs again the contract items that failed, and only those."""
    pytester.makefile(".ini", pytest="[pytest]\n")
    pytester.makepyfile(leaky=LEAKY, test_file=ONE_TEST)
    pytester.syspathinsert()
    gate = ("--fusion", "--fusion-app=leaky:app", "--fusion-examples=5")
    pytester.runpytest(*gate).assert_outcomes(failed=2, passed=1)
    again = pytester.runpytest(*gate, "--lf", "-v")
    again.assert_outcomes(failed=2, deselected=1)
    again.stdout.fnmatch_lines(["*pytest.ini::fusion-contract::users/get[[]valid[]] FAILED*"])


def test_without_an_ini_file_the_items_still_run(shop: pytest.Pytester) -> None:
    """No ini file (nor conftest.py): the items still run, all of them."""
    result = shop.runpytest(*GATE, "-v", "-p", "no:cacheprovider")
    result.assert_outcomes(passed=6)
    result.stdout.fnmatch_lines(["*fusion-contract::billing/get[[]valid[]] PASSED*"])


def _contract_ids(result: pytest.RunResult) -> list[str]:
    return [line for line in result.outlines if "fusion-contract::" in line]


def test_without_an_ini_file_the_ids_start_at_the_app_module(shop: pytest.Pytester) -> None:
    """No ini file nor conftest.py: ids hang from the gated app's file, and run again."""
    listed = shop.runpytest(*GATE, "--collect-only", "-q", "-p", "no:cacheprovider")
    ids = _contract_ids(listed)
    assert "shop.py::fusion-contract::billing/get[valid]" in ids
    assert not [line for line in ids if line.startswith("::")]
    again = shop.runpytest(*GATE, "shop.py::fusion-contract::billing/get[valid]", "-v")
    again.assert_outcomes(passed=1)


def test_without_an_ini_file_the_ids_start_at_the_server_script(shop: pytest.Pytester) -> None:
    """A server started from a script in the rootdir anchors the ids at that script."""
    shop.makepyfile(
        serve_shop=(
            "import sys\n"
            f"sys.path[:0] = [{str(ROOT)!r}, '.']\n"
            "from fusion_core.__main__ import main\n"
            "sys.exit(main(['serve', 'shop:app']))\n"
        )
    )
    gate = ("--fusion", f"--fusion-server={sys.executable} serve_shop.py", "--fusion-examples=2")
    listed = shop.runpytest_subprocess(*gate, "--collect-only", "-q", "-p", "no:cacheprovider")
    assert "serve_shop.py::fusion-contract::billing/get[valid]" in _contract_ids(listed)


def _module_server(shop: pytest.Pytester) -> tuple[str, ...]:
    """A server started as a module: its command names no file of the rootdir."""
    shop.makepyfile(test_calls=ONE_TEST)
    return ("--fusion", f"--fusion-server={sys.executable} -m fusion_core serve shop:app",
            "--fusion-examples=2", "-p", "no:cacheprovider")  # fmt: skip


def test_a_module_server_without_ini_hangs_its_ids_from_a_test_file(
    shop: pytest.Pytester,
) -> None:
    """No ini, no conftest, no file in the command: ids start at the run's test file, not ``::``."""
    gate = _module_server(shop)
    listed = shop.runpytest_subprocess(*gate, "--collect-only", "-q")
    ids = _contract_ids(listed)
    assert "test_calls.py::fusion-contract::billing/get[valid]" in ids
    assert not [line for line in ids if line.startswith("::")]
    again = shop.runpytest_subprocess(*gate, "test_calls.py::fusion-contract::billing/get[valid]")
    again.assert_outcomes(passed=1)


def test_a_module_server_hangs_its_ids_from_the_project_file(shop: pytest.Pytester) -> None:
    """A pyproject.toml without a pytest section is still the project's file: ids start there."""
    (shop.path / "pyproject.toml").write_text('[project]\nname = "shop"\n')
    gate = _module_server(shop)
    listed = shop.runpytest_subprocess(*gate, "--collect-only", "-q")
    assert "pyproject.toml::fusion-contract::billing/get[valid]" in _contract_ids(listed)
    again = shop.runpytest_subprocess(*gate, "pyproject.toml::fusion-contract::billing/get[valid]")
    again.assert_outcomes(passed=1)


# Two actions of one tool: ``first`` leaks a forbidden field from n = 5 on (its
# smallest failure), ``second`` never fails and logs every n it is called with.
TWO_ACTIONS = """
from pathlib import Path

from fusion_core import FusionApp, Tool

calc = Tool("calc", "Numbers")


@calc.action("first", read_only=True)
def first(n: int, ctx: object = None) -> object:
    with Path("first.log").open("a") as log:
        log.write(f"{n}\\n")
    return {"n": n, "secret": 1} if n >= 5 else {"n": n}


@calc.action("second", read_only=True)
def second(n: int, ctx: object = None) -> object:
    with Path("second.log").open("a") as log:
        log.write(f"{n}\\n")
    return {"n": n}


app = FusionApp([calc], name="calc")
"""
# An example database of the project's own (hypothesis's CI profile has none).
KEEPS_EXAMPLES = """
from hypothesis import settings
from hypothesis.database import DirectoryBasedExampleDatabase

settings.register_profile("kept", database=DirectoryBasedExampleDatabase(".examples"))
settings.load_profile("kept")
"""


def _first_calls(pytester: pytest.Pytester, action: str) -> list[int]:
    """Run only ``action``'s valid contract test; the n of each call it made, in order."""
    log = pytester.path / f"{action}.log"
    log.unlink(missing_ok=True)
    pytester.runpytest_subprocess(
        "--fusion", "--fusion-app=calc:app", "--hypothesis-seed=3", "-p", "no:cacheprovider",
        f"pytest.ini::fusion-contract::calc/{action}[valid]",
    )  # fmt: skip
    return [int(line) for line in log.read_text().split()]


def test_no_item_replays_another_items_failure(pytester: pytest.Pytester) -> None:
    """A failure of one action's test never comes back in another action's test.

    All items run one inner function, so by its source they would share one
    example-database key. They replay by seed (the reproduce line) and write
    no examples, even where the project's profile keeps them; each item
    begins with its own simplest call.
    """
    pytester.makefile(".ini", pytest="[pytest]\nfusion_forbidden_fields = secret\n")
    pytester.makeconftest(KEEPS_EXAMPLES)
    pytester.makepyfile(calc=TWO_ACTIONS)
    gate = ("--fusion", "--fusion-app=calc:app", "--hypothesis-seed=3", "-p", "no:cacheprovider")
    result = pytester.runpytest_subprocess(*gate, "-k", "not invalid")
    result.assert_outcomes(failed=1, passed=1)
    result.stdout.fnmatch_lines(['*calc {"action": "first", "n": 5}*'])  # shrunk to the smallest
    sent = [int(n) for n in (pytester.path / "first.log").read_text().split()]
    assert 5 in sent
    assert len(sent) == len(set(sent))  # an identical call is judged by its first answer
    assert not (pytester.path / ".examples").exists()
    assert _first_calls(pytester, "second")[0] == 0  # hypothesis's simplest call, not n = 5


HOSTILE_SCHEMAS = """
from mcp.server.lowlevel import Server
from mcp_types import CallToolResult, ListToolsResult, TextContent, Tool

DEEP = 1
for _ in range(200):
    DEEP = [DEEP]
SCHEMAS = {
    "looped": {
        "type": "object",
        "properties": {"x": {"$ref": "#/$defs/A"}},
        "$defs": {"A": {"$ref": "#/$defs/B"}, "B": {"allOf": [{"$ref": "#/$defs/A"}]}},
    },
    "buried": {"type": "object", "properties": {"x": {"enum": [DEEP, 1]}}},
}


async def list_tools(ctx, params):
    return ListToolsResult(
        tools=[Tool(name=name, description=name, input_schema=s) for name, s in SCHEMAS.items()]
    )


async def call_tool(ctx, params):
    return CallToolResult(content=[TextContent(type="text", text="{}")])


mcp = Server("hostile", on_list_tools=list_tools, on_call_tool=call_tool)
"""


def test_a_hostile_schema_skips_its_tests_with_a_reason(pytester: pytest.Pytester) -> None:
    """A $ref loop and a value nested 200 deep: each test is skipped naming why, no traceback.

    Both were a RecursionError inside the strategies (the class: shapes no
    value fits or no stack holds, from a tools/list nobody here wrote).
    """
    pytester.makepyfile(hostile=HOSTILE_SCHEMAS)
    pytester.syspathinsert()
    result = pytester.runpytest(
        "--fusion", "--fusion-app=hostile:mcp", "-p", "no:cacheprovider", "-rs"
    )
    result.assert_outcomes(skipped=4)
    result.stdout.fnmatch_lines(
        [
            "*looped*refers back to itself through $ref and allOf alone*",
            "*buried*enum: a value nested more than 64 levels deep*",
        ]
    )
    result.stdout.no_fnmatch_line("*RecursionError*")
