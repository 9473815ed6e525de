"""A namespace whose attributes resolve on first use (the shape of six.moves:
six 1.7.3's ``_LazyDescr``; https://github.com/benjaminp/six/issues/98).

The descriptor sits on the namespace's class; the first read resolves it, stores
the value on the instance, and deletes the descriptor from the class, by name
(``setattr``/``delattr`` with a computed name)."""
import threading


class LazyAttr:
    def __init__(self, name, resolve):
        self.name = name
        self.resolve = resolve

    def __get__(self, obj, owner):
        value = self.resolve()
        setattr(obj, self.name, value)
        delattr(owner, self.name)  # a second reader finds it gone: AttributeError
        return value


class LockedLazyAttr(LazyAttr):
    """The fix: the value resolved once, under a lock, and kept by the
    descriptor (the class and the instance are left alone)."""

    def __init__(self, name, resolve):
        super().__init__(name, resolve)
        self.lock = threading.Lock()
        self.value = None
        self.resolved = False

    def __get__(self, obj, owner):
        with self.lock:
            if not self.resolved:
                self.value = self.resolve()
                self.resolved = True
            return self.value


def namespace(kind=LazyAttr, **resolvers):
    """A fresh namespace object (a class of its own) with one lazy attribute per
    resolver."""
    cls = type("Moves", (), {})
    for name, resolve in resolvers.items():
        setattr(cls, name, kind(name, resolve))
    return cls()
