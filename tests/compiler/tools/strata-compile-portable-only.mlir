// A build configured without llvm-cpu (-Dtarget_llvm_cpu=false, which
// scripts/test.sh builds): portable is then the default target, its module
// runs with native kernels refused, and asking for llvm-cpu names what
// this build has.
// REQUIRES: portable
// UNSUPPORTED: llvm-cpu
// RUN: strata-compile %s -o %t.vmfb
// RUN: strata-dump %t.vmfb | FileCheck %s --check-prefix=DUMP
// RUN: strata-run --module=%t.vmfb --no-native-kernels --input="4xf32=1 2 3 4" --input="4xf32=10 20 30 40" | FileCheck %s --check-prefix=OUT
// RUN: not strata-compile --target=llvm-cpu %s -o %t.other.vmfb 2>&1 | FileCheck %s --check-prefix=ERR

// DUMP: "portable-bytecode-v1"
// OUT: 4xf32=11 22 33 44
// ERR: --target=llvm-cpu is not a target of this build; it has: portable
func.func @main(%a: tensor<4xf32>, %b: tensor<4xf32>) -> tensor<4xf32> {
  %e = tensor.empty() : tensor<4xf32>
  %r = linalg.add ins(%a, %b : tensor<4xf32>, tensor<4xf32>) outs(%e : tensor<4xf32>) -> tensor<4xf32>
  return %r : tensor<4xf32>
}
