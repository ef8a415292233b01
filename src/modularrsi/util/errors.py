"""The three ways a command ends other than success, and the exit code of each.

- :class:`UserError`: the input cannot be used (a config field, a task, a model name, a flag): one line
  naming the file, field or value and what to do; nothing was written. Exit 2.
- :class:`Stopped`: the run stopped on purpose (a spending cap); what it finished is kept and
  ``--resume`` continues it. Exit 3.
- anything else is a bug in modularrsi: the command prints the traceback. Exit 1.

A command that checks things (``tasks check``, ``tasks validate``) and finds one that fails ends with
:data:`EXIT_FAILED` (4) after its report: the command worked, the input did not pass.

``UserError`` is a ``ValueError`` so that code which catches ``ValueError`` around a parse keeps working;
``Stopped`` is not, so that no handler of bad input swallows a budget stop.
"""

from __future__ import annotations

EXIT_BUG = 1
EXIT_USER = 2
EXIT_STOPPED = 3
EXIT_FAILED = 4


class UserError(ValueError):
    """Input no run could use; the message is one line naming it and what to do."""


class Stopped(Exception):  # noqa: N818 - a run that stopped, not an error
    """A run stopped on purpose (a cap reached); finished work is kept and ``--resume`` continues it."""
