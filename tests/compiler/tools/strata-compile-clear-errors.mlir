// Inputs that gave internal errors or none (issue 18, item 7) get clear ones.
// REQUIRES: llvm-cpu
// --compile-from given input that is not at that phase:
// RUN: not strata-compile --compile-from=flow %s -o %t.vmfb 2>&1 | FileCheck %s --check-prefix=FROM
// FROM: error: --compile-from=flow: the input is not at that phase: 'linalg.add' belongs to phase 'input' (use --compile-from=input, or leave --compile-from out)
// RUN: strata-compile --compile-to=flow %s -o %t.flow.mlir
// RUN: not strata-compile --compile-from=stream %t.flow.mlir -o %t.vmfb 2>&1 | FileCheck %s --check-prefix=STREAM
// STREAM: error: --compile-from=stream: the input is not at that phase: 'flow.dispatch' belongs to phase 'flow' (use --compile-from=flow, or leave --compile-from out)
//
// An input without a public function says so (and still compiles):
// RUN: echo "" > %t.empty.mlir
// RUN: strata-compile %t.empty.mlir -o %t.empty.vmfb 2>&1 | FileCheck %s --check-prefix=EMPTY
// EMPTY: warning: the input defines no public function: the module exports nothing
//
// Unranked TOSA: InputConversion/tosa-unranked.mlir.
//
// Zero-size tensors compile and run:
// RUN: strata-compile %s -o %t.vmfb
// RUN: strata-run --module=%t.vmfb --function=empty_rows --input="0x4xf32=" --expected_output="0x4xf32="

func.func @empty_rows(%a: tensor<0x4xf32>) -> tensor<0x4xf32> {
  %e = tensor.empty() : tensor<0x4xf32>
  %r = linalg.add ins(%a, %a : tensor<0x4xf32>, tensor<0x4xf32>) outs(%e : tensor<0x4xf32>) -> tensor<0x4xf32>
  return %r : tensor<0x4xf32>
}

// A user function may be called __init (the name of the module's own
// initializer, which then takes another name):
// RUN: strata-run --module=%t.vmfb --function=__init --input="2xf32=1 2" --expected_output="2xf32=2 4"
func.func @__init(%a: tensor<2xf32>) -> tensor<2xf32> {
  %e = tensor.empty() : tensor<2xf32>
  %r = linalg.add ins(%a, %a : tensor<2xf32>, tensor<2xf32>) outs(%e : tensor<2xf32>) -> tensor<2xf32>
  return %r : tensor<2xf32>
}
