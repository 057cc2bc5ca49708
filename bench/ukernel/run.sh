#!/usr/bin/env bash
# run.sh - builds bench/ukernel/igemm_check against each int8 microkernel
# variant this host can run (AMX-INT8, AVX-512 VNNI), checks each against
# the scalar reference, then times the same shapes on each, interleaved.
# check also runs idwconv_check (the int8 depthwise kernel) on each.
#
#   bench/ukernel/run.sh [check|time] [REPS]
# Exit 77 (skip) when the host has neither AMX-INT8 nor AVX-512 VNNI.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
clang="${CLANG:-/usr/lib/llvm-22/bin/clang}"
ukernel="$root/compiler/lib/Codegen/LLVMCPU/ukernel"
out="${OUT_DIR:-$(mktemp -d)}"
mkdir -p "$out"
mode="${1:-check}"
reps="${2:-200}"
avx512=(-mavx512f -mavx512vl -mavx512bw -mavx512dq -mavx512vnni -mavx2 -mfma)
variants=()
if grep -qw avx512_vnni /proc/cpuinfo; then
  variants+=(vnni)
fi
if grep -qw amx_int8 /proc/cpuinfo && grep -qw amx_tile /proc/cpuinfo; then
  variants+=(amx)
fi
if ((${#variants[@]} == 0)); then
  echo "SKIP: the host has neither AVX-512 VNNI nor AMX-INT8"
  exit 77
fi
for v in "${variants[@]}"; do
  extra=()
  [[ $v == amx ]] && extra=(-mamx-tile -mamx-int8)
  # The ukernel as the compiler builds it (meson.build), then the harness.
  "$clang" --target=x86_64-unknown-linux-gnu -O3 -c -ffreestanding \
    -fno-builtin -fno-stack-protector -fPIC -std=c11 -I "$ukernel" \
    "${avx512[@]}" "${extra[@]}" "-DSTRATA_UKERNEL_ISA=avx512$v" \
    "$ukernel/SgemmAvx512.c" -o "$out/$v.o"
  "$clang" -O2 -std=c11 -I "$ukernel" "$root/bench/ukernel/igemm_check.c" \
    "$out/$v.o" -lm -o "$out/igemm_$v"
  "$clang" -O2 -std=c11 -I "$ukernel" "$root/bench/ukernel/idwconv_check.c" \
    "$out/$v.o" -lm -o "$out/idwconv_$v"
done
if [[ " ${variants[*]} " == *" amx "* ]]; then
  # The AMX kernel with its rows short of a tile copied onto tiles (not
  # the default: see IG_AMX_PAD_MIN_ROWS), so that path stays checked.
  "$clang" --target=x86_64-unknown-linux-gnu -O3 -c -ffreestanding \
    -fno-builtin -fno-stack-protector -fPIC -std=c11 -I "$ukernel" \
    "${avx512[@]}" -mamx-tile -mamx-int8 -DIG_AMX_PAD_MIN_ROWS=1 \
    -DSTRATA_UKERNEL_ISA=avx512amx \
    "$ukernel/SgemmAvx512.c" -o "$out/amx_padrows.o"
  "$clang" -O2 -std=c11 -I "$ukernel" "$root/bench/ukernel/igemm_check.c" \
    "$out/amx_padrows.o" -lm -o "$out/igemm_amx_padrows"
fi
kmult() { [[ $1 == amx* ]] && echo 64 || echo 4; }
if [[ $mode == check ]]; then
  status=0
  checked=("${variants[@]}")
  [[ " ${variants[*]} " == *" amx "* ]] && checked+=(amx_padrows)
  for v in "${checked[@]}"; do
    echo -n "$v: "
    timeout 300 "$out/igemm_$v" check "$(kmult "$v")" || status=1
  done
  for v in "${variants[@]}"; do
    echo "$v depthwise:"
    timeout 300 "$out/idwconv_$v" || status=1
  done
  exit $status
fi
# Shapes of the quantized resnet18 / mobilenet_v2 layers (M = output pixels
# of one image or a workgroup's tile, N = output channels, K = depth).
shapes=(
  "1 1000 512" "1 1024 1280" "8 1000 512"
  "16 64 64" "32 64 64" "49 512 4608" "196 256 2304" "784 128 1152"
  "3136 64 576" "64 512 512" "256 256 256" "49 1280 320" "196 96 576"
  "784 24 144" "3136 16 32" "12544 32 27"
)
for shape in "${shapes[@]}"; do
  for v in "${variants[@]}"; do
    echo -n "$v "
    "$out/igemm_$v" time "$(kmult "$v")" $shape "$reps"
  done
done
