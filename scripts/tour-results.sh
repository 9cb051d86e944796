#!/usr/bin/env bash
# Runs the README's CLI tour (everything but the Slurm lab) into one folder per command, so that
# results.json before and after a change can be compared: scripts/tour-results.sh BUILD OUTDIR.
# Prints each command's wall time. Used by the consolidation work (docs/performance.md).
# TOUR_FORMAT=csv prints the summary tables instead, for scripts/check-output-names.py
# (OUTDIR/NAME:OUTDIR/NAME.stdout for each command).
set -euo pipefail
build=${1:-build}
out=${2:-out/tour}
bin="$build/bin/dmlkit"
mkdir -p "$out"
run() {
  local name=$1; shift
  local t0 t1
  t0=$(date +%s.%N)
  "$bin" "$@" --out "$out/$name" --format "${TOUR_FORMAT:-json}" > "$out/$name.stdout" 2> "$out/$name.stderr"
  t1=$(date +%s.%N)
  printf '%-22s %6.2f s\n' "$name" "$(echo "$t1 - $t0" | bc)"
}
run simulate-tiresias cluster simulate --workload pollux-6 --cluster 16x4 --policy tiresias
run compare-ref cluster compare --workload pollux-3 --cluster 16x4 --policies tiresias,optimus-oracle --profile pollux
run philly-fifo cluster simulate --workload philly --cluster 59x8 --policy fifo
run optimus-testbed cluster compare --experiment optimus-testbed
run comm-compare comm compare --model vgg16 --arch ps --workers 8 --servers 8 --bandwidth 10Gbps --schedulers fifo,bytescheduler --partition-mb 16 --credit-mb 64
run comm-tune comm tune --model vgg16 --arch ps --workers 8 --servers 8 --bandwidth 5Gbps
run influence-rsb influence run --graph NetHEPT --dynamics weighted-cascade --k 20 --steps 100 --algorithms rsb,random,cucb,epsilon-greedy,static-greedy
run continual-sweep continual angle-sweep --angles 0:180:5 --variants cl,replay,ewc,ewc-replay --runs 3
run continual-replay continual replay
run demo cluster compare --workload pollux-6 --cluster 16x4 --policies fifo,srtf,drf,tetris,tiresias --seed 1
