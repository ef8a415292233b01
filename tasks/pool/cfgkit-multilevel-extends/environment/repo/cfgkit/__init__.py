"""cfgkit - INI-style deployment configuration with section inheritance."""
from .errors import ConfigError
from .parser import parse
from .resolve import resolve_section
from .config import Config

__all__ = ["ConfigError", "parse", "resolve_section", "Config"]
