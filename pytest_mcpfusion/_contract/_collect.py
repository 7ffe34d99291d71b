"""Contract tests: every tool and action, exercised with generated arguments.

Under ``--fusion`` each action gets two items, like schemathesis does for
HTTP APIs: ``valid`` draws arguments from the action's input schema and
``invalid`` draws arguments that must be refused. Every response must be a
valid wire stream (``fusion_core.check``); a valid call's data may hold no
field outside the action's Presenter schema and must honour ``_select``; an
invalid call, and any failure, must come back as an envelope, never as bare
text.
"""

from __future__ import annotations

import functools
import json
import random
import shlex
import sys
from collections.abc import Callable, Iterator, Mapping, Sequence
from fnmatch import fnmatch
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final

import pytest

from fusion_core import ServerConnectionError, ServerLimitError
from fusion_core._errors import leaves
from fusion_core._terminal import terminal_safe
from fusion_core._tools._definitions import (
    DEFAULT_DISCRIMINATOR,
    actions_of,
    discriminator_of,
)
from pytest_mcpfusion._contract._answers import level_problems, protocol_refusal
from pytest_mcpfusion._contract._examples import (
    IdDraws,
    IdReuse,
    IdSnapshot,
    action_examples,
    prime_first,
)
from pytest_mcpfusion._contract._failure import (
    ContractFailure,
    call_line,
    describe,
    received_kinds,
    rules_of,
)
from pytest_mcpfusion._contract._heap import young_heap_only
from pytest_mcpfusion._contract._search import BATCH, ShrinkBudget, search_settings_of
from pytest_mcpfusion._contract._verdicts import gate_of
from pytest_mcpfusion._contract._writes import safe_refusal
from pytest_mcpfusion._keys import ANCHOR_KEY
from pytest_mcpfusion._options import options_of
from pytest_mcpfusion._report._summary import NEVER_OK_ADVICE
from pytest_mcpfusion._session import SELECT_PARAM, FusionSession, limit_message

if TYPE_CHECKING:
    from _pytest._code.code import ExceptionInfo, TerminalRepr
    from hypothesis.strategies import SearchStrategy

    from pytest_mcpfusion._result import FusionResult

__all__ = [
    "GROUP",
    "FusionContractFile",
    "FusionContractGroup",
    "FusionContractItem",
    "contract_anchor",
]

GROUP: Final = "fusion-contract"
"""The collector holding the contract items, and the middle part of their node ids."""


def contract_anchor(config: pytest.Config) -> Path | None:
    """The file the contract tests hang from, so their ids can be run again.

    In order: the ini file, the rootdir's ``conftest.py``, the file of the app
    being gated (``--fusion-app=shop:app`` → ``shop.py``), the first file
    named in the server's command (``python server.py`` → ``server.py``); the
    last two only inside the rootdir. Then, for a remote server or one started
    as a module (``python -m server``), the rootdir's project file
    (``pyproject.toml``, ``setup.cfg``, ``tox.ini``, ``setup.py``), else the
    first test file the run's arguments name or hold. Their node ids start
    with it (``pytest.ini::fusion-contract::billing/get[valid]``), so pytest
    can collect them again from an id given on the command line. ``None``
    only when the run reaches no file at all: the ids then start with ``::``
    and ``-k`` selects them.
    """
    cached = config.stash.get(ANCHOR_KEY, None)
    if cached is None:
        cached = config.stash[ANCHOR_KEY] = (_find_anchor(config),)
    return cached[0]


def _find_anchor(config: pytest.Config) -> Path | None:
    if config.inipath is not None:
        return Path(config.inipath)
    root = Path(config.rootpath)
    conftest = root / "conftest.py"
    if conftest.is_file():
        return conftest
    options = options_of(config)
    app, server = options.app, options.server
    candidates = _app_files(app, root) if app else _command_files(server or "", root)
    found = next((path for path in candidates if path.is_relative_to(root)), None)
    if found is not None:
        return found
    project = next((root / name for name in _PROJECT_FILES if (root / name).is_file()), None)
    return project or _first_test_file(config)


