// Host control flow around dispatches: scf.if choosing between dispatches
// on a scalar condition, and scf.for feeding a dispatch's result back in.
// RUN: strata-compile %s -o %t.vmfb
// RUN: strata-run --module=%t.vmfb --function=pick --input="4xf32=1 2 3 4" --input=i32=1 --expected_output="4xf32=2 4 6 8"
// RUN: strata-run --module=%t.vmfb --function=pick --input="4xf32=1 2 3 4" --input=i32=0 --expected_output="4xf32=1 4 9 16"
// RUN: strata-run --module=%t.vmfb --function=repeat --input="4xi32=1 2 3 4" --input=i64=5 --expected_output="4xi32=32 64 96 128"
// RUN: strata-run --module=%t.vmfb --function=repeat --input="4xi32=1 2 3 4" --input=i64=0 --expected_output="4xi32=1 2 3 4"
// RUN: strata-run --module=%t.vmfb --device=local-task --function=loop_slab --input=16x16xf32=0.0625 --input=i64=3 --expected_output=16x16xf32=248.0625
// RUN: strata-run --module=%t.vmfb --device=local-sync --function=loop_slab --input=16x16xf32=0.0625 --input=i64=3 --expected_output=16x16xf32=248.0625
// RUN: strata-run --module=%t.vmfb --function=loop_slab --input=16x16xf32=0.0625 --input=i64=0 --expected_output=16x16xf32=5.0625

func.func @pick(%a: tensor<4xf32>, %c: i1) -> tensor<4xf32> {
  %r = scf.if %c -> tensor<4xf32> {
    %e = tensor.empty() : tensor<4xf32>
    %x = linalg.add ins(%a, %a : tensor<4xf32>, tensor<4xf32>) outs(%e : tensor<4xf32>) -> tensor<4xf32>
    scf.yield %x : tensor<4xf32>
  } else {
    %e = tensor.empty() : tensor<4xf32>
    %y = linalg.mul ins(%a, %a : tensor<4xf32>, tensor<4xf32>) outs(%e : tensor<4xf32>) -> tensor<4xf32>
    scf.yield %y : tensor<4xf32>
  }
  return %r : tensor<4xf32>
}

// a * 2^n
func.func @repeat(%a: tensor<4xi32>, %n: index) -> tensor<4xi32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %r = scf.for %i = %c0 to %n step %c1 iter_args(%t = %a) -> (tensor<4xi32>) {
    %e = tensor.empty() : tensor<4xi32>
    %x = linalg.add ins(%t, %t : tensor<4xi32>, tensor<4xi32>) outs(%e : tensor<4xi32>) -> tensor<4xi32>
    scf.yield %x : tensor<4xi32>
  }
  return %r : tensor<4xi32>
}

// Transients of a loop body share the function's slab with the results
// around the loop: %t (5 + a*a) lives in the slab across the loop, %u in
// the loop body's room, which must not overlap it. With a = 1/16
// everywhere, X*a = X for any uniform X: each iteration adds 1 (u = acc +
// 1, v = u*a), so after 3 the loop gives 3.0625, and t*r = 16 * 5.0625 *
// 3.0625 = 248.0625 (5.0625 when the loop runs 0 times: t*a); a body that
// wrote over %t would change it.
func.func @loop_slab(%a: tensor<16x16xf32>, %n: index) -> tensor<16x16xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %zero = arith.constant 0.0 : f32
  %one = arith.constant 1.0 : f32
  %five = arith.constant 5.0 : f32
  %e = tensor.empty() : tensor<16x16xf32>
  %f5 = linalg.fill ins(%five : f32) outs(%e : tensor<16x16xf32>) -> tensor<16x16xf32>
  %t = linalg.matmul ins(%a, %a : tensor<16x16xf32>, tensor<16x16xf32>) outs(%f5 : tensor<16x16xf32>) -> tensor<16x16xf32>
  %r = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %a) -> (tensor<16x16xf32>) {
    %f1 = linalg.fill ins(%one : f32) outs(%e : tensor<16x16xf32>) -> tensor<16x16xf32>
    %u = linalg.matmul ins(%acc, %a : tensor<16x16xf32>, tensor<16x16xf32>) outs(%f1 : tensor<16x16xf32>) -> tensor<16x16xf32>
    %f0 = linalg.fill ins(%zero : f32) outs(%e : tensor<16x16xf32>) -> tensor<16x16xf32>
    %v = linalg.matmul ins(%u, %a : tensor<16x16xf32>, tensor<16x16xf32>) outs(%f0 : tensor<16x16xf32>) -> tensor<16x16xf32>
    scf.yield %v : tensor<16x16xf32>
  }
  %g0 = linalg.fill ins(%zero : f32) outs(%e : tensor<16x16xf32>) -> tensor<16x16xf32>
  %s = linalg.matmul ins(%t, %r : tensor<16x16xf32>, tensor<16x16xf32>) outs(%g0 : tensor<16x16xf32>) -> tensor<16x16xf32>
  return %s : tensor<16x16xf32>
}
