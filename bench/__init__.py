"""Benchmarks: scripts run as `python bench/<name>.py` (a package so they can share helpers)."""
