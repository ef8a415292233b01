"""Analysis: hand-made evidence → expected findings per lens; the LLM analyst on scripted replies."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest
from pydantic import ValidationError

from modularrsi.evolve.analysis import LLMAnalyst, SimAnalystConfig, analyse, analyse_all, finding_kind
from modularrsi.evolve.analysis_llm import extract_object
from modularrsi.evolve.findings import MECHANISMS, AttemptEvidence, Finding, TaskEvidence
from modularrsi.evolve.signals import Signals
from modularrsi.evolve.symptoms import SYMPTOMS, blamed, measured, mechanisms
from modularrsi.models.base import BudgetExceeded, Completion
from modularrsi.offline.scripted import ScriptedModel
from modularrsi.offline.sim_analyst import SimAnalyst
from modularrsi.rollouts.config import RunConfig
from modularrsi.rollouts.run import execute

SIM = SimAnalyst()


def attempt(index: int, passed: bool, steps: int = 6, from_memory: bool = False, **signals) -> AttemptEvidence:
    unknown = signals.keys() - Signals.model_fields.keys()
    assert not unknown, f"not a signal: {unknown}"
    return AttemptEvidence(index=index, passed=passed, steps=steps, signals=Signals(**signals),
                           from_memory=from_memory)


def mixed_premature_completion() -> TaskEvidence:
    """a1 claimed completion without checking and failed; the passing a0, a2 did not."""
    return TaskEvidence(
        task="csv-report", bucket="mixed", pair_source="same-epoch",
        attempts=[attempt(0, True, completion_without_evidence=0, ending="completed"),
                  attempt(1, False, steps=4, completion_without_evidence=1, ending="completed",
                          unevidenced_claim_steps=[5, 6]),
                  attempt(2, True, completion_without_evidence=0, ending="completed")],
        pass_keystrokes=["ls\n", "python3 fix.py\n", "python3 -m pytest -q\n"],
        fail_keystrokes=["ls\n", "python3 fix.py\n", ""], divergence_step=2)


async def test_contrastive_completion_lens_blames_completion_and_cites_the_pair():
    finding = await analyse(mixed_premature_completion(), "completion", SIM)
    assert (finding.kind, finding.is_culprit, finding.locked_module) == ("contrastive", True, "completion")
    assert finding.mechanism == "completion-evidence-check"
    assert finding.would_change_outcome and finding.fixable_now and finding.suggested_change
    assert finding.evidence_steps == [5, 6]
    assert (finding.pass_count, finding.attempts, finding.pair_source) == (2, 3, "same-epoch")
    assert "first differs at step 2" in finding.divergence and "pytest" in finding.divergence


async def test_other_lens_keeps_the_finding_for_the_blamed_module_without_a_change():
    finding = await analyse(mixed_premature_completion(), "agent_loop", SIM)
    assert finding.is_culprit is False and finding.locked_module == "completion"
    assert finding.suggested_change == "" and finding.fixable_now is False
    assert finding.divergence.startswith("evidence points at completion, not agent_loop")


async def test_single_sided_loop_with_ineffective_recovery():
    evidence = TaskEvidence(task="make-build", bucket="stuck_fail", attempts=[
        attempt(k, False, steps=50, repeated_commands=12, interventions=2, ending="turn_limit",
                repeated_command_steps=[10 + k, 11 + k]) for k in range(3)])
    finding = await analyse(evidence, "agent_loop", SIM)
    assert (finding.kind, finding.is_culprit, finding.mechanism) == ("single-sided", True, "loop-guard")
    assert "ineffective recovery" in finding.divergence
    assert finding.evidence_steps == [10, 11, 12, 13]
    assert finding.pair_source is None and finding.pass_count == 0


async def test_observation_lens_needs_the_large_output_to_separate_fail_from_pass():
    separating = TaskEvidence(task="logs", bucket="mixed", attempts=[
        attempt(0, True, observation_bytes=[900, 1500]), attempt(1, False, observation_bytes=[900, 21_000])])
    found = await analyse(separating, "observation", SIM)
    assert found.is_culprit and found.mechanism == "observation-trim" and found.pair_source == "same-epoch"
    both_large = TaskEvidence(task="logs", bucket="mixed", attempts=[
        attempt(0, True, observation_bytes=[21_000]), attempt(1, False, observation_bytes=[21_000])])
    neutral = await analyse(both_large, "observation", SIM)
    assert neutral.is_culprit is False and neutral.locked_module is None
    assert "sampling luck" in neutral.divergence


async def test_context_lens_with_a_pair_from_memory():
    evidence = TaskEvidence(task="long-refactor", bucket="fixable_fail", pair_source="memory", attempts=[
        *[attempt(k, False, steps=40, observation_bytes=[6_500] * 10, compactions=0) for k in range(3)],
        attempt(7, True, steps=20, observation_bytes=[1_800] * 10, from_memory=True)])
    finding = await analyse(evidence, "context", SIM)
    assert (finding.kind, finding.pair_source, finding.pass_count, finding.attempts) == ("contrastive", "memory", 0, 3)
    assert finding.is_culprit and finding.mechanism == "early-summary" and "(from memory)" in finding.divergence
    summarised = evidence.model_copy(update={"attempts": [
        attempt(k, False, observation_bytes=[6_500] * 10, compactions=1) for k in range(3)]})
    assert (await analyse(summarised, "context", SIM)).is_culprit is False


async def test_refused_replies_sent_again_blame_context_beside_tool_use():
    """A model that copies its refused reply: the copies blame Context (what the model copies is what its
    context keeps), the refusals Tool Use; the context lane gets a finding of its own, with its own change."""
    copying = TaskEvidence(task="t", bucket="mixed", attempts=[
        attempt(0, True, parse_errors=0, ending="completed"),
        attempt(1, False, steps=10, parse_errors=10, resent_refusals=8, ending="turn_limit",
                parse_error_steps=list(range(2, 12)), resent_refusal_steps=list(range(4, 12))),
        attempt(2, False, steps=10, parse_errors=9, resent_refusals=7, ending="turn_limit",
                resent_refusal_steps=list(range(5, 12)))])
    context = await analyse(copying, "context", SIM)
    assert context.is_culprit and context.mechanism == "forget-refused"
    assert "take the refused reply out of the history" in context.suggested_change
    assert "8 refused replies sent again word for word" in context.divergence
    assert context.evidence_steps == list(range(4, 12))
    assert (await analyse(copying, "tool_use", SIM)).mechanism == "parse-repair"
    shown = measured(copying, "contrastive", SimAnalystConfig())
    assert "context: a1 FAIL: 8 refused replies sent again word for word" in shown and "(blamed by a1, a2)" in shown
    # refusals that are not copies (each one different) leave Context out
    fresh = copying.model_copy(update={"attempts": [a.model_copy(update={"signals": a.signals.model_copy(
        update={"resent_refusals": 0})}) for a in copying.attempts]})
    assert (await analyse(fresh, "context", SIM)).locked_module == "tool_use"
    assert "context" not in blamed(fresh, "contrastive", SimAnalystConfig())


def test_every_module_tags_its_first_symptom_as_its_mechanism():
    assert {m: listed[0].mechanism for m, listed in SYMPTOMS.items()} == MECHANISMS
    assert set(mechanisms()) == {s.mechanism for listed in SYMPTOMS.values() for s in listed} >= {"forget-refused"}


async def test_memory_pair_known_only_by_its_keystrokes_is_still_contrastive():
    evidence = TaskEvidence(task="t", bucket="fixable_fail", pair_source="memory", divergence_step=1,
                            pass_keystrokes=["ls\n", "make test\n"], fail_keystrokes=["ls\n", ""],
                            attempts=[attempt(k, False, completion_without_evidence=1) for k in range(3)])
    finding = await analyse(evidence, "completion", SIM)
    assert (finding.kind, finding.pair_source, finding.is_culprit) == ("contrastive", "memory", True)
    assert "the passing trajectory (memory) did not" in finding.divergence
    assert "pass `make test`" in finding.divergence


async def test_tool_use_lens_on_parse_errors_and_threshold():
    evidence = TaskEvidence(task="json-api", bucket="fixable_fail", attempts=[
        attempt(0, False, parse_errors=3, parse_error_steps=[3, 4, 5]), attempt(1, False, parse_errors=1)])
    finding = await analyse(evidence, "tool_use", SIM)
    assert finding.is_culprit and finding.mechanism == "parse-repair" and finding.evidence_steps == [3, 4, 5]
    assert "a0: 3 unparseable replies" in finding.divergence and "a1" not in finding.divergence


async def test_efficiency_on_a_wasteful_pass():
    evidence = TaskEvidence(task="du-report", bucket="all-pass wasteful", attempts=[
        attempt(0, True, steps=30, repeated_commands=6), attempt(1, True, steps=8)])
    loop = await analyse(evidence, "agent_loop", SIM)
    assert (loop.kind, loop.is_culprit, loop.would_change_outcome) == ("efficiency", True, False)
    completion = await analyse(evidence, "completion", SIM)
    assert completion.is_culprit is False and completion.locked_module == "agent_loop"


@pytest.mark.parametrize("bucket, passed", [("infrastructure_failure", False), ("unreachable", False),
                                            ("all_pass_efficient", True)])
async def test_settled_buckets_never_call_the_analyst(bucket, passed):
    model = ScriptedModel([])
    evidence = TaskEvidence(task="t", bucket=bucket, attempts=[attempt(0, passed, repeated_commands=9)])
    finding = await analyse(evidence, "agent_loop", LLMAnalyst(model))
    assert model.calls == [] and finding.is_culprit is False and finding.parse_error is None


def test_finding_enforces_the_counterfactual_and_lens_rules():
    with pytest.raises(ValidationError, match="not a culprit"):
        Finding(task="t", lens="context", kind="single-sided", is_culprit=False, suggested_change="x")
    with pytest.raises(ValidationError, match="locked to its lens"):
        Finding(task="t", lens="context", kind="single-sided", is_culprit=True, locked_module="completion")


def test_kind_follows_the_evidence():
    assert finding_kind(mixed_premature_completion()) == "contrastive"
    assert finding_kind(TaskEvidence(task="t", bucket="x", attempts=[attempt(0, False)])) == "single-sided"
    assert finding_kind(TaskEvidence(task="t", bucket="x", attempts=[attempt(0, True)])) == "efficiency"


# --- the LLM analyst on scripted replies -------------------------------------------------------------------

VALID = {"is_culprit": True, "locked_module": "completion", "divergence": "fail claimed done before testing",
         "would_change_outcome": True, "fixable_now": True, "mechanism": "Completion Evidence Check",
         "suggested_change": "Ask for a verifying command before accepting a claim.", "evidence_steps": [5, 6]}


async def llm(reply: str, lens: str = "completion") -> tuple[Finding, ScriptedModel]:
    model = ScriptedModel([reply])
    finding = await analyse(mixed_premature_completion(), lens, LLMAnalyst(model))
    return finding, model


async def test_llm_valid_json_and_prompt_contents():
    finding, model = await llm(json.dumps(VALID))
    assert finding.is_culprit and finding.mechanism == "completion-evidence-check" and finding.evidence_steps == [5, 6]
    assert finding.analyst == "llm:scripted" and finding.parse_error is None
    prompt = model.calls[0][-1].content
    for part in ("Task Completion Detection (completion)", "on_claim", "bucket mixed", "2/3 attempts passed",
                 "[2] <- divergence python3 -m pytest -q", "completion_without_evidence", "is_culprit"):
        assert part in prompt


async def test_llm_is_shown_the_measured_symptoms_with_what_separates_failing_from_passing():
    """The real 1.5B read a log-parsing task's failures as "the harness does not parse the log file"; what was
    measured - every reply of the failing attempts refused by the parser - is now stated in the prompt."""
    refused = TaskEvidence(
        task="server-log-error-count", bucket="mixed", pair_source="same-epoch",
        attempts=[attempt(0, False, steps=10, parse_errors=10, ending="turn_limit"),
                  attempt(1, True, steps=2, completion_without_evidence=1, ending="completed"),
                  attempt(2, False, steps=10, parse_errors=10, repeated_commands=1, ending="turn_limit")])
    model = ScriptedModel([json.dumps(VALID)])
    await analyse(refused, "tool_use", LLMAnalyst(model))
    prompt = model.calls[0][-1].content
    assert ("  tool_use: a0 FAIL: 10 unparseable replies; a2 FAIL: 10 unparseable replies - separates failing "
            "from passing (blamed by a0, a2)") in prompt
    assert ("  completion: a1 PASS: 1 completion claim(s) with no verifying command - does not separate failing "
            "from passing") in prompt
    assert "agent_loop:" not in prompt.split("Harness symptoms measured")[1]  # 1 repeat: under the threshold
    calm = TaskEvidence(task="t", bucket="mixed", attempts=[attempt(0, False), attempt(1, True)])
    model = ScriptedModel([json.dumps(VALID)])
    await analyse(calm, "tool_use", LLMAnalyst(model, thresholds=SimAnalystConfig(parse_errors=1)))
    assert "per module (a symptom that separates failing from passing attempts is the likeliest harness " \
           "culprit):\n  none" in model.calls[0][-1].content


async def test_a_culprit_claim_the_measurements_contradict_is_dropped_and_points_where_they_do():
    """Seen from the real 1.5B: asked under the completion lens about attempts whose replies were all refused,
    it called completion the culprit. The measured symptoms blame tool_use only, so the claim is kept as a
    non-culprit finding for tool_use; where nothing is measured, the analyst's reading stands."""
    refused = TaskEvidence(task="t", bucket="mixed", attempts=[
        attempt(0, False, steps=10, parse_errors=10), attempt(1, True, steps=2, completion_without_evidence=1,
                                                                 ending="completed")])
    finding = await analyse(refused, "completion", LLMAnalyst(ScriptedModel([json.dumps(VALID)])))
    assert not finding.is_culprit and finding.locked_module == "tool_use" and not finding.suggested_change
    assert finding.dropped == "the measured symptoms blame tool_use, not completion"
    unmeasured = TaskEvidence(task="t", bucket="mixed", attempts=[attempt(0, False), attempt(1, True)])
    kept = await analyse(unmeasured, "completion", LLMAnalyst(ScriptedModel([json.dumps(VALID)])))
    assert kept.is_culprit and kept.dropped is None and kept.suggested_change == VALID["suggested_change"]


