"""Every image a task needs from an image store, and where the task names it.

A Dockerfile names images in ``FROM`` (a base), ``COPY|ADD --from=<image>`` and ``RUN --mount=…,from=<image>``
(files out of another image); ``--from`` naming one of the file's own build stages (by ``AS`` name or
index) is no image. A task names images in its ``environment/Dockerfile``, in ``task.toml``'s
``[environment] docker_image`` (a prebuilt image Harbor uses in place of the Dockerfile), in
``environment/docker-compose.yaml`` (a service's ``image:``, or the Dockerfile its ``build:`` names; an
``image:`` beside a ``build:`` is the name the build is tagged with, not an image to have), and in a
separate verifier's environment (``tests/Dockerfile``, its compose file or its ``docker_image``: Harbor's
``environment_mode = "separate"``, resolved by Harbor's own rules).

Invariants: ARG defaults declared before the first ``FROM`` are expanded, as a build does; ``scratch`` is
no image; an unreadable compose file or task.toml names no image here (Harbor reports it at trial time).
"""

from __future__ import annotations

import re
import shlex
from dataclasses import dataclass
from pathlib import Path

import yaml

from modularrsi.util.dockerfile_text import instructions

_VARIABLE = re.compile(r"\$\{(\w+)(?::?-([^}]*))?\}|\$(\w+)")


@dataclass(frozen=True)
class ImageUse:
    """One place a task names an image: ``how`` (FROM, COPY --from, …) and ``where`` (file, line)."""

    image: str
    how: str
    where: str

    def __str__(self) -> str:
        return f"{self.how} at {self.where}"


def task_images(task_dir: Path) -> list[ImageUse]:
    """Every image ``task_dir`` needs, in the order the task names them (repeats kept)."""
    env_dir = task_dir / "environment"
    prebuilt = _prebuilt_image(task_dir)
    uses = [ImageUse(prebuilt, "docker_image", "task.toml")] if prebuilt else \
        _dockerfile_uses(env_dir / "Dockerfile", task_dir)
    uses += _compose_uses(env_dir / "docker-compose.yaml", task_dir, skip={env_dir / "Dockerfile"})
    return uses + _verifier_uses(task_dir)


def dockerfile_images(dockerfile: Path) -> list[str]:
    """The images one Dockerfile names (FROM, COPY --from, RUN --mount from), in order."""
    return [use.image for use in _dockerfile_uses(dockerfile, dockerfile.parent)]


def _dockerfile_uses(dockerfile: Path, root: Path) -> list[ImageUse]:
    try:
        parsed = instructions(dockerfile.read_text())
    except OSError:
        return []
    where = str(dockerfile.relative_to(root)) if dockerfile.is_relative_to(root) else str(dockerfile)
    args: dict[str, str] = {}  # the ARGs declared before the first FROM: what FROM and --from may use
    stages: set[str] = set()
    uses: list[ImageUse] = []
    first_from = next((n for n, i in enumerate(parsed) if i.keyword == "FROM"), len(parsed))
    for number, instruction in enumerate(parsed):
        if instruction.keyword == "ARG" and number < first_from:
            args.update(token.partition("=")[::2] for token in _words(instruction.rest))
            continue
        for how, image in _named_images(instruction.keyword, instruction.rest, stages):
            image = _expand(image, args)
            if image and image.lower() not in stages and image != "scratch" and not image.isdigit():
                uses.append(ImageUse(image, how, f"{where}:{instruction.line}"))
    return uses


def _named_images(keyword: str, rest: str, stages: set[str]) -> list[tuple[str, str]]:
    """``(how, image or stage)`` for what one instruction names; a FROM adds its ``AS`` name to ``stages``."""
    words = _words(rest)
    if keyword == "FROM":
        plain = [w for w in words if not w.startswith("--")]
        found = [("FROM", plain[0])] if plain else []
        if len(plain) >= 3 and plain[1].upper() == "AS":
            stages.add(plain[2].lower())
        return found
    flags = [w for w in words if w.startswith("--")]
    if keyword in ("COPY", "ADD"):
        return [(f"{keyword} --from", f.partition("=")[2]) for f in flags if f.startswith("--from=")]
    if keyword == "RUN":
        options = [o for f in flags if f.startswith("--mount=") for o in f.partition("=")[2].split(",")]
        return [("RUN --mount from", o.partition("=")[2]) for o in options if o.startswith("from=")]
    return []


