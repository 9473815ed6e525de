"""A cached property (the shape of functools.cached_property: 3.12+ has no lock
and may compute twice, gh-87634; 3.8-3.11 held an RLock per property).

The cache is the instance's ``__dict__``, read with ``.get`` and written by
subscript: the accesses go through ``instance.__dict__``."""
import threading

_MISSING = object()


class cached_prop:
    def __init__(self, func):
        self.func = func
        self.name = func.__name__

    def __set_name__(self, owner, name):
        self.name = name

    def __get__(self, instance, owner=None):
        if instance is None:
            return self
        cache = instance.__dict__
        value = cache.get(self.name, _MISSING)
        if value is _MISSING:
            value = self.func(instance)
            cache[self.name] = value
        return value


class locked_cached_prop(cached_prop):
    """The fix: a property (a data descriptor, so every read comes here) with
    an RLock made when the class body runs (at import time, for a class
    defined at module level), held from the look-up to the store, which
    keeps the value under a private name."""

    def __init__(self, func):
        super().__init__(func)
        self.lock = threading.RLock()

    def __get__(self, instance, owner=None):
        if instance is None:
            return self
        with self.lock:
            cache = instance.__dict__
            value = cache.get("_" + self.name, _MISSING)
            if value is _MISSING:
                value = self.func(instance)
                cache["_" + self.name] = value
            return value

    def __set__(self, instance, value):
        raise AttributeError(f"{self.name} is read-only")
