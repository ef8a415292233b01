"""ModularRSI: modular, generalisable recursive self-improvement of LLM agent harnesses."""

__version__ = "0.1.0"
