"""Harbor's podman and docker environments on a machine without an image registry (``--env podman``,
``--env docker``).

Each is Harbor's own environment (``PodmanEnvironment``, ``DockerEnvironment``) unchanged wherever the
registry's images are there; where they are not, three stand-ins take their place:

- **the kernel probe** Harbor runs before turning on network control (a digest-pinned Alpine image)
  runs its same script in the local Debian base instead (``modularrsi images bootstrap``);
- **the egress-control sidecar** (built FROM a digest-pinned gost image) is built from the local
  Debian base with nftables, Harbor's own entrypoint and ``network-policy`` script, and a gost
  stand-in that proxies nothing. ``no-network`` is then enforced by the same nftables rules (every
  outbound connection of the task's container is refused); ``allowlist`` needs gost's SNI proxy,
  so a task asking for it is refused with one line, never run open;
- **digest-pinned bases** (``FROM image:tag@sha256:…``) build from the local image of that name and
  tag when the engine has one: the trial builds from a copy of the environment whose Dockerfile
  drops the digest (an engine cannot hold an image under another manifest's digest).

Repeated trials of one task reuse its built image: teardown removes the containers and keeps the
image (Harbor's ``delete`` teardown would remove it and every attempt would rebuild).
"""

from __future__ import annotations

import asyncio
import functools
import json
import re
import shutil
import subprocess
import tempfile
import tomllib
from pathlib import Path
from typing import Any, override

from harbor.environments.docker import EGRESS_CONTROL_SIDECAR_CONTEXT_PATH
from harbor.environments.docker.docker import DockerEnvironment
from harbor.environments.podman import PodmanEnvironment
from harbor.models.task.config import NetworkMode, NetworkPolicy

from modularrsi.util.hostenv import compose_host_env

LOCAL_BASES = ("localhost/modularrsi-debian:bookworm-hostca", "localhost/modularrsi-debian:bookworm")
GOST_STANDIN = "#!/bin/sh\n# Stand-in for gost: proxies nothing (no-network mode needs only the nftables rules).\n" \
               "exec sleep infinity\n"
_PINNED_FROM = re.compile(r"^(\s*FROM\s+(?:--\S+\s+)*)(\S+)@sha256:[0-9a-f]+", re.IGNORECASE | re.MULTILINE)


def _engine(engine: str, *args: str, timeout: float = 60) -> subprocess.CompletedProcess:
    return subprocess.run([engine, *args], capture_output=True, timeout=timeout)


def _has_image(engine: str, ref: str) -> bool:
    return _engine(engine, "image", "inspect", ref).returncode == 0


@functools.cache
def local_base(engine: str = "podman") -> str | None:
    """The local Debian base the stand-ins build on (``images bootstrap`` makes it), if any."""
    return next((ref for ref in LOCAL_BASES if _has_image(engine, ref)), None)


def registry_image_missing(dockerfile: Path, engine: str = "podman") -> bool:
    """True when a FROM of ``dockerfile`` names an image the engine does not hold."""
    images = re.findall(r"^\s*FROM\s+(?:--\S+\s+)*(\S+)", dockerfile.read_text(), re.IGNORECASE | re.MULTILINE)
    return any(not _has_image(engine, image) for image in images)


class _Offline:
    """What both offline environments add to Harbor's: the stand-ins, the kept image, the process
    ceiling. Mixed in ahead of Harbor's class; ``ENGINE`` names the engine's CLI."""

    ENGINE = "podman"
    _EGRESS_CONTROL_KERNEL_PROBE_IMAGE: str
    _EGRESS_CONTROL_KERNEL_PROBE_SCRIPT: str

    def __init__(self, environment_dir: Path, *args: Any, trial_paths: Any = None, **kwargs: Any) -> None:
        self._task_toml = Path(environment_dir).parent / "task.toml"  # the task's, not the unpinned copy's
        if trial_paths:
            environment_dir = unpinned_copy(environment_dir, trial_paths.trial_dir, self.ENGINE)
        super().__init__(environment_dir, *args, trial_paths=trial_paths, **kwargs)

    @classmethod
    @functools.cache
    @override
    def _egress_control_kernel_support(cls) -> bool:
        base = local_base(cls.ENGINE)
        if _has_image(cls.ENGINE, cls._EGRESS_CONTROL_KERNEL_PROBE_IMAGE) or base is None:
            return super()._egress_control_kernel_support()
        script = cls._EGRESS_CONTROL_KERNEL_PROBE_SCRIPT
        done = _engine(cls.ENGINE, "container", "run", "--rm", base, "sh", "-c", script)
        return done.returncode == 0

    @classmethod
    def sidecar_standin_needed(cls) -> bool:
        return registry_image_missing(EGRESS_CONTROL_SIDECAR_CONTEXT_PATH / "Dockerfile", cls.ENGINE)

    @override
    def validate_network_policy_support(self, network_policy: NetworkPolicy | None = None) -> None:
        policy = network_policy or self.network_policy
        if policy.network_mode == NetworkMode.ALLOWLIST and self.sidecar_standin_needed():
            raise ValueError("network_mode='allowlist' needs Harbor's gost egress proxy image, which this machine "
                             "cannot pull (no registry); run the task where the registry is reachable")
        super().validate_network_policy_support(network_policy)

    @override
    async def _ensure_egress_control_sidecar_image_built(self) -> None:
        """Harbor's own sidecar image where its base can be had; else the stand-in, which the trial's
        compose file then names (the one setting Harbor's build step makes)."""
        if not self.sidecar_standin_needed():
            await super()._ensure_egress_control_sidecar_image_built()
            return
        name = standin_name()
        await asyncio.to_thread(build_sidecar_standin, self.ENGINE, name)  # minutes, once: off the event loop
        self._env_vars.egress_control_sidecar_image_name = name

    @override
    async def stop(self, delete: bool) -> None:
        """Containers go; the task's built image stays, so the next trial of the task reuses it
        (Harbor's teardown for ``delete`` also removes local images: a rebuild per attempt)."""
        await super().stop(delete=False)

    @override
    def _compose_env_vars(self, include_os_env: bool = True) -> dict[str, str]:
        """Harbor's compose environment with, of the host's own, only what the engine's CLI needs and
        what the user names (:func:`modularrsi.util.hostenv.compose_host_env`): a task's compose file
        interpolates ``${NAME}`` from this environment, and must not read the host's secrets."""
        env = super()._compose_env_vars(include_os_env=False)
        return {**compose_host_env(), **env} if include_os_env else env

    @override
    async def _write_resources_compose_file(self) -> Path:
        """Harbor's resource override plus a process ceiling: ``pids_max`` from task.toml's
        [environment] (LocalSandbox's default, 1024, when absent), as LocalSandbox enforces."""
        path = await super()._write_resources_compose_file()
        compose = json.loads(path.read_text())
        main = compose.setdefault("services", {}).setdefault("main", {})
        main["pids_limit"] = pids_max(self._task_toml)
        path.write_text(json.dumps(compose))
        return path


