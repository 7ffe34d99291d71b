"""Ints at the wire's limit: 4,300 digits go on the wire, 4,301 do not (WIRE.md section 12)."""

from __future__ import annotations

from typing import Final

__all__ = ["HUGE_INT", "WIDEST"]

HUGE_INT: Final = 10**4300
"""4,301 digits: one more than the wire allows."""

WIDEST: Final = 10**4300 - 1
"""The widest int the wire allows (4,300 digits)."""
