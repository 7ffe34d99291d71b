"""Every example of docs/plugin.md runs as a real downstream test suite."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
_BLOCK = re.compile(r"^```python\n(.*?)^```", re.MULTILINE | re.DOTALL)
BLOCKS = _BLOCK.findall((ROOT / "docs" / "plugin.md").read_text(encoding="utf-8"))
# strategies.md's property test through the plugin runs here too (it needs a suite).
BLOCKS += [
    block
    for block in _BLOCK.findall((ROOT / "docs" / "strategies.md").read_text(encoding="utf-8"))
    if "fusion_caller" in block
]


def test_plugin_docs_examples_pass(pytester: pytest.Pytester) -> None:
    """Test examples run against the billing example; hook examples join the conftest."""
    tests = [block for block in BLOCKS if "def test_" in block]
    hooks = [block for block in BLOCKS if "hookimpl" in block]
    assert len(tests) >= 3
    assert hooks
    pytester.makeconftest("\n\n".join(hooks))
    for index, block in enumerate(tests):
        pytester.makepyfile(**{f"test_doc_{index}": block})
    pytester.syspathinsert(ROOT)
    pytester.makeini(f"[pytest]\npythonpath = {ROOT}\n")
    args = ["--fusion-app=examples.billing.app:app", "-p", "no:cacheprovider"]
    count = sum(block.count("\ndef test_") + block.startswith("def test_") for block in tests)
    # Subprocesses: an in-process run restores sys.modules afterwards, which can
    # leave pydantic's lazily imported submodules loaded twice.
    pytester.runpytest_subprocess(*args, "--snapshot-update").assert_outcomes(passed=count)
    pytester.runpytest_subprocess(*args, "--fusion", "-k", "not fusion-contract").assert_outcomes(
        passed=count
    )
