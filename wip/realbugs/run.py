#!/usr/bin/env python3
"""Run every real-bug case against a blanket checkout and print what blanket says.

  python3 run.py --blanket /work/wt/real                # all cases, all pythons, dfs + random(200)
  python3 run.py --blanket ../other --cases six_moves,pyee_once --pythons 3.11 -j 2
  python3 run.py --blanket /work/wt/real --json out.json  # also keep every field (messages, schedules)

Each (case, variant, python, strategy) runs in its own process: venv-<python>/bin/python one.py,
with PYTHONPATH=<checkout>:libs/<variant's lib>:cases (libraries unmodified, installed by
setup_libs.sh with pip --target). Rows where blanket certified a buggy version (exhausted,
no failure) come first.
"""
import argparse
import ast
import concurrent.futures
import json
import os
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from realbugs_variant import PYTHONS, Variant, everywhere  # noqa: E402

INTERPRETERS = {"3.11": "venv-python3.11", "3.12": "venv-python3.12", "3.13": "venv-python3.13",
                "3.13t": "venv-python3.13t"}


def variants_of(case):
    """The VARIANTS a case file declares, read without importing it (its library
    is not on this process's path)."""
    tree = ast.parse(open(os.path.join(HERE, "cases", case + ".py")).read())
    for node in tree.body:
        if isinstance(node, ast.Assign) and any(getattr(t, "id", None) == "VARIANTS" for t in node.targets):
            if isinstance(node.value, ast.Attribute):  # VARIANTS = other_case.VARIANTS
                return variants_of(node.value.value.id)
            return eval(compile(ast.Expression(node.value), case, "eval"),
                        {"Variant": Variant, "everywhere": everywhere})
    return None


def bug_of(case):
    tree = ast.parse(open(os.path.join(HERE, "cases", case + ".py")).read())
    for node in tree.body:
        if isinstance(node, ast.Assign) and any(getattr(t, "id", None) == "BUG" for t in node.targets):
            value = node.value
            if isinstance(value, ast.Attribute):  # BUG = other_case.BUG
                return bug_of(value.value.id)
            if isinstance(value, ast.BinOp):  # BUG = other_case.BUG + "..."
                return bug_of(value.left.value.id) + ast.literal_eval(value.right)
            return ast.literal_eval(value)
    return ""


def run_one(job, args):
    case, variant, python, strategy = job
    paths = [os.path.abspath(args.blanket)]
    if variant.lib:
        paths.append(os.path.join(HERE, "libs", variant.lib))
    paths += [os.path.join(HERE, "cases"), HERE]
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(paths), PYTHONDONTWRITEBYTECODE="1")
    exe = os.path.join(HERE, INTERPRETERS[python], "bin", "python")
    budget = str(args.random_max if strategy != "dfs" else args.dfs_max)
    command = [exe, os.path.join(HERE, "one.py"), case, strategy, budget, str(args.timeout), variant.entry]
    if args.max_seconds is not None:
        command.append(str(args.max_seconds))
    started = time.monotonic()
    try:
        done = subprocess.run(command, env=env, capture_output=True, text=True, timeout=args.run_timeout,
                              cwd=HERE)
    except subprocess.TimeoutExpired as expired:
        out = {"crashed": True, "error": f"HANG: no result in {args.run_timeout} s",
               "stderr": (expired.stderr or b"")[-3000:].decode(errors="replace") if isinstance(expired.stderr, bytes) else (expired.stderr or "")[-3000:]}
    else:
        lines = [line for line in done.stdout.splitlines() if line.startswith("RESULT:")]
        if lines:
            out = json.loads(lines[-1][7:])
        else:
            out = {"crashed": True, "error": f"no result, exit {done.returncode}"}
        out["stderr"] = done.stderr[-3000:]
    out.setdefault("seconds", time.monotonic() - started)
    out.update(case=case, variant=variant.label, python=python, strategy=strategy,
               buggy=variant.is_buggy(python), bug=bug_of(case))
    return out


