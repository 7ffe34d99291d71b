"""What a stranger's install relies on: cheap imports, optional test extras, honest metadata.

A production server imports ``fusion_core`` and nothing of pytest, hypothesis
or syrupy; ``from fusion_core import response`` pays for the builder alone
(never pydantic, the mcp SDK or lxml); the plugin loads, and ``fusion_call``
works, where syrupy and hypothesis are absent. Each check runs in a fresh
interpreter, since this process has imported everything already.
"""

from __future__ import annotations

import subprocess
import sys
import textwrap
import tomllib
from pathlib import Path

import pytest

import fusion_core

ROOT = Path(__file__).resolve().parents[1]
TEST_ONLY = ("pytest", "_pytest", "hypothesis", "syrupy", "pluggy")
HEAVY = ("pydantic", "pydantic_core", "mcp", "lxml")


def _python(source: str, *args: str, cwd: Path = ROOT) -> subprocess.CompletedProcess[str]:
    """Run ``source`` in a fresh interpreter; the result, output captured."""
    return subprocess.run(
        [sys.executable, *args, "-c", textwrap.dedent(source)],
        capture_output=True,
        text=True,
        cwd=cwd,
        check=False,
        timeout=120,
    )


def _blocker(names: tuple[str, ...]) -> str:
    """Source that makes ``import name`` fail for each name, as if not installed."""
    return f"import sys\nfor _name in {names!r}:\n    sys.modules[_name] = None\n"


def test_fusion_core_runs_without_pytest_hypothesis_or_syrupy() -> None:
    """Every public name of fusion_core loads, and an app answers, with the test extras blocked."""
    run = _python(
        _blocker(TEST_ONLY)
        + textwrap.dedent(
            """
            import anyio
            import fusion_core
            from fusion_core import FusionApp, Tool
            for name in fusion_core.__all__:
                getattr(fusion_core, name)
            import fusion_core._cli._main, fusion_core._snapshot._review, fusion_core.ui
            tool = Tool("ping", "Ping")
            tool.action("echo", lambda text: {"text": text}, description="Echo")
            app = FusionApp([tool], name="ping")
            result = anyio.run(app.call, "ping", {"action": "echo", "text": "hi"})
            print(result["content"][0]["text"])
            """
        )
    )
    assert run.returncode == 0, run.stderr
    assert '"text": "hi"' in run.stdout


def test_importing_response_loads_no_pydantic_mcp_or_lxml() -> None:
    """``python -X importtime -c 'from fusion_core import response'`` imports none of them."""
    run = _python("from fusion_core import response", "-X", "importtime")
    assert run.returncode == 0, run.stderr
    imported = {line.rsplit("|", 1)[-1].strip() for line in run.stderr.splitlines()}
    assert "fusion_core._write._builder" in imported  # the measurement saw the import
    heavy = sorted(name for name in imported if name.split(".")[0] in HEAVY)
    assert heavy == []


def test_lazy_names_resolve_to_their_definitions() -> None:
    """A lazily loaded name is the object its module defines, and stays in the module."""
    from fusion_core import ui  # noqa: PLC0415 - the modules behind two names
    from fusion_core._present import _presenter  # noqa: PLC0415

    assert fusion_core.Presenter is _presenter.Presenter
    assert fusion_core.ui is ui
    assert "Presenter" in vars(fusion_core)


def test_unknown_attribute_is_an_attribute_error_naming_it() -> None:
    """A misspelt name fails as a normal missing attribute, naming the module and the name."""
    with pytest.raises(AttributeError, match=r"'fusion_core' has no attribute 'Presenterr'"):
        _ = fusion_core.Presenterr  # type: ignore[attr-defined]


def test_dir_lists_public_names_and_dunders_only() -> None:
    """``dir(fusion_core)`` is ``__all__`` plus dunders: no helper, no ``annotations``."""
    listed = dir(fusion_core)
    assert listed == sorted(listed)
    strays = [name for name in listed if name not in fusion_core.__all__]
    assert all(name.startswith("__") for name in strays), strays
    assert "annotations" not in listed
    assert set(fusion_core.__all__) <= set(listed)


def _not_installed(names: tuple[str, ...]) -> str:
    """Source that makes every ``import`` of ``names`` (and their submodules) fail.

    ``import`` statements go through ``builtins.__import__`` whatever finders
    pytest installs (its assertion rewriter finds modules itself), and
    ``None`` entries in ``sys.modules`` would break pytest rather than the plugin.
    """
    return textwrap.dedent(
        f"""
        import builtins, sys
        _real_import = builtins.__import__
        def _import(name, globals=None, locals=None, fromlist=(), level=0):
            if level == 0 and name.split(".")[0] in {names!r}:
                raise ModuleNotFoundError(f"No module named {{name!r}}", name=name)
            return _real_import(name, globals, locals, fromlist, level)
        builtins.__import__ = _import
        """
    )


