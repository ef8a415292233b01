"""Sandboxes for trials: ``LocalSandbox`` (bubblewrap) is the embedded default."""

from modularrsi.sandbox.dockerfile import DockerfileRefused, EnvironmentPlan, parse_dockerfile
from modularrsi.sandbox.local import LocalSandbox, SandboxLimitExceeded

__all__ = ["DockerfileRefused", "EnvironmentPlan", "LocalSandbox", "SandboxLimitExceeded",
           "parse_dockerfile"]
