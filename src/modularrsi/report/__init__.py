"""Reports of a run directory: one self-contained HTML file (``modularrsi report``) and terminal views
(``modularrsi runs``, ``modularrsi show``).

Reports are observers: they only read a run directory (an evolution run, a plain ``modularrsi run`` or
a ``modularrsi eval`` directory) and never change it. Every number they show is read or computed from
the run's files; a run made with the ``sim`` model is labelled as such on every view.
"""
