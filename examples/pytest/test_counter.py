"""A user's pytest file: the plugin's fixtures on a counter shared by threads
(docs/pytest.rst shows it; tests/test_pytest_plugin.py runs it)."""

import threading

import pytest

import blanket


class Counter:
    """A counter threads share: each increment under its lock."""

    def __init__(self, lock=None):
        self.lock = lock if lock is not None else threading.Lock()
        self.value = 0

    def increment(self):
        with self.lock:
            self.value += 1

    def get(self):
        return self.value


def test_second_thread_goes_first(scenario):
    counter = Counter(scenario.Lock())
    A = scenario.thread(counter.increment)  # named "A"
    B = scenario.thread(counter.increment)  # named "B"
    with scenario:
        list(scenario.api(counter.lock).relay(B, A))
    assert counter.value == 2


def two_increments(scenario):
    counter = Counter(scenario.Lock())
    scenario.thread(counter.increment)
    scenario.thread(counter.increment)

    def check():
        assert counter.value == 2, f"the counter is {counter.value}, not 2"
    return check


def test_no_increment_is_lost(blanket_explore):
    result = blanket_explore(two_increments)
    assert result.exhausted  # every order was run


OPERATIONS = [blanket.Operation("increment"), blanket.Operation("get")]


@pytest.mark.blanket(scenarios=5)
def test_counter_is_linearizable(blanket_check_linearizable):
    blanket_check_linearizable(Counter, OPERATIONS)
