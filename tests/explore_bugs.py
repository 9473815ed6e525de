"""Five classic concurrency bugs, each as an exploration setup, buggy and
fixed: the scenarios of tests/test_explore_bugs.py (and of the generated
tests that replay their failures, which import them from here)."""

from __future__ import annotations

from collections.abc import Callable

from blanket import Scenario

Invariant = Callable[[], None]


# -- check-then-act across two critical sections -----------------------------------

class Account:
    """A balance whose withdrawals must never overdraw it."""

    def __init__(self, scenario: Scenario, balance: int) -> None:
        self.lock = scenario.Lock()
        self.balance = balance

    def withdraw_racy(self, amount: int) -> None:
        with self.lock:
            enough = self.balance >= amount
        if enough:  # another withdrawal may run between the check and the act
            with self.lock:
                self.balance -= amount

    def withdraw(self, amount: int) -> None:
        with self.lock:
            if self.balance >= amount:
                self.balance -= amount


def _withdrawals(scenario: Scenario, fixed: bool) -> Invariant:
    account = Account(scenario, 100)
    withdraw = account.withdraw if fixed else account.withdraw_racy
    scenario.thread(withdraw, 80)
    scenario.thread(withdraw, 80)

    def never_overdrawn() -> None:
        assert account.balance >= 0, f"overdrawn: balance {account.balance}"
    return never_overdrawn


def check_then_act(scenario: Scenario) -> Invariant:
    return _withdrawals(scenario, fixed=False)


def check_then_act_fixed(scenario: Scenario) -> Invariant:
    return _withdrawals(scenario, fixed=True)


# -- ABBA ------------------------------------------------------------------------

def _transfers(scenario: Scenario, fixed: bool) -> None:
    first, second = scenario.Lock(), scenario.Lock()

    def forwards() -> None:
        with first, second:
            pass

    def backwards() -> None:
        outer, inner = (first, second) if fixed else (second, first)
        with outer, inner:
            pass

    scenario.thread(forwards)
    scenario.thread(backwards)


def abba(scenario: Scenario) -> None:
    _transfers(scenario, fixed=False)


def abba_fixed(scenario: Scenario) -> None:
    _transfers(scenario, fixed=True)


# -- five dining philosophers ------------------------------------------------------

def _dinner(scenario: Scenario, fixed: bool, seats: int = 5) -> Invariant:
    forks = [scenario.Lock() for _ in range(seats)]
    meals: list[int] = []

    def philosopher(seat: int) -> None:
        left, right = forks[seat], forks[(seat + 1) % seats]
        if fixed and seat == seats - 1:  # the last one reaches right first
            left, right = right, left
        with left, right:
            meals.append(seat)

    for seat in range(seats):
        scenario.thread(philosopher, seat)

    def everyone_ate() -> None:
        assert sorted(meals) == list(range(seats)), meals
    return everyone_ate


def philosophers(scenario: Scenario) -> Invariant:
    return _dinner(scenario, fixed=False)


def philosophers_fixed(scenario: Scenario) -> Invariant:
    return _dinner(scenario, fixed=True)


# -- `if` instead of `while` around Condition.wait -----------------------------------

def _hand_over(scenario: Scenario, fixed: bool) -> Invariant:
    ready = scenario.Condition(scenario.Lock())
    items: list[int] = []
    taken: list[int] = []

    def consumer() -> None:
        with ready:
            if fixed:
                while not items:
                    ready.wait()
            elif not items:  # woken, but another consumer may have taken it
                ready.wait()
            taken.append(items.pop())

    def producer() -> None:
        for item in range(2):
            with ready:
                items.append(item)
                ready.notify()

    scenario.thread(consumer)
    scenario.thread(consumer)
    scenario.thread(producer)

    def both_taken() -> None:
        assert sorted(taken) == [0, 1], taken
    return both_taken


def if_not_while(scenario: Scenario) -> Invariant:
    return _hand_over(scenario, fixed=False)


def if_not_while_fixed(scenario: Scenario) -> Invariant:
    return _hand_over(scenario, fixed=True)


# -- a lost wakeup (notify before wait) ----------------------------------------------

def _signal(scenario: Scenario, fixed: bool) -> None:
    done = scenario.Condition(scenario.Lock())
    finished: list[bool] = []

    def waiter() -> None:
        with done:
            if fixed:
                while not finished:
                    done.wait()
            else:  # waits even when the notify already came
                done.wait()

    def worker() -> None:
        with done:
            finished.append(True)
            done.notify()

    scenario.thread(waiter)
    scenario.thread(worker)


def lost_wakeup(scenario: Scenario) -> None:
    _signal(scenario, fixed=False)


def lost_wakeup_fixed(scenario: Scenario) -> None:
    _signal(scenario, fixed=True)
