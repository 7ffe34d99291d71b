"""Every ``--fusion-*`` option and ``fusion_*`` ini key: registered, then parsed once.

:func:`add_options` registers them (``pytest_addoption``); :meth:`FusionOptions.read`
turns the command line and the ini file into one frozen :class:`FusionOptions`
at ``pytest_configure``, stored under ``_keys.OPTIONS_KEY``; every other module
reads that object (:func:`options_of`), never ``getoption``/``getini``. The
command line wins over the ini file. A bad ini value (a wrong type, a word
that is not one of the choices) fails the run at configure, naming the key and
what it may be; argparse checks the command line's choices and types.

This module imports only pytest and the standard library: it is loaded with
the plugin in every pytest run, also in runs that never use the plugin.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import TYPE_CHECKING, Final

import pytest

from pytest_mcpfusion import _profiles
from pytest_mcpfusion._keys import OPTIONS_KEY

if TYPE_CHECKING:
    from collections.abc import Callable

__all__ = [
    "DEFAULT_MAX_RESPONSE_BYTES",
    "DEFAULT_TIMEOUT",
    "ISOLATION",
    "LEVELS",
    "TRANSPORTS",
    "FusionOptions",
    "add_options",
    "options_of",
]

# The client's own defaults (fusion_core._mcp._client; a test keeps them equal):
# spelled here because importing the client costs ~60 ms in every pytest run.
DEFAULT_TIMEOUT: Final = 30.0
DEFAULT_MAX_RESPONSE_BYTES: Final = 8 * 1024 * 1024
TRANSPORTS: Final = ("inproc", "stdio", "http")
ISOLATION: Final = ("session", "test")
LEVELS: Final = ("fusion", "mcp")
# pytest's own spellings of a bool ini value, for fusion_pending (read as text:
# empty means "on when CI is set").
_TRUE: Final = frozenset({"1", "true", "t", "yes", "y", "on"})
_FALSE: Final = frozenset({"0", "false", "f", "no", "n", "off"})


@dataclass(frozen=True, slots=True, kw_only=True)
class FusionOptions:
    """The plugin's settings for one session, as the command line and the ini file give them."""

    contract: bool
    """``--fusion``: the contract gate."""
    app: str | None
    """``--fusion-app`` / ``fusion_app``: ``pkg.module:app``."""
    server: str | None
    """``--fusion-server`` / ``fusion_server``: a command or an ``http(s)`` URL."""
    transport: str | None
    """``--fusion-transport`` as given (see :attr:`transport_name`)."""
    examples: int
    """``--fusion-examples`` / ``fusion_examples``: generated calls per contract test."""
    timeout: float | None
    """``--fusion-timeout`` / ``fusion_timeout`` in seconds; ``None``: no limit."""
    max_response_bytes: int | None
    """``--fusion-max-response-bytes`` / ``fusion_max_response_bytes``; ``None``: no limit."""
    server_env: tuple[str, ...]
    """``fusion_server_env``: the variables (``fnmatch`` patterns) a server gets."""
    strict: bool
    """``--fusion-strict`` / ``fusion_strict``."""
    check_references: bool
    """``--fusion-no-check-references`` / ``fusion_check_references``."""
    isolate: str
    """``--fusion-isolate`` / ``fusion_isolate``: ``session`` or ``test``."""
    level: str
    """``--fusion-level`` / ``fusion_level``: ``fusion`` or ``mcp``."""
    report: str | None
    """``--fusion-report`` / ``fusion_report``: a JSON (or ``.html``) path."""
    report_html: str | None
    """``--fusion-report-html`` / ``fusion_report_html``."""
    forbidden_fields: tuple[str, ...]
    """``fusion_forbidden_fields``: field names that must never reach the wire."""
    canaries: tuple[str, ...]
    """``fusion_canaries``: values that must never reach the wire."""
    allow_writes: tuple[str, ...]
    """``fusion_allow_writes`` then ``--fusion-allow-writes``: tools the gate may call."""
    pending: bool
    """``--fusion-pending`` / ``fusion_pending``, else whether ``CI`` is set."""
    hypothesis_profile: str | None
    """The Fusion hypothesis profile to load (``auto`` decided), or ``None``."""

    @property
    def configured(self) -> bool:
        """Whether an app or a server is configured at all."""
        return self.app is not None or self.server is not None

    @property
    def transport_name(self) -> str:
        """The transport: as given, else inferred from the server (a URL: HTTP)."""
        if self.transport:
            return self.transport
        if self.server is None:
            return "inproc"
        return "http" if self.server.startswith(("http://", "https://")) else "stdio"

    @property
    def active(self) -> bool:
        """Whether the options ask for anything: the contract gate, an app, a server, a transport.

        A session that asks for nothing loads the heavy parts (the gate, the
        transport) only when a test first uses a fixture.
        """
        return self.contract or self.configured or self.transport is not None

    @classmethod
    def read(cls, config: pytest.Config) -> FusionOptions:
        """Parse the command line and the ini file; ``pytest.UsageError`` for a bad value."""
        reader = _Reader(config)
        timeout = reader.number("fusion_timeout", float)
        size = int(reader.number("fusion_max_response_bytes", int))
        return cls(
            contract=bool(config.option.fusion),
            app=reader.text("fusion_app"),
            server=reader.text("fusion_server"),
            transport=config.option.fusion_transport or None,
            examples=reader.count("fusion_examples"),
            timeout=timeout if timeout > 0 else None,
            max_response_bytes=size if size > 0 else None,
            server_env=tuple(map(str, config.getini("fusion_server_env"))),
            strict=reader.flag("fusion_strict"),
            check_references=reader.flag("fusion_check_references"),
            isolate=reader.choice("fusion_isolate", ISOLATION),
            level=reader.choice("fusion_level", LEVELS),
            report=reader.text("fusion_report"),
            report_html=reader.text("fusion_report_html"),
            forbidden_fields=reader.lines("fusion_forbidden_fields"),
            canaries=reader.lines("fusion_canaries"),
            allow_writes=tuple(
                pattern.strip()
                for pattern in (
                    *map(str, config.getini("fusion_allow_writes")),
                    *(config.option.fusion_allow_writes or ()),
                )
                if pattern.strip()
            ),
            pending=reader.pending(),
            hypothesis_profile=reader.profile(),
        )


