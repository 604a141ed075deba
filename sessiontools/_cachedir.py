"""Where the command line keeps what it worked out for its next runs: genai-prices' answers
(``sessiontools._cost.kept``) and the report's compiled templates (``sessiontools._html.render``).
Only speed depends on it: the output is the same with it, without it, or with it damaged.

The directory is ``$SESSIONTOOLS_CACHE_DIR`` when set, else ``$XDG_CACHE_HOME/sessiontools``
(an absolute ``XDG_CACHE_HOME`` only, as the XDG base directory specification says), else
``~/.cache/sessiontools``. ``SESSIONTOOLS_NO_CACHE`` set to anything but the empty string turns
it off. It is made when missing (mode 0700), and used only when it is a directory of this user
that no one else may write to (the templates are kept as Python code): else, or when it cannot
be made or written, nothing is kept and nothing is said. Deleting it at any time is safe.

The library's functions keep nothing: only the command line gives a ``PriceBook`` kept
answers (``PriceBook(..., kept=KeptLookups.installed())``) and keeps templates
(``load_templates(keep=True)``).
"""

from __future__ import annotations

import os
import stat

__all__ = ["cache_dir"]


def cache_dir(part: str) -> str | None:
    """The directory ``part`` of sessiontools' cache, made if missing; ``None`` when the cache
    is off or cannot be used (see the module docstring). ``part`` is a plain name."""
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
    path = os.path.join(root, part)
    try:
        os.makedirs(path, mode=0o700, exist_ok=True)
        if not _private(root) or not _private(path):
            return None
    except (OSError, ValueError):  # ValueError: a NUL byte in the variable
        return None
    return path


def _private(path: str) -> bool:
    """A directory of this user that only this user may write to."""
    st = os.stat(path)
    return (
        stat.S_ISDIR(st.st_mode)
        and st.st_uid == os.getuid()
        and not st.st_mode & (stat.S_IWGRP | stat.S_IWOTH)
    )
