"""Runs each bug case of the suite's tests/shipped_bugs.py, buggy and fixed,
(1) in order, one thread after the other, with plain threads (the invariant
must hold: it is not always false), (2) with plain threads racing, N times
(how often the bug shows for real), and (3) under blanket.explore (dfs and
random, 200). Usage, from the checkout's root:

  PYTHONPATH=. python wip/realbugs/check_shipped.py [words of a case's name ...] [--stress N] [--no-blanket]
"""
import sys
import threading
import time

from tests.shipped_bugs import BUGS


class PlainScenario:
    """Enough of a Scenario for a setup: its threads are plain threads."""

    def __init__(self):
        self.targets = []

    def thread(self, target, *args, **kwargs):
        self.targets.append((target, args, kwargs))

    def instrument(self, *targets):
        pass


def plain(setup, concurrent):
    scenario = PlainScenario()
    check = setup(scenario)
    errors = []

    def run(target, args, kwargs):
        try:
            target(*args, **kwargs)
        except Exception as error:
            errors.append(repr(error))

    if concurrent:
        threads = [threading.Thread(target=run, args=t, daemon=True) for t in scenario.targets]
        for t in threads:
            t.start()
        for t in threads:
            t.join(2)
        if any(t.is_alive() for t in threads):
            return "deadlock (still alive after 2 s)"
    else:
        for t in scenario.targets:
            run(*t)
    if errors:
        return "exception: " + errors[0]
    try:
        if check:
            check()
    except AssertionError as error:
        return f"invariant: {error}"
    return None


def main():
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    stress = 300
    if "--stress" in sys.argv:
        stress = int(sys.argv[sys.argv.index("--stress") + 1])
        args = [a for a in args if a != str(stress)]
    use_blanket = "--no-blanket" not in sys.argv
    sys.setswitchinterval(1e-6)
    for name, (buggy, fixed, _) in BUGS.items():
        if args and not any(word in name for word in args):
            continue
        for entry, setup in (("buggy", buggy), ("fixed", fixed)):
            sequential = plain(setup, False)
            seen = {}
            if "fasteners" not in name or entry == "fixed":  # a real deadlock leaks threads
                for _ in range(stress):
                    outcome = plain(setup, True)
                    if outcome:
                        seen[outcome[:60]] = seen.get(outcome[:60], 0) + 1
            line = f"{name}, {entry}: sequential={sequential or 'ok'}; racing x{stress}: {seen or 'never failed'}"
            if use_blanket:
                import blanket
                for strategy in ("dfs", "random"):
                    started = time.monotonic()
                    result = blanket.explore(setup, strategy=strategy, max_schedules=10_000 if strategy == "dfs" else 200)
                    kind = result.failure.kind if result.failure else "no failure"
                    line += (f"\n    blanket {strategy}: {kind}, exhausted={result.exhausted}, runs={result.runs},"
                             f" unseen={result.unseen[:2]}, {time.monotonic() - started:.1f} s")
            print(line, flush=True)


if __name__ == "__main__":
    main()
