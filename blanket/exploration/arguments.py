"""The arguments of :func:`blanket.explore` checked at the call, before any
run: what each may be, and the error that says what is wrong with one."""

from __future__ import annotations

from ..seconds import BUDGET, check_seconds

#: The strategies of :func:`blanket.explore`.
STRATEGIES = ("dfs", "random", "pct")
#: What :func:`blanket.explore` does with data races on plain shared state.
RACES = ("report", "fail", "off")


def parse_shard(shard: str | tuple[int, int] | None) -> tuple[int, int]:
    """*shard* (``"i/n"``, ``(i, n)`` or ``None``, the whole search) as ``(i, n)``;
    ``TypeError`` or ``ValueError`` saying what is wrong with it."""
    if shard is None:
        return 1, 1
    if isinstance(shard, str):
        try:
            index, count = (int(part) for part in shard.split("/"))
        except ValueError:
            raise ValueError(f"shard {shard!r}: expected 'i/n', e.g. '1/4'") from None
    elif isinstance(shard, tuple) and len(shard) == 2 \
            and all(is_int(part) for part in shard):
        index, count = shard
    else:
        raise TypeError(f"shard={shard!r}: expected 'i/n' or a tuple (i, n) of two ints")
    if not 1 <= index <= count:
        raise ValueError(f"shard {index}/{count}: expected 1 <= i <= n")
    return index, count


def is_int(value: object) -> bool:
    """Whether *value* is an int (a bool is not one here)."""
    return isinstance(value, int) and not isinstance(value, bool)


def check_count(name: str, value: object, least: int, *, optional: bool = False) -> None:
    """Refuse *value* for the argument *name* unless it is an int of at
    least *least* (or ``None`` when *optional*): a float, even ``nan``, or
    a string would stop the search at once or never."""
    if optional and value is None:
        return
    if not is_int(value):
        expected = "an int or None" if optional else "an int"
        raise TypeError(f"{name}={value!r}: expected {expected}")
    if value < least:  # type: ignore[operator]
        more = "0 or more" if least == 0 else f"at least {least}"
        raise ValueError(f"{name}={value}: expected {more}")


def check_arguments(setup: object, strategy: object, seed: object, timeout: object,
                     name: object, max_seconds: object = BUDGET) -> None:
    """Refuse, at the call, the arguments of :func:`blanket.explore` that are not
    counts (those are :func:`check_count`'s)."""
    if not callable(setup):
        raise TypeError(f"explore: setup={setup!r} is not callable: expected a "
                        "function that fills a Scenario")
    if not isinstance(strategy, str):
        raise TypeError(f"strategy={strategy!r}: expected one of {', '.join(STRATEGIES)}")
    if strategy not in STRATEGIES:
        raise ValueError(f"strategy {strategy!r}: expected one of {', '.join(STRATEGIES)}")
    if not is_int(seed):
        raise TypeError(f"seed={seed!r}: expected an int")
    check_seconds(timeout, "explore's timeout")
    check_seconds(max_seconds, "max_seconds")
    if name is not None and not isinstance(name, str):
        raise TypeError(f"name={name!r}: expected a str or None")


def check_guided(guided: object, strategy: str, reach: object) -> None:
    """Refuse *guided* unless ``None`` or a bool, and ``True`` unless the
    search is a depth-first one for lines (*reach*)."""
    if guided is not None and not isinstance(guided, bool):
        raise TypeError(f"guided={guided!r}: expected True, False or None")
    if guided and strategy != "dfs":
        raise ValueError(f"guided=True with strategy {strategy!r}: only the 'dfs' search "
                         "is guided (the samples are random)")
    if guided and reach is None:
        raise ValueError("guided=True without reach=: the search is guided toward the "
                         "lines reach= names")
