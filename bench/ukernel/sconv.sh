#!/usr/bin/env bash
# sconv.sh - times the f32 convolution microkernel of this host's variant
# with the depth block its IsaTuning.def row gives in-place convolutions
# (conv_kc) against other depths, on resnet18's 3x3 convolutions (56x56x64,
# 28x28x128, 14x14x256; rows a call as the compiler tiles them at batch 8;
# 7x7x512 as at batch 1: the whole image, 64 filters a call), interleaved
# in one process (sconv_time.c); then the 7x7 stride-2 stem on 3 channels
# (112x112 output, 4 rows a call, as at batch 8).
#
#   [ISA=avx512vnni|avx512|avx2] [BASE=COMMIT] bench/ukernel/sconv.sh
#       [REPS [ROUNDS [DEPTH...]]]
# DEPTH defaults to 256 576 1152 2304; ISA, the host's best variant by
# default, picks another row the host can run. BASE adds the same row
# built from an earlier commit's microkernel sources, first (the ratios'
# base): a kernel change measured against what it changes (a commit
# whose entry point takes the input's extent and padding, as this
# sconv_time.c calls it: from the one that made the kernel skip the
# padding on). Exit 77 (skip) without AVX2 + FMA.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
clang="${CLANG:-/usr/lib/llvm-22/bin/clang}"
ukernel="$root/compiler/lib/Codegen/LLVMCPU/ukernel"
out="${OUT_DIR:-$(mktemp -d)}"
mkdir -p "$out"
reps="${1:-20}"
rounds="${2:-9}"
shift $(($# < 2 ? $# : 2))
depths=("$@")
((${#depths[@]})) || depths=(256 576 1152 2304)
# shellcheck source=bench/ukernel/sconv_build.sh
. "$root/bench/ukernel/sconv_build.sh"
sconv_pick_row "${ISA:-}" ""
# The row's own build first (the ratios' base), then one per depth; with
# BASE, that commit's row before them.
names=() defines=() dirs=()
if [[ -n ${BASE:-} ]]; then
  mkdir -p "$out/base"
  git -C "$root" archive "$BASE" compiler/lib/Codegen/LLVMCPU/ukernel |
    tar -x -C "$out/base"
  names+=(base) defines+=("") dirs+=("$out/base/compiler/lib/Codegen/LLVMCPU/ukernel")
fi
names+=(row) defines+=("") dirs+=("$ukernel")
for d in "${depths[@]}"; do
  names+=("kc$d") defines+=("-DSTRATA_UKERNEL_CONV_KC=$d") dirs+=("$ukernel")
done
objects=()
{
  echo "#define NV ${#names[@]}"
  for n in "${names[@]}"; do echo "void sconv_$n(void);"; done
  echo "static const char *names[] = {"
  for n in "${names[@]}"; do echo "  \"$n\","; done
  echo "};"
  echo "static const SconvFn fns[] = {"
  for n in "${names[@]}"; do echo "  (SconvFn)sconv_$n,"; done
  echo "};"
} >"$out/sconv_variants.h"
for i in "${!names[@]}"; do
  n=${names[$i]}
  # As the compiler builds it, each under its own symbol.
  # shellcheck disable=SC2086
  sconv_build "${dirs[$i]}" "$out/$n.o" "sconv_$n" ${defines[$i]}
  objects+=("$out/$n.o")
done
"$clang" -O2 -std=c11 -I "$out" "$root/bench/ukernel/sconv_time.c" \
  "${objects[@]}" -lm -o "$out/sconv_time"
echo "sconv.sh: $(lscpu | sed -n 's/^Model name: *//p'), variant $isa" \
  "(row: conv_kc $(sed -n "s/^STRATA_ISA_TUNING($isa, .*, \([0-9]*\))$/\1/p" \
    "$ukernel/IsaTuning.def")), $(date '+%Y-%m-%d %H:%M')"
status=0
# H C F ROWS [COLS [KERNEL STRIDE]] (sconv_time.c); the last is the stem
# (7x7 stride 2 on the 3 channels of the image).
for shape in "56 64 64 4" "28 128 128 4" "14 256 256 14" "7 512 512 7 64" \
  "112 3 64 4 64 7 2"; do
  # shellcheck disable=SC2086
  set -- $shape
  # shellcheck disable=SC2086
  "$out/sconv_time" $1 $2 $3 $4 "$reps" "$rounds" ${5:-} ${6:-} ${7:-} ||
    status=1
done
exit $status
