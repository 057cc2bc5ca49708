// Host control flow around dispatches: scf.if choosing between dispatches
// on a scalar condition, and scf.for feeding a dispatch's result back in.
// RUN: strata-compile %s -o %t.vmfb
// RUN: strata-run --module=%t.vmfb --function=pick --input="4xf32=1 2 3 4" --input=i32=1 --expected_output="4xf32=2 4 6 8"
// RUN: strata-run --module=%t.vmfb --function=pick --input="4xf32=1 2 3 4" --input=i32=0 --expected_output="4xf32=1 4 9 16"
// RUN: strata-run --module=%t.vmfb --function=repeat --input="4xi32=1 2 3 4" --input=i64=5 --expected_output="4xi32=32 64 96 128"
// RUN: strata-run --module=%t.vmfb --function=repeat --input="4xi32=1 2 3 4" --input=i64=0 --expected_output="4xi32=1 2 3 4"

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