# Files a project's root holds whatever its test runner: an id may start at one.
_PROJECT_FILES: Final = ("pyproject.toml", "setup.cfg", "tox.ini", "setup.py")


def _first_test_file(config: pytest.Config) -> Path | None:
    """The first test module the run's arguments name, or hold (in sorted order)."""
    patterns = [str(pattern) for pattern in config.getini("python_files")]
    invoked = Path(config.invocation_params.dir)
    root = Path(config.rootpath)
    for arg in config.args:
        path = (invoked / arg.partition("::")[0]).resolve()
        if not path.is_relative_to(root):
            continue
        if path.is_file() and path.suffix == ".py":
            return path
        if path.is_dir():
            for candidate in sorted(path.rglob("*.py")):
                hidden = any(part.startswith(".") for part in candidate.relative_to(path).parts)
                if not hidden and any(fnmatch(candidate.name, p) for p in patterns):
                    return candidate
    return None


def _app_files(spec: str, root: Path) -> Iterator[Path]:
    """Where the module of ``pkg.module:app`` may be, on disk, without importing it."""
    parts = spec.partition(":")[0].split(".")
    bases = dict.fromkeys([root, *(Path(entry or ".").resolve() for entry in sys.path)])
    for base in bases:
        module = base.joinpath(*parts)
        for candidate in (module.with_suffix(".py"), module / "__init__.py"):
            if candidate.is_file():
                yield candidate.resolve()


def _import_base(config: pytest.Config, path: Path) -> Path | None:
    """The folder ``pkg.module`` imports from, when ``path`` is the gated app's module file."""
    app = options_of(config).app
    if not app or config.inipath is not None:
        return None
    parts = app.partition(":")[0].split(".")
    depth = len(parts) if path.name == "__init__.py" else len(parts) - 1
    if depth >= len(path.parents):
        return None
    base = path.parents[depth]
    return (
        base
        if base.joinpath(*parts).with_suffix(".py") == path
        or (base.joinpath(*parts, "__init__.py") == path)
        else None
    )


def _command_files(command: str, root: Path) -> Iterator[Path]:
    """The files a server command names (``python server.py``, ``./serve.sh``)."""
    if command.startswith(("http://", "https://")):
        return
    try:
        words = shlex.split(command)
    except ValueError:
        return
    for word in words:
        path = Path(word) if Path(word).is_absolute() else root / word
        if path.suffix and path.is_file():
            yield path.resolve()


