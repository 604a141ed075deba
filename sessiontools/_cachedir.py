"""Where the command line keeps what it worked out for its next runs: genai-prices' answers
(``sessiontools._cost.kept``) and the report's compiled templates (``sessiontools._html.render``).
Only speed depends on it: the output is the same with it, without it, or with it damaged.

The directory is ``$SESSIONTOOLS_CACHE_DIR`` when set and not empty (a relative one is taken
from the current directory), else ``$XDG_CACHE_HOME/sessiontools`` (an absolute
``XDG_CACHE_HOME`` only, as the XDG base directory specification says), else
``~/.cache/sessiontools``. ``SESSIONTOOLS_NO_CACHE`` set to anything but the empty string (``0``
too) turns it off. It, its parts and the directories above it are made when missing, with mode
0700 whatever the umask.

It is used only where no other user can change what it holds: the directory and each part are
this user's and writable by no one else (the templates are kept as Python code; a directory
its group may write to counts as this user's when the group is this user's own, as Debian's
user private groups), and every directory above them and every symbolic link on the way
belongs to this user or to root and is writable by no one else, or is a sticky directory
(such as ``/tmp``) whose entry on the way belongs to this user or root (so another user cannot
swap it). The checked directory is
returned as its real path, which is used from then on. Else, or when it cannot be made or
written, nothing is kept and nothing is said. Deleting it at any time is safe.

The library's functions keep nothing: only the command line gives a ``PriceBook`` kept
answers (``PriceBook(..., kept=KeptLookups.installed())``) and keeps templates
(``load_templates(keep=True)``).
"""

from __future__ import annotations

import contextlib
import os
import stat
import time

__all__ = ["cache_dir", "sweep"]

#: A temporary file a killed command left (its own name then ``.tmp``) is removed after this.
STALE_SECONDS = 3600


def cache_dir(part: str) -> str | None:
    """The real path of the directory ``part`` (a plain name) of sessiontools' cache, made if
    missing; ``None`` when the cache is off or cannot be used (see the module docstring)."""
    if os.environ.get("SESSIONTOOLS_NO_CACHE"):
        return None
    root = os.environ.get("SESSIONTOOLS_CACHE_DIR")
    if not root:
        xdg = os.environ.get("XDG_CACHE_HOME", "")
        if os.path.isabs(xdg):
            root = os.path.join(xdg, "sessiontools")
        else:
            home = os.path.expanduser("~")
            if not os.path.isabs(home):  # no home directory to be found
                return None
            root = os.path.join(home, ".cache", "sessiontools")
    try:
        real = _trusted_dir(os.path.abspath(root))
        return None if real is None else _trusted_dir(os.path.join(real, part))
    except (OSError, ValueError):  # ValueError: a NUL byte in the variable
        return None


def sweep(directory: str, prefix: str) -> None:
    """Remove the temporary files (``prefix...tmp``) a killed command left in ``directory``
    more than ``STALE_SECONDS`` ago; quietly."""
    now = time.time()
    with contextlib.suppress(OSError), os.scandir(directory) as entries:
        for entry in entries:
            if entry.name.startswith(prefix) and entry.name.endswith(".tmp"):
                with contextlib.suppress(OSError):
                    if now - entry.stat(follow_symlinks=False).st_mtime > STALE_SECONDS:
                        os.remove(entry.path)


def _trusted_dir(path: str) -> str | None:
    """The real path of ``path``, a directory of this user that only this user may write to
    and that no other user can change from now on (module docstring); ``None`` else. What of
    it is missing is made (each directory with mode 0700), and only once the way to it is
    checked: nothing is made where another user could change it."""
    existing, missing = path, []
    while not os.path.lexists(existing):
        above = os.path.dirname(existing)
        if above == existing:
            return None
        missing.append(os.path.basename(existing))
        existing = above
    real = os.path.realpath(existing)
    if not _safe_way(existing, real):
        return None
    if missing:
        st = os.stat(real)
        if st.st_uid not in (os.getuid(), 0) or (
            _others_may_write(st) and not st.st_mode & stat.S_ISVTX
        ):
            return None  # another user could swap what would be made in it
        for name in reversed(missing):
            real = os.path.join(real, name)
            _make_private(real)
    st = os.stat(real)
    if not stat.S_ISDIR(st.st_mode) or st.st_uid != os.getuid() or _others_may_write(st):
        return None
    return real


def _make_private(path: str) -> None:
    """Make the directory ``path`` with mode 0700 whatever the umask (its mode set through a
    descriptor that follows no link)."""
    with contextlib.suppress(FileExistsError):  # made meanwhile: checked by the caller
        os.mkdir(path, 0o700)
    fd = os.open(path, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC)
    try:
        if os.fstat(fd).st_uid == os.getuid():
            os.fchmod(fd, 0o700)
    finally:
        os.close(fd)


def _others_may_write(st: os.stat_result) -> bool:
    """Whether a user but this one (or root) may write to the directory: its mode lets
    others write, or its group, unless that group is this user's own (the user private group
    of Debian's umask 002: this user's primary group, with no other member named, and no
    other user's primary group)."""
    if st.st_mode & stat.S_IWOTH:
        return True
    if not st.st_mode & stat.S_IWGRP:
        return False
    if st.st_gid != os.getgid():
        return True
    import grp
    import pwd

    try:
        me = pwd.getpwuid(os.getuid()).pw_name
        members = grp.getgrgid(st.st_gid).gr_mem
    except KeyError:
        return True
    # a user private group: no other member named, and no other user's primary group
    return any(member != me for member in members) or any(
        user.pw_gid == st.st_gid and user.pw_name != me for user in pwd.getpwall()
    )


def _safe_way(given: str, real: str) -> bool:
    """Whether no other user can change where ``given`` leads (``real``) from now on: each
    symbolic link on the way is this user's or root's, and each directory above ``real`` is
    this user's or root's and writable by no one else, or sticky with this user's or root's
    entry on the way."""
    me = os.getuid()
    trusted = (me, 0)
    path = os.sep
    for name in given.split(os.sep):
        if not name:
            continue
        path = os.path.join(path, name)
        st = os.lstat(path)
        if stat.S_ISLNK(st.st_mode) and st.st_uid not in trusted:
            return False
    below = real
    while True:
        above = os.path.dirname(below)
        if above == below:
            return True
        st = os.stat(above)
        if st.st_uid not in trusted:
            return False
        sticky = st.st_mode & stat.S_ISVTX
        if _others_may_write(st) and (not sticky or os.lstat(below).st_uid not in trusted):
            return False
        below = above
