"""mkdocs hook: every page under docs/ is in the nav, even one added by a later branch.

``mkdocs.yml`` lists the pages it knows; pages other branches add
(``errors.md``, ``performance.md``...) join the Guide section under their own
first heading as soon as they exist, instead of failing the strict build as
pages left out of the nav, or needing a nav entry for a file not yet there.
"""

from __future__ import annotations

import importlib
import types
from pathlib import Path
from typing import Any

from mkdocs.exceptions import PluginError


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


# Each API page and the module whose every public name it must document.
API_PAGES = {
    "api/fusion_core.md": "fusion_core",
    "api/ui.md": "fusion_core.ui",
    "api/pytest_mcpfusion.md": "pytest_mcpfusion",
    "api/strategies.md": "pytest_mcpfusion.strategies",
}


def on_page_content(html: str, page: Any, config: Any, files: Any) -> str:
    """Fail the build when an API page leaves out a name of its module's ``__all__``.

    mkdocstrings skips a member it finds no docstring for (an instance such
    as ``response``, an alias); this keeps every public name on its page.
    """
    del config, files
    module_name = API_PAGES.get(page.file.src_uri)
    if module_name is None:
        return html
    module = importlib.import_module(module_name)
    shown = {
        id(getattr(module, name)) for name in module.__all__ if f'id="{module_name}.{name}"' in html
    }
    missing = [
        name
        for name in module.__all__
        if id(getattr(module, name)) not in shown  # an alias (ui.list) shares its original's entry
        and not isinstance(getattr(module, name), types.ModuleType)  # has its own page
    ]
    if missing:
        msg = f"{page.file.src_uri} does not document {', '.join(missing)} (give each a docstring)"
        raise PluginError(msg)
    return html