async def test_llm_json_in_prose_and_fences_with_trailing_commas():
    fenced = "Here is my analysis.\n```json\n" + json.dumps(VALID)[:-1] + ",}\n```\nHope it helps."
    finding, _ = await llm(fenced)
    assert finding.is_culprit and finding.parse_error is None
    prose, _ = await llm("The answer {see below} is: " + json.dumps({"finding": VALID}) + " — done.")
    assert prose.is_culprit and prose.suggested_change


async def test_llm_wrong_types_are_coerced():
    reply = {"is_culprit": "yes", "locked_module": "Task Completion Detection", "divergence": ["a", "b"],
             "would_change_outcome": 1, "fixable_now": "false", "suggested_change": ["re-check", 42, "commands"],
             "mechanism": None, "evidence_steps": "steps 5 and 7"}
    finding, _ = await llm(str(reply).replace("'", '"').replace("None", "null"))
    assert finding.is_culprit and finding.locked_module == "completion" and finding.divergence == "a; b"
    assert (finding.would_change_outcome, finding.fixable_now) == (True, False)
    assert finding.suggested_change == "re-check; 42; commands"
    assert finding.mechanism == "" and finding.evidence_steps == [5, 7]
    python_literal, _ = await llm(str({**VALID, "evidence_steps": [{"step": 3}, "4", True, -1]}))
    assert python_literal.is_culprit and python_literal.evidence_steps == [3, 4]


