"""Unit conversion helpers."""
from .convert import convert, known_units

__all__ = ["convert", "known_units", "__version__"]
__version__ = "1.4.0"
