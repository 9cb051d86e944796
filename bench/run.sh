#!/usr/bin/env bash
# Runs every Google Benchmark program of a build, then replays the whole Philly trace (82k jobs)
# through the CLI with fifo and tiresias under /usr/bin/time -v, and prints wall time and max RSS.
# Usage: bench/run.sh BUILD_DIR   (called by `make bench`). Outputs go to $BENCH_OUT (default
# out/bench). Set BENCH_POLICIES to change the policies replayed on Philly (default "fifo tiresias")
# and BENCH_SKIP_MICRO=1 to skip the micro-benchmarks.
#
# The cluster is sized to the trace by `philly_bench --philly-cluster` (docs/cluster-workloads.md):
# 8-GPU servers, as many as the larger of (largest job / 8) and (mean GPU demand / 0.8 / 8), where
# the mean GPU demand is the trace's total GPU-seconds over its submission span -- about 80% load.
set -euo pipefail

build="${1:?usage: bench/run.sh BUILD_DIR}"
out="${BENCH_OUT:-out/bench}"
policies="${BENCH_POLICIES:-fifo tiresias}"
dmlkit="$build/bin/dmlkit"
mkdir -p "$out"

if [[ "${BENCH_SKIP_MICRO:-0}" != "1" ]]; then
  for b in "$build"/bench/*; do
    [[ -f "$b" && -x "$b" ]] || continue
    name="$(basename "$b")"
    echo "== $name"
    "$b" --benchmark_out="$out/$name.json" --benchmark_out_format=json
  done
fi

[[ -x "$dmlkit" ]] || { echo "bench/run.sh: $dmlkit not built" >&2; exit 1; }
[[ -x "$build/bench/philly_bench" ]] || { echo "bench/run.sh: $build/bench/philly_bench not built" >&2; exit 1; }
cluster="$("$build/bench/philly_bench" --philly-cluster)"
echo "== whole Philly trace on $cluster"

timer=()
if [[ -x /usr/bin/time ]]; then timer=(/usr/bin/time -v); fi

summary="$out/philly-replay.txt"
printf '%-10s %-8s %12s %14s\n' policy cluster wall_s max_rss_mib > "$summary"
for policy in $policies; do
  run_out="$out/philly-$policy"
  log="$out/philly-$policy.time"
  start_ns=$(date +%s%N)
  "${timer[@]}" "$dmlkit" cluster simulate --workload philly --cluster "$cluster" --policy "$policy" \
    --seed 1 --out "$run_out" --format table > "$out/philly-$policy.txt" 2> "$log" || {
    echo "bench/run.sh: $policy failed:" >&2
    cat "$log" >&2
    exit 1
  }
  end_ns=$(date +%s%N)
  wall_s=$(awk -v a="$start_ns" -v b="$end_ns" 'BEGIN { printf "%.2f", (b - a) / 1e9 }')
  rss_mib="n/a"
  if [[ ${#timer[@]} -gt 0 ]]; then
    rss_kib=$(awk -F': ' '/Maximum resident set size/ { print $2 }' "$log")
    rss_mib=$(awk -v k="$rss_kib" 'BEGIN { printf "%.1f", k / 1024 }')
  fi
  printf '%-10s %-8s %12s %14s\n' "$policy" "$cluster" "$wall_s" "$rss_mib" >> "$summary"
  cat "$out/philly-$policy.txt"
done
echo "== Philly replay (wall time, max RSS)"
cat "$summary"
