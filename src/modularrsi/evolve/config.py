"""What an evolution asks for (``modularrsi evolve --config FILE``): every knob documented and validated.

A minimal file::

    tasks: [tasks/pool]
    model: sim
    epochs: 3

``modularrsi evolve --print-config`` prints every field with its default and description.
"""

from __future__ import annotations

import typing
from pathlib import Path
from typing import Any, Literal

import yaml
from pydantic import BaseModel, ConfigDict, Field, model_validator

from modularrsi.evolve.aggregate import AggregateConfig
from modularrsi.evolve.analysis import SimAnalystConfig
from modularrsi.evolve.buckets import BucketConfig
from modularrsi.evolve.editor_prompt import EditFormat
from modularrsi.evolve.gates.execution import ExecutionConfig
from modularrsi.evolve.gates.review import ReviewConfig
from modularrsi.harness.protocols import MODULES
from modularrsi.rollouts.config import TrialSettings
from modularrsi.util.errors import UserError
from modularrsi.util.jsontypes import Options
from modularrsi.util.settings import load_settings

Mode = Literal["lanes", "joint", "monolithic"]


class EditorConfig(BaseModel):
    model_config = ConfigDict(extra="forbid")

    bad_rate: float = Field(default=0.25, ge=0, le=1, description="sim editor: share of deliberately bad patches "
                            "(syntax error, scope violation, task-specific hack, regression) so every gate works.")
    max_turns: int = Field(default=16, ge=2, description="LLM editor: tool-call replies per edit.")
    format: EditFormat = Field(default="json", description="LLM editor: how it works - json (tool calls as JSON "
                               "objects, asked for by JSON schema), blocks (tool calls as JSON lines with the code in "
                               "fenced blocks after them) or guided (no tools: asked for the file, then a "
                               "description; for a model too small to drive the tool loop).")
    candidates: int = Field(default=2, ge=1, description="Racing: candidate mechanisms written per direction; "
                            "each is screened, the best-screened confirmed (the runner-up at a share of alpha).")
    retries: int = Field(default=1, ge=0, description="Further edits per direction replacing candidates the "
                         "editor, the static gate or review refused.")
    replies: int = Field(default=6, ge=0, description="LLM editor of Tool Use and Context: the agent model's refused "
                         "replies (and as many read ones) taken from the direction's trials, shown to it (and run "
                         "through an edited parse before the gates, evolve/reply_cases.py); 0 turns this off.")


class GateSettings(BaseModel):
    model_config = ConfigDict(extra="forbid")

    review: ReviewConfig = Field(default_factory=ReviewConfig, description="Reward-blind review settings.")
    execution: ExecutionConfig = Field(default_factory=ExecutionConfig, description="Paired execution test "
                                       "(its k and seed are set from the epoch's sample).")
    anchors: int = Field(default=4, ge=0, description="All-pass tasks run as regression anchors per proposal.")
    max_evidence_tasks: int = Field(default=8, ge=1, description="Supporting tasks run per proposal (highest "
                                    "evidence weight first).")


class IntegrationConfig(BaseModel):
    model_config = ConfigDict(extra="forbid")

    enabled: bool = Field(default=True, description="Run the combined library on the pool and resolve conflicts "
                          "(False: combine the lanes' modules without that check).")
    conflict_min_tasks: int = Field(default=1, ge=1, description="Confirmed conflict tasks (a lane's generation "
                                    "passes, the combined library never does) needed before resolving.")
    merge_similarity: float = Field(default=0.9, gt=0, le=1, description="Function Merge: two functions of a "
                                    "module whose normalised code is at least this alike become one.")


