// oip_model.mlir - the functions tests/serve/oip_test.py calls through the
// Open Inference Protocol: one echo per datatype of the protocol (a
// dynamic first dimension; unsigned tensors are signless ones whose
// reflection records the unsigned type, as the ONNX importer writes them),
// and a function with named inputs and two outputs.
module @oip_test {
  func.func @echo_bool(%x: tensor<?x2xi1>) -> tensor<?x2xi1>
      attributes {util.reflection = {"arg0.name" = "x", "result0.name" = "y"}} {
    return %x : tensor<?x2xi1>
  }

  func.func @echo_i8(%x: tensor<?x2xi8>) -> tensor<?x2xi8>
      attributes {util.reflection = {"arg0.name" = "x", "result0.name" = "y"}} {
    return %x : tensor<?x2xi8>
  }

  func.func @echo_i16(%x: tensor<?x2xi16>) -> tensor<?x2xi16>
      attributes {util.reflection = {"arg0.name" = "x", "result0.name" = "y"}} {
    return %x : tensor<?x2xi16>
  }

  func.func @echo_i32(%x: tensor<?x2xi32>) -> tensor<?x2xi32>
      attributes {util.reflection = {"arg0.name" = "x", "result0.name" = "y"}} {
    return %x : tensor<?x2xi32>
  }

  func.func @echo_i64(%x: tensor<?x2xi64>) -> tensor<?x2xi64>
      attributes {util.reflection = {"arg0.name" = "x", "result0.name" = "y"}} {
    return %x : tensor<?x2xi64>
  }

  func.func @echo_u8(%x: tensor<?x2xi8>) -> tensor<?x2xi8>
      attributes {util.reflection = {"arg0.name" = "x", "result0.name" = "y", "arg0.element_type" = "ui8", "result0.element_type" = "ui8"}} {
    return %x : tensor<?x2xi8>
  }

  func.func @echo_u16(%x: tensor<?x2xi16>) -> tensor<?x2xi16>
      attributes {util.reflection = {"arg0.name" = "x", "result0.name" = "y", "arg0.element_type" = "ui16", "result0.element_type" = "ui16"}} {
    return %x : tensor<?x2xi16>
  }

  func.func @echo_u32(%x: tensor<?x2xi32>) -> tensor<?x2xi32>
      attributes {util.reflection = {"arg0.name" = "x", "result0.name" = "y", "arg0.element_type" = "ui32", "result0.element_type" = "ui32"}} {
    return %x : tensor<?x2xi32>
  }

  func.func @echo_u64(%x: tensor<?x2xi64>) -> tensor<?x2xi64>
      attributes {util.reflection = {"arg0.name" = "x", "result0.name" = "y", "arg0.element_type" = "ui64", "result0.element_type" = "ui64"}} {
    return %x : tensor<?x2xi64>
  }

  func.func @echo_f16(%x: tensor<?x2xf16>) -> tensor<?x2xf16>
      attributes {util.reflection = {"arg0.name" = "x", "result0.name" = "y"}} {
    return %x : tensor<?x2xf16>
  }

  func.func @echo_f32(%x: tensor<?x2xf32>) -> tensor<?x2xf32>
      attributes {util.reflection = {"arg0.name" = "x", "result0.name" = "y"}} {
    return %x : tensor<?x2xf32>
  }

  func.func @echo_f64(%x: tensor<?x2xf64>) -> tensor<?x2xf64>
      attributes {util.reflection = {"arg0.name" = "x", "result0.name" = "y"}} {
    return %x : tensor<?x2xf64>
  }

  // sum = a + b, difference = a - b, for any number of rows N.
  func.func @main(%a: tensor<?x3xf32>, %b: tensor<?x3xf32>) -> (tensor<?x3xf32>, tensor<?x3xf32>)
      attributes {util.reflection = {"arg0.name" = "a", "arg1.name" = "b",
        "arg0.dims" = "N,3", "arg1.dims" = "N,3",
        "result0.name" = "sum", "result1.name" = "difference"}} {
    %c0 = arith.constant 0 : index
    %n = tensor.dim %a, %c0 : tensor<?x3xf32>
    %e = tensor.empty(%n) : tensor<?x3xf32>
    %s = linalg.add ins(%a, %b : tensor<?x3xf32>, tensor<?x3xf32>) outs(%e : tensor<?x3xf32>) -> tensor<?x3xf32>
    %e2 = tensor.empty(%n) : tensor<?x3xf32>
    %d = linalg.sub ins(%a, %b : tensor<?x3xf32>, tensor<?x3xf32>) outs(%e2 : tensor<?x3xf32>) -> tensor<?x3xf32>
    return %s, %d : tensor<?x3xf32>, tensor<?x3xf32>
  }
}
