"""The reason a trial could not start, as the validation table and ``validation.json`` show it: an image
build that failed keeps its failing step and its cause, never only Harbor's compose command line."""

from __future__ import annotations

from datetime import UTC, datetime

from build_messages import PODMAN_APT_VERSION, PODMAN_COPY_FROM, harbor_message
from harbor.models.task.id import LocalTaskId
from harbor.models.trial.config import TaskConfig, TrialConfig
from harbor.models.trial.result import AgentInfo, ExceptionInfo, TrialResult

from modularrsi.tasks.trials import invalid_reason


def failed_build(tmp_path, message: str) -> TrialResult:
    """A trial whose environment never started: Harbor recorded the compose command's RuntimeError."""
    info = ExceptionInfo(exception_type="RuntimeError", exception_message=message, exception_traceback="",
                         occurred_at=datetime.now(UTC))
    return TrialResult(task_name="uv-task", trial_name="uv-task__oracle1", trial_uri=tmp_path.as_uri(),
                       task_id=LocalTaskId(path=tmp_path), task_checksum="0",
                       config=TrialConfig(task=TaskConfig(path=tmp_path)),
                       agent_info=AgentInfo(name="oracle", version="0"), exception_info=info)


def test_a_failed_image_build_is_reported_by_its_step_and_cause(tmp_path):
    reason = invalid_reason(failed_build(tmp_path, harbor_message(PODMAN_APT_VERSION)))
    assert reason == ("the episode never started: RuntimeError: image build failed at STEP 3/7: RUN apt-get update "
                      "&& apt-get install -y --no-install-recommends foo=1.2 && rm -rf /var/lib/apt/lists/*: "
                      "E: Version '1.2' for 'foo' was not found (exit status 100)")
    missing = invalid_reason(failed_build(tmp_path, harbor_message(PODMAN_COPY_FROM)))
    assert "STEP 2/6: COPY --from=ghcr.io/astral-sh/uv:0.8.15" in missing
    assert missing.endswith("no stage or image found with that name (exit 125)") and "podman-compose" not in missing