def options_of(config: pytest.Config) -> FusionOptions:
    """The session's options (parsed at ``pytest_configure``)."""
    return config.stash[OPTIONS_KEY]


class _Reader:
    """The option (``dest`` = the ini key) when given, else the ini key, checked."""

    __slots__ = ("_config",)

    def __init__(self, config: pytest.Config) -> None:
        self._config = config

    def _given(self, key: str) -> object:
        return getattr(self._config.option, key, None)

    def _ini(self, key: str) -> str:
        return str(self._config.getini(key)).strip()

    def text(self, key: str) -> str | None:
        value = self._given(key) or self._ini(key)
        return str(value) if value else None

    def lines(self, key: str) -> tuple[str, ...]:
        return tuple(str(line) for line in self._config.getini(key))

    def choice(self, key: str, allowed: tuple[str, ...]) -> str:
        value = self._given(key) or self._ini(key)
        if value not in allowed:
            raise _bad(key, value, " or ".join(allowed))
        return str(value)

    def flag(self, key: str) -> bool:
        given = self._given(key)
        if given is not None:
            return bool(given)
        try:
            return bool(self._config.getini(key))  # pytest parses type="bool" keys
        except (ValueError, pytest.UsageError) as error:  # pytest's message lacks the key
            msg = f"the ini key {key} must be true or false ({error})"
            raise _usage_error(msg) from None

    def number(self, key: str, kind: Callable[[str], float]) -> float:
        given = self._given(key)
        raw = str(given) if given is not None else self._ini(key)
        try:
            value = kind(raw)
        except ValueError:
            value = -1
        if value < 0:
            whole = "a whole number" if kind is int else "a number"
            raise _bad(key, raw, f"{whole}: 0 (no limit) or more", option=given is not None)
        return value

    def count(self, key: str) -> int:
        given = self._given(key)
        raw = str(given) if given is not None else self._ini(key)
        try:
            value = int(raw)
        except ValueError:
            value = 0
        if value < 1:
            raise _bad(key, raw, "a whole number, 1 or more", option=given is not None)
        return value

    def pending(self) -> bool:
        given = self._given("fusion_pending")
        if given is not None:
            return bool(given)
        raw = self._ini("fusion_pending").lower()
        if not raw:  # on in CI (every major CI service sets CI), unless CI says false
            return os.environ.get("CI", "").strip().lower() not in {"", *_FALSE}
        if raw not in _TRUE | _FALSE:
            raise _bad("fusion_pending", raw, "true or false (empty: on when CI is set)")
        return raw in _TRUE

    def profile(self) -> str | None:
        """``--fusion-hypothesis-profile``, else the ini key (unless ``--hypothesis-profile``)."""
        given = self._given("fusion_hypothesis_profile")
        ini = self._ini("fusion_hypothesis_profile")
        if given is None and (self._given("hypothesis_profile") is not None or not ini):
            return None
        try:
            return _profiles.choose(str(given) if given is not None else ini)
        except ValueError as error:  # the option's choices are checked by argparse
            msg = f"fusion_hypothesis_profile: {error}"
            raise _usage_error(msg) from None


