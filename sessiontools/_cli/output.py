"""Where a command's output goes: ``--out FILE`` or standard output, never half-written
(docs/traces.md, "Command").

``_Output`` writes to a temporary file in the target's directory first. Once complete, a
regular file is replaced by renaming onto it (through a symbolic link, the file it points to,
keeping an existing file's permission bits), and standard output, a device or a pipe get the
bytes copied into them. ``_check_out`` refuses, before anything is read: a directory, a missing
directory, the log being read (also as standard input), an existing file the caller could not
write, and a symbolic link another user may have planted in a sticky, world-writable directory
(the kernel's protected-symlinks rule, applied whether or not it is on).

``_Pages`` does the same for the pages of ``sessiontools report --out DIR/``: all written
aside, then put in place at once, with Ctrl-C and SIGTERM waiting meanwhile.
"""

from __future__ import annotations

import contextlib
import errno
import os
import re
import stat
import sys
from collections.abc import Sequence
from typing import IO

import click

from .._parallel.signals import SignalsHeld
from .._pieces import write_in_pieces
from .messages import EXIT_DAMAGED, _Failure, _reason


def _check_out_named(out: str | None, instead: str = "leave --out out for stdout") -> None:
    """Refuse an empty ``--out`` (``--out ''``, a shell variable that was not set): it names
    no file, and is a usage error, as an empty ``--title`` is; each command checks it before
    anything else. ``instead``: what to give instead, besides a file."""
    if out == "":
        raise click.BadParameter(
            f"must not be empty: give a file, or {instead}", param_hint="--out"
        )


class _BeingRead:
    """The logs a command reads, by what they are on disk (device and inode, their links
    followed), found once: ``--out`` must not be one of them, however it is named. A log
    that cannot be looked up now (gone since it was found) is no file ``--out`` could be.
    ``-`` (standard input) is the file standard input is, when it is one."""

    def __init__(self, inputs: Sequence[str]) -> None:
        self.stdin = "-" in inputs
        self.files: dict[tuple[int, int], str] = {}
        for path in inputs:
            if path == "-":
                continue
            try:
                st = os.stat(path)
            except (OSError, ValueError):
                continue
            self.files.setdefault((st.st_dev, st.st_ino), path)

    def which(self, out: str) -> str | None:
        """The log ``out`` is (as it was given; ``-`` for standard input), or ``None``."""
        if self.stdin and _is_stdin(out):
            return "-"
        if not self.files:
            return None
        try:
            st = os.stat(out)
        except (OSError, ValueError):
            return None
        return self.files.get((st.st_dev, st.st_ino))


def _check_out(out: str, *inputs: str, being_read: _BeingRead | None = None) -> None:
    """Refuse an ``--out`` that cannot be written or must not be: an empty name, a directory,
    a missing directory, a log being read (``inputs``, ``-`` the file standard input is; or
    ``being_read``, for a caller that checks many files against the same logs), and what
    ``_out_file`` refuses."""
    if out == "":
        _check_out_named(out)
    directory = os.path.dirname(os.path.realpath(out)) or "."
    if os.path.isdir(out):
        raise click.BadParameter(f"{out} is a directory", param_hint="--out")
    if not os.path.isdir(directory):
        raise click.BadParameter(f"no directory {directory}", param_hint="--out")
    log = (being_read if being_read is not None else _BeingRead(inputs)).which(out)
    if log == "-":
        raise click.BadParameter(
            "is standard input, the log being read; a reader never changes a session file",
            param_hint="--out",
        )
    if log is not None:
        raise click.BadParameter(
            f"is {log}, a log being read; a reader never changes a session file",
            param_hint="--out",
        )
    if not _STREAM.match(out):
        try:
            _out_file(out)
        except OSError as e:
            raise click.BadParameter(f"{out}: {_reason(e)}", param_hint="--out") from None


def _is_stdin(path: str) -> bool:
    """Whether ``path`` is the file standard input reads (a session given as ``-``)."""
    try:
        here = os.fstat(sys.stdin.fileno())
        there = os.stat(path)
    except (AttributeError, OSError, ValueError):  # no stdin, no such file, a test's stream
        return False
    return (here.st_dev, here.st_ino) == (there.st_dev, there.st_ino)


# The symbolic links followed before a loop is assumed (Linux's own limit).
_MAX_LINKS = 40


