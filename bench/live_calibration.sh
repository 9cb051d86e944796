#!/usr/bin/env bash
# Sim-to-real calibration runs on a local Slurm lab (docs/live-mode.md, "Calibration").
#
#   bench/live_calibration.sh OUT SCALE "POLICIES" [NODES=8] [GPUS=4] [JOBS=40] [WORKLOAD=pollux-6]
#
# Brings up its own lab in OUT/lab, replays the first JOBS jobs of WORKLOAD under each policy in
# turn at time scale SCALE (wall s per model s), writes each replay to OUT/<policy>-<SCALE>/
# (results.json, jobs.csv, calibration.json, report.html, ...), and always takes the lab down.
# Several instances with different OUT run side by side (each lab has its own ports).
# DMLKIT (default build/bin/dmlkit) is the binary used; REPLAY_ARGS (e.g. "--unexpressible narrow")
# is added to every `cluster replay`. Needs root and the Slurm packages.
set -uo pipefail
[[ $# -ge 3 ]] || { sed -n 4,4p "$0" >&2; exit 2; }
OUT=$1 SCALE=$2 POLICIES=$3 NODES=${4:-8} GPUS=${5:-4} JOBS=${6:-40} WORKLOAD=${7:-pollux-6}
ROOT=$(cd "$(dirname "$0")/.." && pwd)
DMLKIT=${DMLKIT:-$ROOT/build/bin/dmlkit}
LAB_SCRIPT=$ROOT/scripts/slurm-lab.sh
mkdir -p "$OUT"
OUT=$(cd "$OUT" && pwd)
trap 'bash "$LAB_SCRIPT" down "$OUT/lab" >/dev/null 2>&1' EXIT
bash "$LAB_SCRIPT" up "$OUT/lab" "$NODES" "$GPUS" >"$OUT/lab-up.log" 2>&1 || { cat "$OUT/lab-up.log" >&2; exit 1; }
export SLURM_CONF=$OUT/lab/etc/slurm.conf
for p in $POLICIES; do
  d=$OUT/$p-$SCALE
  start=$(date +%s)
  "$DMLKIT" cluster replay --slurm --workload "$WORKLOAD" --jobs "$JOBS" --policy "$p" --time-scale "$SCALE" \
    --out "$d" --work-dir "$OUT/work-$p-$SCALE" ${REPLAY_ARGS:-} >"$OUT/$p-$SCALE.out" 2>"$OUT/$p-$SCALE.log"
  rc=$?
  echo "$p $SCALE exit=$rc wall_s=$(( $(date +%s) - start ))" | tee -a "$OUT/runs.txt"
done
