r"""Hooks pytest-mcpfusion offers to conftest files and plugins.

Implement them in a ``conftest.py`` (or a plugin) and mark each
implementation ``@pytest.hookimpl(optionalhook=True)``, so pytest does not
complain when pytest-mcpfusion is not installed::

    import re

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
    from collections.abc import Iterable, Mapping

    from pytest_mcpfusion._report._summary import WireReport
    from pytest_mcpfusion._result import FusionResult

hookspec = pytest.hookspec


@hookspec(firstresult=True)
def pytest_fusion_context(app: Any, request: pytest.FixtureRequest | None) -> Any:
    """Make the context object handed to tool handlers (the ``fusion_context`` fixture).

    :param app: the configured app (``None`` when testing a server by command or URL).
    :param request: the requesting test's fixture request; ``None`` for the
        contract tests of ``--fusion``, which belong to no test directory (so
        only this hook, not a ``fusion_context`` fixture, gives them a context),
        and for each example of a ``@given`` test using ``fusion_caller``.
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


@hookspec
def pytest_fusion_examples(
    tool: str, action: str | None, definition: Mapping[str, Any], config: pytest.Config
) -> list[Mapping[str, Any]] | None:
    """Example arguments for one action, sent first by its ``valid`` contract test.

    :param tool: the tool's name in ``tools/list``.
    :param action: the action (``None`` for a tool without actions).
    :param definition: the tool's definition as ``tools/list`` gives it.
    :param config: the pytest config.
    :return: argument mappings without the discriminator (``[{"id": "INV-1"}]``),
        or ``None``. Every implementation's examples are sent, after those of
        ``examples=`` on the action (apps written with fusion_core).

    This is how the contract tests reach the success path of a server in any
    language: generated ids rarely exist.
    """


@hookspec
def pytest_fusion_forbidden_fields(config: pytest.Config) -> Iterable[str] | None:
    """Field names that must never reach the wire (added to ``fusion_forbidden_fields``).

    :return: names such as ``password`` or ``internal_cost``, or ``None``. Every
        block of every result under ``--fusion`` is scanned: JSON keys of the
        data and ``structuredContent``, and key-like uses in the other blocks.
        A hit fails the test that made the call.
    """


@hookspec
def pytest_fusion_canaries(config: pytest.Config) -> Iterable[str] | None:
    """Canary values that must never reach the wire (added to ``fusion_canaries``).

    :return: values planted in the server's data (``CANARY-7f3a``), or
        ``None``. Found raw, XML-escaped or JSON-escaped in any block, a canary
        fails the test that made the call.
    """


@hookspec
def pytest_fusion_reset(config: pytest.Config, item: pytest.Item) -> None:
    """Reset the server's state before a test that reaches it.

    :param config: the pytest config.
    :param item: the test about to run: one that uses ``fusion_call``,
        ``fusion_call_async`` or ``fusion_caller``, or a contract test of
        ``--fusion``. With ``fusion_caller`` the hook runs again before each
        later example of the ``@given`` test (``item`` is the same test).

    Called before every such test, whatever ``--fusion-isolate`` says; under
    ``--fusion-isolate=test`` a server the plugin started has been restarted
    first. Against a long-running server (a URL) this hook is the way to
    keep one test's writes out of the next (call its reset endpoint, or
    truncate its database).
    """


@hookspec(firstresult=True)
def pytest_fusion_allow_writes(
    tool: str, action: str | None, definition: Mapping[str, Any], config: pytest.Config
) -> bool | None:
    """Whether the contract tests may call a tool that may write (or reach the open world).

    :param tool: the tool's name in ``tools/list``.
    :param action: the action (``None`` for a tool without actions).
    :param definition: the tool's definition as ``tools/list`` gives it
        (its ``annotations`` say what it may change).
    :param config: the pytest config.
    :return: ``True`` to send it generated and example arguments, ``False``
        to never do so (whatever ``fusion_allow_writes`` says), ``None`` to
        leave it to the ``fusion_allow_writes`` patterns. The first
        non-``None`` result wins.

    Asked only for actions that may write: a ``FusionApp`` action that is not
    ``read_only=True`` (or is ``destructive=True``), or a tool whose MCP
    annotations do not say ``readOnlyHint: true`` (or say
    ``destructiveHint: true`` or ``openWorldHint: true``). A generated call
    does whatever the tool does with its arguments, to whatever the server
    reaches: allow only tools whose world the test made (a store seeded per
    test, a repository in ``tmp_path``).
    """
