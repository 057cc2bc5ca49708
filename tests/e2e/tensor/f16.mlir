// f16 tensors: stored as f16, arithmetic promoted by LLVM, math computed in
// f32 (math-extend-to-supported-types) and rounded back; a matmul
// accumulates in f16 as the program says.
// RUN: strata-compile %s -o %t.vmfb
// RUN: strata-run --module=%t.vmfb --function=exp --input="3xf16=0 1 -2" --expected_output="3xf16=1 2.719 0.1353"
// RUN: strata-run --module=%t.vmfb --function=matmul
// RUN: strata-run --module=%t.vmfb --function=add --input="8xf16=1 2.5 -3 0.125 65504 1e-7 6e-5 nan" --input="8xf16=0.5 0.5 0.5 1 65504 0 -6e-5 1" --expected_output="8xf16=1.5 3 -2.5 1.125 inf 1e-07 0 nan"
// RUN: not strata-run --module=%t.vmfb --function=exp --input="3xf16=0 1 -2" --expected_output="3xf16=1 2.8 0.1353" 2>&1 | FileCheck %s
// CHECK: [FAILED] result[0]: element [1] is 2.719

func.func @add(%a: tensor<8xf16>, %b: tensor<8xf16>) -> tensor<8xf16> {
  %r = tosa.add %a, %b : (tensor<8xf16>, tensor<8xf16>) -> tensor<8xf16>
  return %r : tensor<8xf16>
}

func.func @exp(%a: tensor<3xf16>) -> tensor<3xf16> {
  %r = tosa.exp %a : (tensor<3xf16>) -> tensor<3xf16>
  return %r : tensor<3xf16>
}

func.func @matmul() {
  %lhs = util.unfoldable_constant dense<[[1.0, 2.0], [3.0, 4.0], [0.5, -1.0]]> : tensor<3x2xf16>
  %rhs = util.unfoldable_constant dense<[[1.0, 0.5, 2.0, -1.0], [0.25, 1.0, -2.0, 3.0]]> : tensor<2x4xf16>
  %zero = arith.constant 0.0 : f16
  %init = tensor.empty() : tensor<3x4xf16>
  %acc = linalg.fill ins(%zero : f16) outs(%init : tensor<3x4xf16>) -> tensor<3x4xf16>
  %r = linalg.matmul ins(%lhs, %rhs : tensor<3x2xf16>, tensor<2x4xf16>) outs(%acc : tensor<3x4xf16>) -> tensor<3x4xf16>
  check.expect_almost_eq_const(%r, dense<[[1.5, 2.5, -2.0, 5.0], [4.0, 5.5, -2.0, 9.0], [0.25, -0.75, 3.0, -3.5]]> : tensor<3x4xf16>) : tensor<3x4xf16>
  return
}
