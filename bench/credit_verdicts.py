"""What the execution gate did with the proposals of a credit bench: where each one ended, and what its
fresh pairs showed, for the right proposals (they undo a mode active in their world) apart from the rest.

Read from the runs themselves (``<out>/w<world>-<method>/history.jsonl``: every verdict's structured
details) and the committed score of each run (its world's active modes), so it needs the run directories
of the machine that ran the bench, not only the committed scores.

- *screen: fixed none*: the replay fixed none of the direction's failing evidence attempts (a proposal the
  screen passed that never reached a confirm or a race — a run stopped in between — is left out);
- *raced out*: screened, but another candidate of the same direction won the race;
- confirm: *accepted*, *rejected* (evidence against), *quiet* (undecided after rounds without a discordant
  pair) or *at the cap* (undecided after the last round); the statistic of the two undecided kinds is kept
  for a later epoch on the same parent;
- *fresh pairs*, *fixes* and *breaks* sum every confirm (carried rounds included), so *discordant per pair*
  is how often a fresh pair says anything and *fix share* how often what it says is a fix.

    python bench/credit_verdicts.py runs/bench-credit bench/results/credit/<key>
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from credit import function_of
from credit_truth import is_right

ENDS = ("screen: fixed none", "raced out", "accepted", "rejected", "quiet", "at the cap")


def verdicts(history: list[dict], active: set[str]) -> list[dict]:
    """One row per proposal that reached the execution gate: whether it is right, where it ended, and the
    confirm's counts."""
    rows = []
    for record in history:
        gates = {g["gate"] if g["gate"] != "execution" else g["details"].get("stage"): g
                 for g in record.get("gates", []) if g["gate"] in ("execution", "race")}
        if record.get("lane") == "integration" or "screen" not in gates and "confirm" not in gates:
            continue
        name = function_of(record)
        confirm = gates.get("confirm", {}).get("details", {})
        if "confirm" in gates:
            cap = (confirm.get("rule") or {}).get("max_rounds", 0)  # the gate's own order: the cap first
            end = {"accept": "accepted", "reject": "rejected"}.get(confirm.get("decision")) or (
                "at the cap" if confirm.get("rounds", 0) >= cap else "quiet")
        elif "race" in gates:
            end = "raced out"
        elif not gates["screen"]["passed"]:
            end = "screen: fixed none"
        else:  # screened, then stopped before a confirm (a budget stop): nothing to count
            continue
        rows.append({"function": name, "right": is_right(name, active), "end": end,
                     "pairs": confirm.get("pairs", 0), "fixes": confirm.get("b", 0), "breaks": confirm.get("c", 0)})
    return rows


def table(by_method: dict[str, list[dict]]) -> str:
    head = ["method", "which proposals", "reached the execution gate", *ENDS, "fresh pairs", "fixes / breaks",
            "discordant per pair", "fix share"]
    lines = ["| " + " | ".join(head) + " |", "|---" * len(head) + "|"]
    for method, rows in by_method.items():
        for right, label in ((True, "right"), (False, "other")):
            mine = [r for r in rows if r["right"] == right]
            pairs, fixes, breaks = (sum(r[k] for r in mine) for k in ("pairs", "fixes", "breaks"))
            said = fixes + breaks
            lines.append(f"| {method} | {label} | {len(mine)} | "
                         + " | ".join(str(sum(r["end"] == e for r in mine)) for e in ENDS)
                         + f" | {pairs} | {fixes} / {breaks} | {said / pairs if pairs else 0:.3f} | "
                         + (f"{fixes / said:.2f}" if said else "—") + " |")
    return "\n".join(lines)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("out", type=Path, help="the bench's --out: one directory per run (w<world>-<method>)")
    ap.add_argument("scores", type=Path, help="bench/results/credit/<key>: the committed score of each run")
    args = ap.parse_args()
    by_method: dict[str, list[dict]] = {}
    for score in sorted(args.scores.glob("w*-*.json")):
        row = json.loads(score.read_text())
        if not isinstance(row, dict):
            continue
        history = args.out / score.stem / "history.jsonl"
        if not history.is_file():
            raise SystemExit(f"error: {history}: missing (the runs of {args.scores} are read from --out)")
        records = []
        for number, line in enumerate(history.read_text().splitlines(), 1):
            try:
                records += [json.loads(line)] if line.strip() else []
            except json.JSONDecodeError as exc:
                raise SystemExit(f"error: {history}: line {number}: not JSON ({exc.msg}); let the run finish "
                                 "(the bench resumes it) and try again") from None
        by_method.setdefault(row["method"], []).extend(verdicts(records, set(row["active"])))
    if not by_method:
        raise SystemExit(f"error: {args.scores}: no run scores (w<world>-<method>.json) there")
    print(table(by_method))


if __name__ == "__main__":
    main()
