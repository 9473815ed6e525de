"""The audit corpus: `python -m blanket audit` on real classes, as a user runs it.

For each class of CLASSES, in a fresh interpreter (this script's: run it with the
venv of the interpreter to measure, wip/audit/venv-3.11 or venv-3.13t), with no
hand-written operation: the audit, its wall-clock time, its verdict; then, for a
class found not linearizable, the tests it wrote run 3 times as a user runs them
(`python -m unittest` in a fresh interpreter, in the folder they were written to):
a run counts when every written test failed in it. One table row per class.

    venv-3.11/bin/python run.py --blanket /path/to/work/tree [--only NAME] [--max-seconds S]
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
import time

#: (target, extra arguments): the class, and what the audit is told about it.
CLASSES: list[tuple[str, list[str]]] = [
    ("queue:Queue", []),
    ("queue:LifoQueue", []),
    ("queue:PriorityQueue", []),
    ("collections:UserDict", []),
    ("collections:UserList", []),
    ("collections:ChainMap", []),
    ("collections:Counter", []),
    ("collections:OrderedDict", []),
    ("cachetools:LRUCache", []),
    ("cachetools:LFUCache", []),
    ("cachetools:TTLCache", []),
    ("sortedcontainers:SortedList", []),
    ("sortedcontainers:SortedDict", []),
    ("bidict:bidict", []),
    ("boltons.cacheutils:LRU", []),
    ("boltons.cacheutils:LRI", []),
    ("boltons.dictutils:OrderedMultiDict", []),
    ("repoze.lru:LRUCache", []),
]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--blanket", required=True, help="the work tree blanket is taken from")
    parser.add_argument("--only", nargs="*", default=[], help="only these targets")
    parser.add_argument("--max-seconds", default=None, help="the audit's budget (its default)")
    parser.add_argument("--label", default=f"{sys.version_info[0]}.{sys.version_info[1]}"
                        f"{'t' if not getattr(sys, '_is_gil_enabled', lambda: True)() else ''}")
    args = parser.parse_args()
    env = {**os.environ, "PYTHONPATH": args.blanket}
    print(f"{'python':7} {'class':36} {'verdict':18} {'pairs lin/not/open':19} {'audit s':>7} "
          f"{'tests failing':>13}", flush=True)
    wrong = 0
    for target, extra in CLASSES:
        if args.only and target not in args.only:
            continue
        out = tempfile.mkdtemp(prefix="audit-corpus-")
        budget = ["--max-seconds", args.max_seconds] if args.max_seconds else []
        started = time.monotonic()
        done = subprocess.run([sys.executable, "-m", "blanket", "audit", target, *extra,
                               *budget, "--out", out, "--json", f"{out}/r.json"],
                              env=env, capture_output=True, text=True, timeout=600, check=False)
        wall = time.monotonic() - started
        if done.returncode not in (0, 1):
            print(f"{args.label:7} {target:36} ERROR {done.returncode}: "
                  f"{done.stderr.strip().splitlines()[-1:]}", flush=True)
            wrong += 1
            continue
        found = json.load(open(f"{out}/r.json"))
        counts = [sum(p["verdict"] == v for p in found["pairs"])
                  for v in ("linearizable", "not linearizable")]
        counts.append(len(found["pairs"]) - sum(counts))
        verdict = found["verdict"].split(" (")[0]
        # The tests tried by the audit and found failing (one that passed is written as a
        # comment saying so: no test in it).
        tests = [p for p in found["pairs"] if p["verdict"] == "not linearizable"
                 and (p["checked"] or "").startswith("tried:")]
        failing = "-"
        if counts[1] and not tests:
            failing = "no test"
            wrong += 1
        if tests:
            runs = 0
            for _ in range(3):
                ran = subprocess.run([sys.executable, "-m", "unittest", "discover", "-s", out,
                                      "-p", "test_audit_*.py"], cwd=out, env=env,
                                     capture_output=True, text=True, timeout=600, check=False)
                said = re.search(r"FAILED \(failures=(\d+)\)", ran.stderr)
                if said and int(said.group(1)) == len(tests) and \
                        f"Ran {len(tests)} test" in ran.stderr:
                    runs += 1
            failing = f"{runs}/3 of {len(tests)}"
            wrong += runs != 3
        wrong += wall > 60
        print(f"{args.label:7} {target:36} {verdict:18} {'/'.join(map(str, counts)):19} "
              f"{wall:7.1f} {failing:>13}", flush=True)
    return 1 if wrong else 0


if __name__ == "__main__":
    sys.exit(main())
