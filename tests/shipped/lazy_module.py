"""A module that runs its loader on first attribute access (the shape of 3.11's
``importlib.util._LazyModule``; https://github.com/python/cpython/issues/114763,
fixed in 3.12.3/3.13).

The bug: ``__getattribute__`` turns the object into a plain module
(``self.__class__ = types.ModuleType``) *before* the loader fills its
``__dict__``: a second thread in between reads an empty module."""
import threading
import types


class LazyModule(types.ModuleType):
    def __getattribute__(self, attr):
        load = object.__getattribute__(self, "__dict__")["__lazy_loader__"]
        self.__class__ = types.ModuleType
        namespace = {}
        load(namespace)
        for key, value in namespace.items():
            setattr(self, key, value)
        return getattr(self, attr)


class LockedLazyModule(types.ModuleType):
    """The fix: every look-up under the module's lock, the loader run by the
    first, item by item."""

    def __getattribute__(self, attr):
        state = object.__getattribute__(self, "__dict__")
        with state["__lazy_lock__"]:
            if "__lazy_loader__" in state:
                namespace = {}
                state["__lazy_loader__"](namespace)
                for key, value in namespace.items():
                    state[key] = value
                del state["__lazy_loader__"]
            if attr in state:
                return state[attr]
        # (What a module answers of itself: __class__, __dict__, ...)
        return object.__getattribute__(self, attr)


def lazy_module(name, load, locked=False):
    """A module whose attributes *load* puts in the namespace it is given,
    on first use."""
    module = types.ModuleType(name)
    module.__dict__["__lazy_loader__"] = load
    if locked:
        module.__dict__["__lazy_lock__"] = threading.RLock()
    module.__class__ = LockedLazyModule if locked else LazyModule
    return module
