// RUN: strata-opt --split-input-file --verify-diagnostics --strata-lower-onnx %s

func.func @unsupported(%a: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{onnx node 'n1' (NoSuchOp, opset 17): the op type is not supported}}
  %0 = onnx.node "NoSuchOp"(%a) {attrs = {}, domain = "", node_name = "n1", opset = 17 : i64} : (tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @data_dependent_shape(%a: tensor<6xf32>, %s: tensor<2xi64>) -> tensor<2x3xf32> {
  // expected-error @+1 {{onnx node 'r' (Reshape, opset 14): input 1 (shape) must be an integer tensor known at compile time; data-dependent values are not supported}}
  %0 = onnx.node "Reshape"(%a, %s) {attrs = {}, domain = "", node_name = "r", opset = 14 : i64} : (tensor<6xf32>, tensor<2xi64>) -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

func.func @dynamic(%a: tensor<?x4xf32>) -> tensor<?x4xf32> {
  // expected-error @+1 {{onnx node (Relu, opset 14): input 0 has the type tensor<?x4xf32>; dynamic shapes are not supported yet: fix the graph inputs' dimensions with --input-shape=NAME=DIMS}}
  %0 = onnx.node "Relu"(%a) {attrs = {}, domain = "", opset = 14 : i64} : (tensor<?x4xf32>) -> tensor<?x4xf32>
  return %0 : tensor<?x4xf32>
}

// -----

func.func @bad_broadcast(%a: tensor<2x3xf32>, %b: tensor<4xf32>) -> tensor<2x3xf32> {
  // expected-error @+1 {{onnx node 'add' (Add, opset 14): the input shapes do not broadcast}}
  %0 = onnx.node "Add"(%a, %b) {attrs = {}, domain = "", node_name = "add", opset = 14 : i64} : (tensor<2x3xf32>, tensor<4xf32>) -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

func.func @domain(%a: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{onnx node (com.microsoft.Gelu, opset 1): the domain 'com.microsoft' is not supported}}
  %0 = onnx.node "Gelu"(%a) {attrs = {}, domain = "com.microsoft", opset = 1 : i64} : (tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}
