#!/usr/bin/env bash
# The cost of the sweep machinery (docs/performance.md#sweeps): the 200 cells of
# experiments/sweeps/perf-200.yaml run (1) directly, one after the other, by a shell loop with the
# same command lines, (2) by `dmlkit sweep run --jobs 1`, (3) by `dmlkit sweep run --jobs 2`, (4) a
# re-run of the finished sweep (resume: every cell skipped) and (5) `sweep plan` (parse and check
# every cell). Wall time and CPU time (user + system, children included) of each; the overhead
# per cell is (2 - 1) / 200, in CPU time (robust on a shared machine) and in wall time.
#   bench/sweep_overhead.sh [build/bin/dmlkit]
set -euo pipefail
B=$(realpath "${1:-build/bin/dmlkit}")
F=$(realpath experiments/sweeps/perf-200.yaml)
T=$(mktemp -d /tmp/dmlkit-sweep-bench-XXXXXX)
trap 'rm -rf "$T"' EXIT
TIMEFORMAT='%R %U %S'
measure() { { time "$@" >/dev/null 2>&1; } 2>&1 | awk '{ printf "%.3f %.3f", $1, $2 + $3 }'; }
direct() {
  for p in fifo srtf drf tetris tiresias; do
    for s in $(seq 1 40); do
      "$B" cluster simulate --cluster=16x4 --workload=synthetic --synthetic-jobs=100 --policy=$p --seed=$s \
        --out "$T/direct/policy=${p}__seed=$s" >/dev/null
    done
  done
}
read -r w1 c1 <<<"$(measure direct)"
read -r w2 c2 <<<"$(measure "$B" sweep run "$F" --out "$T/j1" --jobs 1)"
read -r w3 c3 <<<"$(measure "$B" sweep run "$F" --out "$T/j2" --jobs 2)"
read -r w4 c4 <<<"$(measure "$B" sweep run "$F" --out "$T/j2" --jobs 2)"
read -r w5 c5 <<<"$(measure "$B" sweep plan "$F")"
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg), $(nproc) cores"
printf "%-36s %8s %8s\n" "" "wall s" "CPU s"
printf "%-36s %8.2f %8.2f\n" "direct loop (200 cells, serial)" "$w1" "$c1"
printf "%-36s %8.2f %8.2f\n" "sweep run --jobs 1" "$w2" "$c2"
printf "%-36s %8.2f %8.2f\n" "sweep run --jobs 2" "$w3" "$c3"
printf "%-36s %8.2f %8.2f\n" "sweep run again (all finished)" "$w4" "$c4"
printf "%-36s %8.2f %8.2f\n" "sweep plan (parse + check 200)" "$w5" "$c5"
awk -v w1="$w1" -v c1="$c1" -v w2="$w2" -v c2="$c2" -v w3="$w3" 'BEGIN {
  printf "overhead per cell: %.1f ms CPU, %.1f ms wall; --jobs 2 speed-up over --jobs 1: %.2fx\n",
         (c2 - c1) / 200 * 1000, (w2 - w1) / 200 * 1000, w2 / w3 }'
