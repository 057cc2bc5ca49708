// strata-compile --async-exports: each function with tensors also exports
// <name>$async, which takes a wait fence and a signal fence after its
// inputs, returns once its work is submitted, and signals the fence when
// the results are ready. strata-run passes no wait fence and waits for the
// signal fence before it reads the results.
// RUN: strata-compile --async-exports %s -o %t.vmfb
// RUN: strata-dump %t.vmfb | FileCheck %s --check-prefix=DUMP
// DUMP-DAG: mlp$async -> @mlp$async  0rrr_r
// DUMP-DAG: mlp -> @mlp  0r_r
// RUN: strata-run --module=%t.vmfb --device=local-task --function='mlp$async' --input="2x2xf32=1 -2 3 4" --expected_output="2x2xf32=1 -2 18 14"
// RUN: strata-run --module=%t.vmfb --device=local-sync --function='mlp$async' --input="2x2xf32=1 -2 3 4" --expected_output="2x2xf32=1 -2 18 14"
// RUN: strata-run --module=%t.vmfb --function=mlp --input="2x2xf32=1 -2 3 4" --expected_output="2x2xf32=1 -2 18 14"
// Host code that reads data waits for the wait fence first; a function
// without device work signals at once.
// RUN: strata-run --module=%t.vmfb --function='first$async' --input="3xi32=7 8 9" --expected_output=i32=7
// RUN: strata-run --module=%t.vmfb --function='same$async' --input="3xi32=7 8 9" --expected_output="3xi32=7 8 9"
// Wrong inputs are still named (the fences are strata-run's to pass).
// RUN: not strata-run --module=%t.vmfb --function='mlp$async' 2>&1 | FileCheck %s --check-prefix=ARGS
// ARGS: got 0 inputs (besides its wait and signal fences, which strata-run passes)

// relu(a * a) then + a: two dispatches chained in one submission.
func.func @mlp(%a: tensor<2x2xf32>) -> tensor<2x2xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<2x2xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<2x2xf32>) -> tensor<2x2xf32>
  %m = linalg.matmul ins(%a, %a : tensor<2x2xf32>, tensor<2x2xf32>) outs(%f : tensor<2x2xf32>) -> tensor<2x2xf32>
  %r = linalg.max ins(%m, %f : tensor<2x2xf32>, tensor<2x2xf32>) outs(%e : tensor<2x2xf32>) -> tensor<2x2xf32>
  %b = util.optimization_barrier %r : tensor<2x2xf32>
  %s = linalg.add ins(%b, %a : tensor<2x2xf32>, tensor<2x2xf32>) outs(%e : tensor<2x2xf32>) -> tensor<2x2xf32>
  return %s : tensor<2x2xf32>
}

func.func @first(%a: tensor<3xi32>) -> i32 {
  %c0 = arith.constant 0 : index
  %v = tensor.extract %a[%c0] : tensor<3xi32>
  return %v : i32
}

func.func @same(%a: tensor<3xi32>) -> tensor<3xi32> {
  return %a : tensor<3xi32>
}
