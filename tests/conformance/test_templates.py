"""The corpus's template language, as the harness reads it (README: ``{{path}}``, roots).

The old reading took every ``$``-prefixed first segment for a root, so
``{{$type}}`` was ``undefined`` even where the item has a ``$type`` key (data
holds such keys), and ``$rows``/``$pluck`` raised on items that are not
objects: each test here failed on it.
"""

from __future__ import annotations

from tests._support.conformance.pres_mapping import fill


def test_only_the_four_roots_are_roots() -> None:
    """``$ctx``, ``$count``, ``$items``, ``$omitted`` are roots; ``$type`` is a key of the item."""
    scope = {"item": {"$type": "draft", "$ctx": "shadowed"}, "$ctx": {"role": "admin"}}
    assert fill("{{$type}} {{$ctx.role}} {{$ref}} {{$count}}", scope) == (
        "draft admin undefined undefined"
    )


def test_paths_step_as_javascript_member_access() -> None:
    """A str has indexes and a length in UTF-16 units; an array index must be canonical."""
    scope = {"item": {"name": "a😀", "tags": ["x", "y"]}}
    assert fill("{{name.0}} {{name.length}} {{tags.1}} {{tags.01}} {{tags.length}}", scope) == (
        "a 3 y undefined 2"
    )


def test_rows_and_pluck_read_items_that_are_not_objects() -> None:
    """``String(i[k])`` of a number or a str item: ``undefined``, or the str's character."""
    scope = {"item": None, "$items": [{"id": 1}, 7, "ab"]}
    assert fill({"$pluck": "id"}, scope) == ["1", "undefined", "undefined"]
    assert fill({"$rows": ["0", "id"]}, scope) == [
        ["undefined", "1"],
        ["undefined", "undefined"],
        ["a", "undefined"],
    ]
