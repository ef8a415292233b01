"""LocalSandbox's options, set with ``--ek key=value`` (Harbor CLI) or ``environment.kwargs``."""

from __future__ import annotations

from harbor.environments.options import EnvironmentOptions
from pydantic import Field

from modularrsi.sandbox.storage import DEFAULT_STORAGE_MB


class LocalSandboxOptions(EnvironmentOptions):
    """Options for ``--ek key=value`` (Harbor CLI) or ``environment.kwargs``."""

    auto_mounting: bool = Field(default=False, description="Must stay false: no host directory is "
                                "mounted into a LocalSandbox; Harbor copies logs out.")
    pids_max: int | None = Field(default=None, description="Process ceiling; default task.toml "
                                 "[environment].pids_max, else 1024.")
    storage_mb: int | None = Field(default=None, description="Disk cap in MB for everything the trial "
                                   f"writes; default task.toml storage_mb, else {DEFAULT_STORAGE_MB}.")
    writable: list[str] = Field(default_factory=list, description="Extra absolute paths to make "
                                "writable (each becomes a private directory).")
    keep_files: bool = Field(default=False, description="Keep the sandbox's host directory (its disk "
                             "image) after stop (it lives under the trial directory).")
    exec_server: bool = Field(default=True, description="Start commands from a per-sandbox exec server "
                              "(one fork each); false: a fresh nsenter chain per command.")
    verifier_isolation: bool = Field(default=True, description="When the tests are uploaded to /tests "
                                     "(the verifier's start), kill every process left by the agent phase "
                                     "(services the agent started are not running during the verifier) and "
                                     "empty /tests and /logs/verifier.")
