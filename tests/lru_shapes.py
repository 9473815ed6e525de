"""Locked least-recently-used caches written the way two released libraries
write theirs, for the linearizability figures of ``make bench`` (issue 32)
and their tests: :class:`LinkedLRU` in boltons' shape (``boltons.cacheutils.LRU``:
a dict of links in a circular doubly linked list, every method under one
``RLock``), :func:`lru_cached` in cachetools' (``cachetools.func``: a cache
class over a private dict and an order, a decorator that looks the key up
under a lock, computes outside it, and stores under it)."""

from __future__ import annotations

import collections
import threading
from collections.abc import Callable
from typing import Any

import blanket

_PREV, _NEXT, _KEY, _VALUE = range(4)


class LinkedLRU:
    """boltons' shape: links ``[prev, next, key, value]`` around a root."""

    def __init__(self, max_size: int = 2) -> None:
        self.max_size = max_size
        self._lock = threading.RLock()
        self._table: dict[object, list[Any]] = {}
        root: list[Any] = []
        root[:] = [root, root, None, None]
        self._root = root

    def _unlink(self, link: list[Any]) -> None:
        link[_PREV][_NEXT] = link[_NEXT]
        link[_NEXT][_PREV] = link[_PREV]

    def _to_front(self, link: list[Any]) -> None:
        root = self._root
        last = root[_PREV]
        link[_PREV], link[_NEXT] = last, root
        last[_NEXT] = root[_PREV] = link

    def __setitem__(self, key: object, value: object) -> None:
        with self._lock:
            link = self._table.get(key)
            if link is not None:
                self._unlink(link)
                link[_VALUE] = value
            else:
                if len(self._table) >= self.max_size:
                    oldest = self._root[_NEXT]
                    self._unlink(oldest)
                    del self._table[oldest[_KEY]]
                link = [None, None, key, value]
                self._table[key] = link
            self._to_front(link)

    def get(self, key: object, default: object = None) -> object:
        with self._lock:
            link = self._table.get(key)
            if link is None:
                return default
            self._unlink(link)
            self._to_front(link)
            return link[_VALUE]

    def put(self, key: object, value: object) -> None:
        self[key] = value


class _Cache:
    """cachetools' shape: a cache class over a private dict and order."""

    def __init__(self, maxsize: int) -> None:
        self.maxsize = maxsize
        self.__data: dict[object, object] = {}
        self.__order: collections.OrderedDict[object, None] = collections.OrderedDict()

    def __getitem__(self, key: object) -> object:
        value = self.__data[key]
        self.__order.move_to_end(key)
        return value

    def __setitem__(self, key: object, value: object) -> None:
        if key not in self.__data and len(self.__data) >= self.maxsize:
            oldest = next(iter(self.__order))
            del self.__data[oldest]
            del self.__order[oldest]
        self.__data[key] = value
        self.__order[key] = None
        self.__order.move_to_end(key)


def lru_cached(function: Callable[[object], object], maxsize: int = 2
               ) -> Callable[[object], object]:
    """*function* memoized as ``cachetools.func.lru_cache`` does it."""
    cache, lock = _Cache(maxsize), threading.RLock()

    def wrapper(key: object) -> object:
        with lock:
            try:
                return cache[key]
            except KeyError:
                pass
        value = function(key)
        with lock:
            try:
                cache[key] = value
            except ValueError:  # (cachetools: a value too large)
                pass
        return value
    return wrapper


class Squares:
    """An object whose one operation is an ``lru_cached`` function."""

    def __init__(self) -> None:
        self.square = lru_cached(lambda key: key * key)  # type: ignore[operator]


LINKED_OPERATIONS = [*blanket.Operation.choices("put", ["a", "b", "c"], [1]),
                     *blanket.Operation.choices("get", ["a", "b"])]
CACHED_OPERATIONS = blanket.Operation.choices("square", [1, 2, 3])
