"""``python -m modularrsi.cli``: the ``modularrsi`` command."""

from modularrsi.cli import main

main()
