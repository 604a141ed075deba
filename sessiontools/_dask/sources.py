"""Where the logs of a cluster's read are: the paths, directories, globs and fsspec URLs a user
gives, expanded on the client into ``StoredLog``s (a log's name, the URL a worker opens, its size),
and cut into partitions (``partitions``). It reads no log.

- A path without a protocol is expanded by ``sessiontools._log.sources.find_logs``, as the
  pandas ``read_costs`` expands it: the same logs, in the same order, with the same names (so the
  ``session`` column is the same in both engines); a directory that cannot be listed is a log
  whose read raises its ``DirectoryError``.
- A URL (``s3://bucket/logs/``, ``gs://…``, ``file:///srv/logs/*.jsonl.gz``) is expanded with
  fsspec: a glob, a directory (its ``*.jsonl`` and ``*.jsonl.gz`` below it, sorted), or one
  file; its logs are named by their URLs.

Everything a worker needs to open a log is in its ``StoredLog``: the workers need not see the
client's current directory (a relative path is made absolute), only the same files or store.
"""

from __future__ import annotations

import fnmatch
import os
from collections.abc import Iterable, Mapping, Sequence
from operator import index
from pathlib import Path
from typing import Any, NamedTuple

from .._log.reader import shown_name
from .._log.sources import LOG_PATTERNS, DirectoryError, Unlisted, find_logs

__all__ = ["PARTITION_BYTES", "StoredLog", "find_sources", "partitions"]

#: A partition stops taking logs once it holds this many bytes (as stored: a compressed log
#: counts its compressed size): a large log is a partition of its own, and a worker holds at most
#: about this much of logs at once, whatever ``files_per_partition`` says.
PARTITION_BYTES = 64 * 1024 * 1024


class StoredLog(NamedTuple):
    """One log to read on a worker (a named tuple: tens of thousands are sent to workers, and
    a tuple pickles fastest).

    Attributes:
        name: its name in the frames (``session``) and in messages.
        url: what fsspec opens (an absolute local path, or a URL with its protocol).
        size: its size in bytes as stored (0 when the store did not say).
        error: why it cannot be read, found while listing (a directory that cannot be
            listed); then ``url`` is not opened.
    """

    name: str
    url: str
    size: int = 0
    error: OSError | None = None


def _protocol(item: str) -> str | None:
    """The fsspec protocol of ``item`` (``s3``, ``file``), ``None`` for a plain path."""
    if "://" not in item:
        return None
    protocol = item.split("://", 1)[0]
    return protocol if protocol and protocol.replace("+", "").isalnum() else None


def _local(items: Sequence[str | os.PathLike[str]]) -> list[StoredLog]:
    found = find_logs(list(items))
    out = []
    for item in found:
        if isinstance(item, Unlisted):
            name = shown_name(os.fspath(item.path))
            out.append(StoredLog(name, os.path.abspath(item.path), 0, item.error))
            continue
        assert isinstance(item, Path)
        try:
            size = os.stat(item).st_size
        except OSError:
            size = 0  # its read says what is wrong
        out.append(StoredLog(shown_name(os.fspath(item)), os.path.abspath(item), size))
    return out


def _is_log(path: str) -> bool:
    base = path.rstrip("/").rsplit("/", 1)[-1]
    return any(fnmatch.fnmatchcase(base, pattern) for pattern in LOG_PATTERNS)


def _remote(item: str, storage_options: Mapping[str, Any]) -> list[StoredLog]:
    from fsspec.core import url_to_fs

    fs, path = url_to_fs(item, **storage_options)

    def source(path: str, info: Mapping[str, Any]) -> StoredLog:
        url = fs.unstrip_protocol(path)
        return StoredLog(url, url, int(info.get("size") or 0))

    if any(c in path for c in "*?["):
        matches = fs.glob(path, detail=True)
        files = [source(p, info) for p, info in sorted(matches.items()) if info["type"] == "file"]
        if not files:
            raise FileNotFoundError(f"no log at {item}")
        return files
    try:
        info = fs.info(path)
    except FileNotFoundError:
        raise FileNotFoundError(f"no log at {item}") from None
    if info["type"] == "directory":
        try:
            found = fs.find(path, detail=True)
        except OSError as e:
            error = DirectoryError(e.errno, e.strerror or str(e), item)
            return [StoredLog(item, item, 0, error)]
        files = [
            source(p, got)
            for p, got in sorted(found.items())
            if got["type"] == "file" and _is_log(p)
        ]
        if not files:
            raise FileNotFoundError(f"no {' or '.join(LOG_PATTERNS)} log in {item}")
        return files
    return [source(path, info)]


def find_sources(
    logs: str | os.PathLike[str] | Iterable[str | os.PathLike[str]],
    storage_options: Mapping[str, Any] | None = None,
) -> list[StoredLog]:
    """The logs in ``logs`` (a path, directory, glob or fsspec URL, or an iterable of these), in
    order (module docstring).

    Raises:
        FileNotFoundError: a path, pattern or URL that names nothing, a directory with no log.
        TypeError: something that is not a path or a URL (a file object, a ``Session``: read
            those with the pandas ``read_costs``).
    """
    if isinstance(logs, (str, os.PathLike)):
        items: list[Any] = [logs]
    elif isinstance(logs, Iterable) and not hasattr(logs, "read") and not hasattr(logs, "runs"):
        items = list(logs)
    else:  # a file object or a Session is iterable, but not a collection of logs
        raise TypeError(
            "a cluster reads logs by path or URL, not "
            f"{type(logs).__name__}: read it with sessiontools.read_costs"
        )
    out: list[StoredLog] = []
    local: list[str | os.PathLike[str]] = []
    options = dict(storage_options or {})
    for item in items:
        if not isinstance(item, (str, os.PathLike)):
            raise TypeError(
                "a cluster reads logs by path or URL, not "
                f"{type(item).__name__}: read it with sessiontools.read_costs"
            )
        text = os.fspath(item)
        if _protocol(text) is None:
            local.append(item)
            continue
        if local:  # in the order given
            out.extend(_local(local))
            local = []
        out.extend(_remote(text, options))
    if local:
        out.extend(_local(local))
    return out


def partitions(
    sources: Sequence[StoredLog], files_per_partition: int, partition_bytes: int = PARTITION_BYTES
) -> list[list[tuple[int, StoredLog]]]:
    """``sources`` cut into partitions, in order, each a list of (position among all the logs,
    source): at most ``files_per_partition`` logs and, but for a log larger on its own, at most
    ``partition_bytes`` bytes (a log that would take a partition past them starts the next one,
    so a log of ``partition_bytes`` or more is a partition of its own). No logs: one partition
    of none (empty frames, as the pandas ``read_costs`` gives).

    Raises:
        ValueError: ``files_per_partition`` is not a positive integer.
    """
    try:  # an int, or numpy's integers; not a bool, a float or a string
        count = -1 if isinstance(files_per_partition, bool) else index(files_per_partition)
    except TypeError:
        count = -1
    if count < 1:
        raise ValueError(
            f"files_per_partition must be a positive integer, not {files_per_partition!r}"
        )
    files_per_partition = count
    out: list[list[tuple[int, StoredLog]]] = []
    size = 0
    for position, source in enumerate(sources):
        if (
            not out
            or len(out[-1]) >= files_per_partition
            or size >= partition_bytes
            # a log that would take the partition past its bytes starts the next one
            or (out[-1] and size + source.size > partition_bytes)
        ):
            out.append([])
            size = 0
        out[-1].append((position, source))
        size += source.size
    return out or [[]]
