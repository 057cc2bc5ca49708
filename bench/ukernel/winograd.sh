#!/usr/bin/env bash
# winograd.sh - the convolution microkernel of this host's variant on
# resnet18's and squeezenet1_1's 3x3 stride-1 shapes, directly and by
# Winograd's F(4x4, 3x3) (STRATA_SGEMM_WINOGRAD: the filter's transform
# packed as --strata-pack-weights packs it), as the compiler calls it, in
# calls of the rows and filters its workgroups take, interleaved in one
# process (winograd_time.c), each output checked against the direct one.
#
#   bench/ukernel/winograd.sh [REPS [ROUNDS]]
#   ISA=avx2 bench/ukernel/winograd.sh   (another row the host can run)
# Exit 77 (skip) without AVX2 + FMA.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
clang="${CLANG:-/usr/lib/llvm-22/bin/clang}"
ukernel="$root/compiler/lib/Codegen/LLVMCPU/ukernel"
out="${OUT_DIR:-$(mktemp -d)}"
mkdir -p "$out"
reps="${1:-10}"
rounds="${2:-5}"
# shellcheck source=bench/ukernel/sconv_build.sh
. "$root/bench/ukernel/sconv_build.sh"
sconv_pick_row "${ISA:-}" ""
sconv_build "$ukernel" "$out/sgemm.o" strata_ukernel_sconv_f32
"$clang" -O2 -std=c11 -I "$root/bench/ukernel" \
  "$root/bench/ukernel/winograd_time.c" "$out/sgemm.o" -lm -o "$out/winograd_time"
echo "winograd.sh: $(lscpu | sed -n 's/^Model name: *//p'), the $isa row," \
  "$(date '+%Y-%m-%d %H:%M')"
status=0
# H W C F, rows and filters a call: resnet18's layers at batch 1 as the
# compiler cuts them (TileAndDistribute.cpp, chooseWinogradTileSizes),
# then other cuts of the same, squeezenet1_1's expansions whole, edge sizes.
for shape in "56 56 64 64 4" "56 56 64 64 8" "28 28 128 128 28 32" \
  "28 28 128 128 4 64" "28 28 128 128 14 64" "14 14 256 256 14 64" \
  "14 14 256 256 7 32" "14 14 256 256 14 128" "55 55 16 64 5" \
  "27 27 32 128 27" "13 13 48 192 13" "7 7 512 512 7" "13 11 17 37 13"; do
  read -r h w c f rows cols <<<"$shape"
  "$out/winograd_time" "$h" "$w" "$c" "$f" "$rows" "$reps" "$rounds" \
    ${cols:+"$cols"} || status=1
done
exit $status
