"""pytest_mcpfusion: the pytest plugin of the Fusion wire format.

The plugin module (:mod:`pytest_mcpfusion.plugin`) is loaded through the
``pytest11`` entry point; ``fusion_core`` itself never imports pytest.
"""

from __future__ import annotations

__all__: list[str] = []
