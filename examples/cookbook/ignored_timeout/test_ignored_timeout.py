"""B is printing when A's acquire times out."""

import blanket

from . import buggy, fixed


class BusyPrinter:
    """The script, run against either version of the printer."""

    Printer = None  # set by each test class

    def time_out_while_busy(self):
        printer = self.Printer(self.scenario.Lock())
        A = self.worker(printer.print_document, "memo", 1)
        B = self.worker(printer.print_document, "report", 2)
        with self.scenario:
            api = self.scenario.api(printer.lock)
            api.assign(B)                        # B has the printer...
            api.expire(printer.lock.acquire, A)  # ...as A's timeout runs out
            self.scenario.finish(A)
            self.scenario.finish(B)
        return printer, A, B


class TestBuggyPrinter(BusyPrinter, blanket.ScenarioTestCase):
    Printer = buggy.Printer

    def test_a_prints_anyway_and_b_fails_to_release(self):
        printer, A, B = self.time_out_while_busy()
        self.assertTimedOut(A, printer.lock.acquire)
        self.assertEqual(self.outcome["A"], True)
        self.assertEqual(printer.pages, ["report 1", "report 2", "memo 1"])
        # A let go of the lock B held, so B's own release finds it unlocked.
        self.assertCallRaised(B, printer.lock.release, RuntimeError)
        self.assertIsInstance(self.outcome["B"], RuntimeError)


class TestFixedPrinter(BusyPrinter, blanket.ScenarioTestCase):
    Printer = fixed.Printer

    def test_a_reports_the_printer_busy(self):
        printer, A, B = self.time_out_while_busy()
        self.assertTimedOut(A, printer.lock.acquire)
        self.assertEqual(self.outcome, {"A": False, "B": True})
        self.assertEqual(printer.pages, ["report 1", "report 2"])
