#!/usr/bin/env bash
# setup_peers.sh - installs ONNX Runtime 1.30 (onnxruntime-node, CPU library
# inside the package) for bench/models/run.py into ~/.cache/strata-peers, or
# into $1. Needs node and npm (Debian's nodejs; npm comes with NodeSource's
# nodejs or Debian's npm package). ONNXRUNTIME_NODE_INSTALL=skip keeps its
# install script from downloading GPU parts, which fails offline.
set -euo pipefail
dir="${1:-$HOME/.cache/strata-peers}"
if ! command -v npm >/dev/null; then
  echo "setup_peers: npm is missing (apt-get install npm, or NodeSource's nodejs)" >&2
  exit 1
fi
mkdir -p "$dir"
cd "$dir"
if [[ -d node_modules/onnxruntime-node ]]; then
  echo "setup_peers: onnxruntime-node is in $dir/node_modules"
  exit 0
fi
ONNXRUNTIME_NODE_INSTALL=skip npm install --no-audit --no-fund onnxruntime-node@1.30.0
echo "setup_peers: installed into $dir/node_modules"
