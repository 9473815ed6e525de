"""What blanket is for, in one minute (``make demo``).

Three threads, A, B and C, each take the same lock once and write their name
down while they hold it.

* With plain ``threading`` the order in which they get the lock is up to
  whoever gets there first, so it changes from run to run (here the threads
  are also started in a shuffled order, as a busy machine would).
* With blanket the threads are the same, but the lock comes from a
  ``blanket.Scenario``.  Inside ``with scenario:`` every call on the lock
  waits for the main thread, the *scheduler*, to let it through.  The script
  below lets B, then A, then C through, so the order is BAC on every run.
"""

import random
import threading

import blanket

RUNS = 5


def run_plain() -> str:
    """One run with plain threading; returns the order the lock was taken in."""
    lock = threading.Lock()
    order: list[str] = []

    def worker(name: str) -> None:
        with lock:
            order.append(name)

    threads = [threading.Thread(target=worker, args=(name,)) for name in "ABC"]
    random.shuffle(threads)
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return "".join(order)


def run_blanket() -> str:
    """One run with blanket, scripted B, A, C; returns the order the lock was taken in."""
    scenario = blanket.Scenario()
    lock = scenario.Lock()
    order: list[str] = []

    def worker(name: str) -> None:
        with lock:
            order.append(name)

    # Managed threads: started when the scenario is entered, joined when it exits.
    A = scenario.thread(worker, "A")
    B = scenario.thread(worker, "B")
    C = scenario.thread(worker, "C")

    with scenario:
        for thread in (B, A, C):
            for _ in range(2):  # acquire, then release
                scenario.wait(thread)  # the thread has a transaction
                tx = scenario.transaction(thread)
                tx.unblock()  # let the call run
                scenario.wait(tx)  # the transaction has finished
    return "".join(order)


def main() -> None:
    print("plain threading (the order depends on timing):")
    for run in range(1, RUNS + 1):
        print(f"  run {run}: {run_plain()}")
    print("blanket, scripted B, A, C:")
    for run in range(1, RUNS + 1):
        print(f"  run {run}: {run_blanket()}")
    print(
        "blanket holds every call on the lock until the scheduler lets it go, "
        "so the script, not the OS, decides the order."
    )


if __name__ == "__main__":
    main()
