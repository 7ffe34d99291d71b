"""Upstream coupling: the example-database key of a hypothesis test.

Checked against hypothesis 6.170.17: ``@given`` reads a test's database key
from the wrapped test's ``_hypothesis_internal_database_key`` attribute when
it has one (``StateForActualGivenExecution.run_engine``; ``find()`` sets it the
same way), else it hashes the inner function's source and signature
(``function_digest``). ``tests/pytest_mcpfusion/test_upstream_hypothesis.py``
fails loudly when that shape changes.

Why: every contract item runs the same inner function (``_collect``'s
``run``), so by its source all of them shared one key: a failure saved for
one action was replayed against every other action first, and their saved
examples mixed. Each item now keys its examples by its node id. Naming the
key also spares hypothesis reading and hashing the function's source for
each test.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from typing import Any, TypeVar

__all__ = ["database_key"]

_T = TypeVar("_T", bound=Callable[..., Any])


def database_key(name: str) -> Callable[[_T], _T]:
    """A decorator: the ``@given`` test saves and replays its examples under ``name``'s own key."""
    key = hashlib.sha384(f"pytest-mcpfusion contract {name}".encode()).digest()

    def keyed(test: _T) -> _T:
        test._hypothesis_internal_database_key = key  # type: ignore[attr-defined]
        return test

    return keyed
