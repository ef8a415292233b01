"""Offline-by-default settings: nothing calls out unless the user configures a model endpoint."""

import os

OFFLINE_DEFAULTS = {
    "HARBOR_TELEMETRY": "0",
    "LITELLM_LOCAL_MODEL_COST_MAP": "True",
    "HF_HUB_OFFLINE": "1",
}


def apply_offline_defaults() -> None:
    """Set each default unless the user set the variable already."""
    for key, value in OFFLINE_DEFAULTS.items():
        os.environ.setdefault(key, value)
