"""Where logs come from, and what they are called: the paths, directories and globs a user
gives, expanded into the logs to read (``find_logs``), a log's default conversation id
(``default_conversation_id``), and the conversation id of each log found when several are
given (``find_named_logs``: the rule of ``sessiontools otel`` and ``sessiontools report``).

Part of the first stage, before any byte is read: used by every command that reads many logs
(``sessiontools cost``, and the exporters that take many sessions); it reads no log itself.
"""

from __future__ import annotations

import errno
import fnmatch
import os
import stat
from collections.abc import Iterable
from pathlib import Path
from typing import IO, Any, TypeAlias

from .._fast import frozen
from .reader import shown_name

__all__ = [
    "LOG_PATTERNS",
    "DirectoryError",
    "Found",
    "LogStream",
    "Unlisted",
    "default_conversation_id",
    "find_logs",
    "find_named_logs",
    "is_one_file",
    "path_conversation_id",
    "strip_log_ending",
]


def default_conversation_id(name: str) -> str:
    """The default ``gen_ai.conversation.id``: the file's name without its extension; for a
    compressed file (``.gz``, any case) without that and the extension before it
    (``s.jsonl.gz`` is ``s``).

    A name in angle brackets, such as ``<stdin>`` for standard input, gives what is inside.
    Only the system's separators end a directory's name (``os.sep``, ``os.altsep``): on POSIX
    a backslash is a character of the file's name (``a\\b.jsonl`` is ``a\\b``).
    """
    if name.startswith("<") and name.endswith(">"):
        return name[1:-1]
    if os.altsep:
        name = name.replace(os.altsep, os.sep)
    base = name.rsplit(os.sep, 1)[-1]
    for _ in range(2 if base.lower().endswith(".gz") else 1):
        stem, dot, _ext = base.rpartition(".")
        if not (dot and stem):
            break
        base = stem
    return base


#: The names a directory's logs have (``*.jsonl.gz``: a log kept compressed).
LOG_PATTERNS = ("*.jsonl", "*.jsonl.gz")


@frozen
class LogStream:
    """A log read from a file already open in binary mode (standard input), by ``name``."""

    file: IO[bytes]
    name: str


class DirectoryError(OSError):
    """A directory given (or found inside one) whose logs cannot be listed."""

    def __str__(self) -> str:
        return f"{self.filename}: cannot read the directory: {self.strerror}"


@frozen
class Unlisted:
    """A directory that could not be searched: reading it gives its ``DirectoryError``."""

    path: Path
    error: DirectoryError


#: What ``find_logs`` finds: a log's path, a log open in binary mode, a directory that could
#: not be searched, or an object of a type it was told to keep as it is.
Found: TypeAlias = "Path | LogStream | Unlisted | Any"


# A stat that fails with these means the path names nothing (a symlink loop is a broken link).
_MISSING = (errno.ENOENT, errno.ENOTDIR, errno.ELOOP)


def find_logs(logs: Any, keep: tuple[type, ...] = ()) -> list[Found]:
    """The logs in ``logs`` (a path, a directory, a glob, a file open in binary mode, or an
    iterable of these), in order: directories (their ``*.jsonl`` and ``*.jsonl.gz``,
    recursively, not through symbolic links to directories) and globs expanded and sorted;
    files open in binary mode as ``LogStream``; objects of the types in ``keep`` (such as
    ``Session``) as they are. What it found can be given to it again, unchanged.

    A path that exists but cannot be examined (a name too long for the system, a file in a
    directory without permission) is kept: reading it says why it cannot be read. A directory
    that cannot be listed, or a directory inside it, is ``Unlisted``: reading it raises its
    ``DirectoryError`` (an ``OSError``), as an unreadable log raises its own.

    Raises:
        FileNotFoundError: a path or pattern that names nothing, a broken symbolic link, a
            path that is neither a file nor a directory, a directory with no log and nothing
            it could not read.
    """
    found_already = (LogStream, Unlisted, *keep)
    items: Iterable[Any] = (
        [logs]
        if isinstance(logs, (str, os.PathLike, *found_already)) or _is_file(logs, keep)
        else logs
    )  # fmt: skip
    out: list[Found] = []
    for item in items:
        if isinstance(item, found_already):
            out.append(item)
            continue
        if _is_file(item, keep):
            name = getattr(item, "name", None)
            out.append(LogStream(item, name if isinstance(name, str) else "<stream>"))
            continue
        path = Path(item)
        try:
            st = os.stat(path)
        except OSError as e:
            if e.errno not in _MISSING and not _has_magic(os.fspath(item)):
                out.append(path)  # it is there, or may be: its read says what is wrong
                continue
            if os.path.lexists(path):
                raise FileNotFoundError(f"{path} is a broken symbolic link") from None
            matches = sorted(_glob(os.fspath(item), recursive=True))
            files = [Path(m) for m in matches if os.path.isfile(m)]
            if not files:
                raise FileNotFoundError(f"no log at {os.fspath(item)}") from None
            out.extend(files)
            continue
        if stat.S_ISDIR(st.st_mode):
            found = _search(path)
            if not found:
                raise FileNotFoundError(f"no {' or '.join(LOG_PATTERNS)} log in {path}")
            out.extend(found)
        elif stat.S_ISREG(st.st_mode):
            out.append(path)
        else:
            raise FileNotFoundError(f"{path} is not a file")
    return out


def _is_file(item: object, keep: tuple[type, ...]) -> bool:
    """A file object (opened in binary mode, we trust), not a path or a list of paths."""
    return hasattr(item, "read") and not isinstance(item, (str, os.PathLike, *keep))


