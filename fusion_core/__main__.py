"""``python -m fusion_core``: the ``fusion`` command line, under the interpreter's name.

The same commands, options and exit statuses as the ``fusion`` script
(``serve``, ``list``, ``call``, ``check``, ``review``); the app is
``fusion_core._cli._main``.
"""

from __future__ import annotations

import sys

from fusion_core._cli._main import main

__all__ = ["main"]

if __name__ == "__main__":
    sys.exit(main())
