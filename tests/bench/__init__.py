"""Benchmark and evaluation harness: dataset loaders, baselines and retrieval metrics.

Run by a command, never collected by pytest (see ``norecursedirs`` in pyproject.toml).
"""
