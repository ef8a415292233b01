"""Rollouts: K attempts per task through Harbor trials, run directories, metrics."""