def commit_of(checkout):
    """The git commit of a blanket checkout (or what its .commit file says)."""
    try:
        return subprocess.run(["git", "-C", checkout, "rev-parse", "--short", "HEAD"], capture_output=True,
                              text=True, check=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        path = os.path.join(checkout, ".commit")
        return open(path).read().strip()[:12] if os.path.exists(path) else "an unknown commit"


def outcome(row):
    """One word for the row, worst first in the table."""
    if row["crashed"]:
        return "HANG" if row["error"].startswith("HANG") else "CRASH"
    if not row["found"] and row.get("stopped", "").startswith("max_seconds="):
        return "BUDGET"  # neither found nor covered: the search ran out of time
    if row["buggy"]:
        if row["found"]:
            tried, failed = row.get("test_tries"), row.get("test_failed")
            if tried and failed != tried:
                return "TEST-PASSES" if failed == 0 else "TEST-FLAKY"
            return "found"
        return "CERTIFIED" if row["exhausted"] else "missed"
    if row["found"]:
        return "FALSE-ALARM"
    return "ok-exhausted" if row["exhausted"] else "ok"


ORDER = ["CERTIFIED", "missed", "CRASH", "HANG", "BUDGET", "FALSE-ALARM", "TEST-PASSES", "TEST-FLAKY", "found", "ok",
         "ok-exhausted"]


def table(rows):
    rows = sorted(rows, key=lambda r: (ORDER.index(outcome(r)), r["case"], r["variant"], r["python"], r["strategy"]))
    head = ("outcome", "case", "version", "python", "strategy", "bug?", "found", "exhausted", "runs", "seconds",
            "test fails", "unseen (first 2) / error")
    lines = [head]
    for r in rows:
        if r["crashed"]:
            detail = r["error"][:160]
            found = exhausted = runs = test = "-"
        else:
            detail = " | ".join(u[:90] for u in r["unseen"][:2]) + (f" (+{len(r['unseen']) - 2})" if len(r["unseen"]) > 2 else "")
            if r.get("stopped"):
                detail = f"stopped by {r['stopped']}" + (f" | {detail}" if detail else "")
            found = r["kind"] or "no"
            exhausted = "yes" if r["exhausted"] else "no"
            runs = str(r["runs"])
            test = f"{r['test_failed']}/{r['test_tries']}" if r.get("test_tries") else "-"
        lines.append((outcome(r), r["case"], r["variant"], r["python"], r["strategy"],
                      "buggy" if r["buggy"] else "fixed", found, exhausted, runs, f"{r['seconds']:.1f}", test, detail))
    widths = [max(len(str(line[i])) for line in lines) for i in range(len(head) - 1)]
    return "\n".join("  ".join(str(c).ljust(w) for c, w in zip(line[:-1], widths)) + "  " + line[-1]
                     for line in lines)


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--blanket", required=True, help="a blanket checkout (the folder holding blanket/)")
    parser.add_argument("--cases", help="comma-separated case names (default: every file in cases/ with VARIANTS)")
    parser.add_argument("--pythons", default=",".join(PYTHONS))
    parser.add_argument("--strategies", default="dfs,random")
    parser.add_argument("--dfs-max", type=int, default=10_000, help="max_schedules for dfs (explore's default)")
    parser.add_argument("--random-max", type=int, default=200, help="max_schedules for random and pct")
    parser.add_argument("--timeout", type=float, default=10.0, help="explore's timeout= (its default)")
    parser.add_argument("--run-timeout", type=float, default=300.0, help="seconds before a run is a HANG")
    parser.add_argument("--max-seconds", type=float, default=None,
                        help="explore's max_seconds (its own default when not given)")
    parser.add_argument("-j", "--jobs", type=int, default=1)
    parser.add_argument("--json", help="write every row, with messages and schedules, to this file")
    parser.add_argument("--verdicts", action="store_true", help="also print each row's verdict string")
    args = parser.parse_args()
    if not os.path.isdir(os.path.join(args.blanket, "blanket")):
        parser.error(f"{args.blanket} has no blanket/ package")
    cases = args.cases.split(",") if args.cases else sorted(
        name[:-3] for name in os.listdir(os.path.join(HERE, "cases"))
        if name.endswith(".py") and variants_of(name[:-3]) is not None)
    pythons = args.pythons.split(",")
    jobs = [(case, variant, python, strategy)
            for case in cases for variant in variants_of(case)
            for python in pythons if python in variant.pythons
            for strategy in args.strategies.split(",")]
    print(f"{len(jobs)} runs against {os.path.abspath(args.blanket)}", file=sys.stderr)
    rows = []
    with concurrent.futures.ThreadPoolExecutor(args.jobs) as pool:
        for row in pool.map(lambda job: run_one(job, args), jobs):
            print(f"  {outcome(row):12} {row['case']} / {row['variant']} / {row['python']} / {row['strategy']}"
                  f" {row['seconds']:.1f} s", file=sys.stderr, flush=True)
            rows.append(row)
    print(f"blanket: {os.path.abspath(args.blanket)} at {commit_of(args.blanket)}; pythons {args.pythons};"
          f" strategies {args.strategies}; run timeout {args.run_timeout:g} s")
    print(table(rows))
    if args.verdicts:
        print()
        for r in sorted(rows, key=lambda r: (r["case"], r["variant"], r["python"], r["strategy"])):
            print(f"{r['case']} / {r['variant']} / {r['python']} / {r['strategy']}: "
                  f"{r.get('verdict') or r.get('error')}")
    counts = {}
    for r in rows:
        counts[outcome(r)] = counts.get(outcome(r), 0) + 1
    print("\noutcomes: " + ", ".join(f"{counts[o]} {o}" for o in ORDER if o in counts))
    print("\nbugs:", file=sys.stdout)
    for case in cases:
        print(f"  {case}: {bug_of(case)}")
    if args.json:
        with open(args.json, "w") as f:
            json.dump(rows, f, indent=1)


if __name__ == "__main__":
    main()