def _bad(key: str, value: object, allowed: str, *, option: bool = False) -> Exception:
    where = f"--{key.replace('_', '-')}" if option else f"the ini key {key}"
    return _usage_error(f"{where} must be {allowed}, not {value!r}")


def _usage_error(message: str) -> Exception:
    return pytest.UsageError(message)


def add_options(parser: pytest.Parser) -> None:
    """Register every ``--fusion-*`` option and ``fusion_*`` ini key (``pytest_addoption``)."""
    group = parser.getgroup("mcpfusion", "Fusion wire contract (pytest-mcpfusion)")
    option = group.addoption
    ini = parser.addini
    option(
        "--fusion",
        action="store_true",
        default=False,
        help="check every result against the Fusion contract, add contract tests for every "
        "tool and action (never calling one that may write: see --fusion-allow-writes), and "
        "print the wire report",
    )
    option(
        "--fusion-app",
        dest="fusion_app",
        metavar="MODULE:APP",
        default=None,
        help="the app under test, e.g. billing.app:app (ini: fusion_app)",
    )
    option(
        "--fusion-transport",
        dest="fusion_transport",
        choices=TRANSPORTS,
        default=None,
        help="how calls reach the app: in process (default), or served over stdio or HTTP",
    )
    option(
        "--fusion-server",
        dest="fusion_server",
        metavar="COMMAND_OR_URL",
        default=None,
        help="a server in any language: a command speaking MCP on stdio, or an http(s) URL "
        "(ini: fusion_server)",
    )
    option(
        "--fusion-examples",
        dest="fusion_examples",
        type=int,
        default=None,
        help="generated calls per contract test (default 25; ini: fusion_examples)",
    )
    ini("fusion_app", "the app under test, as MODULE:APP", default="")
    ini("fusion_server", "a server command or URL", default="")
    ini("fusion_examples", "generated calls per contract test", default="25")
    _add_gate_options(group, parser)
    _add_snapshot_options(group, parser)
    _add_limit_options(group, parser)


