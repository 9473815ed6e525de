"""A semaphore released too often: a plain Semaphore quietly grows the pool,
a BoundedSemaphore raises where the extra release happens."""
