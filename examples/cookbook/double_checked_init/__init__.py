"""Double-checked lazy initialisation that publishes the object before it is
filled: a reader that skips the lock sees it half-built."""