async def test_llm_blaming_another_module_and_non_culprit_change_are_normalised():
    elsewhere, _ = await llm(json.dumps({**VALID, "locked_module": "agent loop"}))
    assert elsewhere.is_culprit is False and elsewhere.locked_module == "agent_loop"
    assert elsewhere.suggested_change == "" and elsewhere.fixable_now is False
    stray, _ = await llm(json.dumps({**VALID, "is_culprit": False}))
    assert stray.is_culprit is False and stray.suggested_change == ""


@pytest.mark.parametrize("reply", ["I cannot tell.", "{not json at all", "[1, 2, 3]", '{"unrelated": 1}', ""])
async def test_llm_malformed_answers_become_parse_failures(reply):
    finding, _ = await llm(reply)
    assert finding.is_culprit is False and finding.parse_error and finding.suggested_change == ""


async def test_llm_model_failure_is_recorded_but_budget_stops():
    finding = await analyse(mixed_premature_completion(), "completion", LLMAnalyst(ScriptedModel([])))
    assert finding.is_culprit is False and finding.parse_error.startswith("model error:")

    class Broke(ScriptedModel):
        async def complete(self, messages) -> Completion:
            raise BudgetExceeded("token cap reached")

    with pytest.raises(BudgetExceeded):
        await analyse(mixed_premature_completion(), "completion", LLMAnalyst(Broke([])))


