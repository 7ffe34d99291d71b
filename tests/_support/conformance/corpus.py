"""Loading the conformance corpus and decoding its value tags.

The corpus comes from ``FUSION_CONFORMANCE_CORPUS`` (a ``.jsonl`` file, or a
folder whose every ``*.jsonl`` is read); by default every ``*.jsonl`` of the
shared conformance folder next to the repository. A missing corpus is an
error, never an empty (and so vacuously passing) run.
"""

from __future__ import annotations

import json
import math
import os
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from fusion_core._write._numbers import js_number

REPO = Path(__file__).resolve().parents[3]
DEFAULT_CORPUS = REPO.parent / "shared" / "conformance"
SAFE_INT = 2**53
_INT_LITERAL = re.compile(r"-?\d+")


def corpus_path() -> Path:
    """Where the corpus is: the env override or the shared default."""
    return Path(os.environ.get("FUSION_CONFORMANCE_CORPUS", DEFAULT_CORPUS))


def corpus_files() -> list[Path]:
    """The corpus files: the path itself, or every ``*.jsonl`` below the folder.

    Sub-folders are read too (``next/`` holds the newer generated seeds), so
    the default run replays every corpus; a file path replays that one alone.
    """
    path = corpus_path()
    files = sorted(path.rglob("*.jsonl")) if path.is_dir() else [path]
    if not files or not all(file.is_file() for file in files):
        msg = f"no conformance corpus at {path} (set FUSION_CONFORMANCE_CORPUS)"
        raise FileNotFoundError(msg)
    return files


class CorpusError(ValueError):
    """A corpus line that is not a case of the golden format, named by file and line."""


def read_lines(file: Path) -> Iterator[dict[str, Any]]:
    """The golden cases of one file: a line per case, or a ``{"format", "cases"}`` line of them.

    A line with only ``format`` (and other metadata) is a header. A line that
    is not JSON, not an object, or holds neither ``kind`` nor ``cases`` is a
    :class:`CorpusError` naming the file and line: a corpus is never half read.
    """
    with file.open(encoding="utf-8") as lines:
        for number, line in enumerate(lines, 1):
            if not line.strip():
                continue
            where = f"{file.name}:{number}"
            try:
                entry = json.loads(line)
            except ValueError as exc:
                msg = f"{where}: not JSON ({exc})"
                raise CorpusError(msg) from None
            if not isinstance(entry, dict):
                msg = f"{where}: a corpus line is a JSON object, got {type(entry).__name__}"
                raise CorpusError(msg)
            if "kind" in entry:
                yield entry
            elif "cases" in entry:
                cases = entry["cases"]
                if not isinstance(cases, list) or not all(isinstance(c, dict) for c in cases):
                    msg = f"{where}: 'cases' is a list of case objects"
                    raise CorpusError(msg)
                yield from cases
            elif "format" not in entry:
                msg = f"{where}: a corpus line holds a case ('kind') or cases ('cases')"
                raise CorpusError(msg)


def _read_all() -> list[dict[str, Any]]:
    cases: list[dict[str, Any]] = []
    seen: set[str] = set()
    for file in corpus_files():
        for case in read_lines(file):
            ident = case.get("id")
            if not isinstance(ident, str) or not ident:
                msg = f"{file.name}: a case without a str 'id' (kind {case.get('kind')!r})"
                raise CorpusError(msg)
            if ident in seen:
                msg = f"{file}: case id {ident!r} appears twice in the corpus"
                raise CorpusError(msg)
            seen.add(ident)
            cases.append(case)
    return cases


_ALL: list[dict[str, Any]] | None = None


def load_cases(*kinds: str) -> list[dict[str, Any]]:
    """Every golden line of the given kinds, in corpus order."""
    global _ALL  # noqa: PLW0603 - read the corpus once per process
    if _ALL is None:
        _ALL = _read_all()
    return [case for case in _ALL if case["kind"] in kinds]


def decode(value: Any) -> Any:
    """Python value of a tagged corpus value.

    ``{"$num": L}``: an integer literal becomes an exact ``int`` (Python keeps
    integers exact, see the js-numbers divergence), anything else a float
    (``-0``, ``1.0``, ``1e21``, ``NaN``, ``Infinity``). ``{"$undefined": true}``:
    a missing key in objects, ``None`` in arrays (the js-undefined divergence).
    """
    if isinstance(value, dict):
        if set(value) == {"$num"}:
            literal = value["$num"]
            if _INT_LITERAL.fullmatch(literal) and literal not in {"-0"}:
                return int(literal)
            return float(literal)
        if set(value) == {"$undefined"}:
            return None
        return {key: decode(item) for key, item in value.items() if not _is_undefined(item)}
    if isinstance(value, list):
        return [decode(item) for item in value]
    return value


def _is_undefined(value: Any) -> bool:
    return isinstance(value, dict) and set(value) == {"$undefined"}


def walk(value: Any) -> Iterator[Any]:
    """Every node of a tagged value, depth first (tags included as nodes)."""
    yield value
    if isinstance(value, dict):
        for key, item in value.items():
            yield key
            yield from walk(item)
    elif isinstance(value, list):
        for item in value:
            yield from walk(item)


def js_prints_differently(number: int) -> bool:
    """Whether JS prints this integer otherwise: rounded, or in exponent form."""
    return abs(number) > SAFE_INT and js_number(float(number)) != str(number)


def has_unsafe_int(value: Any) -> bool:
    """An integer JS would print otherwise (beyond 2**53 and not exact, or >= 1e21)."""
    for node in walk(value):
        if isinstance(node, dict) and set(node) == {"$num"}:
            literal = node["$num"]
            if _INT_LITERAL.fullmatch(literal) and js_prints_differently(int(literal)):
                return True
        if isinstance(node, int) and not isinstance(node, bool) and js_prints_differently(node):
            return True
    return False


_ARRAY_INDEX = re.compile(r"0|[1-9]\d*")


def is_array_index(key: str) -> bool:
    """Keys JavaScript enumerates first, in ascending order (js-key-order)."""
    return bool(_ARRAY_INDEX.fullmatch(key)) and int(key) < 2**32 - 1


def has_intlike_key(value: Any) -> bool:
    """Whether any object has an array-index-like key after a non-index key."""
    for node in walk(value):
        if isinstance(node, dict) and set(node) not in ({"$num"}, {"$undefined"}):
            keys = list(node)
            flags = [is_array_index(key) for key in keys]
            hoisted = sorted((k for k in keys if is_array_index(k)), key=int)
            if (
                any(flags)
                and [k for k in keys if is_array_index(k)]
                + [k for k in keys if not is_array_index(k)]
                != keys
            ):
                return True
            if hoisted != [k for k in keys if is_array_index(k)]:
                return True
    return False


def has_undefined(value: Any) -> bool:
    """Whether a ``$undefined`` tag appears anywhere."""
    return any(isinstance(node, dict) and set(node) == {"$undefined"} for node in walk(value))


def js_like(value: Any) -> Any:
    """A decoded value as JS holds it: unsafe ints rounded to doubles."""
    if isinstance(value, bool) or value is None or isinstance(value, str):
        return value
    if isinstance(value, int):
        return value if abs(value) <= SAFE_INT else float(value)
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if isinstance(value, dict):
        return {key: js_like(item) for key, item in value.items()}
    return [js_like(item) for item in value]
