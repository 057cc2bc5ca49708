#!/usr/bin/env bash
# winograd.sh - what Winograd's F(4x4, 3x3) would make of resnet18's and
# squeezenet1_1's 3x3 stride-1 convolutions on this host (winograd_time.c:
# the convolution microkernel as the compiler calls it, against 6x6 input
# tiles transformed, 36 products by the filter's transforms on the matmul
# microkernel, and 4x4 output tiles transformed back with the bias and
# relu), interleaved in one process. Sizes are multiples of 4 near the
# models' (16 for 14, 8 for 7, 12 for 13). The compiler does not use it
# yet: this is the estimate that says whether it should.
#
#   bench/ukernel/winograd.sh [REPS [ROUNDS]]
# Exit 77 (skip) without AVX-512 (the transforms are written for it).
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
sconv_pick_row "" avx512
# Both entry points (convolution and matmul) of the host's row (x86 and
# flags: sconv_build.sh's).
# shellcheck disable=SC2154
"$clang" "${x86[@]}" -O3 -c -ffreestanding -fno-builtin -fno-stack-protector \
  -fPIC -std=c11 -I "$ukernel" "${flags[@]}" "-DSTRATA_UKERNEL_ISA=$isa" \
  "$ukernel/$source" -o "$out/sgemm.o"
"$clang" -O2 -std=c11 -mavx512f -mfma -I "$root/bench/ukernel" \
  "$root/bench/ukernel/winograd_time.c" "$out/sgemm.o" -lm -o "$out/winograd_time"
echo "winograd.sh: $(lscpu | sed -n 's/^Model name: *//p'), the $isa row," \
  "$(date '+%Y-%m-%d %H:%M')"
status=0
# H C F, direct rows a call, Winograd tile rows a band (a whole image when
# it has few tiles).
for shape in "56 64 64 4 1" "28 128 128 4 7" "16 256 256 4 4" \
  "8 512 512 4 2" "56 16 64 4 1" "28 32 128 4 7" "12 48 192 4 3" \
  "12 64 256 4 3"; do
  # shellcheck disable=SC2086
  "$out/winograd_time" $shape "$reps" "$rounds" || status=1
done
exit $status