async def test_analyse_all_keeps_order_and_calls_once_per_task():
    model = ScriptedModel([json.dumps(VALID)] * 3)
    tasks = [mixed_premature_completion().model_copy(update={"task": f"t{i}"}) for i in range(3)]
    findings = await analyse_all(tasks, "completion", LLMAnalyst(model), concurrency=2)
    assert [f.task for f in findings] == ["t0", "t1", "t2"] and len(model.calls) == 3


def test_extract_object_prefers_the_finding_object():
    text = 'Context: {"note": 1}. Finding: {"is_culprit": false, "divergence": "none"}'
    assert extract_object(text) == {"is_culprit": False, "divergence": "none"}


# --- real material: a sim run of three pool tasks ---------------------------------------------------------

POOL = Path(__file__).resolve().parents[2] / "tasks" / "pool"
REAL_TASKS = ("crm-contacts-dedup-by-email", "cfgkit-multilevel-extends", "formulae-power-precedence")


def _attempt_from_trial(trial: Path, index: int) -> tuple[AttemptEvidence, list[str]]:
    """A minimal stand-in for the signals stage: facts read straight from the trial's files."""
    reward = (json.loads((trial / "result.json").read_text()).get("verifier_result") or {}).get("rewards", {})
    episode = json.loads((trial / "agent" / "episode.json").read_text())
    steps = [s for s in json.loads((trial / "agent" / "trajectory.json").read_text())["steps"]
             if s["source"] == "agent"]
    keys = ["".join(c["arguments"].get("keystrokes", "") for c in s.get("tool_calls") or []) for s in steps]
    sizes = [sum(len(r.get("content") or "") for r in (s.get("observation") or {}).get("results", [])) for s in steps]
    claims = [s["step_id"] for s in steps if any(c["function_name"] == "mark_task_complete"
                                                 for c in s.get("tool_calls") or [])]
    signals = {"turns": episode["turns"], "ending": episode["ending"], "parse_errors": episode["parse_errors"],
               "completion_claims": episode["completion_claims"], "compactions": episode["compactions"],
               "observation_bytes": sizes, "unevidenced_claim_steps": claims,
               "repeated_commands": sum(1 for a, b in zip(keys, keys[1:], strict=False) if b and a == b)}
    return AttemptEvidence(index=index, passed=reward.get("reward", 0) >= 1, steps=episode["turns"],
                           signals=Signals(**signals)), keys


