"""The console script ``sessiontools`` and ``python -m sessiontools``.

Only this module loads before the command's code is imported. Ctrl-C and SIGTERM wait while
it is imported (an extension module interrupted in its initialisation may crash), and are
then handled as everywhere else: one line, and 130 or 143
(``sessiontools._cli.signals.handle_signals``).
"""

from __future__ import annotations

import signal
import sys
from typing import NoReturn


def run() -> NoReturn:
    """Import the command line and run it: ``sys.exit(_cli.main())``, with the command's
    signal handling (``_cli.handle_signals``)."""
    stop = {signal.SIGINT, signal.SIGTERM}
    mask = signal.pthread_sigmask(signal.SIG_BLOCK, stop)
    from ._cli.main import main
    from ._cli.signals import handle_signals

    handle_signals()
    try:
        signal.pthread_sigmask(signal.SIG_SETMASK, mask)  # one that came meanwhile acts now
        code = main()
    except KeyboardInterrupt:  # before the command ran
        sys.stderr.write("sessiontools: interrupted\n")
        code = 130
    sys.exit(code)
