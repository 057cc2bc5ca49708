// checked_model.mlir - a model whose failure depends on its data, for
// tests/serve/compiled_batch_test.py's batch failure isolation: main(x:
// ?x3xf32) -> 2 * x, failing (cf.assert) when any element of x is negative.
// Batched with good requests, a request with a negative value must fail
// alone.
module @checked {
  func.func @main(%x: tensor<?x3xf32>) -> tensor<?x3xf32>
      attributes {util.reflection = {"arg0.dims" = "N,3"}} {
    %c0 = arith.constant 0 : index
    %n = tensor.dim %x, %c0 : tensor<?x3xf32>
    %inf = arith.constant 0x7F800000 : f32
    %zero = arith.constant 0.0 : f32
    %e0 = tensor.empty() : tensor<f32>
    %init = linalg.fill ins(%inf : f32) outs(%e0 : tensor<f32>) -> tensor<f32>
    %min = linalg.reduce ins(%x : tensor<?x3xf32>) outs(%init : tensor<f32>) dimensions = [0, 1]
      (%in: f32, %acc: f32) {
        %m = arith.minimumf %in, %acc : f32
        linalg.yield %m : f32
      }
    %v = tensor.extract %min[] : tensor<f32>
    %ok = arith.cmpf oge, %v, %zero : f32
    cf.assert %ok, "checked.main: an input is negative"
    %e = tensor.empty(%n) : tensor<?x3xf32>
    %r = linalg.add ins(%x, %x : tensor<?x3xf32>, tensor<?x3xf32>) outs(%e : tensor<?x3xf32>) -> tensor<?x3xf32>
    return %r : tensor<?x3xf32>
  }
}
