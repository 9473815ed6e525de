"""Runs one case variant under one strategy and prints one JSON line (prefixed RESULT:).

Run by run.py with PYTHONPATH=<blanket checkout>:<lib dir>:<cases dir>; usable alone:
  PYTHONPATH=/work/wt/real:libs/six-1.7.3:cases python one.py six_moves dfs 10000 10 [setup]
"""
import importlib
import json
import sys
import time
import traceback


def main() -> None:
    case, strategy, max_schedules, timeout = sys.argv[1], sys.argv[2], int(sys.argv[3]), float(sys.argv[4])
    entry = sys.argv[5] if len(sys.argv) > 5 else "setup"
    out = {"case": case, "strategy": strategy}
    started = time.monotonic()
    try:
        import blanket
        out["blanket"] = blanket.__file__
        module = importlib.import_module(case)
        out["lib_file"] = getattr(module, "LIB_FILE", lambda: "")()
        result = blanket.explore(getattr(module, entry), strategy=strategy, max_schedules=max_schedules,
                                 timeout=timeout)
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
                   count=result.count, races=[str(r) for r in result.races][:10],
                   seconds=time.monotonic() - started, elapsed=result.elapsed)
    print("RESULT:" + json.dumps(out), flush=True)


if __name__ == "__main__":
    main()
