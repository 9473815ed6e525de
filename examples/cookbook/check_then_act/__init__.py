"""Check-then-act across two critical sections: the check is stale by the
time the act runs."""
