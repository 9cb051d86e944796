#!/usr/bin/env bash
# The cost of the sweep machinery (docs/performance.md#sweeps): the 200 cells of
# experiments/sweeps/perf-200.yaml run (1) directly, one after the other, by a shell loop with the
# same command lines, (2) by `dmlkit sweep run --jobs 1`, (3) by `dmlkit sweep run --jobs 2`, and
# (4) a re-run of the finished sweep (resume: every cell skipped). Overhead per cell =
# (time of 2 - time of 1) / 200.
#   bench/sweep_overhead.sh [build/bin/dmlkit]
set -euo pipefail
B=$(realpath "${1:-build/bin/dmlkit}")
F=$(realpath experiments/sweeps/perf-200.yaml)
T=$(mktemp -d /tmp/dmlkit-sweep-bench-XXXXXX)
trap 'rm -rf "$T"' EXIT
now() { date +%s.%N; }
t0=$(now)
for p in fifo srtf drf tetris tiresias; do
  for s in $(seq 1 40); do
    "$B" cluster simulate --cluster=16x4 --workload=synthetic --synthetic-jobs=100 --policy=$p --seed=$s \
      --out "$T/direct/policy=${p}__seed=$s" >/dev/null
  done
done
t1=$(now)
"$B" sweep run "$F" --out "$T/j1" --jobs 1 >/dev/null
t2=$(now)
"$B" sweep run "$F" --out "$T/j2" --jobs 2 >/dev/null
t3=$(now)
"$B" sweep run "$F" --out "$T/j2" --jobs 2 >/dev/null
t4=$(now)
"$B" sweep plan "$F" >/dev/null
t5=$(now)
awk -v a="$t0" -v b="$t1" -v c="$t2" -v d="$t3" -v e="$t4" -v f="$t5" 'BEGIN {
  printf "direct loop (200 cells, serial):   %6.2f s\n", b - a
  printf "sweep run --jobs 1:                %6.2f s  (overhead %.1f ms per cell)\n", c - b, (c - b - (b - a)) / 200 * 1000
  printf "sweep run --jobs 2:                %6.2f s  (speed-up over --jobs 1: %.2fx)\n", d - c, (c - b) / (d - c)
  printf "sweep run again (all finished):    %6.2f s\n", e - d
  printf "sweep plan (parse + check 200):    %6.2f s\n", f - e
}'
