"""One of two packages with a module of the same name (see tests.twins)."""
