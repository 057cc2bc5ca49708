// RUN: strata-opt --strata-convert-input --split-input-file %s | FileCheck %s

// TOSA is found and lowered to linalg/arith without a flag.
// CHECK-LABEL: func.func @add
// CHECK-NOT: tosa.
// CHECK: linalg.generic
// CHECK: arith.addf
func.func @add(%a: tensor<4xf32>, %b: tensor<4xf32>) -> tensor<4xf32> {
  %r = tosa.add %a, %b : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return %r : tensor<4xf32>
}

// -----

// A module without TOSA is left as it is.
// CHECK-LABEL: func.func @plain
// CHECK-NEXT: %[[R:.*]] = arith.addi
// CHECK-NEXT: return %[[R]]
func.func @plain(%a: i32) -> i32 {
  %r = arith.addi %a, %a : i32
  return %r : i32
}

// -----

// tosa.mul with a shift rounds through tosa.apply_scale, lowered to arith
// (in i64) rather than left for the backend.
// CHECK-LABEL: func.func @mul_shift
// CHECK-NOT: tosa.
// CHECK: linalg.generic
// CHECK: arith.extsi %{{.*}} : i32 to i64
// CHECK: arith.muli %{{.*}} : i64
// CHECK: arith.shrsi %{{.*}} : i64
func.func @mul_shift(%a: tensor<5xi32>, %b: tensor<5xi32>) -> tensor<5xi32> {
  %shift = "tosa.const"() {values = dense<1> : tensor<1xi8>} : () -> tensor<1xi8>
  %r = tosa.mul %a, %b, %shift : (tensor<5xi32>, tensor<5xi32>, tensor<1xi8>) -> tensor<5xi32>
  return %r : tensor<5xi32>
}

// -----

// Shapes that the lowered ops took as attributes leave nothing behind.
// CHECK-LABEL: func.func @reshape_and_pad
// CHECK-NOT: tosa.
// CHECK: tensor.expand_shape
// CHECK: tensor.pad
func.func @reshape_and_pad(%a: tensor<2xi32>) -> tensor<1x4xi32> {
  %shape = tosa.const_shape {values = dense<[1, 2]> : tensor<2xindex>} : () -> !tosa.shape<2>
  %r = tosa.reshape %a, %shape : (tensor<2xi32>, !tosa.shape<2>) -> tensor<1x2xi32>
  %padding = tosa.const_shape {values = dense<[0, 0, 1, 1]> : tensor<4xindex>} : () -> !tosa.shape<4>
  %zero = "tosa.const"() {values = dense<0> : tensor<1xi32>} : () -> tensor<1xi32>
  %p = tosa.pad %r, %padding, %zero : (tensor<1x2xi32>, !tosa.shape<4>, tensor<1xi32>) -> tensor<1x4xi32>
  return %p : tensor<1x4xi32>
}

// -----

// tosa.table's table may be computed (no tosa-validate, which wants a
// constant): the lowering reads it with tensor.extract.
// CHECK-LABEL: func.func @table
// CHECK-NOT: tosa.
// CHECK: tensor.extract %{{.*}} : tensor<513xi16>
func.func @table(%a: tensor<6xi16>, %table: tensor<513xi16>) -> tensor<6xi32> {
  %r = tosa.table %a, %table : (tensor<6xi16>, tensor<513xi16>) -> tensor<6xi32>
  return %r : tensor<6xi32>
}