def _search(directory: Path) -> list[Path | Unlisted]:
    """The logs in ``directory`` and below, sorted by path, with the directories that could
    not be listed in their place. Symbolic links to directories are not followed (as
    ``Path.rglob``); a symbolic link to a log is a log."""
    found: list[tuple[Path, Path | Unlisted]] = []

    def unlisted(error: OSError) -> None:
        where = Path(error.filename) if error.filename is not None else directory
        problem = DirectoryError(error.errno, error.strerror, os.fspath(where))
        found.append((where, Unlisted(where, problem)))

    for root, _, names in os.walk(directory, onerror=unlisted):
        for name in names:
            if any(fnmatch.fnmatchcase(name, pattern) for pattern in LOG_PATTERNS):
                path = Path(root, name)
                try:
                    is_file = stat.S_ISREG(os.stat(path).st_mode)  # a symlink to a log is a log
                except OSError as e:
                    # a broken symbolic link is no log; one that cannot be examined (a
                    # directory that can be listed but not searched) is: its read says why
                    is_file = e.errno not in _MISSING
                if is_file:
                    found.append((path, path))
    found.sort(key=lambda pair: pair[0])
    return [item for _, item in found]


# The conversation ids of many logs.


def strip_log_ending(name: str) -> str:
    """``name`` without ``.jsonl`` or ``.jsonl.gz`` (unless that is all of it)."""
    for ending in (".jsonl.gz", ".jsonl"):
        if name.endswith(ending) and len(name) > len(ending):
            return name[: -len(ending)]
    return name


def _clean(path: str) -> str:
    """A path in the form ids take: ``/`` between names, no ``.`` or empty names (an absolute
    path keeps its leading ``/``)."""
    posix = Path(path).as_posix()
    parts = [p for p in posix.split("/") if p not in ("", ".")]
    return ("/" if posix.startswith("/") else "") + "/".join(parts)


def path_conversation_id(path: str) -> str:
    """The conversation id of a log among several, from its path (relative to the directory
    it was found in, or as given): ``/`` between names, without ``.jsonl`` / ``.jsonl.gz``
    (``evals/case-1/session.jsonl`` is ``evals/case-1/session``); each byte of the path that
    is not UTF-8 as U+FFFD."""
    return strip_log_ending(_clean(shown_name(path)))


def _has_magic(path: str | bytes) -> bool:
    """``glob.has_magic``: whether ``path`` holds ``*``, ``?`` or ``[``, without loading glob
    (and compiling its patterns) for a command given one file."""
    if isinstance(path, bytes):
        return b"*" in path or b"?" in path or b"[" in path
    return "*" in path or "?" in path or "[" in path


def _glob(pattern: Any, recursive: bool) -> list[Any]:
    import glob  # here: only a pattern is matched

    return glob.glob(pattern, recursive=recursive)


def is_one_file(path: str) -> bool:
    """Whether ``path``, given alone, is one log file (not a directory, not a pattern that is
    not a file itself); a path that cannot be examined is, unless it is a pattern (its read
    says what is wrong)."""
    try:
        st = os.stat(path)
    except OSError:
        return not _has_magic(path)
    return not stat.S_ISDIR(st.st_mode) and not (_has_magic(path) and not stat.S_ISREG(st.st_mode))


def find_named_logs(
    logs: Any, keep: tuple[type, ...] = (), *, allow_empty: bool = False
) -> list[tuple[Found, str | None]]:
    """The logs ``logs`` names (as ``find_logs``), each with its conversation id: the rule of
    the commands that take many logs (``sessiontools otel`` and ``sessiontools report``), so
    that cases kept as ``case-N/session.jsonl`` never share an id:

    - one file given alone (not a directory, not a pattern): ``default_conversation_id`` of
      its name (its file name without its extension);
    - otherwise each log's path relative to the directory given, or as given for files and
      patterns, without ``.jsonl`` / ``.jsonl.gz`` (``path_conversation_id``); a pattern that
      matches directories searches them, as if each were given;
    - a stream (standard input): its name's (``stdin``); an object of a type in ``keep``:
      ``None``, its own name's rule.

    ``allow_empty``: a directory with no log yet is left out rather than an error.

    Raises:
        FileNotFoundError: as ``find_logs``.
    """
    found_already = (LogStream, Unlisted, *keep)
    items: list[Any] = (
        [logs]
        if isinstance(logs, (str, os.PathLike, *found_already)) or _is_file(logs, keep)
        else list(logs)
    )  # fmt: skip
    alone = len(items) == 1 and isinstance(items[0], str | os.PathLike)
    out: list[tuple[Found, str | None]] = []
    for item in items:
        if not isinstance(item, str | os.PathLike):
            for found in find_logs([item], keep):
                if isinstance(found, LogStream):
                    out.append((found, default_conversation_id(found.name)))
                elif isinstance(found, Unlisted):
                    out.append((found, path_conversation_id(os.fspath(found.path))))
                else:
                    out.append((found, None))
            continue
        given = os.fspath(item)
        if alone and is_one_file(given):
            out.extend(
                (found, default_conversation_id(shown_name(given))) for found in find_logs([item])
            )
            continue
        searched = [given]
        if _has_magic(given) and not os.path.lexists(given):
            # a pattern: the directories it matches are searched, as if each were given
            matches = sorted(_glob(given, recursive=True))
            dirs = [m for m in matches if os.path.isdir(m)]
            if dirs:
                searched = dirs + ([given] if len(dirs) < len(matches) else [])
        for path in searched:
            directory = os.path.isdir(path)
            try:
                found_logs = find_logs([path])
            except FileNotFoundError:
                if allow_empty and directory:
                    continue
                raise
            for found in found_logs:
                where = str(found.path if isinstance(found, Unlisted) else found)
                if directory:
                    where = os.path.relpath(where, path)
                out.append((found, path_conversation_id(where)))
    return out
