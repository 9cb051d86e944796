#!/usr/bin/env bash
# DL2's reproduction study (docs/reproduction-dl2.md): trains DL2 and its variants on a preset and
# prints each model's validation average JCT (the preset's evaluation seeds) beside the heuristics'.
# Usage: bench/dl2_study.sh BUILD_DIR [PRESET] [RL_STEPS] [WINDOW]
#   defaults: dl2-96, 10000 RL steps, window 20. Outputs in $DL2_STUDY_OUT (default out/dl2-study).
# Variants: main (DRF teacher, code exploration, slot reward, prioritized replay), no-exploration,
# no-replay, acting-job reward, OfflineRL (trained on the analytic speed model), SRTF teacher.
# Two runs at a time ($DL2_STUDY_JOBS), each on one validation thread.
set -euo pipefail
build="${1:?usage: bench/dl2_study.sh BUILD_DIR [PRESET] [RL_STEPS] [WINDOW]}"
preset="${2:-dl2-96}"
steps="${3:-10000}"
window="${4:-20}"
out="${DL2_STUDY_OUT:-out/dl2-study}/$preset"
jobs="${DL2_STUDY_JOBS:-2}"
dmlkit="$build/bin/dmlkit"
mkdir -p "$out"
common=(cluster train dl2 --experiment "$preset" --window "$window" --sl-steps 1000 --rl-steps "$steps"
        --val-every 2000 --checkpoint-every 2000 --seed 1 --threads 1 --format csv)
declare -A variant=(
  [main]=""
  [no-exploration]="--exploration none"
  [no-replay]="--no-replay"
  [job-reward]="--reward job"
  [offline-rl]="--train-speed-model analytic"
  [srtf-teacher]="--teacher srtf-dl2"
)
run() {
  local name="$1"
  # shellcheck disable=SC2086
  /usr/bin/time -f "%e s wall, %U s user" "$dmlkit" "${common[@]}" ${variant[$name]} --out "$out/$name" \
    > "$out/$name.csv" 2> "$out/$name.time"
}
n=0
for name in main no-exploration no-replay job-reward offline-rl srtf-teacher; do
  run "$name" &
  n=$((n + 1))
  if (( n % jobs == 0 )); then wait; fi
done
wait
"$dmlkit" cluster compare --experiment "$preset" --policies drf-dl2,srtf-dl2,tetris-dl2,optimus-dl2,optimus \
  --out "$out/heuristics" --format csv > "$out/heuristics.csv"
echo "variant,model,val_avg_jct_s,time"
for name in main no-exploration no-replay job-reward offline-rl srtf-teacher; do
  tail -n +2 "$out/$name.csv" | awk -F, -v v="$name" -v t="$(tail -1 "$out/$name.time")" '{print v "," $1 "," $3 "," t}'
done
echo
cat "$out/heuristics.csv"
