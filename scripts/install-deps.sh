#!/usr/bin/env bash
# Installs the Debian 12 packages gpucost needs to build, test and benchmark.
# Idempotent and quiet when everything is already installed.
set -euo pipefail

packages=(
  build-essential cmake ninja-build pkg-config lld
  clang libclang-rt-14-dev            # libFuzzer and the sanitizer runtimes
  libgtest-dev libgmock-dev libbenchmark-dev
  zlib1g-dev libzstd-dev libxxhash-dev libfmt-dev libcli11-dev nlohmann-json3-dev libyaml-cpp-dev
  libcurl4-openssl-dev libssl-dev openssl libcpp-httplib-dev
  libsqlite3-dev sqlite3              # the cost ledger, and the shell its salvage uses (tests/ledger)
  libpqxx-dev postgresql              # the ledger on PostgreSQL, and a real server for its tests
  libprotobuf-dev protobuf-compiler libsnappy-dev   # remote read: protobuf + snappy
  libgrpc++-dev protobuf-compiler-grpc               # agent: kubelet PodResources (gRPC)
  prometheus                          # promtool and a real Prometheus for integration tests
  prometheus-alertmanager             # a real Alertmanager for the alert tests
  slurmctld slurmd slurmdbd slurm-client munge mariadb-server   # a real Slurm for tests/slurm
  python3 time
  python3-yaml umoci tzdata ca-certificates   # images and manifests (tests/deploy, make image)
  curl zsh                            # the CLI tests: serve-demo's printed commands, zsh completion
  chromium                            # the web UI's browser tests, and the HTML statement in a real browser
)
# kubectl renders the Kustomize manifests (tests/deploy); any kubectl will do.
command -v kubectl >/dev/null || packages+=(kubernetes-client)
# Node.js and npm build the web UI (npm ci + esbuild) and drive its browser tests: Debian's
# packages, unless a Node.js that brings its own npm (NodeSource's) is there already.
command -v node >/dev/null || packages+=(nodejs)
command -v npm >/dev/null || packages+=(npm)

missing=()
for p in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done
[ "${#missing[@]}" -eq 0 ] && exit 0

echo "install-deps: installing ${missing[*]}" >&2
SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
