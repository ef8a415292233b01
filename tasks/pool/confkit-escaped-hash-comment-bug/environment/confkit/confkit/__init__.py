"""confkit - tiny INI-style configuration loader."""
from .parser import ConfigError, load, loads

__all__ = ["ConfigError", "load", "loads"]
__version__ = "0.6.1"
