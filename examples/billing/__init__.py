"""A billing MCP server written with Presenters and tools (``python -m examples.billing``).

``data.py`` is the data source, ``presenters.py`` says how each entity is shown
to an agent, ``app.py`` declares the ``billing`` tool and exports ``app``.
"""
