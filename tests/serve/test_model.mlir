// test_model.mlir - the functions tests/service_test.py calls through the
// service besides the MLP: a run-time failure (integer division by zero ->
// 500), a slow loop (holds a call in flight for the 503 and SIGTERM-drain
// tests), integer tensors (a dtype other than f32) and dynamic shapes: two
// arguments whose first dimension the reflection names N, as the ONNX
// importer names a shared symbolic dimension.
module @svc_test {
  func.func @divide(%a: i32, %b: i32) -> i32 {
    %q = arith.divsi %a, %b : i32
    return %q : i32
  }

  // s = (s + i * 3) mod 1000003 for i = 1 .. n.
  func.func @spin(%n: i64) -> i64 {
    %zero = arith.constant 0 : i64
    %one = arith.constant 1 : i64
    %three = arith.constant 3 : i64
    %modulus = arith.constant 1000003 : i64
    %end = arith.addi %n, %one : i64
    %s = scf.for %i = %one to %end step %one iter_args(%acc = %zero) -> (i64) : i64 {
      %t = arith.muli %i, %three : i64
      %u = arith.addi %acc, %t : i64
      %v = arith.remsi %u, %modulus : i64
      scf.yield %v : i64
    }
    return %s : i64
  }

  func.func @add_i32(%x: tensor<2x3xi32>, %y: tensor<2x3xi32>) -> tensor<2x3xi32> {
    %e = tensor.empty() : tensor<2x3xi32>
    %r = linalg.add ins(%x, %y : tensor<2x3xi32>, tensor<2x3xi32>) outs(%e : tensor<2x3xi32>) -> tensor<2x3xi32>
    return %r : tensor<2x3xi32>
  }

  func.func @add_rows(%x: tensor<?x3xf32>, %y: tensor<?x3xf32>) -> tensor<?x3xf32>
      attributes {util.reflection = {"arg0.dims" = "N,3", "arg1.dims" = "N,3"}} {
    %c0 = arith.constant 0 : index
    %n = tensor.dim %x, %c0 : tensor<?x3xf32>
    %e = tensor.empty(%n) : tensor<?x3xf32>
    %r = linalg.add ins(%x, %y : tensor<?x3xf32>, tensor<?x3xf32>) outs(%e : tensor<?x3xf32>) -> tensor<?x3xf32>
    return %r : tensor<?x3xf32>
  }
}
