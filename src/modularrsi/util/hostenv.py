"""Which of the host's environment variables a task may read: only those the user names.

Harbor fills ``${NAME}`` and ``${NAME:-default}`` in a task's ``env`` tables (``[environment.env]``,
``[verifier.env]``, ``[solution.env]``, those of steps and MCP servers) from the orchestrator's own
environment, so a task written by others could copy an API key into its sandbox and its verifier. A
task is untrusted input: its trial is refused before it starts when its task.toml names a host variable
the user has not listed in ``MODULARRSI_PASS_ENV`` (comma-separated names).
"""

from __future__ import annotations

import os
import re
import tomllib
from collections.abc import Iterator
from pathlib import Path

from modularrsi.util.errors import UserError

PASS_ENV = "MODULARRSI_PASS_ENV"
#: Harbor's template syntax (``harbor.utils.env``): ``${NAME}`` or ``${NAME:-default}``, whole or embedded.
_TEMPLATE = re.compile(r"\$\{([^}:]+)(?::-[^}]*)?\}")


#: Host variables a container engine's compose CLI needs to find its engine, storage, credentials and
#: proxy; every other host variable stays out of the environment a task's compose file is read in.
COMPOSE_HOST_VARIABLES = ("PATH", "HOME", "USER", "LOGNAME", "LANG", "LC_ALL", "TMPDIR", "TERM", "XDG_RUNTIME_DIR",
                          "XDG_CONFIG_HOME", "XDG_DATA_HOME", "CONTAINERS_CONF", "CONTAINERS_STORAGE_CONF",
                          "CONTAINERS_REGISTRIES_CONF", "DOCKER_HOST", "DOCKER_CONFIG", "DOCKER_CERT_PATH",
                          "DOCKER_TLS_VERIFY", "DOCKER_BUILDKIT", "COMPOSE_DOCKER_CLI_BUILD", "BUILDAH_FORMAT",
                          "HTTP_PROXY", "HTTPS_PROXY", "NO_PROXY", "http_proxy", "https_proxy", "no_proxy",
                          "SSL_CERT_FILE", "REQUESTS_CA_BUNDLE")


class HostVariableRefused(UserError):
    """A task's env table names a host variable the user did not let through (one line: which, and how)."""


def passed_names() -> frozenset[str]:
    """The host variables the user lets into trials (``MODULARRSI_PASS_ENV``)."""
    return frozenset(name.strip() for name in os.environ.get(PASS_ENV, "").split(",") if name.strip())


def compose_host_env() -> dict[str, str]:
    """The host variables a compose command runs with: :data:`COMPOSE_HOST_VARIABLES` and those named."""
    keep = set(COMPOSE_HOST_VARIABLES) | passed_names()
    return {name: value for name, value in os.environ.items() if name in keep}


def host_variables(table: object, where: str = "") -> Iterator[tuple[str, str, str]]:
    """``(table, key, variable)`` for every template inside any ``env`` table of a parsed task.toml."""
    if isinstance(table, list):
        for i, item in enumerate(table):
            yield from host_variables(item, f"{where}[{i}]")
    if not isinstance(table, dict):
        return
    for key, value in table.items():
        inner = f"{where}.{key}" if where else str(key)
        if key == "env" and isinstance(value, dict):
            for name, text in value.items():
                for match in _TEMPLATE.finditer(str(text)):
                    yield inner, str(name), match.group(1)
        else:
            yield from host_variables(value, inner)


def check_host_env(task_dir: Path) -> None:
    """Refuse ``task_dir`` when its task.toml reads a host variable not in ``MODULARRSI_PASS_ENV``."""
    toml = task_dir / "task.toml"
    try:
        raw = tomllib.loads(toml.read_text())
    except (OSError, tomllib.TOMLDecodeError):
        return  # the task's loader reports an unreadable task.toml in its own words
    allowed = passed_names()
    refused = [(table, key, name) for table, key, name in host_variables(raw) if name not in allowed]
    if refused:
        table, key, name = refused[0]
        more = f" (and {len(refused) - 1} more)" if len(refused) > 1 else ""
        raise HostVariableRefused(f"{task_dir.name}: task.toml [{table}] {key} reads the host variable {name}"
                                  f"{more}; a task may read only host variables you name: set "
                                  f"{PASS_ENV}={','.join(sorted({n for _, _, n in refused}))} to let them in")
