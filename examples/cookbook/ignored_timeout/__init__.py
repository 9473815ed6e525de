"""An ignored timeout: ``lock.acquire(timeout=...)`` returned False, and the
code went into the critical section anyway."""
