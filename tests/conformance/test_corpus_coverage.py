"""Every case of the corpus is replayed: none is skipped for an unknown kind."""

from __future__ import annotations

import json

from tests._support.conformance.corpus import corpus_files, load_cases

KINDS = ("response", "helper", "presenter", "tool_definition", "tool_call")


def test_every_case_has_a_replayed_kind() -> None:
    """A kind no test replays would silently drop its cases: it fails here instead."""
    everything = load_cases(*KINDS)
    total = sum(
        1
        for file in corpus_files()
        for line in file.read_text(encoding="utf-8").split("\n")
        if line.strip() and "kind" in json.loads(line)
    )
    assert len(everything) == total > 0
