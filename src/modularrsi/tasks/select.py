"""``tasks select``: pick n tasks from a pool manifest to a difficulty distribution, with train/holdout splits.

Difficulty follows the paper: ``difficulty = 1 − success_rate`` (a task nobody solves is 100 % hard),
binned 0–20–40–60–80–100 % (each bin includes its lower edge; the last also includes 100 %). A
distribution gives each bin a share of n: ``medium-centered`` 10/15/50/15/10, ``hard-easy``
35/10/10/10/35, ``uniform`` 20 each, or a JSON file holding a list of five percentages summing to 100.

Invariants:

- eligible tasks have a value for ``bins_by`` (default ``success_rate``; ``success:MODEL`` uses one
  model's passes/attempts; any other numeric task field in [0, 1] works too) and are not excluded;
- bin targets are the largest-remainder rounding of ``n × share`` (ties go to the easier bin), so
  they sum to n exactly;
- within a bin tasks are drawn seeded-randomly, balancing the ``balance`` field: each pick takes the
  group with the fewest picks in this bin, then the fewest picks overall (ties broken by a seeded
  random order of the groups); bins with the fewest spare tasks draw first, so that the freer
  bins even out the overall counts;
- a bin short of tasks is an error, unless ``allow_shortfall``: then the missing tasks come from the
  nearest bins with spare tasks (nearer first; at equal distance the one with more spare tasks),
  recorded in ``selection.shortfall``;
- the holdout split takes ``round(n × holdout_fraction)`` of the selected tasks, spread over bins
  by largest remainder and balanced the same way; the rest is ``train``;
- the same manifest, options and seed always give the same selection.

Selection reads only the manifest: it does not look for the tasks on disk (``tasks difficulty`` and
``tasks check`` already did), so it can be tried on a synthetic manifest.
"""

from __future__ import annotations

import json
import math
import random
from collections import Counter, defaultdict
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field

from modularrsi.tasks.manifest import PoolManifest, Selection, SelectionBin, Shortfall, TaskEntry
from modularrsi.util.errors import UserError

EDGES = (0, 20, 40, 60, 80, 100)
DISTRIBUTIONS = {"medium-centered": (10, 15, 50, 15, 10), "hard-easy": (35, 10, 10, 10, 35),
                 "uniform": (20, 20, 20, 20, 20)}
ALIASES = {"medium-centred": "medium-centered", "hard-and-easy": "hard-easy", "easy-hard": "hard-easy"}


class SelectionError(UserError):
    """Input that cannot give the asked selection; the message names the numbers involved."""


class SelectOptions(BaseModel):
    model_config = ConfigDict(extra="forbid")
    distribution: str = Field(description="medium-centered, hard-easy, uniform, or a JSON file of 5 percentages.")
    n: int = Field(description="Tasks to select.")
    seed: int = 0
    balance: str = Field(default="category", description="Task field to balance within bins, or 'none'.")
    holdout_fraction: float = Field(default=0.0, description="Share of the selection held out, in [0, 1).")
    bins_by: str = Field(default="success_rate", description="Field whose value v gives difficulty 1 - v.")
    allow_shortfall: bool = False


def bin_label(index: int) -> str:
    return f"{EDGES[index]}–{EDGES[index + 1]} %"


def parse_distribution(spec: str) -> tuple[str, list[float]]:
    """(name recorded in the manifest, five percentages) for a distribution name or a JSON file."""
    name = ALIASES.get(spec, spec)
    if name in DISTRIBUTIONS:
        return name, [float(s) for s in DISTRIBUTIONS[name]]
    path = Path(spec)
    if not path.is_file():
        raise SelectionError(f"unknown distribution '{spec}': use {', '.join(DISTRIBUTIONS)}, or a JSON file "
                             f"with a list of five percentages")
    try:
        shares = json.loads(path.read_text())
    except (OSError, ValueError) as exc:
        raise SelectionError(f"{path}: not readable JSON ({exc})") from None
    if (not isinstance(shares, list) or len(shares) != 5
            or not all(isinstance(s, int | float) and not isinstance(s, bool) and s >= 0 for s in shares)):
        raise SelectionError(f"{path}: need a JSON list of five non-negative percentages, got {shares!r}")
    if abs(sum(shares) - 100) > 1e-6:
        raise SelectionError(f"{path}: the five percentages sum to {sum(shares):g}, need 100")
    return str(path), [float(s) for s in shares]


