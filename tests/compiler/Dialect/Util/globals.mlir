// RUN: strata-opt %s | strata-opt | FileCheck %s
// RUN: strata-opt --strata-convert-input %s | FileCheck %s --check-prefix=INPUT

// CHECK: util.global private mutable @count = 0 : i32
// CHECK: util.global private @table = dense<[1, 2]> : tensor<2xi32>
// CHECK: util.global public mutable @state = dense<1.000000e+00> : tensor<4xf32>
// CHECK: util.global private mutable @later : tensor<3xi8>
// CHECK-LABEL: func.func @uses
// CHECK: util.global.load @count : i32
// CHECK: util.global.store %{{.*}}, @count : i32
// CHECK: util.global.load immutable @table : tensor<2xi32>
util.global private mutable @count = 0 : i32
util.global private @table = dense<[1, 2]> : tensor<2xi32>
util.global public mutable @state = dense<1.0> : tensor<4xf32>
util.global private mutable @later : tensor<3xi8>

// The input phase: loads of an immutable global with an initial value are
// its constant (and the global goes); a mutable tensor global's initial
// value is stored by the initializer function the vm conversion calls.
// INPUT-NOT: @table =
// INPUT: util.global public mutable @state : tensor<4xf32>
// INPUT-LABEL: func.func @uses
// INPUT: arith.constant dense<[1, 2]> : tensor<2xi32>
// INPUT-NOT: util.global.load immutable
// INPUT-LABEL: func.func private @__strata_initialize_tensor_globals()
// INPUT: %[[C:.*]] = arith.constant dense<1.000000e+00> : tensor<4xf32>
// INPUT: util.global.store %[[C]], @state : tensor<4xf32>
func.func @uses() -> (i32, tensor<2xi32>, tensor<4xf32>) {
  %v = util.global.load @count : i32
  %c1 = arith.constant 1 : i32
  %n = arith.addi %v, %c1 : i32
  util.global.store %n, @count : i32
  %t = util.global.load immutable @table : tensor<2xi32>
  %s = util.global.load @state : tensor<4xf32>
  return %n, %t, %s : i32, tensor<2xi32>, tensor<4xf32>
}
