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
)

missing=()
for package in "${packages[@]}"; do
  status="$(dpkg-query -W -f='${Status}' "$package" 2>/dev/null || true)"
  if [[ "$status" != "install ok installed" ]]; then
    missing+=("$package")
  fi
done

if ((${#missing[@]} == 0)); then
  echo "setup: all ${#packages[@]} packages are installed"
  exit 0
fi

sudo=()
if [[ "$(id -u)" -ne 0 ]]; then
  sudo=(sudo)
fi
echo "setup: installing ${missing[*]}"
"${sudo[@]}" apt-get update
DEBIAN_FRONTEND=noninteractive "${sudo[@]}" apt-get install -y \
  --no-install-recommends "${missing[@]}"
