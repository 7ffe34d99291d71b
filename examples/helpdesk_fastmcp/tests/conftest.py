"""The helpdesk's own tests: ``pytest examples/helpdesk_fastmcp/tests``.

The conftest a team with such a server writes: ``fusion_app`` names the
server's factory, so the plugin drives it in process through its framework's
own in-memory client. With ``--fusion --fusion-app=examples.helpdesk_fastmcp.server:make_server``
the plugin also collects contract tests for every tool, on a server of their own.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from examples.helpdesk_fastmcp.server import make_server


@pytest.fixture(scope="session")
def fusion_app() -> Callable[[], Any]:
    """The factory: each isolation scope gets a fresh helpdesk."""
    return make_server
