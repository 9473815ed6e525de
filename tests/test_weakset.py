"""A scenario's primitives, held weakly (blanket.weakset)."""

from __future__ import annotations

import gc
import unittest

from blanket.weakset import WeakSet


class Item:
    """An object hashed and compared by identity, as blanket's primitives are."""


class HeldWeakly(unittest.TestCase):
    def test_the_objects_alive_in_the_order_added_each_once(self) -> None:
        items = [Item() for _ in range(5)]
        held: WeakSet[Item] = WeakSet()
        for item in items + items[:2]:
            held.add(item)
        self.assertEqual(list(held), items)
        self.assertEqual(len(held), 5)

    def test_an_object_that_goes_takes_its_entry(self) -> None:
        held: WeakSet[Item] = WeakSet()
        kept, dropped = Item(), Item()
        held.add(dropped)
        held.add(kept)
        held.add(dropped)  # (a second reference made and dropped: no callback of its own)
        del dropped
        self.assertEqual(list(held), [kept])
        self.assertEqual(len(held._refs), 1)  # the entry itself is gone, not only skipped

    def test_an_object_in_a_cycle_goes_with_the_collection(self) -> None:
        held: WeakSet[Item] = WeakSet()
        cycle = Item()
        cycle.itself = cycle  # type: ignore[attr-defined]
        held.add(cycle)
        del cycle
        gc.collect()
        self.assertEqual((list(held), len(held), held._refs), ([], 0, {}))


if __name__ == "__main__":
    unittest.main()
