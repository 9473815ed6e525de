"""Two workers take from a stack holding one job: explore every order of
their accesses."""

import unittest

import blanket

from .. import where
from . import buggy, fixed


def take(stack, taken):
    """What a worker does: take a job and keep what came of it, the job or
    the exception, in its own list *taken*."""
    try:
        taken.append(stack.take())
    except IndexError as error:
        taken.append(error)


def two_takes(make_stack):
    """A setup for blanket.explore: two workers take from the one-job stack
    *make_stack* makes for the scenario."""
    def setup(scenario):
        stack = make_stack(scenario, ["job"])
        # The threads run take(), whose call of stack.take is not followed:
        # name the class, and all its code is watched.
        scenario.instrument(type(stack))
        taken_by_a, taken_by_b = [], []
        scenario.thread(take, stack, taken_by_a)
        scenario.thread(take, stack, taken_by_b)

        def one_takes_the_job_the_other_none():
            assert sorted(map(str, taken_by_a + taken_by_b)) == ["None", "job"], (
                f"A took {taken_by_a}, B took {taken_by_b}")
        return one_takes_the_job_the_other_none
    return setup


#: The setup on the buggy code (its page shows the races it has).
BUGGY = two_takes(lambda scenario, jobs: buggy.JobStack(jobs))


class TestBuggyStack(unittest.TestCase):
    def test_both_see_the_job_and_the_second_pop_raises(self):
        result = blanket.explore(BUGGY)
        self.assertFalse(result.ok)
        self.assertIn("IndexError('pop from empty list')", result.failure.message)
        look = where(buggy, "if len(self.jobs)")
        pop = where(buggy, "return self.jobs.pop()")
        self.assertIn(f"list: A reads at {look}, B writes at {pop}",
                      [str(race) for race in result.races])


class TestFixedStack(blanket.ScenarioTestCase):
    def test_every_order_gives_the_job_to_one_worker_and_nothing_races(self):
        # self.explore fails the test, with a replay, if an order fails.
        result = self.explore(two_takes(
            lambda scenario, jobs: fixed.JobStack(scenario.Lock(), jobs)))
        self.assertTrue(result.exhausted)
        self.assertEqual(result.races, [])
