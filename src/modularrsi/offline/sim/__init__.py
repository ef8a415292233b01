"""``sim``: a seeded, oracle-guided simulator of an LLM terminal agent — a test double, not a model.

It exists so the machinery (buckets, pairing, voting, gates, rollback, integration, resume, reports)
can run end to end with no model endpoint. Results obtained with it say that the machinery works;
they say nothing about what a real model would gain.

It sees what a real model sees — the messages' roles and content — and nothing else the kernel knows
(never a message's purpose tag). Through a privileged channel the harness never reads
(``SimModel.for_attempt(task_dir=…)``, filled by the kernel from the trial) it knows the task's
reference steps and instruction. How it fails is set by a *world* (:mod:`.world`): which failure modes
are active and at what rate, drawn per world seed (``sim:world-<seed>``) and hidden from the evolution.
How it reacts comes from what a message says about the task (:mod:`.reading`): a message that restates
a requirement it dropped, a task it lost in a long context, a command it keeps repeating, or a reply it
sent malformed — never from words agreed with anything that writes harness code.
"""

from modularrsi.offline.sim.agent import SimModel
from modularrsi.offline.sim.world import FIXABLE, MODES, UNFIXABLE, SimWorld, world_for

__all__ = ["FIXABLE", "MODES", "UNFIXABLE", "SimModel", "SimWorld", "world_for"]
