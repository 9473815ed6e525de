"""Runs one case variant under one strategy and prints one JSON line (prefixed RESULT:).

Run by run.py with PYTHONPATH=<blanket checkout>:<lib dir>:<cases dir>; usable alone:
  PYTHONPATH=/work/wt/real:libs/six-1.7.3:cases python one.py six_moves dfs 10000 10 [setup]
"""
import importlib
import json
import os
import subprocess
import sys
import tempfile
import time
import traceback

#: How many times the written test is run, each in a fresh process.
TRIES = 3


def try_written_test(case, source, tries=TRIES):
    """Runs ``failure.source`` as the user would: saved as a test module,
    ``python -m unittest`` in a fresh process (this interpreter, this
    PYTHONPATH), ``tries`` times. Returns (times it failed as it should,
    the last output's tail). A failure is "FAILED (failures=1)" with no
    error: an import error or a crash of the test is not the bug."""
    failed, tail = 0, ""
    with tempfile.TemporaryDirectory(prefix="realbugs-test-") as folder:
        name = f"test_{case}_schedule"
        with open(os.path.join(folder, name + ".py"), "w") as f:
            f.write(source)
        paths = os.environ.get("PYTHONPATH", "").split(os.pathsep)
        env = dict(os.environ, PYTHONPATH=os.pathsep.join(os.path.abspath(p) for p in paths if p))
        for _ in range(tries):
            try:
                done = subprocess.run([sys.executable, "-m", "unittest", name], cwd=folder, env=env,
                                      capture_output=True, text=True, timeout=120)
            except subprocess.TimeoutExpired:
                tail = "the written test ran over 120 s"
                continue
            output = done.stderr + done.stdout
            tail = output[-1500:]
            last = [line for line in output.splitlines() if line.startswith(("FAILED", "OK"))]
            if done.returncode != 0 and last and last[-1].startswith("FAILED (failures=1)"):
                failed += 1
    return failed, tail


def main() -> None:
    case, strategy, max_schedules, timeout = sys.argv[1], sys.argv[2], int(sys.argv[3]), float(sys.argv[4])
    entry = sys.argv[5] if len(sys.argv) > 5 else "setup"
    budget = {"max_seconds": float(sys.argv[6])} if len(sys.argv) > 6 else {}
    out = {"case": case, "strategy": strategy}
    started = time.monotonic()
    try:
        import blanket
        out["blanket"] = blanket.__file__
        module = importlib.import_module(case)
        out["lib_file"] = getattr(module, "LIB_FILE", lambda: "")()
        result = blanket.explore(getattr(module, entry), strategy=strategy, max_schedules=max_schedules,
                                 timeout=timeout, **budget)
    except BaseException as error:  # a crash inside blanket (or the case): record it
        out.update(crashed=True, error=f"{type(error).__name__}: {error}",
                   traceback=traceback.format_exc()[-3000:], seconds=time.monotonic() - started)
    else:
        failure = result.failure
        out.update(crashed=False, verdict=str(result), found=failure is not None,
                   kind=failure.kind if failure else None,
                   message=(failure.message[-1500:] if failure else None),
                   schedule=[str(s) for s in failure.schedule][:40] if failure else None,
                   exhausted=result.exhausted, unseen=list(result.unseen), runs=result.runs,
                   count=result.count, stopped=getattr(result, "stopped", ""), races=[str(r) for r in result.races][:10],
                   seconds=time.monotonic() - started, elapsed=result.elapsed,
                   checked=getattr(failure, "checked", None) if failure else None)
        if failure is not None and os.environ.get("REALBUGS_NO_TEST") != "1":
            out["test_failed"], out["test_output"] = try_written_test(case, failure.source)
            out["test_tries"] = TRIES
    print("RESULT:" + json.dumps(out), flush=True)


if __name__ == "__main__":
    main()