def _add_gate_options(group: pytest.OptionGroup, parser: pytest.Parser) -> None:
    """The gate's: strictness, reports, isolation, references, writes, level, egress."""
    option = group.addoption
    ini = parser.addini
    option(
        "--fusion-strict",
        action="store_true",
        default=None,
        help="ambiguous layouts, unknown elements, bare error texts and actions whose "
        "success path was never reached fail the run (ini: fusion_strict)",
    )
    option(
        "--fusion-report",
        dest="fusion_report",
        metavar="PATH",
        default=None,
        help="write the wire report as JSON, or as HTML for a .html path (ini: fusion_report)",
    )
    option(
        "--fusion-report-html",
        dest="fusion_report_html",
        metavar="PATH",
        default=None,
        help="also write the wire report as a self-contained HTML page (ini: fusion_report_html)",
    )
    option(
        "--fusion-isolate",
        dest="fusion_isolate",
        choices=ISOLATION,
        default=None,
        help="one server per session (default), or a fresh server per test (ini: fusion_isolate)",
    )
    option(
        "--fusion-no-check-references",
        dest="fusion_check_references",
        action="store_false",
        default=None,
        help="do not check suggested tools and available_actions against tools/list "
        "(ini: fusion_check_references)",
    )
    option(
        "--fusion-allow-writes",
        dest="fusion_allow_writes",
        action="append",
        metavar="PATTERN",
        default=None,
        help="let the contract tests call tools that may write (fnmatch over tool and "
        "tool.action; '*': all of them, at the risk of every change a generated call can "
        "make); by default they never do (ini: fusion_allow_writes)",
    )
    option(
        "--fusion-level",
        dest="fusion_level",
        choices=LEVELS,
        default=None,
        help="what the contract tests hold the server to: fusion (the Fusion wire format, "
        "default) or mcp (a correct plain MCP server: arguments, isError, outputSchema, "
        "limits) (ini: fusion_level)",
    )
    ini("fusion_strict", "strict reading of every result", type="bool", default=False)
    ini(
        "fusion_check_references",
        "check suggested tools and available_actions against tools/list",
        type="bool",
        default=True,
    )
    ini("fusion_report", "path of the JSON (or .html) wire report", default="")
    ini("fusion_report_html", "path of the HTML wire report", default="")
    ini("fusion_isolate", "session or test", default="session")
    ini(
        "fusion_forbidden_fields",
        "field names that must never reach the wire, one per line",
        type="linelist",
        default=[],
    )
    ini(
        "fusion_canaries",
        "values that must never reach the wire, one per line",
        type="linelist",
        default=[],
    )
    ini(
        "fusion_allow_writes",
        "tools (tool or tool.action, fnmatch patterns) the contract tests may call although "
        "they may write, one per line",
        type="linelist",
        default=[],
    )
    ini("fusion_level", "fusion or mcp", default="fusion")


def _add_snapshot_options(group: pytest.OptionGroup, parser: pytest.Parser) -> None:
    """Pending snapshots (``_snapshots._pending``) and the hypothesis profiles (``_profiles``)."""
    group.addoption(
        "--fusion-pending",
        dest="fusion_pending",
        action="store_const",
        const=True,
        default=None,
        help="write each changed or new wire snapshot as <name>.wire.new beside the accepted "
        "one (never touching it), for `python -m pytest_mcpfusion review`; on by default when "
        "CI is set (ini: fusion_pending)",
    )
    group.addoption(
        "--no-fusion-pending",
        dest="fusion_pending",
        action="store_const",
        const=False,
        help="do not write pending snapshots, even in CI",
    )
    parser.addini(
        "fusion_pending",
        "write pending .wire.new snapshots (true/false; default: true when CI is set)",
        default="",
    )
    group.addoption(
        "--fusion-hypothesis-profile",
        dest="fusion_hypothesis_profile",
        choices=(*_profiles.PROFILES, _profiles.AUTO),
        default=None,
        help="load a Fusion hypothesis profile: fusion-ci (bounded, derandomized), fusion-dev, "
        "fusion-thorough (100,000 examples), or auto (fusion-ci when CI is set, else "
        "fusion-dev) (ini: fusion_hypothesis_profile)",
    )
    parser.addini(
        "fusion_hypothesis_profile", "the Fusion hypothesis profile to load, or auto", default=""
    )


def _add_limit_options(group: pytest.OptionGroup, parser: pytest.Parser) -> None:
    """What bounds a server: per-call timeout and answer size, and its environment."""
    group.addoption(
        "--fusion-timeout",
        dest="fusion_timeout",
        type=float,
        metavar="SECONDS",
        default=None,
        help=f"seconds to wait for any one answer of a server; 0: no limit "
        f"(default {DEFAULT_TIMEOUT:g}; ini: fusion_timeout)",
    )
    group.addoption(
        "--fusion-max-response-bytes",
        dest="fusion_max_response_bytes",
        type=int,
        metavar="N",
        default=None,
        help=f"the largest answer read from a server, in bytes; 0: no limit "
        f"(default {DEFAULT_MAX_RESPONSE_BYTES}; ini: fusion_max_response_bytes)",
    )
    parser.addini(
        "fusion_timeout", "seconds per server answer (0: none)", default=str(DEFAULT_TIMEOUT)
    )
    parser.addini(
        "fusion_max_response_bytes",
        "the largest server answer in bytes (0: none)",
        default=str(DEFAULT_MAX_RESPONSE_BYTES),
    )
    parser.addini(
        "fusion_server_env",
        "environment variables (fnmatch patterns) passed to a server started by command "
        "(default: all of them; empty: only the MCP SDK's minimal set)",
        type="args",
        default=["*"],
    )