def _out_file(path: str) -> tuple[str, os.stat_result | None]:
    """The file ``--out`` names, its symbolic links followed, and its status (``None`` when it
    does not exist yet). Refused (``click.BadParameter``):

    - a symbolic link in a sticky, world-writable directory (such as ``/tmp``) owned neither
      by this user nor by the directory's owner: the kernel's ``protected_symlinks`` rule, so
      that another user cannot plant a link that makes this command replace that user's file
      (or any other), whether or not the rule is on;
    - an existing file this user could not write (``os.access``; for root, any file is
      writable, as the kernel sees it): replacing it by a rename, which needs only the
      directory, would get round its permissions.

    Raises:
        OSError: a link cannot be read, or loops.
    """
    for _ in range(_MAX_LINKS):
        try:
            st = os.lstat(path)
        except FileNotFoundError:
            return path, None
        if not stat.S_ISLNK(st.st_mode):
            break
        directory = os.path.dirname(path) or "."
        _check_link(path, st, directory)
        path = os.path.join(directory, os.readlink(path))
    else:
        raise OSError(errno.ELOOP, os.strerror(errno.ELOOP), path)
    if stat.S_ISREG(st.st_mode) and not _may_write(path):
        if _read_only_file_system(path):
            raise click.BadParameter(
                f"{path} is on a read-only file system; it is not replaced: give a file on "
                "another file system, or mount this one read-write",
                param_hint="--out",
            )
        raise click.BadParameter(
            f"{path} is read-only (mode {stat.filemode(st.st_mode)}); it is not replaced: make "
            "it writable, or give another file",
            param_hint="--out",
        )
    return path, st


def _read_only_file_system(path: str) -> bool:
    """Whether ``path`` is on a file system mounted read-only (its mode then says nothing)."""
    try:
        return bool(os.statvfs(path).f_flag & os.ST_RDONLY)
    except OSError:
        return False


def _may_write(path: str) -> bool:
    """Whether this process could open ``path`` for writing, as the kernel decides (its
    effective ids)."""
    return os.access(path, os.W_OK, effective_ids=os.access in os.supports_effective_ids)


def _check_link(link: str, st: os.stat_result, directory: str) -> None:
    """Refuse to follow ``link`` (its ``lstat`` is ``st``) as ``protected_symlinks`` does."""
    try:
        parent = os.stat(directory)
    except OSError:
        return  # the kernel has its say when the file is written
    shared = parent.st_mode & stat.S_ISVTX and parent.st_mode & stat.S_IWOTH
    if shared and st.st_uid != os.geteuid() and st.st_uid != parent.st_uid:
        raise click.BadParameter(
            f"{link} is a symbolic link of another user (uid {st.st_uid}) in a shared "
            "directory (sticky and world-writable): it is not followed (the kernel's "
            "protected-symlinks rule); remove it, or give another file",
            param_hint="--out",
        )


def _temporary_prefix(directory: str, name: str) -> str:
    """``.NAME.``, with ``NAME`` cut so that the temporary file's name (the prefix, 8 random
    characters and ``.tmp``) stays within the file system's limit on a name (``NAME_MAX``)."""
    try:
        name_max = os.pathconf(directory, "PC_NAME_MAX")
    except (OSError, ValueError):
        name_max = 255
    room = max(name_max - len("..") - 8 - len(".tmp"), 1)
    encoded = os.fsencode(name)
    if len(encoded) > room:
        name = os.fsdecode(encoded[:room])  # a cut character stays as its bytes
    return f".{name}."


_TMP_FLAGS = (
    os.O_RDWR | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_CLOEXEC", 0)
)


def _mkstemp(directory: str, prefix: str, suffix: str) -> tuple[int, str]:
    """A new file ``PREFIX`` + 8 random characters + ``SUFFIX`` in ``directory``, open for
    reading and writing, and its absolute path: made as ``tempfile.mkstemp`` makes it (created
    exclusively, mode 0600, no link followed, another name tried while one exists), without
    loading tempfile, and shutil and the compression modules it loads (about 11 M of the
    instructions of ``sessiontools otel LOG --out FILE`` on a small log).

    Raises:
        OSError: the file cannot be made (a name free of others was not found in 10,000
            tries: ``FileExistsError``).
    """
    for _ in range(10_000):
        name = os.path.join(directory, prefix + os.urandom(4).hex() + suffix)
        try:
            return os.open(name, _TMP_FLAGS, 0o600), os.path.abspath(name)
        except FileExistsError:
            continue
    raise FileExistsError(errno.EEXIST, "no free name for a temporary file", directory)