def test_plugin_loads_and_calls_without_syrupy_and_hypothesis(tmp_path: Path) -> None:
    """Without syrupy and hypothesis, fusion_call passes; fusion_snapshot names what is missing."""
    (tmp_path / "pingapp.py").write_text(
        textwrap.dedent(
            """
            from fusion_core import FusionApp, Tool
            tool = Tool("ping", "Ping")
            tool.action("echo", lambda text: {"text": text}, description="Echo")
            app = FusionApp([tool], name="ping")
            """
        ),
        encoding="utf-8",
    )
    (tmp_path / "test_ping.py").write_text(
        textwrap.dedent(
            """
            def test_echo(fusion_call):
                assert fusion_call("ping", "echo", text="hi").data == {"text": "hi"}

            def test_snapshot(fusion_call, fusion_snapshot):
                assert fusion_call("ping", "echo", text="hi") == fusion_snapshot
            """
        ),
        encoding="utf-8",
    )
    run = _python(
        _not_installed(("syrupy", "hypothesis"))
        + textwrap.dedent(
            """
            import pytest
            sys.exit(pytest.main([
                "-p", "no:syrupy", "-p", "no:hypothesispytest", "-p", "no:cacheprovider",
                "-o", "fusion_app=pingapp:app", "-rf", "test_ping.py",
            ]))
            """
        ),
        cwd=tmp_path,
    )
    assert run.returncode == 1, run.stdout + run.stderr
    assert "1 passed, 1 error" in run.stdout
    assert "fusion_snapshot needs syrupy" in run.stdout
    # The message alone: no ImportError chained in front of it.
    assert "During handling of the above exception" not in run.stdout
    assert "No module named" not in run.stdout
    gate = _python(
        _not_installed(("syrupy", "hypothesis"))
        + textwrap.dedent(
            """
            import pytest
            sys.exit(pytest.main([
                "-p", "no:syrupy", "-p", "no:hypothesispytest", "-p", "no:cacheprovider",
                "-o", "fusion_app=pingapp:app", "--fusion", "-rf", "-k", "echo",
            ]))
            """
        ),
        cwd=tmp_path,
    )
    assert gate.returncode == 1, gate.stdout + gate.stderr
    assert "contract tests need hypothesis, which is not installed" in gate.stdout
    assert "Traceback" not in gate.stdout
    assert "During handling of the above exception" not in gate.stdout


def test_license_file_matches_the_metadata() -> None:
    """The metadata says MIT and ships LICENSE, which is the MIT licence."""
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    assert project["license"] == "MIT"
    assert project["license-files"] == ["LICENSE"]
    assert (ROOT / "LICENSE").read_text(encoding="utf-8").startswith("MIT License\n")


def test_core_dependencies_are_declared_and_the_console_script_exists() -> None:
    """The core's run-time imports are dependencies; ``fusion`` points at a real function."""
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    names = {dep.split(">")[0].split("=")[0].split("[")[0] for dep in project["dependencies"]}
    assert {"pydantic", "orjson", "lxml", "mcp", "anyio", "toon-format"} <= names
    module, _, function = project["scripts"]["fusion"].partition(":")
    assert callable(getattr(__import__(module, fromlist=[function]), function))


def test_sdist_manifest_ships_docs_and_prunes_tests() -> None:
    """MANIFEST.in adds the docs and the C source and keeps the test suite out."""
    manifest = (ROOT / "MANIFEST.in").read_text(encoding="utf-8").splitlines()
    assert "recursive-include docs *.md" in manifest
    assert "include fusion_core/_write/_speedups.c" in manifest
    assert "prune tests" in manifest


def test_type_checkers_see_the_lazy_names(tmp_path: Path) -> None:
    """From a user's module, mypy --strict types the lazily loaded names and flags a misspelt one.

    The names load through ``__getattr__`` at run time; type checkers read the
    ``TYPE_CHECKING`` imports instead, so they must say the same.
    """
    user = tmp_path / "user_module.py"
    user.write_text(
        textwrap.dedent(
            """
            from typing import assert_type

            import fusion_core
            from fusion_core import MAX_RESPONSE_SIZE, FusionApp, ToolResponse, UiBlock, response

            assert_type(response({"a": 1}).build(), ToolResponse)
            assert_type(fusion_core.FusionApp, type[FusionApp])
            assert_type(fusion_core.ui.summary("1 task"), UiBlock)
            size: int = MAX_RESPONSE_SIZE
            fusion_core.Presenterr
            """
        ),
        encoding="utf-8",
    )
    cache = ROOT / ".mypy_cache" / "user-side"  # kept apart from the project's own run
    mypy = [sys.executable, "-m", "mypy", "--strict", "--config-file=", f"--cache-dir={cache}"]
    run = subprocess.run(
        [*mypy, str(user)],
        capture_output=True,
        text=True,
        cwd=ROOT,
        check=False,
        timeout=600,
    )
    lines = run.stdout.splitlines()
    errors = [line.split(": error: ", 1)[1] for line in lines if ": error: " in line]
    assert errors == ['Module has no attribute "Presenterr"; maybe "Presenter"?  [attr-defined]']
