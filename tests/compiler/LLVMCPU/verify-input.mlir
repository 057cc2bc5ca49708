// RUN: strata-opt %s --split-input-file --verify-diagnostics --strata-llvmcpu-verify-input | FileCheck %s

// CHECK-LABEL: func.func @ok
// CHECK-SAME: strata.input_count = 2 : i64
// CHECK-SAME: strata.result_count = 1 : i64
func.func @ok(%a: tensor<2x3xf32>, %b: tensor<i1>) -> tensor<2x3xf32> {
  return %a : tensor<2x3xf32>
}

// -----

// The sizes of dynamic dimensions are the trailing index arguments: one
// for the argument's dimension, one for the result's.
// CHECK-LABEL: func.func @dynamic_sized
// CHECK-SAME: strata.input_count = 3 : i64
func.func @dynamic_sized(%a: tensor<?xf32>, %n: index, %m: index) -> tensor<?xf32> {
  return %a : tensor<?xf32>
}

// -----

// expected-error @+2 {{argument 0 of type 'tensor<?xf32>' should be the index size of a dynamic dimension}}
// expected-error @+1 {{the signature has 2 dynamic dimensions but only 1 arguments to give their sizes}}
func.func @dynamic(%a: tensor<?xf32>) -> tensor<?xf32> {
  return %a : tensor<?xf32>
}

// -----

// expected-error @+1 {{argument 1 of type 'i32' should be the index size of a dynamic dimension}}
func.func @dynamic_not_index(%a: tensor<?xf32>, %s: i32, %n: index) -> tensor<?xf32> {
  return %a : tensor<?xf32>
}

// -----

// expected-error @+1 {{argument 0 of type 'tensor<4xf8E5M2>' has an unsupported element type}}
func.func @fp8(%a: tensor<4xf8E5M2>) -> tensor<4xi32> {
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

// expected-error @+1 {{the executable has no public func.func to export}}
module {
  func.func private @helper(%a: tensor<4xf32>) -> tensor<4xf32> {
    return %a : tensor<4xf32>
  }
}
