#!/usr/bin/env python3
"""dmlkit.cluster.simulate in-process (cluster/run.h through pybind11, python/src/cluster_run.cpp)
against the way it ran before issue 34: the CLI's argument vector and a temporary output folder
(dmlkit._cli.run_command: parse, run, write results.json, CSVs and report.html, load them back).

    PYTHONPATH=build/python /usr/bin/python3 bench/python_inprocess_bench.py [--loops 100] [--rounds 3]

A Python loop of --loops simulations of pollux-6 (policy fifo on 16x4, seed 1), each way, for
--rounds rounds alternating the two; prints each round's total and per-run time, and the median
over the rounds. Also checks that both ways give the same records. Timings are not asserted
anywhere (docs/performance.md records them).
"""
import argparse
import statistics
import time

import dmlkit
from dmlkit import _cli

RUN = dict(workload="pollux-6", cluster="16x4", policy="fifo", seed=1)


def in_process():
    return dmlkit.cluster.simulate(**RUN)


def through_cli():
    return _cli.run_command(["cluster", "simulate"], RUN)


def loop(fn, n):
    t = time.perf_counter()
    for _ in range(n):
        res = fn()
        res.records[0].metrics["avg_jct_s"]  # what a user reads
    return time.perf_counter() - t


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--loops", type=int, default=100)
    ap.add_argument("--rounds", type=int, default=3)
    args = ap.parse_args()
    a, b = in_process(), through_cli()  # warm-up (first reads of the bundled files)
    assert a.raw["records"] == b.raw["records"], "the two ways must give the same records"
    assert a.path is None, "in-process: no folder"
    times = {"cli (before)": [], "in-process (after)": []}
    for r in range(args.rounds):
        for name, fn in (("cli (before)", through_cli), ("in-process (after)", in_process)):
            total = loop(fn, args.loops)
            times[name].append(total)
            print(f"round {r + 1}: {name:20s} {args.loops} runs {total:7.3f} s  ({1000 * total / args.loops:6.2f} ms/run)")
    print()
    for name, ts in times.items():
        med = statistics.median(ts)
        print(f"median {name:20s} {med:7.3f} s  ({1000 * med / args.loops:6.2f} ms/run, min {min(ts):.3f} s)")
    before = statistics.median(times["cli (before)"])
    after = statistics.median(times["in-process (after)"])
    print(f"speed-up: {before / after:.2f}x")


if __name__ == "__main__":
    main()
