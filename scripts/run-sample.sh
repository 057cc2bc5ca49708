#!/usr/bin/env bash
# run-sample.sh - compiles MLIR programs with strata-compile (when the build
# has the compiler), makes sample modules with the C++ module builder, shows
# them with strata-dump and runs functions from them with strata-run. Needs a
# build from scripts/build.sh (with tests enabled, the default).
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="$root/${BUILD_DIR:-build}"
out="$build/sample-modules"
mkdir -p "$out"

run() {
  echo "+ ${*//"$root/"/}" >&2
  "$@"
}

# expect EXPECTED COMMAND...: runs the command and checks its output.
expect() {
  local expected="$1"
  shift
  local actual
  actual="$(run "$@")"
  echo "$actual"
  if [[ "$actual" != "$expected" ]]; then
    echo "run-sample: expected '$expected', got '$actual'" >&2
    exit 1
  fi
}

strata_compile="$build/compiler/tools/strata-compile/strata-compile"
strata_run="$build/tools/strata-run/strata-run"
if [[ -x "$strata_compile" ]]; then
  # The MLP sample: tensors in, kernels compiled and embedded, run on a
  # batch from a .npy file and checked against the expected probabilities.
  run "$strata_compile" "$root/samples/mlp/mlp.mlir" -o "$out/mlp.vmfb"
  run "$strata_run" --module="$out/mlp.vmfb" --function=predict \
    --input=@"$root/samples/mlp/input.npy"
  expect "[SUCCESS] all results match" "$strata_run" \
    --module="$out/mlp.vmfb" --function=predict \
    --input=@"$root/samples/mlp/input.npy" \
    --expected_output=@"$root/samples/mlp/expected.npy"
  # Recursive fib(32) in func/arith/scf, compiled to bytecode.
  run "$strata_compile" "$root/bench/interpreter/fib.mlir" -o "$out/fib.vmfb"
  run "$build/tools/strata-dump/strata-dump" --function=fib "$out/fib.vmfb"
  expect "i64=2178309" "$build/tools/strata-run/strata-run" \
    --module="$out/fib.vmfb" --function=main
  # A compiled program calling a native C++ module (samples/custom_module).
  run "$strata_compile" "$root/samples/custom_module/app.mlir" \
    -o "$out/custom_app.vmfb"
  run "$build/samples/custom_module/custom_module_sample" "$out/custom_app.vmfb"
else
  echo "run-sample: no compiler in $build (LLVM 22 missing?); skipping the" \
    "compiled programs" >&2
fi

run "$build/tests/tools/make_sample_modules" "$out"
run "$build/tools/strata-dump/strata-dump" --function=sum_to "$out/sample.vmfb"
expect "i32=5" "$strata_run" --module="$out/sample.vmfb" --function=add \
  --input=i32=2 --input=i32=3
expect "i32=55" "$strata_run" --module="$out/sample.vmfb" --function=sum_to \
  --input=i32=10
expect "f64=0.0025" "$strata_run" --module="$out/sample.vmfb" \
  --function=scale --input=f64=1e-3
expect "i32=41" "$strata_run" --module="$out/math.vmfb" \
  --module="$out/app.vmfb" --function=main --input=i32=20
# Tensors through the HAL: hal_sample.add dispatches the sample add_f32
# kernel, embedded in the module, on both local devices.
hal_sample="$build/samples/hal_dispatch/hal_sample.vmfb"
for device in local-sync local-task; do
  expect "2x3xf32=[11 22 33][44 55 66]" "$strata_run" --device="$device" \
    --module="$hal_sample" --function=add \
    --input="2x3xf32=1 2 3 4 5 6" --input="2x3xf32=10 20 30 40 50 60"
done
echo "run-sample: ok"
