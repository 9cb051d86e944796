#!/usr/bin/env bash
# Prints the markdown tables of docs/reproduction-psld.md: PSLD's speed-up (time for N iterations)
# over mxnet and byteps per model, straggler scenario and PS count, 8 workers at 10 Gbps.
# Usage: bench/psld_table.sh [build-dir] [iterations] [models for the PS-count grid] [other models]
set -euo pipefail
build=${1:-build}
iters=${2:-500}
grid_models=${3-"resnet50 vgg16 gnmt"}
other_models=${4-"alexnet resnet18 resnet101 resnext50 densenet121 inception_v3 squeezenet1_0 gnmt_large"}
bin="$build/bin/dmlkit"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
scenarios="none persistent rotating burst"

cell() {  # model servers scenario -> " psld/mxnet, psld/byteps (mxnet_s) |"
  "$bin" ps compare --model "$1" --workers 8 --servers "$2" --bandwidth 10Gbps --stragglers "$3" \
    --iterations "$iters" --policies mxnet,byteps,paa,psld --format csv --out "$tmp/out" 2>/dev/null |
    awk -F, '$1=="mxnet" {m=$2} $1=="paa" {p=$4} $1=="psld" {printf " **%.2f** / %.2f (paa %.2f) |", $4, $5, p}'
}

echo "Speed-up of psld: over mxnet / over byteps (and paa over mxnet), $iters iterations, 8 workers, 10 Gbps:"
echo
echo "| model | PSs | none | persistent | rotating | burst |"
echo "|---|---|---|---|---|---|"
for m in $grid_models; do
  for s in 2 4 8; do
    line="| $m | $s |"
    for sc in $scenarios; do line="$line$(cell "$m" "$s" "$sc")"; done
    echo "$line"
  done
done
for m in $other_models; do
  line="| $m | 4 |"
  for sc in $scenarios; do line="$line$(cell "$m" 4 "$sc")"; done
  echo "$line"
done
