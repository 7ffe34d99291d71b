"""mkdocs hook: every page under docs/ is in the nav, even one added by a later branch.

``mkdocs.yml`` lists the pages it knows; pages other branches add
(``errors.md``, ``performance.md``...) join the Guide section under their own
first heading as soon as they exist, instead of failing the strict build as
pages left out of the nav, or needing a nav entry for a file not yet there.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any


def _listed(nav: Any) -> set[str]:
    """Every page path the nav names, at any depth."""
    if isinstance(nav, str):
        return {nav}
    if isinstance(nav, list):
        return set().union(*(_listed(item) for item in nav)) if nav else set()
    if isinstance(nav, dict):
        return set().union(*(_listed(value) for value in nav.values())) if nav else set()
    return set()


def _title(page: Path) -> str:
    """The page's first ``# heading``, else its name."""
    for line in page.read_text(encoding="utf-8").splitlines():
        if line.startswith("# "):
            return line[2:].strip().strip("`")
    return page.stem.replace("-", " ").capitalize()


def on_config(config: Any) -> Any:
    """Add the pages the nav does not list to its Guide section (sorted by file name)."""
    docs = Path(config["docs_dir"])
    listed = _listed(config["nav"])
    extra = [
        {_title(page): page.relative_to(docs).as_posix()}
        for page in sorted(docs.glob("*.md"))
        if page.relative_to(docs).as_posix() not in listed
    ]
    if extra:
        guide = next(item["Guide"] for item in config["nav"] if "Guide" in item)
        guide.extend(extra)
    return config
