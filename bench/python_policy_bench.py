#!/usr/bin/env python3
"""The Python FIFO (examples/fifo.py) against the C++ fifo: whole-run times and where the time goes.

    PYTHONPATH=build/python /usr/bin/python3 bench/python_policy_bench.py [--philly] [--repeat N]

Prints, for pollux-6 on 16x4 (and with --philly the whole Philly trace on 59x8):
  - the whole run (dmlkit.cluster.simulate: workload, simulation, output folder, loading
    results.json) with the C++ fifo and with the Python FIFO, in this process (median of --repeat);
  - calls across the boundary per decision: schedule() calls, how many returned at once on
    view.jobs_unchanged, and the time spent inside the Python schedule() (its own code plus the
    view's accessors) against the rest of the run;
  - the same two runs through the dmlkit program (`--policy` vs `--policy-file`, a fresh process
    each: the embedded interpreter's start and numpy's import included).
Timings are not asserted anywhere (docs/performance.md records them).
"""
import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "examples"))

import dmlkit  # noqa: E402
from fifo import Fifo  # noqa: E402


class CountingFifo(Fifo):
    name = "py-fifo-counted"
    calls = unchanged = 0
    inside_s = 0.0

    def schedule(self, view, jobs):
        t = time.perf_counter()
        CountingFifo.calls += 1
        if view.jobs_unchanged:
            CountingFifo.unchanged += 1
        try:
            return Fifo.schedule(self, view, jobs)
        finally:
            CountingFifo.inside_s += time.perf_counter() - t


def timed(fn, repeat):
    times, result = [], None
    for _ in range(repeat):
        t = time.perf_counter()
        result = fn()
        times.append(time.perf_counter() - t)
    return statistics.median(times), min(times), result


def cli_time(args, repeat):
    binary = os.environ.get("DMLKIT_BINARY", os.path.join(HERE, "..", "build", "bin", "dmlkit"))
    times = []
    with tempfile.TemporaryDirectory() as tmp:
        for i in range(repeat):
            t = time.perf_counter()
            subprocess.run([binary, *args, "--out", os.path.join(tmp, f"o{i}"), "--format", "csv"], check=True,
                           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            times.append(time.perf_counter() - t)
    return statistics.median(times), min(times)


def bench(label, repeat, **run):
    cpp_med, cpp_min, cpp = timed(lambda: dmlkit.cluster.simulate(policy="fifo", **run), repeat)
    py_med, py_min, py = timed(lambda: dmlkit.cluster.simulate(policy=Fifo, **run), repeat)
    same = cpp.records[0].metrics == py.records[0].metrics
    CountingFifo.calls = CountingFifo.unchanged = 0
    CountingFifo.inside_s = 0.0
    t = time.perf_counter()
    dmlkit.cluster.simulate(policy=CountingFifo, **run)
    counted_s = time.perf_counter() - t
    print(f"== {label}: {cpp.records[0].metrics['jobs']} jobs, identical metrics: {same}")
    print(f"  in Python, whole run (median of {repeat}, min): C++ fifo {cpp_med:.3f} s ({cpp_min:.3f}), "
          f"Python FIFO {py_med:.3f} s ({py_min:.3f}); ratio {py_med / cpp_med:.2f}x")
    n = CountingFifo.calls
    print(f"  boundary: {n} schedule() calls (one per decision, {CountingFifo.unchanged} returned at once on "
          f"jobs_unchanged); inside Python schedule() {CountingFifo.inside_s:.3f} s of {counted_s:.3f} s "
          f"({1e6 * CountingFifo.inside_s / max(n, 1):.1f} us per call)")
    args = ["cluster", "simulate", "--workload", run["workload"], "--cluster", run["cluster"]]
    c_med, c_min = cli_time(args + ["--policy", "fifo"], repeat)
    p_med, p_min = cli_time(args + ["--policy-file", os.path.join(HERE, "..", "examples", "fifo.py") + ":Fifo"],
                            repeat)
    print(f"  dmlkit program (median of {repeat}, min): --policy fifo {c_med:.3f} s ({c_min:.3f}), "
          f"--policy-file fifo.py:Fifo {p_med:.3f} s ({p_min:.3f}); ratio {p_med / c_med:.2f}x")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--philly", action="store_true", help="also the whole Philly trace (59x8)")
    parser.add_argument("--repeat", type=int, default=5)
    o = parser.parse_args()
    bench("pollux-6 on 16x4", o.repeat, workload="pollux-6", cluster="16x4", seed=1)
    if o.philly:
        bench("whole Philly trace on 59x8", max(1, min(o.repeat, 3)), workload="philly", cluster="59x8", seed=1)


if __name__ == "__main__":
    main()
