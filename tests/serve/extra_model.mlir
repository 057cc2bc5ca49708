// extra_model.mlir - functions tests/serve/repository_test.py serves from a
// batching model of the repository: scale takes any shape (requests of
// other widths must not batch together) and rowsum answers without a
// batch dimension (a batched call's results cannot be split per request).
module @serve_extra {
  // y = x + x, for any shape.
  func.func @scale(%x: tensor<?x?xf32>) -> tensor<?x?xf32> {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %d0 = tensor.dim %x, %c0 : tensor<?x?xf32>
    %d1 = tensor.dim %x, %c1 : tensor<?x?xf32>
    %e = tensor.empty(%d0, %d1) : tensor<?x?xf32>
    %y = linalg.add ins(%x, %x : tensor<?x?xf32>, tensor<?x?xf32>) outs(%e : tensor<?x?xf32>) -> tensor<?x?xf32>
    return %y : tensor<?x?xf32>
  }

  // The sum of the rows.
  func.func @rowsum(%x: tensor<?x3xf32>) -> tensor<3xf32> {
    %zero = arith.constant 0.0 : f32
    %e = tensor.empty() : tensor<3xf32>
    %f = linalg.fill ins(%zero : f32) outs(%e : tensor<3xf32>) -> tensor<3xf32>
    %r = linalg.reduce ins(%x : tensor<?x3xf32>) outs(%f : tensor<3xf32>) dimensions = [0]
      (%in: f32, %acc: f32) {
        %s = arith.addf %in, %acc : f32
        linalg.yield %s : f32
      }
    return %r : tensor<3xf32>
  }
}
