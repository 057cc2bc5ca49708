#!/usr/bin/env bash
# setup.sh - installs every Debian (bookworm) package Strata needs to build and
# test, as root (or through sudo). Idempotent: when everything is installed it
# does not touch apt at all.
set -euo pipefail

packages=(
  # build
  meson ninja-build pkg-config ccache g++ python3
  # module format, event loop, unit tests
  libflatbuffers-dev flatbuffers-compiler libuv1-dev doctest-dev
  # signed modules (Ed25519; docs/security.md)
  libsodium-dev
  # compiler (LLVM/MLIR 22) and fuzzing (clang + libFuzzer runtime)
  clang-22 libclang-rt-22-dev llvm-22-dev libmlir-22-dev mlir-22-tools
  lld-22 liblld-22-dev
  # the format check of changed lines (scripts/check-format.sh)
  clang-format-22
  # ONNX import (proto classes + protobuf), ONNX's backend tests and the
  # Python that reads their data (tests/onnx)
  libonnx-dev libprotobuf-dev libonnx-testdata python3-onnx
  # real models exported from PyTorch for the models suite (tests/models)
  python3-torch python3-torchvision
  # the Python package (python/) and its tests
  pybind11-dev python3-dev python3-pytest
  # tools/strata-serve (HTTP parsing, JSON) and its load test (wrk); the
  # deployment files' test (deploy/) reads YAML
  libhttp-parser-dev libsimdjson-dev wrk python3-yaml
  # strata-serve's gRPC service and its Python test client
  libgrpc++-dev protobuf-compiler protobuf-compiler-grpc python3-grpcio
  python3-grpc-tools
  # peers for the benchmarks (ONNX Runtime itself comes from npm:
  # bench/models/setup_peers.sh)
  lua5.4 luajit python3-numpy libopenblas0-pthread nodejs
  # the aarch64 cross build of the runtime and its tests under emulation
  # (scripts/cross/aarch64-linux-gnu.ini, docs/targets.md): the arm64
  # libraries come from Debian's multiarch archive
  g++-aarch64-linux-gnu libc6-dev-arm64-cross qemu-user-static
  libuv1-dev:arm64 libflatbuffers-dev:arm64 libsodium-dev:arm64
)

sudo=()
if [[ "$(id -u)" -ne 0 ]]; then
  sudo=(sudo)
fi

# The :arm64 packages need the architecture known to dpkg (and then an
# apt-get update, which the install below does).
if ! dpkg --print-foreign-architectures | grep -qx arm64; then
  echo "setup: adding the arm64 architecture to dpkg"
  "${sudo[@]}" dpkg --add-architecture arm64
fi

# A name without :arch means the native architecture (or an arch: all
# package). dpkg-query lists one line per installed architecture of it.
native="$(dpkg --print-architecture)"
missing=()
for package in "${packages[@]}"; do
  want="$native"
  if [[ "$package" == *:* ]]; then
    want="${package##*:}"
  fi
  found=0
  while IFS='|' read -r status arch; do
    if [[ "$status" == "install ok installed" &&
          ("$arch" == "$want" || "$arch" == all) ]]; then
      found=1
    fi
  done < <(dpkg-query -W -f='${Status}|${Architecture}\n' "${package%%:*}" \
             2>/dev/null || true)
  if ((found == 0)); then
    missing+=("$package")
  fi
done

if ((${#missing[@]} == 0)); then
  echo "setup: all ${#packages[@]} packages are installed"
  exit 0
fi

echo "setup: installing ${missing[*]}"
"${sudo[@]}" apt-get update
DEBIAN_FRONTEND=noninteractive "${sudo[@]}" apt-get install -y \
  --no-install-recommends "${missing[@]}"