def largest_remainder(total: int, weights: list[float]) -> list[int]:
    """Integers proportional to ``weights`` summing to ``total`` (ties go to the lower index)."""
    whole = sum(weights)
    exact = [total * w / whole if whole else 0.0 for w in weights]
    counts = [math.floor(x + 1e-9) for x in exact]
    order = sorted(range(len(weights)), key=lambda i: (-(exact[i] - counts[i]), i))
    for i in order[:total - sum(counts)]:
        counts[i] += 1
    return counts


def difficulty_bin(value: float) -> int:
    """The bin of a task whose ``bins_by`` value (a success rate) is ``value``."""
    difficulty = round((1.0 - value) * 100, 6)
    return min(4, int(difficulty // 20))


def score_of(name: str, entry: TaskEntry, bins_by: str) -> float | None:
    """The value binned for a task (None: not measured), checked to lie in [0, 1]."""
    if bins_by.startswith("success:"):
        s = entry.success.get(bins_by.partition(":")[2], {})
        value = s["passes"] / s["attempts"] if s.get("attempts") else None
    else:
        value = getattr(entry, bins_by, None) if bins_by in TaskEntry.model_fields else \
            (entry.model_extra or {}).get(bins_by)
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int | float) or not 0 <= value <= 1:
        raise SelectionError(f"task '{name}': {bins_by}={value!r} is not a number in [0, 1]")
    return float(value)


def group_of(entry: TaskEntry, balance: str) -> str:
    if balance == "none":
        return ""
    value = getattr(entry, balance) if balance in TaskEntry.model_fields else (entry.model_extra or {}).get(balance)
    return "(none)" if value is None else str(value)


class Picker:
    """Balanced seeded draws from groups of names (see the module invariants)."""

    def __init__(self, names: list[str], groups: dict[str, str], rng: random.Random, overall: Counter):
        self.pool: dict[str, list[str]] = defaultdict(list)
        for name in sorted(names):
            self.pool[groups[name]].append(name)
        for members in self.pool.values():
            rng.shuffle(members)
        keys = sorted(self.pool)
        rng.shuffle(keys)
        self.rank = {key: i for i, key in enumerate(keys)}
        self.groups, self.overall = groups, overall

    def spare(self) -> int:
        return sum(map(len, self.pool.values()))

    def take(self, count: int, here: Counter) -> list[str]:
        chosen = []
        for _ in range(count):
            open_groups = [g for g, members in self.pool.items() if members]
            if not open_groups:
                break
            group = min(open_groups, key=lambda g: (here[g], self.overall[g], self.rank[g]))
            chosen.append(self.pool[group].pop())
            here[group] += 1
            self.overall[group] += 1
        return chosen


def eligible(manifest: PoolManifest, bins_by: str) -> tuple[dict[str, float], str]:
    """Scores of the eligible tasks, and a phrase accounting for the others."""
    excluded = manifest.excluded()
    scores = {n: score_of(n, e, bins_by) for n, e in manifest.tasks.items() if n not in excluded}
    unmeasured = sum(v is None for v in scores.values())
    why = (f"{len(manifest.tasks)} in the manifest: {unmeasured} without {bins_by}, "
           f"{len(excluded & set(manifest.tasks))} excluded")
    return {n: v for n, v in scores.items() if v is not None}, why


def select_tasks(manifest: PoolManifest, options: SelectOptions) -> Selection:
    """Build the selection (the manifest itself is not changed: assign the result to ``manifest.selection``)."""
    name, shares = parse_distribution(options.distribution)
    if options.n < 1:
        raise SelectionError(f"--count must be at least 1, got {options.n}")
    if not 0 <= options.holdout_fraction < 1:
        raise SelectionError(f"--holdout-fraction must be in [0, 1), got {options.holdout_fraction:g}")
    if options.balance != "none" and options.balance not in TaskEntry.model_fields and not any(
            options.balance in (e.model_extra or {}) for e in manifest.tasks.values()):
        raise SelectionError(f"--balance '{options.balance}' is not a task field (category, domain, difficulty, "
                             f"an extra key of the manifest's tasks) nor 'none'")
    scores, why = eligible(manifest, options.bins_by)
    if not scores:
        raise SelectionError(f"no eligible tasks ({why}); run `modularrsi tasks difficulty` first")
    if options.n > len(scores):
        raise SelectionError(f"--count {options.n} exceeds the {len(scores)} eligible tasks ({why})")
    rng = random.Random(f"select:{options.seed}")
    groups = {t: group_of(manifest.tasks[t], options.balance) for t in scores}
    by_bin: list[list[str]] = [[] for _ in shares]
    for task, value in scores.items():
        by_bin[difficulty_bin(value)].append(task)
    targets = largest_remainder(options.n, shares)
    short = [(i, targets[i], len(by_bin[i])) for i in range(5) if len(by_bin[i]) < targets[i]]
    if short and not options.allow_shortfall:
        detail = "; ".join(f"bin {bin_label(i)} difficulty needs {want} tasks, has {have}" for i, want, have in short)
        raise SelectionError(f"{detail} (distribution {name}, --count {options.n}); lower --count, choose another "
                             f"--distribution, or pass --allow-shortfall to fill from the nearest bins")
    overall: Counter = Counter()
    pickers = [Picker(members, groups, rng, overall) for members in by_bin]
    chosen: list[list[str]] = [[] for _ in range(5)]
    for i in sorted(range(5), key=lambda i: (len(by_bin[i]) - targets[i], i)):  # tightest bins first
        chosen[i] = pickers[i].take(min(targets[i], len(by_bin[i])), Counter())
    shortfall = [fill(i, want - have, pickers, chosen[i], groups) for i, want, have in short]
    selected = [t for picks in chosen for t in picks]
    holdout = pick_holdout(selected, scores, groups, options, rng)
    bins = [SelectionBin(range=[EDGES[i], EDGES[i + 1]], label=bin_label(i), share=shares[i], target=targets[i],
                         available=len(by_bin[i]), selected=sum(difficulty_bin(scores[t]) == i for t in selected),
                         holdout=sum(difficulty_bin(scores[t]) == i for t in holdout)) for i in range(5)]
    return Selection(distribution=name, n=options.n, seed=options.seed, balance=options.balance, bins=bins,
                     train=sorted(set(selected) - set(holdout)), holdout=sorted(holdout), shares=shares,
                     holdout_fraction=options.holdout_fraction, bins_by=options.bins_by, eligible=len(scores),
                     shortfall=shortfall or None)


def fill(index: int, missing: int, pickers: list[Picker], picks: list[str], groups: dict[str, str]) -> Shortfall:
    """Take ``missing`` tasks for bin ``index`` from the nearest bins with spare tasks."""
    here = Counter(groups[t] for t in picks)
    taken: dict[str, int] = {}
    need = missing
    for distance in range(1, 5):
        near = [j for j in (index - distance, index + distance) if 0 <= j < 5]
        for j in sorted(near, key=lambda j: (-pickers[j].spare(), j)):
            got = pickers[j].take(need, here)
            if got:
                picks.extend(got)
                taken[bin_label(j)] = len(got)
                need -= len(got)
    return Shortfall(bin=bin_label(index), missing=missing, filled_from=taken)


def pick_holdout(selected: list[str], scores: dict[str, float], groups: dict[str, str], options: SelectOptions,
                 rng: random.Random) -> list[str]:
    """round(n × fraction) tasks, spread over the bins by largest remainder, balanced within each."""
    count = math.floor(len(selected) * options.holdout_fraction + 0.5)
    if count == 0:
        return []
    by_bin: list[list[str]] = [[] for _ in range(5)]
    for task in selected:
        by_bin[difficulty_bin(scores[task])].append(task)
    quotas = largest_remainder(count, [float(len(b)) for b in by_bin])
    overall: Counter = Counter()
    return [t for i in range(5) for t in Picker(by_bin[i], groups, rng, overall).take(quotas[i], Counter())]
