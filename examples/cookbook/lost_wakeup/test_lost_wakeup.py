"""The writer B puts its message before the reader A starts to wait."""

import blanket

from . import buggy, fixed


class TestBuggyMailbox(blanket.ScenarioTestCase):
    # A lost wakeup is a hang: blanket reports it once this bound is hit.
    stall_timeout = 1.0

    def test_the_reader_sleeps_forever(self):
        condition = self.scenario.Condition()
        self.scenario.api(condition).name = "mailbox"  # a name for the report
        mailbox = buggy.Mailbox(condition)
        A = self.worker(mailbox.get)
        B = self.worker(mailbox.put, "hello")
        with self.scenario:
            self.scenario.finish(B)  # B notifies while nobody waits
            with self.assertRaises(blanket.StallError) as stall:
                self.scenario.finish(A)  # A waits for a notify that came and went
            # Wake A through the raw (never regulated) handle, so it can end.
            raw = self.scenario.raw(condition)
            with raw:
                raw.notify()
        self.assertIn("'A': Condition.wait WAITING on 'mailbox'", stall.exception.report)
        self.assertIn("'B': terminated", stall.exception.report)


class TestFixedMailbox(blanket.ScenarioTestCase):
    def test_the_reader_finds_the_message(self):
        condition = self.scenario.Condition()
        mailbox = fixed.Mailbox(condition)
        A = self.worker(mailbox.get)
        B = self.worker(mailbox.put, "hello")
        with self.scenario:
            self.scenario.finish(B)
            self.scenario.finish(A)
        self.assertEqual(self.outcome["A"], "hello")
