"""The module the lazyloader case loads lazily (any module will do)."""
VALUE = 42
