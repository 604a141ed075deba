"""``python -m sessiontools``: the same as the ``sessiontools`` command."""

from ._cli import run

run()