class FusionContractFile(pytest.File):
    """The anchor file, as a collector of the contract tests only."""

    def __init__(self, *, fusion: FusionSession, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.fusion = fusion

    def collect(self) -> Iterator[FusionContractGroup]:
        """The one group of contract tests.

        Anchored at the app's own module file, its base folder goes on
        ``sys.path`` first, as pytest's ``prepend`` import mode does for a
        collected module: the app then loads here even before any test
        module's import has put that folder there (an xdist worker).
        """
        base = _import_base(self.config, self.path)
        if base is not None and str(base) not in sys.path:
            sys.path.insert(0, str(base))
        yield FusionContractGroup.from_parent(self, name=GROUP, fusion=self.fusion)


class FusionContractGroup(pytest.Collector):
    """Two items (valid, invalid arguments) per tool action of the app or server."""

    def __init__(self, *, fusion: FusionSession, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.fusion = fusion

    def collect(self) -> Iterator[FusionContractItem]:
        """One item per tool action and kind, in ``tools/list`` order."""
        try:
            definitions = self.fusion.transport().definitions()
        except (pytest.UsageError, ServerLimitError, ServerConnectionError) as exc:
            raise self.CollectError(f"cannot list the tools: {limit_message_of(exc)}") from None
        for definition in definitions:
            tool = definition["name"]
            for action in prime_first(definition, actions_of(definition)):
                # Server names in test ids reach the terminal: shown, not obeyed.
                label = terminal_safe(tool if action is None else f"{tool}/{action}")
                for valid in (True, False):
                    yield FusionContractItem.from_parent(
                        self,
                        name=f"{label}[{'valid' if valid else 'invalid'}]",
                        fusion=self.fusion,
                        definition=definition,
                        action=action,
                        valid=valid,
                    )

    def reportinfo(self) -> tuple[Path, int | None, str]:
        """Where the group comes from, for pytest's reports."""
        return self.path, None, self.nodeid


class _Stop(BaseException):
    """Ends a contract test at once; a BaseException, so hypothesis does not shrink it."""

    def __init__(self, failure: ContractFailure) -> None:
        super().__init__(str(failure))
        self.failure = failure


def limit_message_of(exc: BaseException) -> str:
    """The short message of a start-up, limit or connection error."""
    if isinstance(exc, ServerLimitError | ServerConnectionError):
        return limit_message(exc)
    return str(exc)


def _require_hypothesis() -> None:
    """Fail the running contract test, naming the package, when hypothesis is absent."""
    # Failing outside the ``except`` keeps the ImportError's chained traceback
    # out of the report: the message names the package and the fix.
    try:
        import hypothesis  # noqa: F401, PLC0415
    except ImportError:
        missing = True
    else:
        missing = False
    if missing:
        pytest.fail(
            "--fusion contract tests need hypothesis, which is not installed: "
            "pip install 'hypothesis>=6.100' (pytest-mcpfusion's own dependency)",
            pytrace=False,
        )


class FusionContractItem(pytest.Item):
    """One contract test: one action, valid or invalid arguments."""

    def __init__(
        self,
        *,
        fusion: FusionSession,
        definition: Mapping[str, Any],
        action: str | None,
        valid: bool,
        **kwargs: Any,
    ) -> None:
        super().__init__(**kwargs, nodeid=_item_id(kwargs["parent"], kwargs["name"]))
        self.fusion = fusion
        self.definition = definition
        self.action = action
        self.valid = valid
        self.seed: int = _seed(fusion.config)
        self.add_marker("fusion")

    def runtest(self) -> None:
        """Call the action with generated arguments and check every answer.

        What the test fails with is counted in the wire report as the
        action's violations, so the report and pytest's outcome agree.
        """
        try:
            with young_heap_only():
                self._exercise()
        except pytest.skip.Exception:
            raise
        except BaseException as exc:
            self._record_failure(exc)
            raise

    def _record_failure(self, exc: BaseException) -> None:
        """The violations of the failures this test ends with (each counted once).

        The report also names the test: its node id, the rules broken, the
        calls that broke them, the blocks received and the command that runs
        it again.
        """
        tool = self.definition["name"]
        messages: list[str] = []
        calls: list[str] = []
        kinds: list[str] = []
        for leaf in leaves(exc):
            if isinstance(leaf, ContractFailure):
                messages.extend(leaf.problems)
                calls.append(call_line(leaf))
                kinds.extend(received_kinds(leaf))
            elif isinstance(leaf, KeyboardInterrupt | SystemExit | GeneratorExit):
                return  # the run is ending, not this test failing
            else:
                text = str(getattr(leaf, "msg", None) or leaf).strip().splitlines()
                messages.append(f"[{type(leaf).__name__}] {text[0] if text else ''}".strip())
        messages = list(dict.fromkeys(messages))
        report = self.fusion.report
        report.add_violations(tool, self.action, messages)
        report.add_failed_test(
            self.nodeid,
            action=f"{tool}.{self.action}" if self.action else tool,
            rules=rules_of(messages),
            calls=list(dict.fromkeys(calls)),
            kinds=kinds,
            reproduce=self.reproduce(),
        )

    def _exercise(self) -> None:
        """The test's calls: examples, then generated arguments (or the one safe refusal)."""
        # hypothesis loads only when contract tests run: plain runs stay fast,
        # and a suite without hypothesis installed loses only these tests.
        _require_hypothesis()
        from hypothesis import given, seed  # noqa: PLC0415
        from hypothesis import strategies as st  # noqa: PLC0415

        from pytest_mcpfusion import _upstream_hypothesis, strategies  # noqa: PLC0415

        _upstream_hypothesis.prime_random()
        _upstream_hypothesis.skip_own_constants()

        fusion = self.fusion
        tool = self.definition["name"]
        # Read from the published definition alone (see strategies.action_arguments),
        # so an app in process and the same app behind a server get the same tests.
        try:
            args = strategies.action_arguments(self.definition, self.action, valid=self.valid)
        except ValueError as exc:  # e.g. a schema that accepts every object
            pytest.skip(f"{self.name}: {exc}")
        select_keys = _select_keys(self.definition) if self.valid else []
        select = _selections(select_keys)
        examples = _examples(fusion.config)
        context = self._context()

        gate = gate_of(fusion.config)
        label = tool if self.action is None else f"{tool}.{self.action}"
        ok_before = fusion.report.outcome_count(label, "ok")
        ids = gate.ids.snapshot() if self.valid else IdSnapshot({})  # fixed for the whole test
        send = self._sender(context)

        # Ids seen in earlier results, for the id-like parameters (``_examples``).
        reuse = IdReuse(
            ids, _properties(self.definition) if ids else [], _parameter_check(self.definition)
        )
        # Only what varies is drawn (each draw costs hypothesis a span): a tool
        # without _select draws no _select, a test with no id to reuse no id.
        id_keys = list(reuse.choices)
        parts = [args, *([select] if select is not None else []), *reuse.choices.values()]
        call = parts[0] if len(parts) == 1 else st.tuples(*parts)

        def unpack(value: Any) -> tuple[dict[str, Any], list[str] | None, IdDraws | None]:
            if len(parts) == 1:
                return value, None, None
            arguments, *rest = value
            chosen = rest.pop(0) if select is not None else None
            return arguments, chosen, dict(zip(id_keys, rest, strict=True)) if id_keys else None

        # One strategy for the whole example (its calls' arguments, _select and reused
        # ids): hypothesis checks each given strategy's use of random per example.
        # Every item runs this one function: its examples have a key of its own (its id).
        @_upstream_hypothesis.database_key(self.nodeid)
        @seed(self.seed)
        @search_settings_of(examples)
        @given(batch=st.tuples(*[call] * BATCH))
        def run(batch: tuple[Any, ...]) -> None:
            for value in batch:
                arguments, chosen, ids_drawn = unpack(value)
                send(reuse.apply(arguments, ids_drawn), chosen)

        app = fusion.transport().app or fusion.spec_app()
        blocked = gate.writes.blocked(self.definition, self.action, app)
        if blocked is not None:  # no generated or example call may reach it
            self._refuse_only(blocked, label, send)
            return
        try:
            if self.valid:  # the user's examples first: they reach the success path
                for example in action_examples(fusion.config, app, self.definition, self.action):
                    fusion.report.example_calls[label] += 1
                    send(example, None)
            run()
            # Every listed id once, whatever the search drew (a defect may sit behind one).
            for arguments in reuse.sweep():
                send(arguments, None)
        except _Stop as stop:
            raise stop.failure from None
        if self.valid and gate.strict_for(self):
            self._require_success(label, ok_before)

    def _sender(self, context: Any) -> Callable[[dict[str, Any], list[str] | None], None]:
        """``send(arguments, _select)``: one call, judged; the first failure ends the search."""
        fusion, tool, action = self.fusion, self.definition["name"], self.action
        budget = ShrinkBudget(_Stop)
        # An identical call is judged by its first answer: hypothesis repeats calls
        # (its mutations copy one call of a batch into another, its shrinker retries).
        judged: dict[str, ContractFailure | None] = {}
        field = discriminator_of(self.definition) or DEFAULT_DISCRIMINATOR

        def send(arguments: dict[str, Any], chosen: list[str] | None) -> None:
            call = dict(arguments)
            if action is not None:
                call[field] = action
            if chosen is not None:
                call[SELECT_PARAM] = chosen
            key = _call_key(call)
            if key is not None and key in judged:
                failure = judged[key]
                if failure is not None:
                    raise budget.failed(failure)
                return
            budget.spend()
            answered = self._call(call, context)
            if answered is None:
                return
            result = fusion.finish(tool, action, call, *answered, checked=False)
            problems = self._verdict(result, chosen)
            failure = ContractFailure(tool, action, call, problems, result) if problems else None
            if key is not None:
                judged[key] = failure
            if failure is not None:
                raise budget.failed(failure)

        return send

    def _context(self) -> Any:
        """The handlers' context, in process; ``None`` for a server (it makes its own).

        Contract tests belong to no test directory, so no ``fusion_context``
        fixture reaches them: the hook decides (``request`` is ``None``).
        """
        app = self.fusion.transport().app
        if app is None:
            return None
        return self.fusion.config.hook.pytest_fusion_context(app=app, request=None)

    def _require_success(self, label: str, ok_before: int) -> None:
        """Fail (``--fusion-strict``) when no call of this test ended ok."""
        report = self.fusion.report
        if report.outcome_count(label, "ok") == ok_before:
            msg = (
                f"{terminal_safe(label)}: the success path was never reached (--fusion-strict): "
                f"no call ended ok ({report.outcome_count(label, 'error')} error, "
                f"{report.outcome_count(label, 'validation')} validation so far); "
                f"{NEVER_OK_ADVICE}"
            )
            pytest.fail(msg, pytrace=False)

    def _refuse_only(
        self, blocked: str, label: str, send: Callable[[dict[str, Any], list[str] | None], None]
    ) -> None:
        """For an action that may write: the one call it cannot act on, or a skip saying why.

        The ``valid`` test sends nothing. The ``invalid`` test sends the action
        without the arguments it requires (``safe_refusal``), which must be
        refused; an action that requires nothing gets no call at all.
        """
        kind = "valid" if self.valid else "invalid"
        probe = None if self.valid else safe_refusal(self.definition, self.action)
        if probe is None:
            why = (
                "no generated or example call was sent"
                if self.valid
                else "it requires no argument, so no call is one it cannot act on"
            )
            reason = f"{blocked} ({why})"
            self.fusion.report.add_not_run(label, kind, reason)
            pytest.skip(terminal_safe(reason))  # the reason names the server's tool
        try:
            send(probe, None)
        except _Stop as stop:
            raise stop.failure from None

    def repr_failure(
        self, excinfo: ExceptionInfo[BaseException], style: Any = None
    ) -> str | TerminalRepr:
        """A screenful: the call, the rules it broke, what came back, how to rerun it."""
        failures = [leaf for leaf in leaves(excinfo.value) if isinstance(leaf, ContractFailure)]
        if not failures:
            return super().repr_failure(excinfo, style=style)
        return describe(failures, reproduce=self.reproduce())

    def reproduce(self) -> str:
        """The command line that runs this test again with the same examples."""
        config = self.config
        # Without any anchor (see contract_anchor) the id has no file to start
        # from, and pytest cannot select it: -k can.
        chosen = ["-k", self.name] if self.nodeid.startswith("::") else [self.nodeid]
        words = ["pytest", *chosen, "--fusion", *_fusion_options(config.invocation_params.args)]
        words.append(f"--hypothesis-seed={self.seed}")
        return shlex.join(words)

    def _call(self, call: dict[str, Any], context: Any) -> tuple[dict[str, Any], Any] | None:
        """One ``tools/call``: the wire dict and view, or ``None`` for an accepted JSON-RPC refusal.

        A call over a limit or to a dead server ends the test at once (no
        shrinking: every further try would cost a timeout and a restart); a
        JSON-RPC error answer is judged by ``protocol_refusal``.
        """
        tool = self.definition["name"]
        try:
            return self.fusion.transport().call(tool, call, context)
        except (ServerLimitError, ServerConnectionError) as exc:
            failure = ContractFailure(tool, self.action, call, [limit_message(exc)])
            raise _Stop(failure) from None
        except Exception as exc:  # a JSON-RPC error answer is a verdict, not a crash
            level = gate_of(self.config).level
            refused = protocol_refusal(level, exc, valid=self.valid)
            if refused is None:
                raise
            if refused:
                raise ContractFailure(tool, self.action, call, refused) from None
            return None

    def _verdict(self, result: FusionResult, chosen: list[str] | None) -> list[str]:
        """Every rule one answer breaks: the per-result review's, then the test's own.

        Not counted in the report here: :meth:`runtest` counts the failures
        the test ends with, not every example hypothesis tries while shrinking.
        """
        problems = self.fusion.problems(result, self.action, record=False)
        return problems + [p for p in self._broken(result, chosen) if p not in problems]

    def _broken(self, result: FusionResult, chosen: list[str] | None) -> list[str]:
        """What the answer must be beyond the wire contract, given the arguments' kind."""
        level = gate_of(self.config).level
        problems = level_problems(level, self.definition, result, valid=self.valid)
        if problems or level == "mcp" or not self.valid or result.is_error:
            # A bare error is judged by the review's bare-error rule, as in any test.
            return problems
        presenter_keys = self._presenter_keys()
        allowed = set(chosen) if chosen else presenter_keys
        if allowed is None:
            return []
        for row in _rows(result.data):
            # _select narrows a Presenter's entities; an action without one (known in
            # process) or data that shares no key with the enum (a server) is not one.
            skip = (presenter_keys is None and self._in_process()) or not set(row) & allowed
            if chosen and skip:
                continue
            extra = set(row) - allowed
            if extra:
                where = "_select" if chosen else "the Presenter schema"
                leak = f"[field-leak] field(s) {sorted(extra)} reached the wire outside {where}"
                return [f"{leak} ({sorted(allowed)})"]
        return []

    def _in_process(self) -> bool:
        return getattr(self.fusion.transport().app, "tools", None) is not None

    def _presenter_keys(self) -> set[str] | None:
        app = self.fusion.transport().app
        tools = getattr(app, "tools", None)
        tool = tools.get(self.definition["name"]) if isinstance(tools, Mapping) else None
        if tool is None or self.action not in tool.actions:
            return None
        presenter = tool.actions[self.action].returns
        return set(presenter.root_keys) if presenter is not None else None

    def reportinfo(self) -> tuple[Path, int | None, str]:
        """Where the item comes from, for pytest's reports."""
        return self.path, None, f"{GROUP}::{self.name}"


def _rows(data: Any) -> list[Mapping[str, Any]]:
    if isinstance(data, Mapping):
        return [data]
    if isinstance(data, list):
        return [row for row in data if isinstance(row, Mapping)]
    return []


def _selections(keys: list[str]) -> SearchStrategy[list[str] | None] | None:
    """``_select`` values to send: none, or a non-empty subset of ``keys`` (``None``: no keys).

    One strategy per list of keys: hypothesis validates a strategy on its
    first draw, and every action of a tool has the same keys.
    """
    return _selections_of(tuple(keys)) if keys else None


@functools.lru_cache(maxsize=256)
def _selections_of(keys: tuple[str, ...]) -> SearchStrategy[list[str] | None]:
    from hypothesis import strategies as st  # noqa: PLC0415 - hypothesis loads lazily

    return st.lists(st.sampled_from(keys), unique=True, min_size=1) | st.none()


def _select_keys(definition: Mapping[str, Any]) -> list[str]:
    prop = (definition.get("inputSchema") or {}).get("properties", {}).get(SELECT_PARAM)
    if not prop:
        return []
    return list((prop.get("items") or {}).get("enum") or [])


def _examples(config: pytest.Config) -> int:
    return options_of(config).examples


def _item_id(parent: pytest.Collector, name: str) -> Any:
    """The item's id where pytest structures ids (9.2+: path, names, ``[params]``), else None.

    ``--lf`` compares structured ids: ``billing/get[valid]`` must be the name
    ``billing/get`` with the params ``valid``, as pytest parses it back.
    """
    parent_id = getattr(parent, "id", None)
    if parent_id is None or not hasattr(parent_id, "with_params"):
        return None  # ids are strings: pytest builds ours from the name
    base, _, params = name.partition("[")
    return parent_id.child(base).with_params(params.removesuffix("]") or None)


def _fusion_options(args: Sequence[str]) -> list[str]:
    """The ``--fusion-*`` options of the command line (with their values), as given.

    The report options are left out: a rerun must not overwrite the run's reports.
    """
    kept: list[str] = []
    taking = dropping = False
    for arg in args:
        if taking:
            if not dropping:
                kept.append(arg)
            taking = False
        elif arg.startswith("--fusion-"):
            dropping = arg.partition("=")[0] in _REPORT_OPTIONS
            if not dropping:
                kept.append(arg)
            taking = "=" not in arg and arg not in _FLAGS
    return kept


_REPORT_OPTIONS: Final = frozenset({"--fusion-report", "--fusion-report-html"})
_FLAGS: Final = frozenset({"--fusion-strict", "--fusion-no-check-references"})  # no value


def _seed(config: pytest.Config) -> int:
    """``--hypothesis-seed`` when given, else a fresh one the failure report prints."""
    given = config.getoption("hypothesis_seed", None)
    if given is not None:
        try:
            return int(given)
        except ValueError:
            return hash(given) & 0xFFFFFFFF
    return random.getrandbits(32)


def _call_key(call: Mapping[str, Any]) -> str | None:
    """The call as canonical JSON (1, 1.0 and true stay apart), or ``None`` if it is not JSON.

    Keys that are not strings would read as strings (``{1: x}`` as ``{"1": x}``):
    such a call, or one holding a Python object, is never the same as another.
    """
    try:
        return json.dumps(call, sort_keys=True) if _json_keys(call) else None
    except (TypeError, ValueError, RecursionError):  # RecursionError: an example nested deep
        return None


def _json_keys(value: Any) -> bool:
    if isinstance(value, Mapping):
        return all(isinstance(key, str) and _json_keys(item) for key, item in value.items())
    if isinstance(value, list | tuple):
        return all(_json_keys(item) for item in value)
    return True


def _properties(definition: Mapping[str, Any]) -> list[str]:
    """The names of the tool's input parameters."""
    return list((definition.get("inputSchema") or {}).get("properties") or {})


def _parameter_check(definition: Mapping[str, Any]) -> Callable[[str, Any], bool]:
    """Whether an id is valid for one parameter of the tool's input schema."""
    from pytest_mcpfusion._jsonschema import Schema  # noqa: PLC0415 - hypothesis loads lazily

    schema = definition.get("inputSchema") or {}
    properties = schema.get("properties") or {}

    @functools.cache  # read on the first question: only a test with ids to reuse asks one
    def root() -> Schema | None:
        try:
            return Schema(schema)
        except ValueError:  # a schema the strategies refuse too: no id is offered
            return None

    def accepts(name: str, value: Any) -> bool:
        if name not in properties or isinstance(value, bool) or not isinstance(value, str | int):
            return False
        reader = root()
        return reader is not None and reader.admits(value, properties[name])

    return accepts
