"""Staging generations the way a careless editor would: gen_0 with edited files, unvalidated."""

from __future__ import annotations

import hashlib
import json
import shutil
from pathlib import Path

from modularrsi.harness import BASELINE
from modularrsi.harness.library import load_generation
from modularrsi.harness.manifest import GenerationManifest

BASE = load_generation(BASELINE)


def staged(tmp_path: Path, edits: dict[str, str], manifest_edit=None, reseal: bool = True) -> Path:
    """gen_0 copied with ``{"<module>/<name>": source}`` written and the manifest re-sealed, without the
    loader's validation (so broken code can be staged, as a careless editor would)."""
    target = tmp_path / "staging"
    shutil.copytree(BASELINE, target, ignore=shutil.ignore_patterns("__pycache__"))
    manifest = json.loads((target / "manifest.json").read_text())
    for key, source in edits.items():
        (target / "modules" / f"{key}.py").write_text(source)
        for entry in manifest["functions"]:
            if f"{entry['module']}/{entry['name']}" == key:
                entry["sha256"] = hashlib.sha256(source.encode()).hexdigest()
    manifest.update(parents=[BASE.id], created_by="test")
    if manifest_edit:
        manifest_edit(manifest)
    if reseal:
        manifest["id"] = GenerationManifest.model_validate(manifest).seal_id()
    (target / "manifest.json").write_text(json.dumps(manifest, indent=2) + "\n")
    return target
