#!/usr/bin/env bash
# Installs every build, test and benchmark dependency from Debian bookworm. Idempotent and quiet
# when everything is already there. Run as root on a fresh machine. `--fuzz` adds clang 14 and
# its libFuzzer runtime for the KP_FUZZ=ON build (bench/fuzz/run.sh); the default build and the
# tests need neither.
set -euo pipefail

packages=(
  build-essential cmake ninja-build pkg-config ccache clang-format
  libcaf-dev libboost1.81-dev libboost-json1.81-dev libssl-dev
  libyaml-cpp-dev libspdlog-dev libfmt-dev prometheus-cpp-dev libisofs-dev
  libgtest-dev googletest libgmock-dev libbenchmark-dev
  genisoimage curl ca-certificates nodejs npm unzip
  libre2-dev libjemalloc-dev golang-go golang-gopkg-yaml.v3-dev python3-yaml
)
if [[ ${1:-} == --fuzz ]]; then
  packages+=(clang-14 libclang-rt-14-dev)
fi

missing=()
for p in "${packages[@]}"; do
  # nodejs/npm may come from another source (e.g. NodeSource): accept any working binary.
  case "$p" in
    nodejs) command -v node >/dev/null 2>&1 && continue ;;
    npm) command -v npm >/dev/null 2>&1 && continue ;;
  esac
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done

if ((${#missing[@]})); then
  echo "setup: installing ${missing[*]}"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

# kubectl 1.30+ is not in Debian's archive; tests that need it report themselves skipped.
if command -v kubectl >/dev/null 2>&1; then
  :
else
  echo "setup: kubectl not found; the kubectl conformance tests will be reported as skipped"
fi
