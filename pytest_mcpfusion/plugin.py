"""The pytest entry point (``pytest11``) of pytest-mcpfusion.

For now it only makes the ``fusion_core`` version visible in the pytest
header; options, fixtures and snapshots arrive with the plugin issue.
"""

from __future__ import annotations

import pytest

import fusion_core


def pytest_report_header(config: pytest.Config) -> str:
    """Name the wire engine in pytest's header, so reports say which one ran."""
    del config
    return f"mcpfusion: fusion_core {fusion_core.__version__}"
