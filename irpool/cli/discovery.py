"""Which files `irpool validate` checks, as ruff chooses them: a file named on the command line
is always checked (unless `force-exclude`); a directory is walked for `*.xml`, skipping the
`exclude` patterns (hidden, tool and build folders by default), what git ignores (unless the
directory named is itself ignored), and, once read, XML files whose root element is not <net>
(see `lint`).

Ignored files are asked of git itself (`git check-ignore`), so nested .gitignore files,
.git/info/exclude and the global excludes file mean exactly what they mean to git; outside a
git work tree, or without git installed, nothing is git-ignored. The walk asks git about each
level of folders and files at once and never lists an ignored folder, so a gitignored data/
with 100,000 files costs nothing.
"""

from __future__ import annotations

import os
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

import click

from irpool.cli.app import UsageError
from irpool.config import Config


@dataclass(frozen=True, slots=True)
class Found:
    """A file to check; `explicit` when named on the command line rather than walked to."""

    path: Path
    explicit: bool


@dataclass(slots=True)
class Discovery:
    files: list[Found] = field(default_factory=list)
    # Directories the walk could not enter, with the reason: what they hold is unchecked.
    unreadable: list[tuple[Path, str]] = field(default_factory=list)


def discover_files(paths: Sequence[Path], config: Config) -> Discovery:
    """The files to check, each once (two --fix workers must never write the same file):
    explicit files in the order given, each directory's files in sorted order."""
    found = Discovery()
    seen: set[Path] = set()
    for path in paths:
        if path.is_dir():
            before = len(found.unreadable)
            asks_git = config.respect_gitignore and not _named_folder_ignored(path)
            files = _walk(path, config, found.unreadable, asks_git)
            if not files and len(found.unreadable) == before:
                raise UsageError(f"no .xml files to check under {path} (after excludes)")
            explicit = False
        elif config.force_exclude and force_excluded(path, config):
            continue
        else:
            files, explicit = [path], True
        for file in files:
            if file.resolve() not in seen:
                seen.add(file.resolve())
                found.files.append(Found(file, explicit))
    return found


def _walk(
    root: Path, config: Config, unreadable: list[tuple[Path, str]], asks_git: bool
) -> list[Path]:
    """`*.xml` regular files (the suffix in any case) below root, never entering an excluded
    directory (nor following a symbolic link to one); a directory that cannot be listed is
    recorded, not skipped.

    Level by level, so that with `asks_git` one git call covers a whole level's folders and
    files: an ignored folder is dropped before it is listed, and git is asked as many times
    as the tree is deep, not once per folder."""
    start = config.relative(root)
    prefix = "" if start == "." else start.rstrip("/") + "/"
    found: list[Path] = []
    level = [root]
    while level:
        folders: list[Path] = []
        files: list[Path] = []
        for directory in level:
            below = directory.relative_to(root).as_posix()
            relative = prefix if below == "." else f"{prefix}{below}/"
            try:
                with os.scandir(directory) as listing:
                    entries = list(listing)
            except OSError as error:
                unreadable.append((directory, error.strerror or str(error)))
                continue
            for entry in entries:
                name = entry.name
                if _is_folder(entry):
                    if not config.excludes(relative + name):
                        folders.append(directory / name)
                elif name.lower().endswith(".xml") and not config.excludes(relative + name):
                    path = directory / name
                    if path.is_file():  # a regular file, or a symbolic link to one
                        files.append(path)
        if asks_git:
            answer = _ask_git(root, folders + files)
            asks_git = answer is not None  # git cannot tell here: it cannot below either
            ignored = answer or set()
            folders = [folder for folder in folders if folder not in ignored]
            files = [file for file in files if file not in ignored]
        found += files
        level = folders
    return sorted(found)


def _is_folder(entry: os.DirEntry[str]) -> bool:
    """A directory the walk enters: symbolic links to one are not followed (as os.walk)."""
    try:
        return entry.is_dir(follow_symlinks=False)
    except OSError:
        return False


def force_excluded(path: Path, config: Config) -> bool:
    """With force-exclude, an explicit file is dropped when it, or a folder it is in below
    the configuration's directory, is excluded, or when git ignores it."""
    base = config.root if config.root is not None else Path.cwd()
    resolved = path.resolve()
    if resolved.is_relative_to(base):
        parts = resolved.relative_to(base).parts
        names = ["/".join(parts[: i + 1]) for i in range(len(parts))]
    else:  # the folders above it are not the project's: only the file itself counts
        names = [config.relative(path)]
    if any(config.excludes(name) for name in names):
        return True
    return config.respect_gitignore and path in _gitignored(path.parent, [path])


def _named_folder_ignored(directory: Path) -> bool:
    """Whether git ignores a folder named on the command line (converted IR often lands in
    an ignored output folder): naming it asks for its files, as naming a file does."""
    folder = directory.resolve()
    return folder.parent != folder and folder in _gitignored(folder.parent, [folder])


def _gitignored(directory: Path, files: list[Path]) -> set[Path]:
    """The files git ignores (none when git cannot tell)."""
    return _ask_git(directory, files) or set()


def _ask_git(directory: Path, files: list[Path]) -> set[Path] | None:
    """The files (or folders) git ignores, asked of git once with paths relative to
    `directory`; None when git cannot tell (not a work tree, no git, or git failed)."""
    if not files:
        return set()
    import subprocess  # here: only walking a directory asks git (start-up time)

    asked = {os.fsencode(os.path.relpath(file, directory)): file for file in files}
    try:
        answer = subprocess.run(
            ["git", "check-ignore", "--stdin", "-z"],
            cwd=directory,
            input=b"\0".join(asked) + b"\0",
            capture_output=True,
            check=False,
        )
    except OSError:  # git is not installed
        return None
    if answer.returncode not in (0, 1):  # 1: nothing ignored; otherwise git could not tell
        reason = answer.stderr.decode(errors="replace").strip().splitlines()
        if reason and "not a git repository" not in reason[0]:
            click.echo(f"irpool: warning: git cannot say what it ignores: {reason[0]}", err=True)
        return None
    return {asked[name] for name in answer.stdout.split(b"\0") if name in asked}


# The first element's name: after an optional BOM, the prolog (declaration, comments,
# processing instructions, blanks) and the DOCTYPE, which names the root itself. Atomic
# groups keep the scan linear however the bytes end.
_FIRST_ELEMENT = re.compile(
    rb"(?:\xef\xbb\xbf)?(?>\s|<\?.*?\?>|<!--.*?-->)*+<(?:!DOCTYPE\s+)?([^\s/>\[!?]+)", re.S
)


def root_is_not_net(data: bytes) -> bool:
    """Whether the bytes plainly start another kind of XML document (<project>, <svg>, ...);
    bytes that do not plainly start an element are not judged here (they get diagnostics)."""
    first = _FIRST_ELEMENT.match(data)
    if first is None:
        return False
    return first.group(1).rsplit(b":", 1)[-1].lower() != b"net"