class OfflinePodman(_Offline, PodmanEnvironment):
    """Harbor's podman environment, with local stand-ins for registry images it cannot pull."""

    ENGINE = "podman"


class OfflineDocker(_Offline, DockerEnvironment):
    """Harbor's docker environment, with local stand-ins for registry images it cannot pull."""

    ENGINE = "docker"


def pids_max(task_toml: Path, default: int = 1024) -> int:
    try:
        value = tomllib.loads(task_toml.read_text()).get("environment", {}).get("pids_max")
    except (OSError, tomllib.TOMLDecodeError):
        value = None
    return int(value) if isinstance(value, int) and value > 0 else default


def standin_name() -> str:
    """The stand-in's tag: Harbor's sidecar name with ``standin`` and the hash of Harbor's sidecar
    context (a Harbor upgrade that changes the sidecar gets a new stand-in; never Harbor's own tag)."""
    from harbor.utils.container_cache import docker_build_context_hash

    digest = docker_build_context_hash(context=EGRESS_CONTROL_SIDECAR_CONTEXT_PATH)
    return f"{DockerEnvironment._EGRESS_CONTROL_SIDECAR_DOCKER_NAME}--standin-{digest}"


def build_sidecar_standin(engine: str, name: str) -> None:
    """Build the sidecar stand-in under ``name`` (Harbor's content-addressed tag) unless it exists."""
    if _has_image(engine, name):
        return
    base = local_base(engine)
    if base is None:
        raise RuntimeError("no local Debian base for the network-control stand-in; run "
                           "'modularrsi images bootstrap debian:bookworm-slim' first")
    with tempfile.TemporaryDirectory(prefix="egress-standin-") as tmp:
        context = Path(tmp)
        shutil.copytree(EGRESS_CONTROL_SIDECAR_CONTEXT_PATH, context, dirs_exist_ok=True)
        policy = context / "bin" / "network-policy"  # Debian's nft 1.0.6 knows no 'dstnat' on the output hook
        policy.write_text(policy.read_text().replace("hook output priority dstnat", "hook output priority -100"))
        (context / "gost").write_text(GOST_STANDIN)
        (context / "Dockerfile").write_text(
            f"FROM {base}\n"
            "RUN apt-get update -qq && apt-get install -y -qq --no-install-recommends nftables >/dev/null "
            "&& rm -rf /var/lib/apt/lists/*\n"
            "COPY gost.yaml allowlist.txt /opt/egress-sidecar/\n"
            "COPY entrypoint.sh /opt/egress-sidecar/entrypoint.sh\n"
            "COPY bin/network-policy /usr/local/bin/network-policy\n"
            "COPY gost /bin/gost\n"
            "RUN chmod 755 /opt/egress-sidecar/entrypoint.sh /usr/local/bin/network-policy /bin/gost\n"
            "LABEL org.modularrsi.standin=harbor-egress-sidecar\n")
        done = _engine(engine, "build", "-q", "-t", name, str(context), timeout=900)
        if done.returncode != 0:
            tail = done.stderr.decode(errors="replace").strip().splitlines()[-1:] or [""]
            raise RuntimeError(f"building the network-control stand-in failed: {tail[0]}")


def unpinned_copy(environment_dir: Path, trial_dir: Path, engine: str = "podman") -> Path:
    """``environment_dir`` itself, or — when its Dockerfile pins a base by digest that the engine has
    only by tag — a copy under the trial directory whose FROM lines drop the digest."""
    dockerfile = environment_dir / "Dockerfile"
    if not dockerfile.is_file():
        return environment_dir
    text = dockerfile.read_text()
    pinned = [m.group(2) for m in _PINNED_FROM.finditer(text)]
    if not pinned or any(not _has_image(engine, ref) for ref in pinned):
        return environment_dir
    copy = trial_dir / "environment-unpinned"
    if copy.exists():
        shutil.rmtree(copy)
    shutil.copytree(environment_dir, copy, symlinks=True)
    (copy / "Dockerfile").write_text(_PINNED_FROM.sub(r"\1\2", text))
    return copy
