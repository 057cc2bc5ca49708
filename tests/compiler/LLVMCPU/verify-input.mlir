// RUN: strata-opt %s --split-input-file --verify-diagnostics --strata-llvmcpu-verify-input | FileCheck %s

// CHECK-LABEL: func.func @ok
// CHECK-SAME: strata.input_count = 2 : i64
// CHECK-SAME: strata.result_count = 1 : i64
func.func @ok(%a: tensor<2x3xf32>, %b: tensor<i1>) -> tensor<2x3xf32> {
  return %a : tensor<2x3xf32>
}

// -----

// expected-error @+2 {{argument 0 of type 'tensor<?xf32>' has a dynamic shape}}
// expected-error @+1 {{result 0 of type 'tensor<?xf32>' has a dynamic shape}}
func.func @dynamic(%a: tensor<?xf32>) -> tensor<?xf32> {
  return %a : tensor<?xf32>
}

// -----

// expected-error @+1 {{argument 0 of type 'tensor<4xbf16>' has an unsupported element type}}
func.func @brain_half(%a: tensor<4xbf16>) -> tensor<4xi32> {
  %c = arith.constant dense<0> : tensor<4xi32>
  return %c : tensor<4xi32>
}

// -----

// Scalars are push constants, after the tensors.
// expected-error @+1 {{argument 1 of type 'tensor<4xi32>' follows a scalar argument; scalars come last}}
func.func @scalar_first(%a: i32, %t: tensor<4xi32>) -> tensor<4xi32> {
  return %t : tensor<4xi32>
}

// -----

// expected-error @+1 {{argument 0 of type 'vector<4xi32>' is not a ranked tensor}}
func.func @vector(%a: vector<4xi32>) -> tensor<4xi32> {
  %c = arith.constant dense<0> : tensor<4xi32>
  return %c : tensor<4xi32>
}

// -----

func.func @inner(%a: tensor<4xf32>) -> tensor<4xf32> {
  %c0 = arith.constant 0 : index
  // expected-error @+1 {{type 'tensor<?xf32>': dynamic shapes are not supported}}
  %s = tensor.extract_slice %a[%c0] [%c0] [1] : tensor<4xf32> to tensor<?xf32>
  return %a : tensor<4xf32>
}

// -----

// expected-error @+1 {{the executable has no public func.func to export}}
module {
  func.func private @helper(%a: tensor<4xf32>) -> tensor<4xf32> {
    return %a : tensor<4xf32>
  }
}
