#!/usr/bin/env bash
# Where PACE separates from ByteScheduler on ring all-reduce (issue 16, comm fidelity follow-up;
# docs/reproduction-comm.md): per-hop start-up latency alpha (--latency-us: a ring all-reduce pays
# 2(N-1) steps of two hops each), bandwidth, workers and models with many small tensors (gnmt) or a
# branching DAG (inception_v3), at batch 32 so that communication matters. ByteScheduler is tuned
# (comm tune: Bayesian optimisation + grid over partition and credit), PACE and Horovod run with
# their own defaults (PACE plans its fusion itself). Prints one CSV row per setting.
# Usage: bench/pace_alpha_sweep.sh BUILD_DIR [OUT_DIR]
set -euo pipefail
build="${1:?usage: bench/pace_alpha_sweep.sh BUILD_DIR [OUT_DIR]}"
out="${2:-out/pace-alpha-sweep}"
dmlkit="$build/bin/dmlkit"
mkdir -p "$out"
echo "model,workers,bandwidth,latency_us,bytescheduler_tuned_ms,pace_ms,horovod_ms,pace_over_bytescheduler"
for model in resnet50 inception_v3 gnmt; do
  for workers in 8 32; do
    for bw in 10Gbps 100Gbps; do
      for lat in 5 50 200; do
        common=(--model "$model" --arch allreduce --workers "$workers" --bandwidth "$bw" --latency-us "$lat"
                --batch 32 --format csv)
        tag="$model-$workers-$bw-$lat"
        bs=$("$dmlkit" comm tune --scheduler bytescheduler "${common[@]}" --out "$out/tune-$tag" |
             awk -F, '$1 != "method" && $5 != "" {print $5}' | sort -g | head -1)
        others=$("$dmlkit" comm compare --schedulers pace,horovod "${common[@]}" --out "$out/cmp-$tag")
        pace=$(echo "$others" | awk -F, '$1 == "pace" {print $2}')
        hvd=$(echo "$others" | awk -F, '$1 == "horovod" {print $2}')
        ratio=$(awk -v b="$bs" -v p="$pace" 'BEGIN {printf "%.3f", b / p}')
        echo "$model,$workers,$bw,$lat,$bs,$pace,$hvd,$ratio"
      done
    done
  done
done
