"""The evolvable harness: a Harbor agent assembled from a generation of module functions."""

from modularrsi.harness.agent import BASELINE, ModularAgent

__all__ = ["BASELINE", "ModularAgent"]
