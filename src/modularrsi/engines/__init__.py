"""Container engines and offline base images for Dockerfile-built tasks (trials run through Harbor)."""

from modularrsi.engines.engine import Engine, EngineError, find_engine, require_engine

__all__ = ["Engine", "EngineError", "find_engine", "require_engine"]
