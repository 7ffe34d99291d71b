"""pytest_mcpfusion: the pytest plugin of the Fusion wire format.

The plugin module (:mod:`pytest_mcpfusion.plugin`) is loaded through the
``pytest11`` entry point; ``fusion_core`` itself never imports pytest. The
names here are for type hints and for extending the plugin: the fixtures
hand out :class:`FusionCall`, :class:`AsyncFusionCall` and
:class:`FusionResult`; :class:`FusionWireExtension` is the syrupy extension
behind ``fusion_snapshot``; :class:`WireReport` is what the
``pytest_fusion_report`` hook receives.
"""

from __future__ import annotations

from ._gate import FusionContextWarning, FusionIsolationWarning
from ._report import WireReport
from ._result import FusionResult
from ._session import AsyncFusionCall, FusionCall
from ._snapshot import FusionWireExtension

__all__ = [
    "AsyncFusionCall",
    "FusionCall",
    "FusionContextWarning",
    "FusionIsolationWarning",
    "FusionResult",
    "FusionWireExtension",
    "WireReport",
]