def _evidence(run_dir: Path, task: str) -> TaskEvidence:
    found = [_attempt_from_trial(run_dir / "trials" / f"{task}__a{k}", k) for k in range(3)]
    attempts = [a for a, _ in found]
    passes = sum(a.passed for a in attempts)
    bucket = {0: "fixable_fail", 3: "all_pass_wasteful"}.get(passes, "mixed")
    ok = next((keys for a, keys in found if a.passed), None)
    bad = next((keys for a, keys in found if not a.passed), None)
    divergence = None
    if ok and bad:
        divergence = next((i for i, (x, y) in enumerate(zip(ok, bad, strict=False)) if x != y), min(len(ok), len(bad)))
    return TaskEvidence(task=task, bucket=bucket, attempts=attempts, pass_keystrokes=ok, fail_keystrokes=bad,
                        divergence_step=divergence, pair_source="same-epoch" if ok and bad else None,
                        instruction=(POOL / task / "instruction.md").read_text())


@pytest.fixture(scope="module")
def real_evidence(tmp_path_factory) -> list[TaskEvidence]:
    run_dir = tmp_path_factory.mktemp("evolve") / "run"
    config = RunConfig(tasks=[POOL / t for t in REAL_TASKS], k=3, concurrency=6)
    asyncio.run(execute(config, run_dir))
    return [_evidence(run_dir, t) for t in REAL_TASKS]


async def test_real_trajectories_through_both_analysts(real_evidence):
    for evidence in real_evidence:
        kind = finding_kind(evidence)
        assert kind == {0: "single-sided", 3: "efficiency"}.get(evidence.pass_count, "contrastive")
        for lens in ("agent_loop", "tool_use", "observation", "context", "completion"):
            finding = await analyse(evidence, lens, SIM)
            assert finding.kind == kind and finding.attempts == 3
            assert bool(finding.suggested_change) == finding.is_culprit
        model = ScriptedModel([json.dumps({**VALID, "locked_module": "completion"})])
        llm_finding = await analyse(evidence, "completion", LLMAnalyst(model))
        assert llm_finding.parse_error is None
        rules = await analyse(evidence, "completion", SIM)
        if rules.locked_module not in (None, "completion"):  # the measurements blame another module
            assert not llm_finding.is_culprit and llm_finding.locked_module == rules.locked_module
        else:
            assert llm_finding.is_culprit
        prompt = model.calls[0][-1].content
        assert evidence.task in prompt and len(prompt) < 8_000
