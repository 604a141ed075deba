"""``python -m sessiontools``: the same as the ``sessiontools`` command."""

from ._main import run

run()
