"""pyparsing: one thread parses with the packrat cache on, another resets the cache.

https://github.com/pyparsing/pyparsing/issues/604 ("Concurrency issue on
Cache when packrat is enabled"): the FIFO cache's ``set`` runs under
``packrat_cache_lock`` (``cache[key] = value; while len(cache) > size:
cache_pop(next(iter(cache)))``), but ``ParserElement.reset_cache()`` (also
called by every ``parse_string``) clears it without the lock: the eviction
meets an emptied dict (StopIteration / KeyError / "dictionary changed size").
3.2.4 takes the lock in ``reset_cache`` and the other cache methods.
"""
import pyparsing
from pyparsing import ParserElement, Word, alphas

from realbugs_variant import Variant, everywhere

BUG = "https://github.com/pyparsing/pyparsing/issues/604 (fixed in 3.2.4)"
VARIANTS = [Variant("pyparsing 3.2.3", "pyparsing-3.2.3", everywhere(True)),
            Variant("pyparsing 3.2.4", "pyparsing-3.2.4", everywhere(False))]


def LIB_FILE():
    return pyparsing.__file__


def setup(scenario):
    # Process-wide state: start each run from a fresh, small FIFO packrat cache.
    ParserElement.disable_memoization()
    ParserElement.enable_packrat(cache_size_limit=2)
    grammar = Word(alphas)[1, ...]
    got = {}

    def parse():
        got["words"] = list(grammar.parse_string("ab cd ef"))

    def reset():
        ParserElement.reset_cache()

    scenario.thread(parse)
    scenario.thread(reset)

    def parsed():
        assert got.get("words") == ["ab", "cd", "ef"], got
    return parsed