def _words(rest: str) -> list[str]:
    try:
        return shlex.split(rest)
    except ValueError:
        return rest.split()


def _expand(value: str, variables: dict[str, str]) -> str:
    """``$VAR``, ``${VAR}`` and ``${VAR:-default}`` from ``variables`` (an unset one is its default or empty)."""
    return _VARIABLE.sub(lambda m: variables.get(m[1] or m[3]) or (m[2] or ""), value)


def _compose_uses(compose: Path, task_dir: Path, skip: set[Path]) -> list[ImageUse]:
    """The images of a compose file's services: ``image:`` of a service that builds nothing, and the
    images of the Dockerfile each ``build:`` names (``skip``: Dockerfiles already read)."""
    services = _load_yaml(compose).get("services") or {}
    uses: list[ImageUse] = []
    for name, service in services.items() if isinstance(services, dict) else ():
        build = service.get("build") if isinstance(service, dict) else None
        if name == "main" and build is None:
            continue  # Harbor's own compose file builds main from the environment's Dockerfile
        if build is None and isinstance(service, dict) and service.get("image"):
            where = str(compose.relative_to(task_dir))
            uses.append(ImageUse(_expand(str(service["image"]), {}), f"compose service {name}", where))
        elif build is not None:
            context = build if isinstance(build, str) else str(build.get("context", "."))
            dockerfile = "Dockerfile" if isinstance(build, str) else str(build.get("dockerfile", "Dockerfile"))
            path = (compose.parent / context / dockerfile).resolve()
            if path not in {p.resolve() for p in skip}:
                uses += _dockerfile_uses(path, task_dir.resolve())
    return uses


def _load_yaml(path: Path) -> dict:
    try:
        data = yaml.safe_load(path.read_text())
    except (OSError, yaml.YAMLError):
        return {}
    return data if isinstance(data, dict) else {}


def _prebuilt_image(task_dir: Path) -> str | None:
    """``[environment] docker_image`` of task.toml (Harbor then uses that image, not the Dockerfile)."""
    import tomllib

    try:
        environment = tomllib.loads((task_dir / "task.toml").read_text()).get("environment", {})
    except (OSError, tomllib.TOMLDecodeError):
        return None
    image = environment.get("docker_image") if isinstance(environment, dict) else None
    return image if isinstance(image, str) and image else None


def _verifier_uses(task_dir: Path) -> list[ImageUse]:
    """The images of a separate verifier environment that brings its own definition (Harbor's rules)."""
    from harbor.models.task.config import TaskConfig
    from harbor.models.task.paths import TaskPaths
    from harbor.models.task.verifier_mode import resolve_verifier_environment_definition

    try:
        config = TaskConfig.model_validate_toml((task_dir / "task.toml").read_text())
        paths = TaskPaths(task_dir)
        definitions = [resolve_verifier_environment_definition(config, paths, step, validate_inputs=False)
                       for step in config.steps or [None]]
    except (OSError, ValueError, RuntimeError):
        return []
    uses: list[ImageUse] = []
    for definition in definitions:
        if definition is None or not definition.bundled_tests:
            continue  # shared with the agent's environment, or a fresh copy of it: already counted
        if definition.config.docker_image:
            uses.append(ImageUse(definition.config.docker_image, "verifier docker_image", "task.toml"))
            continue
        uses += _dockerfile_uses(definition.directory / "Dockerfile", task_dir)
        uses += _compose_uses(definition.directory / "docker-compose.yaml", task_dir,
                              skip={definition.directory / "Dockerfile"})
    return uses
