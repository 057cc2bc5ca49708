// A graph of dispatches: a diamond (two branches read one producer, a join
// reads both), a function called twice, and results returned from the
// middle of the graph, on both devices.
// RUN: strata-compile %s -o %t.vmfb
// RUN: strata-run --module=%t.vmfb --device=local-sync --function=diamond --input="2x2xf32=1 2 3 4" --expected_output="2x2xf32=7 10 15 22" --expected_output="2x2xf32=2 3 4 5"
// RUN: strata-run --module=%t.vmfb --device=local-task --function=diamond --input="2x2xf32=1 2 3 4" --expected_output="2x2xf32=7 10 15 22" --expected_output="2x2xf32=2 3 4 5"
// RUN: strata-run --module=%t.vmfb --function=twice --input="4xi32=1 2 3 4" --expected_output="4xi32=4 8 12 16"
// RUN: strata-run --module=%t.vmfb --device=local-task --function=overlap --input="4xi32=1 2 3 4" --input=i64=1000 --expected_output="4xi32=3 5 7 9" --expected_output="4xi32=4 7 10 13" --expected_output=i64=499500
// RUN: strata-run --module=%t.vmfb --device=local-sync --function=overlap --input="4xi32=1 2 3 4" --input=i64=1000 --expected_output="4xi32=3 5 7 9" --expected_output="4xi32=4 7 10 13" --expected_output=i64=499500

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

// Groups in a chain: the optimization barrier ends the group of 2a (the
// host does not wait there); the group of b = 2a + 1 is submitted waiting
// for the first group's fence. The loop starts new blocks, so the host
// awaits the chain's last fence before it; then c = b + a.
func.func @overlap(%a: tensor<4xi32>, %n: index) -> (tensor<4xi32>, tensor<4xi32>, index) {
  %e = tensor.empty() : tensor<4xi32>
  %one = arith.constant dense<1> : tensor<4xi32>
  %d = linalg.add ins(%a, %a : tensor<4xi32>, tensor<4xi32>) outs(%e : tensor<4xi32>) -> tensor<4xi32>
  %d2 = util.optimization_barrier %d : tensor<4xi32>
  %b = linalg.add ins(%d2, %one : tensor<4xi32>, tensor<4xi32>) outs(%e : tensor<4xi32>) -> tensor<4xi32>
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %sum = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %c0) -> (index) {
    %next = arith.addi %acc, %i : index
    scf.yield %next : index
  }
  %c = linalg.add ins(%b, %a : tensor<4xi32>, tensor<4xi32>) outs(%e : tensor<4xi32>) -> tensor<4xi32>
  return %b, %c, %sum : tensor<4xi32>, tensor<4xi32>, index
}
