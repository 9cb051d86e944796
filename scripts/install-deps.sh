#!/usr/bin/env bash
# Installs the Debian packages dmlkit needs to build, test and run. Idempotent: when every
# package is already installed it does nothing; otherwise it runs `apt-get update` first and
# installs only what is missing. Debian packages only; nothing else is downloaded.
set -euo pipefail

packages=(
  cmake ninja-build ccache g++ make pkg-config
  nlohmann-json3-dev libyaml-cpp-dev libcli11-dev libfmt-dev
  libqhull-dev libeigen3-dev libsimgrid-dev
  libgtest-dev libgmock-dev libbenchmark-dev
  libjs-chart.js time
  dataset-fashion-mnist zlib1g-dev
  slurmctld slurmd slurm-client munge
)
# Headless browser for the report test; only needed by `make test`.
if [[ "${DMLKIT_WITH_BROWSER:-1}" == "1" ]]; then
  packages+=(chromium)
fi

missing=()
for p in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done

if [[ ${#missing[@]} -eq 0 ]]; then
  exit 0
fi

echo "install-deps: installing ${missing[*]}" >&2
SUDO=""
if [[ $(id -u) -ne 0 ]]; then SUDO="sudo"; fi
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
