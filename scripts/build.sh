#!/usr/bin/env bash
# build.sh - configures Strata once and builds it with ninja.
#
#   ./scripts/build.sh                      build/ (compiler: auto)
#   BUILD_DIR=build-asan ./scripts/build.sh -Db_sanitize=address,undefined
#   BUILD_JOBS=1 ./scripts/build.sh         one compile at a time (default:
#                                           one per core, not ninja's cores+2)
#
# Extra arguments are meson options: given to `meson setup` for a new build
# directory, or to `meson configure` for an existing one.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="${BUILD_DIR:-build}"
# The default llvm-config on Debian bookworm is LLVM 14; LLVM/MLIR 22 lives
# here. ccache hits across clones need paths relative to the clone.
export PATH="/usr/lib/llvm-22/bin:$PATH"
export CCACHE_BASEDIR="$root"
# With -g, ccache hashes the working directory unless told not to, and then
# a clone in another folder (CI's) never hits: only the debug info's
# compilation directory would differ, which nothing here reads.
export CCACHE_NOHASHDIR=1

cd "$root"
if [[ ! -f "$build/build.ninja" ]]; then
  meson setup "$build" -Dcompiler=auto "$@"
elif (($# > 0)); then
  meson configure "$build" "$@"
fi
ninja -j"${BUILD_JOBS:-$(nproc)}" -C "$build"
