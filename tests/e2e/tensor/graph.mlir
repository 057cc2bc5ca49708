// A graph of dispatches: a diamond (two branches read one producer, a join
// reads both), a function called twice, and results returned from the
// middle of the graph, on both devices.
// RUN: strata-compile %s -o %t.vmfb
// RUN: strata-run --module=%t.vmfb --device=local-sync --function=diamond --input="2x2xf32=1 2 3 4" --expected_output="2x2xf32=7 10 15 22" --expected_output="2x2xf32=2 3 4 5"
// RUN: strata-run --module=%t.vmfb --device=local-task --function=diamond --input="2x2xf32=1 2 3 4" --expected_output="2x2xf32=7 10 15 22" --expected_output="2x2xf32=2 3 4 5"
// RUN: strata-run --module=%t.vmfb --function=twice --input="4xi32=1 2 3 4" --expected_output="4xi32=4 8 12 16"

// b = a + 1; c = a * a (matmul); d = c + b - b... returns (c, b):
// a = [1 2; 3 4]: a*a = [7 10; 15 22], a + 1 = [2 3; 4 5]
func.func @diamond(%a: tensor<2x2xf32>) -> (tensor<2x2xf32>, tensor<2x2xf32>) {
  %one = arith.constant dense<1.0> : tensor<2x2xf32>
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<2x2xf32>
  %b = linalg.add ins(%a, %one : tensor<2x2xf32>, tensor<2x2xf32>) outs(%e : tensor<2x2xf32>) -> tensor<2x2xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<2x2xf32>) -> tensor<2x2xf32>
  %c = linalg.matmul ins(%a, %a : tensor<2x2xf32>, tensor<2x2xf32>) outs(%f : tensor<2x2xf32>) -> tensor<2x2xf32>
  %s = linalg.add ins(%c, %b : tensor<2x2xf32>, tensor<2x2xf32>) outs(%e : tensor<2x2xf32>) -> tensor<2x2xf32>
  %d = linalg.sub ins(%s, %b : tensor<2x2xf32>, tensor<2x2xf32>) outs(%e : tensor<2x2xf32>) -> tensor<2x2xf32>
  return %d, %b : tensor<2x2xf32>, tensor<2x2xf32>
}

func.func private @double(%a: tensor<4xi32>) -> tensor<4xi32> {
  %e = tensor.empty() : tensor<4xi32>
  %r = linalg.add ins(%a, %a : tensor<4xi32>, tensor<4xi32>) outs(%e : tensor<4xi32>) -> tensor<4xi32>
  return %r : tensor<4xi32>
}

func.func @twice(%a: tensor<4xi32>) -> tensor<4xi32> {
  %b = func.call @double(%a) : (tensor<4xi32>) -> tensor<4xi32>
  %c = func.call @double(%b) : (tensor<4xi32>) -> tensor<4xi32>
  return %c : tensor<4xi32>
}