#: How much of an export ``_Output`` writes before asking for it to be written back.
_WRITE_BACK_BYTES = 4 << 20

# A stream of this process given as a path: written into, never replaced.
_STREAM = re.compile(r"/dev/(stdout|stderr|fd/\d+)$|/proc/self/fd/\d+$")


class _Output:
    """Where the export goes. It is written to a temporary file first; once complete:

    - a regular file (or a new one) is replaced by renaming the temporary file onto it (the
      file a symlink points to, keeping an existing file's permission bits), so a failure
      never leaves a half-written file; a read-only file, or a link another user planted in
      a shared directory, is refused (``_out_file``);
    - standard output, or a device or pipe given as ``--out`` (``/dev/stdout``, a FIFO), gets
      the bytes copied into it: those cannot be renamed onto.
    """

    def __init__(self, path: str | None, *, what: str = "export") -> None:
        self.path = path
        self.where = path or "stdout"
        self.what = what  # what is written, as messages name it: "export", "output"
        self.tmp: str | None = None
        self.target: str | None = None  # the regular file to rename onto
        self.mode: int | None = None  # its permission bits, when it exists
        self.written = 0  # bytes written into the temporary file
        self.written_back = 0  # of which the kernel was asked to write back (_write_back)
        try:
            if path is None or _STREAM.match(path):  # /dev/stdout may be a regular file
                target, st = None, None
            else:
                target, st = _out_file(path)
            if target is None or (st is not None and not stat.S_ISREG(st.st_mode)):
                import tempfile

                self.file: IO[bytes] = tempfile.TemporaryFile()  # noqa: SIM115 - closed in __exit__
            else:  # a regular file, or a new one (a dangling link's target, as open() makes)
                self.target = target
                self.mode = stat.S_IMODE(st.st_mode) if st is not None else None
                directory = os.path.dirname(target) or "."
                fd, self.tmp = _mkstemp(
                    directory, _temporary_prefix(directory, os.path.basename(target)), ".tmp"
                )
                self.file = os.fdopen(fd, "wb")
        except OSError as e:
            raise _Failure(f"cannot write {self.where}: {_reason(e)}", EXIT_DAMAGED) from None

    def write(self, data: bytes) -> None:
        try:
            write_in_pieces(self.file.write, data)
        except OSError as e:
            raise _Failure(f"cannot write {self.where}: {_reason(e)}", EXIT_DAMAGED) from None
        self.written += len(data)
        if self.written - self.written_back >= _WRITE_BACK_BYTES and self.tmp is not None:
            self._write_back()

    def _write_back(self) -> None:
        """Ask the kernel to start writing what was written since the last time to the disk,
        without waiting (``POSIX_FADV_DONTNEED``: dirty pages are written back, none is
        lost): ``commit``'s ``fsync`` then waits for the last pieces only. It took 11 to 15
        ms, the disk idle until then, for the 25.6 MiB export of the dense 100 MB log; 2 to
        7.5 ms so. A hint: a system without it, or that refuses it, changes nothing."""
        advise = getattr(os, "posix_fadvise", None)
        if advise is not None:
            with contextlib.suppress(OSError, ValueError):
                advise(
                    self.file.fileno(),
                    self.written_back,
                    self.written - self.written_back,
                    os.POSIX_FADV_DONTNEED,
                )
        self.written_back = self.written

    def __enter__(self) -> _Output:
        return self

    def __exit__(self, *exc: object) -> None:
        # Once committed, the file is closed already, or no longer needed (standard output's
        # copy is made); otherwise an error is on its way out. A buffer left to flush into a
        # full disk must neither replace that error nor keep the temporary file.
        try:
            with contextlib.suppress(OSError):
                self.file.close()
        finally:
            if self.tmp is not None:
                with contextlib.suppress(OSError):
                    os.unlink(self.tmp)

    def commit(self) -> None:
        """The export is complete: put it where it belongs."""
        try:
            if self.target is None:
                self._copy()
                return
            assert self.tmp is not None
            self.file.flush()
            os.fsync(self.file.fileno())
            self.file.close()
            if self.mode is None:
                umask = os.umask(0)
                os.umask(umask)
                self.mode = 0o666 & ~umask
            os.chmod(self.tmp, self.mode)
            os.replace(self.tmp, self.target)
            self.tmp = None
        except BrokenPipeError:
            # The reader went away (`| head`): nothing more to say to it.
            with contextlib.suppress(OSError, ValueError):
                os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
            raise _Failure(
                f"{self.where} was closed before the {self.what} was written", EXIT_DAMAGED
            ) from None
        except OSError as e:
            raise _Failure(f"cannot write {self.where}: {_reason(e)}", EXIT_DAMAGED) from None

    def _copy(self) -> None:
        import shutil

        self.file.seek(0)
        stream = _STREAM.match(self.path) if self.path is not None else None
        if stream is not None and stream[0] != "/dev/stdout":
            # this process's own descriptor, as it is (appending, say): opening the path
            # again would truncate a file it points to
            fd = 2 if stream[0] == "/dev/stderr" else int(stream[0].rsplit("/", 1)[1])
            with os.fdopen(fd, "wb", closefd=False) as descriptor:
                shutil.copyfileobj(self.file, descriptor)
            return
        if self.path is not None and stream is None:
            with open(self.path, "wb") as device:
                shutil.copyfileobj(self.file, device)
            return
        if sys.stdout is None:
            raise _Failure("stdout is closed: give --out FILE", EXIT_DAMAGED)
        out = sys.stdout.buffer
        shutil.copyfileobj(self.file, out)
        out.flush()


