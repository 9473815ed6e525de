"""Determinism stress runs (``make stress``); see ``python -m stress --help``."""
