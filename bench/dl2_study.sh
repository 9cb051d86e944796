#!/usr/bin/env bash
# DL2's reproduction study (docs/reproduction-dl2.md): trains DL2 and its variants on a preset and
# prints each model's validation average JCT (the preset's evaluation seeds) beside the heuristics'.
# Usage: bench/dl2_study.sh BUILD_DIR [PRESET] [RL_STEPS] [WINDOW]
#   defaults: dl2-96, 10000 RL steps, window 20, validation every $DL2_STUDY_VAL_EVERY (2000) updates.
#   Outputs in $DL2_STUDY_OUT (default out/dl2-study)/PRESET/DESIGN.
# $DL2_STUDY_DESIGN picks the design the variants depart from:
#   code (default): the code's network, 1,000 SL updates, prioritized replay, the normalised-progress
#     reward; variants: main, no-exploration, no-replay, acting-job reward, OfflineRL (trained on
#     the analytic speed model), SRTF teacher.
#   shared: the presets' default design ([A], ours): column-shared network, speed-up reward,
#     exploration ratio up to 16, no replay, entropy weight 0.01, 200 SL updates; variants: main,
#     no-exploration, replay (prioritized, as the code), acting-job reward, the paper's
#     normalised-progress reward, OfflineRL, SRTF teacher.
# Two runs at a time ($DL2_STUDY_JOBS), each on one validation thread.
set -euo pipefail
build="${1:?usage: bench/dl2_study.sh BUILD_DIR [PRESET] [RL_STEPS] [WINDOW]}"
preset="${2:-dl2-96}"
steps="${3:-10000}"
window="${4:-20}"
out="${DL2_STUDY_OUT:-out/dl2-study}/$preset"
jobs="${DL2_STUDY_JOBS:-2}"
dmlkit="$build/bin/dmlkit"
design="${DL2_STUDY_DESIGN:-code}"
every="${DL2_STUDY_VAL_EVERY:-2000}"
common=(cluster train dl2 --experiment "$preset" --window "$window" --rl-steps "$steps"
        --val-every "$every" --checkpoint-every "$every" --seed 1 --threads 1 --format csv)
declare -A variant
case "$design" in
  code)
    common+=(--sl-steps 1000)
    variant=([main]="" [no-exploration]="--exploration none" [no-replay]="--no-replay" [job-reward]="--reward job"
             [offline-rl]="--train-speed-model analytic" [srtf-teacher]="--teacher srtf-dl2")
    names=(main no-exploration no-replay job-reward offline-rl srtf-teacher) ;;
  shared)
    common+=(--sl-steps 200 --net shared --explore-ratio-max 16 --entropy-weight 0.01)
    variant=([main]="--reward speedup --no-replay" [no-exploration]="--reward speedup --no-replay --exploration none"
             [replay]="--reward speedup" [job-reward]="--reward job --no-replay"
             [progress-reward]="--no-replay" [offline-rl]="--reward speedup --no-replay --train-speed-model analytic"
             [srtf-teacher]="--reward speedup --no-replay --teacher srtf-dl2")
    names=(main no-exploration replay job-reward progress-reward offline-rl srtf-teacher) ;;
  *) echo "DL2_STUDY_DESIGN: code or shared, not '$design'" >&2; exit 2 ;;
esac
out="$out/$design"
mkdir -p "$out"
run() {
  local name="$1"
  # shellcheck disable=SC2086
  /usr/bin/time -f "%e s wall, %U s user" "$dmlkit" "${common[@]}" ${variant[$name]} --out "$out/$name" \
    > "$out/$name.csv" 2> "$out/$name.time"
}
n=0
for name in "${names[@]}"; do
  run "$name" &
  n=$((n + 1))
  if (( n % jobs == 0 )); then wait; fi
done
wait
"$dmlkit" cluster compare --experiment "$preset" --policies drf-dl2,srtf-dl2,tetris-dl2,optimus-dl2,optimus \
  --out "$out/heuristics" --format csv > "$out/heuristics.csv"
echo "variant,model,val_avg_jct_s,time"
for name in "${names[@]}"; do
  tail -n +2 "$out/$name.csv" | awk -F, -v v="$name" -v t="$(tail -1 "$out/$name.time")" '{print v "," $1 "," $3 "," t}'
done
echo
cat "$out/heuristics.csv"
