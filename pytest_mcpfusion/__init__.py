"""pytest_mcpfusion: the pytest plugin of the Fusion wire format.

The plugin module (:mod:`pytest_mcpfusion.plugin`) is loaded through the
``pytest11`` entry point; ``fusion_core`` itself never imports pytest. The
names here are for type hints and for extending the plugin: the fixtures
hand out :class:`FusionCall`, :class:`AsyncFusionCall` and
:class:`FusionResult`; :class:`FusionWireExtension` is the syrupy extension
behind ``fusion_snapshot``; :func:`inline_wire` is the inline-snapshot form of
any response (``FusionResult.inline`` for a call's); :class:`WireReport` is what the
``pytest_fusion_report`` hook receives.

Every name is imported on first use (as ``fusion_core``'s are):
:class:`FusionWireExtension` is a syrupy extension, and the plugin loads
without syrupy (only ``fusion_snapshot`` needs it) and, in a run that never
uses it, without the rest of this package.
"""

from typing import TYPE_CHECKING, Any, Final

if TYPE_CHECKING:
    from pytest_mcpfusion._contract._verdicts import FusionContextWarning, FusionIsolationWarning
    from pytest_mcpfusion._report._summary import WireReport
    from pytest_mcpfusion._result import FusionResult
    from pytest_mcpfusion._session import AsyncFusionCall, FusionCall
    from pytest_mcpfusion._snapshots._extension import FusionWireExtension
    from pytest_mcpfusion._snapshots._inline import inline_wire

__all__ = [
    "AsyncFusionCall",
    "FusionCall",
    "FusionContextWarning",
    "FusionIsolationWarning",
    "FusionResult",
    "FusionWireExtension",
    "WireReport",
    "inline_wire",
]

# Each public name and the module that defines it, imported on first use: the
# plugin is loaded in every pytest run, and this package's front door must not
# cost such a run the reader, the transport or pydantic (bench_plugin.py).
_SOURCES: Final = {
    "AsyncFusionCall": "._session",
    "FusionCall": "._session",
    "FusionContextWarning": "._contract._verdicts",
    "FusionIsolationWarning": "._contract._verdicts",
    "FusionResult": "._result",
    "FusionWireExtension": "._snapshots._extension",  # syrupy: optional
    "WireReport": "._report._summary",
    "inline_wire": "._snapshots._inline",
}


if not TYPE_CHECKING:  # type checkers see the imports above, and flag misspelt names

    def __getattr__(name: str) -> Any:
        """Import a public name's module on first use (PEP 562)."""
        source = _SOURCES.get(name)
        if source is None:
            msg = f"module {__name__!r} has no attribute {name!r}"
            raise AttributeError(msg)
        module = __import__(source[1:], globals(), None, (name,), 1)
        value = globals()[name] = getattr(module, name)
        return value

    def __dir__() -> list[str]:
        """The public names, as ``dir()`` shows them for an eager module."""
        return sorted({*globals(), *__all__})
