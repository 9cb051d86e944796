#!/usr/bin/env bash
# The tables of docs/reproduction-gnn.md: speed-ups of explore+online over every other
# (placement, scheduler) pair, homogeneous and heterogeneous clusters, with limited resources
# (co-location infeasible for some partitions) and without, on two real graphs and a synthetic
# one, then against feature dimension and bandwidth. Usage: bench/gnn_table.sh [build] [outdir]
set -euo pipefail
build=${1:-build}
outdir=${2:-/tmp/gnn-table}
bin="$build/bin/dmlkit"
mkdir -p "$outdir"

# cluster settings: name | devices | store machines
#   unlimited: every store machine has a GPU (stores spread over the machines);
#   limited: stores on machines 0-3, machines 0 and 1 have no GPU, so partitions 0 and 1 cannot
#   host their trainers (co-location infeasible).
settings=(
  "homogeneous|v100:8|0,2,4,6"
  "heterogeneous|v100:4,p100:2,k80:2|0,2,4,6"
  "homogeneous-limited|none:2,v100:6|0,1,2,3"
  "heterogeneous-limited|none:2,v100:2,p100:2,k80:2|0,1,2,3"
)

run() {  # name, extra args...
  local name=$1; shift
  local dir="$outdir/$name"
  [[ -f "$dir/results.json" ]] || "$bin" gnn compare --partitions 4 --machines 8 --fanouts 25,10 --batch 1024 \
      --placements colocate,random,greedy,explore --schedulers fifo-fair,online "$@" --out "$dir" --format csv >/dev/null
  echo "$dir/results.json"
}

table() {  # title, then lines "label|results.json"
  python3 - "$@" <<'PY'
import json, sys
title, rows = sys.argv[1], sys.argv[2:]
pairs = None
print(f"\n### {title}\n")
for row in rows:
    label, path = row.split("|", 1)
    j = json.load(open(path))
    recs = {r["name"]: r["metrics"] for r in j["records"]}
    ours = recs["explore+online"]["epoch_s"]
    others = [n for n in recs if n != "explore+online"]
    if pairs is None:
        pairs = others
        print("| setting | explore+online epoch (ms) | " + " | ".join(f"vs {n}" for n in pairs) + " |")
        print("|---|---|" + "---|" * len(pairs))
    cells = []
    for n in pairs:
        s = recs[n]["epoch_s"] / ours - 1
        cells.append(f"{100*s:+.1f}%")
    print(f"| {label} | {1e3*ours:.1f} | " + " | ".join(cells) + " |")
PY
}

graphs=("NetHEPT" "pubmed" "rmat:nodes=1000000,edge_factor=8")
for g in "${graphs[@]}"; do
  rows=()
  for s in "${settings[@]}"; do
    IFS='|' read -r name devices stores <<<"$s"
    tag="$(echo "$g" | tr ':=,' '___')-$name"
    rows+=("$name|$(run "$tag" --graph "$g" --devices "$devices" --store-machines "$stores" --feature-dim 602 \
      --bandwidth 10Gbps --sim-iterations 20)")
  done
  table "$g, feature dim 602, 10 Gbps" "${rows[@]}"
done

# Against feature dimension and bandwidth: PubMed, heterogeneous with limited resources.
rows=()
for d in 64 256 602 1024; do
  rows+=("dim $d|$(run "dim-$d" --graph pubmed --devices none:2,v100:2,p100:2,k80:2 --store-machines 0,1,2,3 \
    --feature-dim $d --bandwidth 10Gbps)")
done
table "pubmed, heterogeneous-limited, 10 Gbps, against feature dimension" "${rows[@]}"
rows=()
for b in 1Gbps 10Gbps 25Gbps 100Gbps; do
  rows+=("$b|$(run "bw-$b" --graph pubmed --devices none:2,v100:2,p100:2,k80:2 --store-machines 0,1,2,3 \
    --feature-dim 602 --bandwidth $b)")
done
table "pubmed, heterogeneous-limited, feature dim 602, against bandwidth" "${rows[@]}"
