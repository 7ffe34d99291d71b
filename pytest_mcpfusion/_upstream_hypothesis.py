"""Upstream coupling: the example-database key of a hypothesis test, its PRNG, its constants.

Four couplings, checked against hypothesis 6.170.17.

**The database key.** ``@given`` reads a test's database key
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

**The first test's PRNG.** The first ``@given`` test of a thread makes
hypothesis's own ``Random`` (``hypothesis.core.threadlocal.
_hypothesis_global_random``) and registers it with ``register_random``,
whose guard against a PRNG about to be collected runs ``gc.collect()`` and
``gc.get_referrers()`` over the whole heap: 0.05-0.07 s of CPU in the billing
gate, a tenth of what ``--fusion`` adds (issue 28). :func:`prime_random`
makes and registers the same ``Random`` without that guard: it is held by
the thread-local, so it cannot be collected. Where hypothesis names things
otherwise, it does nothing and hypothesis registers its own as before.

**The local constants.** Hypothesis draws constants found in the source of
the loaded modules it deems local, and records each module it has looked at
in ``providers._seen_modules`` (by ``id``). :func:`skip_own_constants` adds
this package's modules (an editable install's are local to hypothesis, but
not the user's) and those under ``scrutineer.STDLIB_DIRS`` (never local,
but each cost a path resolution to say so). Where hypothesis names things
otherwise, it does nothing and the scan runs as hypothesis's own.
"""

from __future__ import annotations

import hashlib
import os
import sys
from collections.abc import Callable
from random import Random
from typing import Any, TypeVar

__all__ = ["database_key", "prime_random", "skip_own_constants"]

_OWN = ("fusion_core", "pytest_mcpfusion")
_MARKED: list[Any] = [None, -1]  # hypothesis's seen set, and len(sys.modules), when last marked

_T = TypeVar("_T", bound=Callable[..., Any])


def database_key(name: str) -> Callable[[_T], _T]:
    """A decorator: the ``@given`` test saves and replays its examples under ``name``'s own key."""
    key = hashlib.sha384(f"pytest-mcpfusion contract {name}".encode()).digest()

    def keyed(test: _T) -> _T:
        test._hypothesis_internal_database_key = key  # type: ignore[attr-defined]
        return test

    return keyed


def prime_random() -> None:
    """Give this thread hypothesis's own ``Random``, registered, without a heap-wide gc pass."""
    from hypothesis import core  # noqa: PLC0415 - hypothesis loads lazily
    from hypothesis.internal import entropy  # noqa: PLC0415

    local = core.threadlocal
    manage: Any = getattr(entropy, "RANDOMS_TO_MANAGE", None)
    keys: Any = getattr(entropy, "_RKEY", None)
    if getattr(local, "_hypothesis_global_random", False) is not None or None in (manage, keys):
        return  # made already, or not hypothesis's shape: it registers its own
    made = Random()  # noqa: S311 - hypothesis's PRNG for strategies, not for secrets
    local._hypothesis_global_random = made
    manage[next(keys)] = made


def skip_own_constants() -> None:
    """Keep this package's modules, and the standard library's, out of the local-constants scan.

    Hypothesis reads the constants of every loaded module it deems local
    (its first use scans all of them): this package's are not the user's,
    and a standard-library module is never local, but hypothesis resolves
    each one's path to say so (``ModuleLocation.from_path``: about 250
    ``Path.resolve`` calls in the billing gate). A module whose file lies
    under hypothesis's own ``STDLIB_DIRS`` is marked seen here, as its scan
    would have left it; any other module is left to the scan.
    """
    from hypothesis.internal import scrutineer  # noqa: PLC0415 - hypothesis loads lazily
    from hypothesis.internal.conjecture import providers  # noqa: PLC0415

    seen: Any = getattr(providers, "_seen_modules", None)
    if not isinstance(seen, set):
        return  # not hypothesis's shape: it scans as it likes
    if _MARKED[0] is seen and _MARKED[1] == len(sys.modules):
        return  # no module loaded since the last call (hypothesis's own check)
    stdlib = tuple(os.path.join(str(path), "") for path in getattr(scrutineer, "STDLIB_DIRS", ()))
    for name, module in list(sys.modules.items()):
        if id(module) in seen:
            continue
        if name.partition(".")[0] in _OWN:
            seen.add(id(module))
            continue
        file = getattr(module, "__file__", None)
        if stdlib and isinstance(file, str) and file.startswith(stdlib):
            seen.add(id(module))
    _MARKED[:] = [seen, len(sys.modules)]
