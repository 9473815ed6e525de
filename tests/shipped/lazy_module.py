"""A module that runs its code on first attribute access (the shape of 3.11's
``importlib.util._LazyModule``; https://github.com/python/cpython/issues/114763,
fixed in 3.12.3/3.13).

The bug: ``__getattribute__`` turns the object into a plain module
(``self.__class__ = types.ModuleType``) *before* running the code into its
``__dict__`` (``exec``): a second thread in between reads an empty module."""
import threading
import types


class LazyModule(types.ModuleType):
    def __getattribute__(self, attr):
        source = object.__getattribute__(self, "__dict__")["__lazy_source__"]
        self.__class__ = types.ModuleType
        namespace = {}
        exec(source, namespace)
        for key, value in namespace.items():
            if not key.startswith("__"):
                setattr(self, key, value)
        return getattr(self, attr)


class LockedLazyModule(types.ModuleType):
    """The fix: one loader at a time, and ``__class__`` set last."""

    def __getattribute__(self, attr):
        state = object.__getattribute__(self, "__dict__")
        if attr in ("__dict__", "__class__"):
            return object.__getattribute__(self, attr)
        with state["__lazy_lock__"]:
            if object.__getattribute__(self, "__class__") is LockedLazyModule:
                namespace = {}
                exec(state["__lazy_source__"], namespace)
                for key, value in namespace.items():
                    if not key.startswith("__"):
                        state[key] = value
                self.__class__ = types.ModuleType
        return getattr(self, attr)


def lazy_module(name, source, locked=False):
    module = types.ModuleType(name)
    module.__dict__["__lazy_source__"] = source
    if locked:
        module.__dict__["__lazy_lock__"] = threading.RLock()
    module.__class__ = LockedLazyModule if locked else LazyModule
    return module
