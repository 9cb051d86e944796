#!/usr/bin/env bash
# Prints the markdown table of average JCT (s) per policy on the eight bundled Pollux workloads,
# under both simulation profiles, as recorded in docs/cluster.md.
# Usage: bench/jct_table.sh [build-dir]
set -euo pipefail
build=${1:-build}
bin="$build/bin/dmlkit"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

policies_default="fifo,srtf,drf,tetris,tiresias,optimus-oracle"
policies_pollux="tiresias,optimus-oracle"

row() {  # workload profile policies -> "| a | b | ..." with the avg_jct_s column
  "$bin" cluster compare --workload "$1" --cluster 16x4 --profile "$2" --policies "$3" \
    --format csv --out "$tmp/out" 2>/dev/null | awk -F, 'NR>1 { printf " %s |", $2 }'
}

echo "Default profile (event-driven), 16x4 cluster, seed 1:"
echo
echo "| workload | ${policies_default//,/ | } |"
echo "|---|$(echo "$policies_default" | sed 's/[^,]*/---/g; s/,/|/g')|"
for n in 1 2 3 4 5 6 7 8; do echo "| pollux-$n |$(row pollux-$n default $policies_default)"; done
echo
echo "Pollux profile (reference semantics), 16x4 cluster:"
echo
echo "| workload | tiresias | optimus-oracle |"
echo "|---|---|---|"
for n in 1 2 3 4 5 6 7 8; do echo "| pollux-$n |$(row pollux-$n pollux $policies_pollux)"; done
