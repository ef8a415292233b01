"""ModularRSI: modular, generalisable recursive self-improvement of LLM agent harnesses."""

from modularrsi.util.outbound import apply_offline_defaults

# Importing any part of the package (which may import LiteLLM or Harbor) must not call out: the
# offline defaults apply unless the user set those variables already.
apply_offline_defaults()

__version__ = "0.1.0"
