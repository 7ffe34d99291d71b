"""The corpus loader reads every shape of the golden format, and names what it cannot read.

The old loader read only the top folder (``next/`` was left out of the
default run), skipped every line without ``kind`` (a ``{"format", "cases"}``
line of cases was dropped silently) and crashed on a line that was not JSON
without naming it: each test here failed on it.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests._support.conformance.corpus import CorpusError, corpus_files, read_lines

CASE = {"id": "c-1", "kind": "helper", "input": {"fn": "success", "args": ["x"]}}


def _write(path: Path, *lines: object) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    text = "\n".join(line if isinstance(line, str) else json.dumps(line) for line in lines)
    path.write_text(text + "\n", encoding="utf-8")
    return path


def test_the_default_folder_includes_sub_folders(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``next/`` and any folder below the corpus folder are replayed by the default run."""
    top = _write(tmp_path / "visible.jsonl", CASE)
    below = _write(tmp_path / "next" / "generated-seed12.jsonl", {**CASE, "id": "c-2"})
    monkeypatch.setenv("FUSION_CONFORMANCE_CORPUS", str(tmp_path))
    assert corpus_files() == [below, top]
    monkeypatch.setenv("FUSION_CONFORMANCE_CORPUS", str(below))
    assert corpus_files() == [below]  # one corpus, alone


def test_a_line_of_cases_is_read_and_a_header_is_skipped(tmp_path: Path) -> None:
    """Cases come one a line, or as the ``cases`` of a ``format`` line."""
    second = {**CASE, "id": "c-2"}
    file = _write(
        tmp_path / "c.jsonl",
        {"format": "mcpfusion-conformance-cases/1"},
        {"format": "mcpfusion-conformance-cases/1", "cases": [CASE, second]},
        "",
        {**CASE, "id": "c-3"},
    )
    assert [case["id"] for case in read_lines(file)] == ["c-1", "c-2", "c-3"]


@pytest.mark.parametrize(
    ("line", "message"),
    [
        ("{not json", r"c\.jsonl:2: not JSON"),
        ("[1, 2]", r"c\.jsonl:2: a corpus line is a JSON object, got list"),
        ('{"id": "x"}', r"c\.jsonl:2: a corpus line holds a case \('kind'\) or cases"),
        ('{"cases": {"id": "x"}}', r"c\.jsonl:2: 'cases' is a list of case objects"),
    ],
)
def test_a_line_that_is_no_case_is_named(tmp_path: Path, line: str, message: str) -> None:
    """A corpus is never half read: the file and line of what is not a case are named."""
    file = _write(tmp_path / "c.jsonl", CASE, line)
    with pytest.raises(CorpusError, match=message):
        list(read_lines(file))


def test_a_missing_corpus_is_an_error(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """No corpus is never an empty, vacuously passing, run."""
    monkeypatch.setenv("FUSION_CONFORMANCE_CORPUS", str(tmp_path / "nothing"))
    with pytest.raises(FileNotFoundError, match="no conformance corpus"):
        corpus_files()


# A golden line of the shared corpus (visible.jsonl, tdef-toon-no-description).
_DEFINITION = json.loads(
    r"""{"id":"tdef-toon-no-description","kind":"tool_definition","input":{"tools":[{"style":"createTool","name":"bare","toonDescription":true,"actions":[{"name":"a"},{"name":"b"}]}]},"content":["bare. Select operation via the `action` parameter.\n\n[2|]{action|desc|required}:\n  a|\"\"|\"\"\n  b|\"\"|\"\""],"isError":null,"tool":{"name":"bare","description":"bare. Select operation via the `action` parameter.\n\n[2|]{action|desc|required}:\n  a|\"\"|\"\"\n  b|\"\"|\"\"","inputSchema":{"type":"object","properties":{"action":{"type":"string","enum":["a","b"],"description":"Which operation to perform"}},"required":["action"]},"annotations":{"readOnlyHint":false,"destructiveHint":false,"idempotentHint":false}}}"""  # noqa: E501 - one golden line, verbatim
)


def test_a_corpus_of_one_kind_passes_alone(tmp_path: Path) -> None:
    """A corpus of tool definitions only: no test fails for the kinds it does not hold.

    The old replay of response and helper cases asserted it had some, so a
    hidden corpus without them, run alone, failed.
    """
    here = Path(__file__).resolve().parent
    corpus = _write(
        tmp_path / "defs.jsonl", {"format": "mcpfusion-conformance-cases/1"}, _DEFINITION
    )
    replays = [
        str(path) for path in sorted(here.glob("test_*.py")) if path.name != Path(__file__).name
    ]
    run = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "no:xdist",
         *replays],
        env={**os.environ, "FUSION_CONFORMANCE_CORPUS": str(corpus)},
        capture_output=True, text=True, check=False, cwd=here.parents[1], timeout=300,
    )  # fmt: skip
    assert run.returncode == 0, run.stdout[-3000:]
    assert "failed" not in run.stdout
