"""What the agent's model calls assume about a model, as Harbor's Terminus-2 assumes it.

A model LiteLLM does not know gets a context window of 1,000,000 tokens (Harbor's fallback, not
LiteLLM's or ours for other roles) and no known output limit; a known one gets its
``max_input_tokens`` (else ``max_tokens``) and ``max_output_tokens``.
"""

from __future__ import annotations

#: Harbor's context window for a model LiteLLM does not know.
FALLBACK_CONTEXT_LIMIT = 1_000_000
#: First wait between retries of a failed model call (Terminus-2 waits at least 4 s).
RETRY_BACKOFF_S = 4.0



def model_limits(name: str) -> tuple[int, int | None]:
    """``(context window, output limit or None)`` of LiteLLM model ``name``."""
    from modularrsi.models.litellm_backend import known_limits

    context, output = known_limits(name)
    return context or FALLBACK_CONTEXT_LIMIT, output
