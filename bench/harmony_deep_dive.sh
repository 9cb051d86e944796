#!/usr/bin/env bash
# Harmony's deep-dive studies (issue 14, docs/reproduction-harmony.md "Deep-dive studies"): neurons,
# layers, value network on/off, exploration on/off, replay on/off. Each variant changes one knob of
# the paper's design (DRL from a random network on the reward model, no imitation warm start, so the
# techniques themselves are what is measured), is trained with several seeds on ONE reward model,
# and its best checkpoint (chosen on the validation traces) is evaluated on the preset's evaluation
# seeds in the simulator. Prints one CSV row per (variant, training seed) and a summary per variant:
# mean and sample sd over training seeds of the evaluation average JCT.
# Usage: bench/harmony_deep_dive.sh BUILD_DIR [PRESET] [RL_STEPS] [TRAIN_SEEDS]
#   defaults: harmony-testbed, 1000 DRL updates, seeds "1 2 3". Outputs in $HARMONY_DD_OUT
#   (default out/harmony-deep-dive). $HARMONY_DD_RM: a reward.json to reuse (else one is fitted once).
#   Two trainings at a time ($HARMONY_DD_JOBS); $HARMONY_DD_DATA: the data folder (default data).
set -euo pipefail
build="${1:?usage: bench/harmony_deep_dive.sh BUILD_DIR [PRESET] [RL_STEPS] [TRAIN_SEEDS]}"
preset="${2:-harmony-testbed}"
steps="${3:-1000}"
seeds="${4:-1 2 3}"
out="${HARMONY_DD_OUT:-out/harmony-deep-dive}/$preset"
jobs="${HARMONY_DD_JOBS:-2}"
dmlkit="$build/bin/dmlkit"
mkdir -p "$out"
common=(cluster train harmony --experiment "$preset" --rl-steps "$steps" --entropy-weight 20 --lr 3e-4
        --epsilon-start 0.3 --val-every 250 --checkpoint-every 1000 --data-dir "${HARMONY_DD_DATA:-data}" --threads 1 --format csv)
rm_file="${HARMONY_DD_RM:-}"
if [[ -z "$rm_file" ]]; then
  "$dmlkit" "${common[@]}" --rm-traces 40 --rl-steps 0 --seed 1 --out "$out/rm" > /dev/null
  rm_file="$out/rm/reward.json"
fi
declare -A variant=(
  [base]=""
  [neurons-32]="--neurons 32"
  [neurons-128]="--neurons 128"
  [layers-1]="--layers 1"
  [layers-3]="--layers 3"
  [no-critic]="--no-critic"
  [no-exploration]="--no-exploration"
  [no-replay]="--no-replay"
)
names=(base neurons-32 neurons-128 layers-1 layers-3 no-critic no-exploration no-replay)
train_one() {
  local name="$1" seed="$2" dir="$out/$1-s$2"
  [[ -s "$dir/eval.json" ]] && return 0  # done by an earlier call (re-runs add seeds)
  # shellcheck disable=SC2086
  "$dmlkit" "${common[@]}" ${variant[$name]} --reward-model "$rm_file" --seed "$seed" --out "$dir/train" > /dev/null
  "$dmlkit" cluster compare --experiment "$preset" --data-dir "${HARMONY_DD_DATA:-data}" --policies harmony \
      --policy-param "harmony.model=$dir/train/best.json" --out "$dir/eval" --format json > "$dir/eval.json.tmp"
  mv "$dir/eval.json.tmp" "$dir/eval.json"
}
start=$(date +%s)
for name in "${names[@]}"; do
  for seed in $seeds; do
    while (( $(jobs -rp | wc -l) >= jobs )); do wait -n; done
    train_one "$name" "$seed" &
  done
done
wait
echo "# $preset, $steps DRL updates, training seeds: $seeds; wall $(( $(date +%s) - start )) s; load $(cut -d' ' -f1-3 /proc/loadavg)"
echo "variant,seed,best_val_jct_s,best_step,eval_avg_jct_s"
for name in "${names[@]}"; do
  for seed in $seeds; do
    python3 - "$out/$name-s$seed" "$name" "$seed" <<'PY'
import json, sys, statistics
d, name, seed = sys.argv[1:]
t = json.load(open(d + "/train/results.json"))
best = [r for r in t["records"] if r["name"] == "harmony-best"][0]["metrics"]
e = json.load(open(d + "/eval.json"))
jcts = [r["metrics"]["avg_jct_s"] for r in e["records"] if r["name"] == "harmony"]
print(f"{name},{seed},{best['val_avg_jct_s']:.0f},{best['step']:.0f},{statistics.mean(jcts):.0f}")
PY
  done
done | tee "$out/rows.csv"
echo "variant,runs,eval_avg_jct_mean_s,eval_avg_jct_sd_s"
python3 - "$out/rows.csv" <<'PY'
import csv, sys, statistics
rows = {}
for r in csv.reader(open(sys.argv[1])):
    rows.setdefault(r[0], []).append(float(r[4]))
for k, v in rows.items():
    sd = statistics.stdev(v) if len(v) > 1 else 0.0
    print(f"{k},{len(v)},{statistics.mean(v):.0f},{sd:.0f}")
PY
