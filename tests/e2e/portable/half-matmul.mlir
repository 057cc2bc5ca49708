// f16 matmuls on the portable target end to end, on the matmul
// instruction: an f16 C accumulates in f16 (each product and sum rounded,
// as the linalg body computes: 2048 + 1 stays 2048, so the first row sums
// to 2048, where f32 would give 2055); an f32 C of f16 inputs (the body
// widens them) accumulates in f32.
// RUN: strata-compile %s --target=portable -o %t.vmfb
// RUN: strata-run --module=%t.vmfb --no-native-kernels --function=mm16 --input="2x8xf16=2048 1 1 1 1 1 1 1 1 2 3 4 5 6 7 8" --input="8x2xf16=1 0 1 0 1 0 1 0 1 0 1 0 1 0 1 0" --expected_output="2x2xf16=2048 0 36 0"
// RUN: strata-run --module=%t.vmfb --no-native-kernels --device=local-task --function=mm16to32 --input="2x8xf16=2048 1 1 1 1 1 1 1 1 2 3 4 5 6 7 8" --input="8x2xf16=1 0 1 0 1 0 1 0 1 0 1 0 1 0 1 0" --expected_output="2x2xf32=2055 0 36 0"

func.func @mm16(%a: tensor<2x8xf16>, %b: tensor<8x2xf16>) -> tensor<2x2xf16> {
  %z = arith.constant 0.0 : f16
  %e = tensor.empty() : tensor<2x2xf16>
  %f = linalg.fill ins(%z : f16) outs(%e : tensor<2x2xf16>) -> tensor<2x2xf16>
  %r = linalg.matmul ins(%a, %b : tensor<2x8xf16>, tensor<8x2xf16>) outs(%f : tensor<2x2xf16>) -> tensor<2x2xf16>
  return %r : tensor<2x2xf16>
}

func.func @mm16to32(%a: tensor<2x8xf16>, %b: tensor<8x2xf16>) -> tensor<2x2xf32> {
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<2x2xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<2x2xf32>) -> tensor<2x2xf32>
  %r = linalg.matmul ins(%a, %b : tensor<2x8xf16>, tensor<8x2xf16>) outs(%f : tensor<2x2xf32>) -> tensor<2x2xf32>
  return %r : tensor<2x2xf32>
}
