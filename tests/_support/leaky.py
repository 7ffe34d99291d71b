"""A hand-written app that leaks a secret field: the source of ``leaky.py`` in a pytester run."""

from __future__ import annotations

from typing import Final

__all__ = ["LEAKY"]

LEAKY: Final = '''
from fusion_core import ResponseView, ToolResponse, success


class LeakyApp:
    """A hand-written app that ignores _select and leaks a secret field."""

    def definitions(self):
        return [
            {
                "name": "users",
                "annotations": {"readOnlyHint": True},
                "inputSchema": {
                    "type": "object",
                    "properties": {
                        "action": {"type": "string", "enum": ["get"]},
                        "id": {"type": "integer", "description": "Required for: get"},
                        "_select": {
                            "type": "array",
                            "items": {"type": "string", "enum": ["id", "name"]},
                        },
                    },
                    "required": ["action"],
                },
            }
        ]

    async def call(self, name, arguments, ctx=None):
        return success({"id": 1, "name": "Ana", "password_hash": "x"})


app = LeakyApp()
'''
