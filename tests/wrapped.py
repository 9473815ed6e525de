"""A module whose functions ``functools.lru_cache`` keeps: instrumenting the
module watches them (see ``tests.test_witness``)."""
import functools

#: The keys :func:`tallied` computed (a hit of its cache computes none).
COMPUTED: list[int] = []


@functools.lru_cache(maxsize=8)
def tallied(key: int) -> int:
    COMPUTED.append(key)
    return len(COMPUTED)


def asks() -> None:
    """Asks for key 1 through ``map``: C code calls the cache's wrapper."""
    list(map(tallied, [1]))
