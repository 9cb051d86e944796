#!/usr/bin/env bash
# Runs the README's tour ("A quick tour of the CLI") with one dmlkit binary and prints a manifest:
# one line per output file, `SHA-256  command-number/file`, for results.json (without its
# `invocation` record, the only part that names the machine and the moment) and every CSV, and for
# the standard output of commands given no --out (with OUT_DIR's path replaced). Two builds whose manifests are equal
# produce byte-identical results: the check a refactoring that must not change outputs needs
# (issue 34):
#   scripts/tour-outputs.sh build-before/bin/dmlkit /tmp/tour-a > a.txt
#   scripts/tour-outputs.sh build/bin/dmlkit /tmp/tour-b > b.txt && diff a.txt b.txt
# Commands that need a Slurm cluster (scripts/slurm-lab.sh, --slurm), and `diff`, `report`,
# `sweep status` and `sweep collect`, which read earlier outputs, are skipped; TOUR_SKIP='regex' skips more (e.g. 'train' for the trainers).
# The commands are read from README.md each time, so the manifest follows the tour as it changes.
set -euo pipefail
if [[ $# -ne 2 ]]; then
  echo "usage: scripts/tour-outputs.sh DMLKIT_BINARY OUT_DIR" >&2
  exit 2
fi
bin="$(cd "$(dirname "$1")" && pwd)/$(basename "$1")"
out="$2"
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
if [[ ! -x "$bin" ]]; then
  echo "tour-outputs: $1: not an executable" >&2
  exit 2
fi
mkdir -p "$out"
out="$(cd "$out" && pwd)"
# The commands run in OUT_DIR (their default output folders land there); the tour's relative paths
# to bundled files (experiments/, examples/, data/) resolve through links.
for d in experiments examples data; do ln -sfn "$root/$d" "$out/$d"; done

# The tour's commands, one per line: the README block after "## A quick tour of the CLI" up to the
# next heading, continuation lines joined, comments dropped.
mapfile -t commands < <(python3 - "$root/README.md" <<'PY'
import re, sys
text = open(sys.argv[1], encoding="utf-8").read()
start = text.index("## A quick tour of the CLI")
end = text.find("\n## ", start + 1)
block = text[start:end if end >= 0 else len(text)]
joined, pending = [], ""
for line in block.splitlines():
    if not line.startswith("    "):
        continue
    code = line.strip()
    if code.startswith("#"):
        continue
    code = re.sub(r"\s+#.*$", "", code)
    if code.endswith("\\"):
        pending += code[:-1].strip() + " "
        continue
    joined.append(pending + code)
    pending = ""
for c in joined:
    if c.startswith("build/bin/dmlkit "):
        print(c[len("build/bin/dmlkit "):])
PY
)

canonical_results() {  # results.json without `invocation`, keys sorted
  python3 -c 'import json, sys
d = json.load(open(sys.argv[1], encoding="utf-8")); d.pop("invocation", None)
sys.stdout.write(json.dumps(d, sort_keys=True, indent=1))' "$1"
}

n=0
for cmd in "${commands[@]}"; do
  n=$((n + 1))
  if [[ "$cmd" =~ --slurm|^diff|^report|^sweep\ (status|collect) ]] || { [[ -n "${TOUR_SKIP:-}" ]] && [[ "$cmd" =~ ${TOUR_SKIP} ]]; }; then
    echo "skipped  $n: $cmd"
    continue
  fi
  dir="$out/$n"
  rm -rf "$dir"
  read -r -a args <<<"$cmd"
  has_out=0
  for i in "${!args[@]}"; do
    if [[ "${args[$i]}" == "--out" ]]; then
      args[$((i + 1))]="$dir"
      has_out=1
    fi
  done
  mkdir -p "$out/stdout"
  if ! (cd "$out" && "$bin" "${args[@]}" >"$out/stdout/$n.txt" 2>"$out/stdout/$n.err"); then
    echo "failed   $n: $cmd (see OUT_DIR/stdout/$n.err)"
    continue
  fi
  if [[ $has_out -eq 0 ]]; then
    # The output folder's own path is replaced, so two OUT_DIRs give the same manifest.
    echo "$(sed "s|$out|OUT_DIR|g" "$out/stdout/$n.txt" | sha256sum | cut -d' ' -f1)  $n/stdout  # $cmd"
    continue
  fi
  if [[ -f "$dir/results.json" ]]; then
    echo "$(canonical_results "$dir/results.json" | sha256sum | cut -d' ' -f1)  $n/results.json  # $cmd"
  fi
  while IFS= read -r f; do
    echo "$(sha256sum <"$dir/$f" | cut -d' ' -f1)  $n/$f"
  done < <(cd "$dir" && find . -name '*.csv' | sed 's|^\./||' | LC_ALL=C sort)
done
