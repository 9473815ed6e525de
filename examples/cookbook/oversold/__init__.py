"""Oversold: a registry's check-then-act, found by a linearizability check
with no thread nor invariant written by hand."""
