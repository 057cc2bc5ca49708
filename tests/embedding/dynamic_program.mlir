// dynamic_program.mlir - the module of tests/embedding/dynamic_shapes.cpp:
// add_rows(x, y) = x + y on ?x3xf32, the two row counts named N in the
// reflection and checked equal at entry with both sizes in the message, as
// the ONNX importer does for two inputs that share a symbolic dimension.
func.func @add_rows(%x: tensor<?x3xf32>, %y: tensor<?x3xf32>) -> tensor<?x3xf32>
    attributes {util.reflection = {"arg0.dims" = "N,3", "arg1.dims" = "N,3"}} {
  %c0 = arith.constant 0 : index
  %n = tensor.dim %x, %c0 : tensor<?x3xf32>
  %m = tensor.dim %y, %c0 : tensor<?x3xf32>
  util.assert_eq %n, %m, "argument 1 ('y') dimension 0 is {1} but argument 0 ('x') dimension 0 is {0}; the model names both 'N'" : index
  %e = tensor.empty(%n) : tensor<?x3xf32>
  %r = linalg.add ins(%x, %y : tensor<?x3xf32>, tensor<?x3xf32>) outs(%e : tensor<?x3xf32>) -> tensor<?x3xf32>
  return %r : tensor<?x3xf32>
}
