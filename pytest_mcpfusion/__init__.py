"""pytest_mcpfusion: the pytest plugin of the Fusion wire format.

The plugin module (:mod:`pytest_mcpfusion.plugin`) is loaded through the
``pytest11`` entry point; ``fusion_core`` itself never imports pytest. The
names here are for type hints and for extending the plugin: the fixtures
hand out :class:`FusionCall`, :class:`AsyncFusionCall` and
:class:`FusionResult`; :class:`FusionWireExtension` is the syrupy extension
behind ``fusion_snapshot``; :func:`inline_wire` is the inline-snapshot form of
any response (``FusionResult.inline`` for a call's); :class:`WireReport` is what the
``pytest_fusion_report`` hook receives.

:class:`FusionWireExtension` is imported on first use: it is a syrupy
extension, and the plugin loads without syrupy (only ``fusion_snapshot``
needs it).
"""

from typing import TYPE_CHECKING, Any

from pytest_mcpfusion._contract._verdicts import FusionContextWarning, FusionIsolationWarning
from pytest_mcpfusion._report._summary import WireReport
from pytest_mcpfusion._result import FusionResult
from pytest_mcpfusion._session import AsyncFusionCall, FusionCall
from pytest_mcpfusion._snapshots._inline import inline_wire

if TYPE_CHECKING:
    from pytest_mcpfusion._snapshots._extension import FusionWireExtension

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


if not TYPE_CHECKING:  # type checkers see the import above, and flag misspelt names

    def __getattr__(name: str) -> Any:
        """Import :class:`FusionWireExtension` (and so syrupy) on first use (PEP 562)."""
        if name == "FusionWireExtension":
            from pytest_mcpfusion._snapshots._extension import FusionWireExtension  # noqa: PLC0415 - syrupy is optional

            return FusionWireExtension
        msg = f"module {__name__!r} has no attribute {name!r}"
        raise AttributeError(msg)