class EvolveConfig(TrialSettings):
    """Settings of ``modularrsi evolve`` (defaults → file → command-line flags); the trial settings it
    shares with ``run`` are :class:`~modularrsi.rollouts.config.TrialSettings`'s."""

    epochs: int = Field(default=3, ge=1, description="Epochs per lane.")
    modules: list[str] = Field(default_factory=lambda: list(MODULES), description="Modules that evolve.")
    mode: Mode = Field(default="lanes", description="lanes: one lane per module, then integration (the method); "
                       "joint: all modules in one lane (ablation --joint); monolithic: one lane without the "
                       "module lock (ablation --monolithic).")
    contrast: bool = Field(default=True, description="Contrastive pass/fail analysis (False: --no-contrast).")
    max_directions: int = Field(default=2, ge=1, description="Directions tried per lane and epoch (by vote).")
    promotions_per_epoch: int = Field(default=1, ge=1, description="Accepted changes per lane and epoch.")
    buckets: BucketConfig = Field(default_factory=BucketConfig, description="Routing thresholds.")
    aggregate: AggregateConfig = Field(default_factory=AggregateConfig, description="Merging and voting.")
    analyst: SimAnalystConfig = Field(default_factory=SimAnalystConfig, description="Symptom thresholds: the sim "
                                      "analyst's rules, and the measurements the LLM analyst is shown.")
    editor: EditorConfig = Field(default_factory=EditorConfig, description="Editor settings.")
    gates: GateSettings = Field(default_factory=GateSettings, description="Gate settings.")
    integration: IntegrationConfig = Field(default_factory=IntegrationConfig, description="Integration and merge.")
    eval_tasks: list[Path] = Field(default_factory=list, description="Held-out tasks: after freezing, evaluate "
                                   "the frozen library against the starting generation on them (paired).")
    eval_k: int = Field(default=3, ge=1, description="Attempts per held-out task and side.")
    eval_manifest: Path | None = Field(default=None, description="The held-out tasks' manifest: evaluate only on "
                                       "its selection (`tasks select` on the held-out tier, chosen before any "
                                       "result, e.g. by the starting generation's measured difficulty); a run "
                                       "reaching its evaluation before the selection exists stops there.")
    share_from: Path | None = Field(default=None, description="Another evolution run with the same agent, trial "
                                    "settings, tasks, seed and held-out tasks (e.g. the other editor arm): its "
                                    "rollouts of a generation and seed, its held-out baseline side and its role "
                                    "replies are copied in before this run would make them (evolve/share.py).")

    @model_validator(mode="after")
    def _check(self) -> EvolveConfig:
        unknown = [m for m in self.modules if m not in MODULES]
        if unknown:
            raise UserError(f"module '{unknown[0]}' is unknown; valid: {', '.join(MODULES)}")
        if not self.modules:
            raise UserError("modules is empty; name at least one of " + ", ".join(MODULES))
        if not self.tasks:
            raise UserError("tasks is empty; give the evolution task directories")
        return self

    @classmethod
    def load(cls, path: Path | None, overrides: Options | None = None) -> EvolveConfig:
        return load_settings(cls, path, overrides)


def describe(model: type[BaseModel] = EvolveConfig, indent: str = "") -> list[str]:
    """``field: default  # description`` lines of a settings model, nested models indented. A nested model
    that is off by default (``roles: null``) shows its fields as comment lines, once per model type: a
    second field of the same type says whose fields it has."""
    lines, shown_types = [], {}
    for name, field in model.model_fields.items():
        sub = _settings_model(field.annotation)
        if sub is not None and not field.is_required() and field.get_default(call_default_factory=True) is None:
            lines.append(f"{indent}{name}: null  # {field.description or ''}")
            if sub in shown_types:
                lines[-1] += f" Fields as {shown_types[sub]}'s."
            else:
                shown_types[sub] = name
                lines.extend(describe(sub, indent + "#   "))
            continue
        if sub is not None:
            lines.append(f"{indent}{name}:  # {field.description or ''}")
            shown_types.setdefault(sub, name)
            lines.extend(describe(sub, indent + "  "))
            continue
        if field.is_required():
            lines.append(f"{indent}{name}:   # required: {field.description or ''}")
            continue
        default = field.get_default(call_default_factory=True)
        shown = yaml.safe_dump(default, default_flow_style=True).strip().removesuffix("...").strip() \
            if not isinstance(default, Path) else str(default)
        lines.append(f"{indent}{name}: {shown}  # {field.description or ''}")
    return lines


def _settings_model(annotation: Any) -> type[BaseModel] | None:
    """The settings model of a field typed ``M`` or ``M | None``; None for any other type."""
    for candidate in (annotation, *typing.get_args(annotation)):
        if isinstance(candidate, type) and issubclass(candidate, BaseModel):
            return candidate
    return None
