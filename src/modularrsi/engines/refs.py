"""Image references as tasks write them: registry prefix, repository, tag, digest, and the Debian
suite a reference names."""

from __future__ import annotations

from dataclasses import dataclass

#: Registry prefixes under which tasks name Docker Hub's official images.
REGISTRY_PREFIXES = ("docker.io/library/", "docker.io/", "index.docker.io/library/", "library/",
                     "public.ecr.aws/docker/library/", "mirror.gcr.io/library/")
#: Debian suites that can be bootstrapped, by every tag that names them.
SUITES = {"bookworm": ("bookworm", "bookworm-slim", "12", "12-slim"),
          "trixie": ("trixie", "trixie-slim", "13", "13-slim")}


@dataclass(frozen=True)
class ImageRef:
    """An image reference split into repository (registry prefix removed), tag and digest."""

    raw: str
    repository: str
    tag: str
    digest: str = ""

    @property
    def pinned(self) -> bool:
        return bool(self.digest)

    @property
    def local_name(self) -> str:
        """The reference without its digest: what a local build is tagged as."""
        return self.raw.split("@")[0]


def parse_ref(raw: str) -> ImageRef:
    name, _, digest = raw.partition("@")
    last = name.rsplit("/", 1)[-1]
    tag = last.partition(":")[2] or "latest"
    repository = name[: len(name) - len(tag) - 1] if ":" in last else name
    for prefix in REGISTRY_PREFIXES:
        if repository.startswith(prefix):
            repository = repository[len(prefix):]
            break
    return ImageRef(raw, repository, tag, digest)


def suite_of(ref: ImageRef) -> str | None:
    """The Debian suite a reference names, if it names one."""
    if ref.repository != "debian":
        return None
    return next((suite for suite, tags in SUITES.items() if ref.tag in tags), None)
