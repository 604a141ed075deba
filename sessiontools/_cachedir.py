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

__all__ = ["cache_dir", "clear_odd", "sweep"]

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


#: At most this many symbolic links are followed on the way (the kernel's limit).
_MAX_LINKS = 40

_DIR_FLAGS = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC


def clear_odd(path: str) -> None:
    """Remove what is at ``path`` in the cache when it is not a regular file (a FIFO, a link,
    an empty directory: a user's or a crash's), so that a regular file can be made there
    again. Raises ``OSError`` (a directory that is not empty stays)."""
    try:
        st = os.lstat(path)
    except FileNotFoundError:
        return
    if stat.S_ISDIR(st.st_mode):
        os.rmdir(path)
    elif not stat.S_ISREG(st.st_mode):
        os.unlink(path)


def _trusted_dir(path: str) -> str | None:
    """The real path of the absolute ``path``, a directory of this user that only this user
    may write to and that no other user can change from now on (module docstring); ``None``
    else. The way is walked one directory at a time through descriptors that follow no link
    (``dir_fd``): a link is followed only when it is this user's or root's, by reading it, and
    its target walked the same way; every directory on the way must be this user's or root's
    and writable by no one else, or sticky with this user's or root's entry; what is missing
    is made there (mode 0700) only where no one else may write. So what is checked is what
    is used, and no other user can change it afterwards: the real path returned is safe to
    use by name."""
    me = os.getuid()
    trusted = (me, 0)
    todo = [name for name in reversed(path.split(os.sep)) if name]
    real: list[str] = []
    fd = os.open(os.sep, _DIR_FLAGS)
    links = 0
    try:
        while todo:
            name = todo.pop()
            if name == ".":
                continue
            if name == "..":  # in a link's target: back up the checked way
                real = real[:-1]
                os.close(fd)
                fd = os.open(os.sep + os.sep.join(real), _DIR_FLAGS)
                continue
            here = os.fstat(fd)
            if here.st_uid not in trusted:
                return None
            open_to_others = _others_may_write(here, fd)
            made = False
            try:
                st = os.stat(name, dir_fd=fd, follow_symlinks=False)
            except FileNotFoundError:
                if open_to_others and not here.st_mode & stat.S_ISVTX:
                    return None  # another user could swap what would be made here
                with contextlib.suppress(FileExistsError):
                    os.mkdir(name, 0o700, dir_fd=fd)
                    made = True
                st = os.stat(name, dir_fd=fd, follow_symlinks=False)
            if st.st_uid not in trusted:
                return None  # another user's entry: a link or a directory they can change
            if stat.S_ISLNK(st.st_mode):
                links += 1
                if links > _MAX_LINKS:
                    return None
                target = os.readlink(name, dir_fd=fd)
                if target.startswith(os.sep):
                    real = []
                    os.close(fd)
                    fd = os.open(os.sep, _DIR_FLAGS)
                todo.extend(part for part in reversed(target.split(os.sep)) if part)
                continue
            if not stat.S_ISDIR(st.st_mode):
                return None
            if open_to_others and not here.st_mode & stat.S_ISVTX:
                return None  # another user could rename it away and put theirs in its place
            inner = os.open(name, _DIR_FLAGS, dir_fd=fd)
            now = os.fstat(inner)
            if (now.st_dev, now.st_ino) != (st.st_dev, st.st_ino):
                os.close(inner)
                return None  # changed between the look and the open
            os.close(fd)
            fd = inner
            real.append(name)
            if made:
                os.fchmod(fd, 0o700)  # mkdir's mode is cut by the umask
        st = os.fstat(fd)
        if not stat.S_ISDIR(st.st_mode) or st.st_uid != me or _others_may_write(st, fd):
            return None
        return os.sep + os.sep.join(real)
    finally:
        os.close(fd)


def _has_acl(fd: int) -> bool:
    """Whether the directory has a POSIX access ACL (its group bits are then the ACL's mask:
    named users may write when they let the group write)."""
    try:
        os.getxattr(fd, "system.posix_acl_access")
    except (OSError, AttributeError):  # none (ENODATA), not supported, not Linux
        return False
    return True


def _others_may_write(st: os.stat_result, fd: int) -> bool:
    """Whether a user but this one (or root) may write to the directory (``fd``): its mode
    lets others write, or its group (or, with a POSIX ACL, a named user or group), unless that
    group is this user's own (the user private group
    of Debian's umask 002: this user's primary group, with no other member named, and no
    other user's primary group)."""
    if st.st_mode & stat.S_IWOTH:
        return True
    if not st.st_mode & stat.S_IWGRP:
        return False
    if st.st_gid != os.getgid() or _has_acl(fd):
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
