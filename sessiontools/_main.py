"""The console script ``sessiontools`` and ``python -m sessiontools``.

Only this module loads before the command's code is imported, so that a Ctrl-C while it is
imported is one line and status 130 too, as everywhere else (``_cli.EXIT_INTERRUPTED``).
"""

from __future__ import annotations

import sys
from typing import NoReturn


def run() -> NoReturn:
    """Import the command line and run it: ``sys.exit(_cli.main())`` (see ``_cli.run``)."""
    try:
        from ._cli import run as run_cli  # here: importing takes a while, and may be cut short
    except KeyboardInterrupt:
        sys.stderr.write("sessiontools: interrupted\n")
        sys.exit(130)
    run_cli()
