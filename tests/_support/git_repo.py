"""A git repository a test makes in ``tmp_path``, mid-work, and a fingerprint of its state."""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
from pathlib import Path

import pytest

__all__ = ["git", "make_repository", "state_of"]


def git(repository: Path, *args: str) -> str:
    """Run ``git`` in ``repository`` (no user config, no hooks) and return its output."""
    return subprocess.run(
        ["git", "-c", f"core.hooksPath={os.devnull}", *args],
        cwd=repository,
        check=True,
        capture_output=True,
        text=True,
        env={**os.environ, "GIT_CONFIG_GLOBAL": os.devnull, "GIT_CONFIG_NOSYSTEM": "1"},
        timeout=30,
    ).stdout


def make_repository(root: Path) -> Path:
    """``root`` made a repository mid-work: one commit, one staged file, one untracked file.

    ``root`` is the test project itself (its tests at the root of the
    repository the server serves), as in the report of issue 29: a relative
    ``repo_path`` such as ``.`` then names it. Its ``.gitignore`` keeps what a
    pytest run writes (``__pycache__``, reports) out of the state compared.
    """
    if shutil.which("git") is None:
        pytest.skip("git is not installed")
    git(root, "init", "-q", "-b", "main")
    git(root, "config", "user.email", "user@example.com")
    git(root, "config", "user.name", "User")
    (root / ".gitignore").write_text("__pycache__/\n*.json\n", encoding="utf-8")
    (root / "README.md").write_text("# project\n", encoding="utf-8")
    git(root, "add", "README.md", ".gitignore")
    git(root, "commit", "-q", "-m", "first")
    (root / "staged.txt").write_text("work in progress\n", encoding="utf-8")
    git(root, "add", "staged.txt")
    (root / "untracked.txt").write_text("not yet added\n", encoding="utf-8")
    return root


def state_of(repository: Path) -> dict[str, str]:
    """HEAD, every ref, the index, the work tree's files and the stash: what a write changes."""
    listed = git(repository, "ls-files", "--cached", "--others", "--exclude-standard", "-z")
    tree = hashlib.sha256()
    for name in sorted(set(filter(None, listed.split("\0")))):
        path = repository / name
        content = path.read_bytes() if path.is_file() else b"(gone)"
        tree.update(name.encode() + b"\0" + content + b"\0")
    return {
        "HEAD": git(repository, "rev-parse", "HEAD").strip(),
        "branch": git(repository, "symbolic-ref", "HEAD").strip(),
        "refs": git(repository, "for-each-ref", "--format=%(refname) %(objectname)"),
        "index": git(repository, "ls-files", "--stage"),
        "status": git(repository, "status", "--porcelain"),
        "work tree": tree.hexdigest(),
        "stash": git(repository, "stash", "list"),
        "commits": git(repository, "rev-list", "--all", "--count").strip(),
    }
