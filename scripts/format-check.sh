#!/usr/bin/env bash
# `make format-check`: every C++ file of the repository is as the repository's .clang-format writes
# it (clang-format 14, Debian bookworm's; `make test` runs this first). `make format` rewrites them.
# Usage: scripts/format-check.sh [--fix]
set -euo pipefail
cd "$(dirname "$0")/.."
if ! command -v clang-format >/dev/null 2>&1; then
  echo "format-check: clang-format is not installed (scripts/install-deps.sh installs it)" >&2
  exit 3
fi
mapfile -t files < <(git ls-files -- '*.cpp' '*.h' '*.hpp' '*.cc')
if [[ "${1:-}" == "--fix" ]]; then
  clang-format -i "${files[@]}"
  exit 0
fi
if ! clang-format --dry-run -Werror "${files[@]}" 2>/tmp/dmlkit-format-check.$$; then
  grep -E '^[^ ].*: (error|warning):' /tmp/dmlkit-format-check.$$ | cut -d: -f1 | sort -u |
    sed 's/^/format-check: not formatted: /' >&2
  rm -f /tmp/dmlkit-format-check.$$
  echo "format-check: run 'make format' (or clang-format -i on the files above)" >&2
  exit 1
fi
rm -f /tmp/dmlkit-format-check.$$
echo "format-check: ${#files[@]} files formatted as .clang-format says"