def _umask() -> int:
    umask = os.umask(0)
    os.umask(umask)
    return umask


def _sync_directory(path: str) -> None:
    """Make the names just renamed into ``path`` durable (where the file system allows it)."""
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0))
    except OSError:
        return
    try:
        with contextlib.suppress(OSError):  # some file systems cannot sync a directory
            os.fsync(fd)
    finally:
        os.close(fd)


class _Pages:
    """``--out DIR/``: the report's pages, put in place all at once, or not at all.

    Each page is written (and synced) into a temporary directory, ``.NAME.XXXXXXXX.tmp``
    (``NAME`` the directory's name): inside ``DIR`` when it exists, next to it when it does
    not. ``commit`` then, with Ctrl-C and SIGTERM held until it is done:

    - a new ``DIR``: renames the temporary directory to ``DIR`` (the command makes ``DIR``
      only then, whole);
    - an existing ``DIR``: renames each page onto its name there (through a symbolic link,
      onto the file it points to, keeping an existing file's permission bits, as ``_Output``
      does), then removes the temporary directory. Files of ``DIR`` the report does not write
      are left as they are. Should a rename fail half-way, the pages already renamed are put
      back as they were (the old files were kept as hard links until then).

    Until ``commit``, leaving the ``with`` block (a signal, a failure) removes every temporary
    file and directory: ``DIR`` is as it was.
    """

    def __init__(self, directory: str) -> None:
        self.directory = os.path.normpath(directory)
        self.new = not os.path.isdir(self.directory)
        self.umask = _umask()
        # (the temporary page, the file it replaces, that file's old contents as a hard link)
        self.moves: list[tuple[str, str, str | None]] = []
        self.strays: list[str] = []  # temporary files outside the temporary directory
        home = (os.path.dirname(os.path.abspath(self.directory)) or "/") if self.new else directory
        name = os.path.basename(os.path.abspath(self.directory)) or "site"
        self.tmp: str | None = None
        try:
            self.tmp = _mkdtemp(home, _temporary_prefix(home, name), ".tmp")
        except OSError as e:
            raise _Failure(f"cannot write {directory}: {_reason(e)}", EXIT_DAMAGED) from None

    def __enter__(self) -> _Pages:
        return self

    def __exit__(self, *exc: object) -> None:
        for _, _, old in self.moves:
            if old:
                with contextlib.suppress(OSError):
                    os.unlink(old)
        for stray in self.strays:
            with contextlib.suppress(OSError):
                os.unlink(stray)
        if self.tmp is not None:
            with contextlib.suppress(OSError):
                for entry in os.listdir(self.tmp):
                    with contextlib.suppress(OSError):
                        os.unlink(os.path.join(self.tmp, entry))
                os.rmdir(self.tmp)
            self.tmp = None

    def write(self, page: str, data: bytes) -> None:
        """Write ``page`` (a file name) with ``data``, complete and synced, where ``commit``
        will take it from."""
        assert self.tmp is not None
        where = os.path.join(self.directory, page)
        try:
            if self.new:
                target, st = where, None
            else:
                target, st = _out_file(where)
                if st is not None and not stat.S_ISREG(st.st_mode):
                    raise OSError(errno.EEXIST, "it is not a regular file")
            mode = stat.S_IMODE(st.st_mode) if st is not None else 0o666 & ~self.umask
            if target == where:
                temp = os.path.join(self.tmp, page)
                fd = os.open(temp, _TMP_FLAGS, 0o600)
            else:  # a symbolic link: the file it points to is replaced, from its directory
                home = os.path.dirname(target) or "."
                fd, temp = _mkstemp(home, _temporary_prefix(home, os.path.basename(target)), ".tmp")
                self.strays.append(temp)
            with os.fdopen(fd, "wb") as file:
                write_in_pieces(file.write, data)
                file.flush()
                os.fsync(file.fileno())
            os.chmod(temp, mode)
        except OSError as e:
            raise _Failure(f"cannot write {where}: {_reason(e)}", EXIT_DAMAGED) from None
        self.moves.append((temp, target, None))

    def commit(self) -> None:
        """Every page is written: put them all in place, with Ctrl-C and SIGTERM held (a
        signal meanwhile acts once they are)."""
        assert self.tmp is not None
        with SignalsHeld():  # a signal meanwhile waits, then acts
            if self.new:
                self._make()
            else:
                self._replace()

    def _make(self) -> None:
        assert self.tmp is not None
        try:
            os.chmod(self.tmp, 0o777 & ~self.umask)  # as os.mkdir(DIR) would have made it
            os.rename(self.tmp, self.directory)
        except OSError as e:
            raise _Failure(f"cannot write {self.directory}: {_reason(e)}", EXIT_DAMAGED) from None
        self.tmp = None
        _sync_directory(os.path.dirname(os.path.abspath(self.directory)))

    def _replace(self) -> None:
        assert self.tmp is not None
        moves: list[tuple[str, str, str | None]] = []
        try:
            for temp, target, _ in self.moves:  # the old files, kept until all are replaced
                old: str | None = temp + ".old"
                try:
                    os.link(target, temp + ".old", follow_symlinks=False)
                except FileNotFoundError:
                    old = None  # a new page
                except OSError as e:
                    if e.errno not in _NO_LINKS:
                        raise
                    old = ""  # a file system without hard links: it cannot be put back
                moves.append((temp, target, old))
        except OSError as e:
            self.moves = moves + self.moves[len(moves) :]
            raise _Failure(f"cannot write {self.directory}: {_reason(e)}", EXIT_DAMAGED) from None
        self.moves = moves
        done = 0
        try:
            for temp, target, _ in moves:
                os.replace(temp, target)
                done += 1
        except OSError as e:
            for _, target, old in reversed(moves[:done]):
                with contextlib.suppress(OSError):
                    if old is None:
                        os.unlink(target)
                    elif old:
                        os.replace(old, target)
            raise _Failure(f"cannot write {self.directory}: {_reason(e)}", EXIT_DAMAGED) from None
        for directory in {os.path.dirname(target) or "." for _, target, _ in moves}:
            _sync_directory(directory)


# What os.link says on a file system without hard links (FAT, some network and FUSE ones).
_NO_LINKS = {errno.EPERM, errno.EOPNOTSUPP, errno.ENOTSUP, errno.ENOSYS, errno.EMLINK}


def _mkdtemp(directory: str, prefix: str, suffix: str) -> str:
    """A new directory ``PREFIX`` + 8 random characters + ``SUFFIX`` in ``directory``, mode
    0700, and its absolute path (as ``tempfile.mkdtemp`` makes it; see ``_mkstemp``).

    Raises:
        OSError: the directory cannot be made.
    """
    for _ in range(10_000):
        name = os.path.join(directory, prefix + os.urandom(4).hex() + suffix)
        try:
            os.mkdir(name, 0o700)
        except FileExistsError:
            continue
        return os.path.abspath(name)
    raise FileExistsError(errno.EEXIST, "no free name for a temporary directory", directory)
