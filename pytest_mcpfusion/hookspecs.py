r"""Hooks pytest-mcpfusion offers to conftest files and plugins.

Implement them in a ``conftest.py`` (or a plugin) and mark each
implementation ``@pytest.hookimpl(optionalhook=True)``, so pytest does not
complain when pytest-mcpfusion is not installed::

    import pytest

    @pytest.hookimpl(optionalhook=True)
    def pytest_fusion_normalize(blocks, kinds):
        for index, text in enumerate(blocks):
            blocks[index] = re.sub(r"\\d{4}-\\d\\d-\\d\\dT[\\d:.]+Z", "<timestamp>", text)
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import pytest

if TYPE_CHECKING:
    from ._report import WireReport
    from ._result import FusionResult

hookspec = pytest.hookspec


@hookspec(firstresult=True)
def pytest_fusion_context(app: Any, request: pytest.FixtureRequest | None) -> Any:
    """Make the context object handed to tool handlers (the ``fusion_context`` fixture).

    :param app: the configured app (``None`` when testing a server by command or URL).
    :param request: the requesting test's fixture request; ``None`` for the
        contract tests of ``--fusion``, which belong to no test directory (so
        only this hook, not a ``fusion_context`` fixture, gives them a context).
    :return: the context, or ``None`` to let the next implementation (and finally
        the app's own ``context_factory``) decide. The first non-``None`` result wins.

    Overriding the ``fusion_context`` fixture in a conftest does the same for one
    directory; this hook serves plugins.
    """


@hookspec
def pytest_fusion_normalize(blocks: list[str], kinds: list[str]) -> None:
    """Scrub volatile parts (timestamps, ids) before a wire snapshot is compared.

    :param blocks: the text of every content block; replace items in place.
    :param kinds: the kind of each block (``data``, ``ui_passthrough(summary)``,
        ``domain_rules``, ...), to target one kind of block.

    Every implementation runs, in pytest's hook order; each sees the previous
    ones' changes. Only snapshots see normalized text; results stay exact.
    """


@hookspec
def pytest_fusion_check(result: FusionResult) -> list[str] | None:
    """House rules: return a message for each violation of ``result``, or ``None``.

    Runs with ``--fusion`` on every result a fixture produces, after the
    contract validator. Any message fails the test that made the call.
    """


@hookspec
def pytest_fusion_report(report: WireReport, config: pytest.Config) -> None:
    """Receive the wire report at the end of a ``--fusion`` run (on the controller).

    :param report: tools and actions exercised, blocks by kind, bytes,
        violations and, when a tokenizer is installed, tokens.
    :param config: the pytest config.
    """
