"""Every case of the corpus is replayed: none is skipped for an unknown kind."""

from __future__ import annotations

from tests._support.conformance.corpus import corpus_files, load_cases, read_lines

KINDS = ("response", "helper", "presenter", "tool_definition", "tool_call")


def test_every_case_has_a_replayed_kind() -> None:
    """A kind no test replays would silently drop its cases: it fails here instead."""
    everything = load_cases(*KINDS)
    total = sum(1 for file in corpus_files() for _ in read_lines(file))
    assert len(everything) == total > 0
