"""pytest_mcpfusion._contract._collect: what a failure's reproduce line keeps of the command."""

from __future__ import annotations

import pytest

from pytest_mcpfusion._contract._collect import _fusion_options


@pytest.mark.parametrize(
    ("args", "kept"),
    [
        (["--fusion-app", "shop:app", "tests"], ["--fusion-app", "shop:app"]),
        (["--fusion-strict", "tests"], ["--fusion-strict"]),
        (["--fusion-no-check-references", "tests"], ["--fusion-no-check-references"]),
        (["--fusion-report=r.json", "--fusion-examples=3"], ["--fusion-examples=3"]),
        (["--fusion-report", "r.json", "--fusion-report-html", "r.html", "-x"], []),
    ],
    ids=["value", "strict-flag", "no-check-flag", "report-dropped", "report-values-dropped"],
)
def test_the_rerun_keeps_fusion_options_but_not_the_reports(
    args: list[str], kept: list[str]
) -> None:
    """Flags take no value (the next word is not eaten); report options are left out."""
    assert _fusion_options(args) == kept
