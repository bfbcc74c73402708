# shellcheck shell=bash
# Shared set-up for scripts/demo, scripts/test and bench/run: installs the Debian packages the
# build and the tests need (only those missing), so every script works from a fresh clone on a
# fresh Debian 12 machine, and is harmless to run again.
set -euo pipefail

TORCHDEX_ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
export TORCHDEX_ROOT
TORCHDEX_JOBS=${TORCHDEX_JOBS:-$(nproc 2>/dev/null || echo 2)}
export TORCHDEX_JOBS

# Build tools, libraries (see CMakeLists.txt), and what the tests run: nginx serves index pages
# on loopback, python3-venv gives real pip environments, clang + libclang-rt build the fuzzers.
TORCHDEX_PACKAGES=(
  g++ cmake ninja-build ccache pkg-config git ca-certificates
  clang libclang-rt-14-dev
  libcurl4-openssl-dev libxml2-dev libboost-program-options-dev libsqlite3-dev
  nlohmann-json3-dev libgtest-dev libgmock-dev libbenchmark-dev
  nginx python3 python3-venv
)

torchdex_install_packages() {
  local missing=()
  local pkg
  for pkg in "${TORCHDEX_PACKAGES[@]}"; do
    if ! dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q 'install ok installed'; then
      missing+=("$pkg")
    fi
  done
  if [ ${#missing[@]} -eq 0 ]; then
    return 0
  fi
  echo "torchdex: installing missing packages: ${missing[*]}" >&2
  local sudo=()
  if [ "$(id -u)" -ne 0 ]; then
    sudo=(sudo)
  fi
  "${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get update -qq
  "${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
    "${missing[@]}" >/dev/null
}

# torchdex_build PRESET [extra cmake -D options...]: configure (once) and build a preset.
torchdex_build() {
  local preset=$1
  shift
  cmake -S "$TORCHDEX_ROOT" --preset "$preset" "$@" >/dev/null
  cmake --build "$TORCHDEX_ROOT/build/$preset" -j "$TORCHDEX_JOBS"
}
