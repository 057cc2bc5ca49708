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
// RUN: strata-run --module=%t.vmfb --function=matmul_k0 --input="2x0xf32=" --input="0x3xf32=" --expected_output="2x3xf32=0 0 0 0 0 0"
// RUN: strata-run --module=%t.vmfb --function=sum_empty --input="0xf32=" --expected_output="f32=0"
// RUN: strata-run --module=%t.vmfb --function=transpose_empty --input="0x5xf32=" --expected_output="5x0xf32="

func.func @empty_rows(%a: tensor<0x4xf32>) -> tensor<0x4xf32> {
  %e = tensor.empty() : tensor<0x4xf32>
  %r = linalg.add ins(%a, %a : tensor<0x4xf32>, tensor<0x4xf32>) outs(%e : tensor<0x4xf32>) -> tensor<0x4xf32>
  return %r : tensor<0x4xf32>
}

// A matmul whose K is 0 (before: "kernel ... is missing after lowering").
func.func @matmul_k0(%a: tensor<2x0xf32>, %b: tensor<0x3xf32>) -> tensor<2x3xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<2x3xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<2x3xf32>) -> tensor<2x3xf32>
  %r = linalg.matmul ins(%a, %b : tensor<2x0xf32>, tensor<0x3xf32>) outs(%f : tensor<2x3xf32>) -> tensor<2x3xf32>
  return %r : tensor<2x3xf32>
}

func.func @sum_empty(%a: tensor<0xf32>) -> tensor<f32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<f32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<f32>) -> tensor<f32>
  %r = linalg.reduce ins(%a : tensor<0xf32>) outs(%f : tensor<f32>) dimensions = [0]
    (%x: f32, %y: f32) {
      %s = arith.addf %x, %y : f32
      linalg.yield %s : f32
    }
  return %r : tensor<f32>
}

func.func @transpose_empty(%a: tensor<0x5xf32>) -> tensor<5x0xf32> {
  %e = tensor.empty() : tensor<5x0xf32>
  %r = linalg.transpose ins(%a : tensor<0x5xf32>) outs(%e : tensor<5x0xf32>) permutation = [1, 0]
  return %r : tensor<5x0xf32>
}

// A user function may be called __init (the name of the module's own
// initializer, which then takes another name):
// RUN: strata-run --module=%t.vmfb --function=__init --input="2xf32=1 2" --expected_output="2xf32=2 4"
func.func @__init(%a: tensor<2xf32>) -> tensor<2xf32> {
  %e = tensor.empty() : tensor<2xf32>
  %r = linalg.add ins(%a, %a : tensor<2xf32>, tensor<2xf32>) outs(%e : tensor<2xf32>) -> tensor<2xf32>
  return %r : tensor<2xf32>
}
