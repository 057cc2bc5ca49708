# shellcheck shell=bash
# sconv_build.sh - sourced by band.sh, nchwc.sh and sconv.sh: the host's
# row of the f32 convolution microkernel (ukernel/IsaTuning.def), built as
# the compiler builds it (compiler/lib/Codegen/LLVMCPU/ukernel/meson.build).
# Expects clang set (set -euo pipefail in the caller).
# shellcheck disable=SC2154 # clang: the caller's

x86=(--target=x86_64-unknown-linux-gnu)
has() { grep -qw "$1" /proc/cpuinfo; }

# sconv_pick_row WANT LEAST: sets isa, source and flags to the host's best
# row, or to WANT when given (avx512vnni, avx512 or avx2); LEAST avx512
# leaves out the AVX2 row. Exits 77 (skip) when the host cannot run it.
sconv_pick_row() {
  local want="$1" least="$2"
  if [[ -n $want && $want != avx512vnni && $want != avx512 && $want != avx2 ]]; then
    echo "ISA must be avx512vnni, avx512 or avx2, not '$want'" >&2
    exit 2
  fi
  if { [[ -z $want ]] || [[ $want == avx512vnni ]]; } && has avx512_vnni; then
    isa=avx512vnni source=SgemmAvx512.c
    flags=(-mavx512f -mavx512vl -mavx512bw -mavx512dq -mavx512vnni -mavx2 -mfma)
  elif { [[ -z $want ]] || [[ $want == avx512 ]]; } && has avx512f; then
    isa=avx512 source=SgemmAvx512.c
    flags=(-mavx512f -mavx512vl -mavx512bw -mavx512dq -mavx2 -mfma)
  elif [[ $least != avx512 ]] &&
    { [[ -z $want ]] || [[ $want == avx2 ]]; } && has avx2 && has fma; then
    isa=avx2 source=SgemmAvx2.c flags=(-mavx2 -mfma)
  else
    echo "SKIP: the host cannot run the ${want:-${least:-AVX2 + FMA}} kernel"
    exit 77
  fi
}

# sconv_build DIR OUT SYMBOL [DEFINE...]: the picked row of the kernel
# sources in DIR, compiled to the object OUT with strata_ukernel_sconv_f32
# its only global symbol, renamed SYMBOL.
sconv_build() {
  local dir="$1" object="$2" symbol="$3"
  shift 3
  "$clang" "${x86[@]}" -O3 -c -ffreestanding -fno-builtin \
    -fno-stack-protector -fPIC -std=c11 -I "$dir" "${flags[@]}" \
    "-DSTRATA_UKERNEL_ISA=$isa" "$@" "$dir/$source" -o "$object.full.o"
  objcopy --redefine-sym "strata_ukernel_sconv_f32=$symbol" \
    --keep-global-symbol="$symbol" "$object.full.o" "$object"
}
