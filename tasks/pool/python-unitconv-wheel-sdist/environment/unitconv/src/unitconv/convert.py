import json
from functools import lru_cache
from importlib import resources


@lru_cache(maxsize=None)
def _table():
    text = resources.files("unitconv").joinpath("data/units.json").read_text(encoding="utf-8")
    return json.loads(text)


def known_units():
    return sorted(u for dim in _table().values() for u in dim)


def _dimension(unit):
    for dim, units in _table().items():
        if unit in units:
            return dim
    raise KeyError(f"unknown unit: {unit}")


def convert(value, src, dst):
    dim = _dimension(src)
    if _dimension(dst) != dim:
        raise ValueError(f"cannot convert {src} to {dst}")
    units = _table()[dim]
    if dim == "temperature":
        # stored as [scale, offset]: kelvin = value * scale + offset
        s1, o1 = units[src]
        s2, o2 = units[dst]
        return ((value * s1 + o1) - o2) / s2
    return value * units[src] / units[dst]
