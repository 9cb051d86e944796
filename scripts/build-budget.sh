#!/usr/bin/env bash
# Prints the build's compile-time budget from Ninja's log (BUILD_DIR/.ninja_log): the N slowest
# steps (default 20) and the seconds spent per part of the tree (apps/, tests/, src/<module>/,
# python/, bench/, linking). Reads the newest entry of each output, so run it after a full build
# from clean (`rm -rf build && make build`, or `cmake --build build --target clean` first) for a
# whole-build budget; after an incremental build it shows what was rebuilt last.
#   scripts/build-budget.sh [BUILD_DIR] [N]
# The numbers of record live in docs/performance.md ("Build time").
set -euo pipefail
build_dir="${1:-build}"
top="${2:-20}"
log="$build_dir/.ninja_log"
if [[ ! -f "$log" ]]; then
  echo "build-budget: $log: no Ninja log (configure with -G Ninja and build first)" >&2
  exit 2
fi
if ! [[ "$top" =~ ^[0-9]+$ ]]; then
  echo "build-budget: N: '$top' is not a count" >&2
  exit 2
fi
awk -v top="$top" '
  BEGIN { FS = "\t" }
  /^#/ { next }
  NF >= 4 { dur[$4] = ($2 - $1) / 1000.0 }
  END {
    total = 0
    for (p in dur) {
      total += dur[p]
      part = p
      if (p ~ /\.(o|gch)$/) {
        sub(/\/CMakeFiles\/.*/, "", part)
        if (part ~ /^src\//) { split(part, a, "/"); part = a[1] "/" a[2] }
        else { split(part, a, "/"); part = a[1] }
        if (p ~ /\.gch$/) part = part " (precompiled headers)"
      } else if (p ~ /\.(so|a)$|^bin\/|^tests\/test_|^bench\/[a-z_]+$/) {
        part = "link / archive"
      } else {
        part = "other (generated files, docs)"
      }
      bypart[part] += dur[p]
      n++
    }
    printf "%d steps, %.0f s of compile/link time (core-seconds)\n\n", n, total
    printf "by part of the tree:\n"
    cmd = "sort -t \"\t\" -k2,2 -g -r"
    for (k in bypart) printf "  %s\t%.1f\n", k, bypart[k] | cmd
    close(cmd)
    printf "\nthe %d slowest steps (s):\n", top
    cmd = "sort -t \"\t\" -k1,1 -g -r | head -n " top
    for (p in dur) printf "%.1f\t%s\n", dur[p], p | cmd
    close(cmd)
  }' "$log"
