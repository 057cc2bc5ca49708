// RUN: strata-opt --strata-insert-shape-checks --split-input-file %s | FileCheck %s

// A slice whose stride is only known at run time: the stride's sign picks
// the bound the last element is checked against (room - 1 for a positive
// stride, the offset for a negative one), its magnitude divides it (1 for a
// zero stride, which takes any size; the size here is the constant 3, so
// the checks of an empty slice and of a negative size fold away).
// CHECK-LABEL: func.func @dynamic_stride
// CHECK-SAME: (%[[T:.*]]: tensor<8xf32>, %[[OFF:.*]]: index, %[[S:.*]]: index)
// CHECK-DAG: %[[C1:.*]] = arith.constant 1 : index
// CHECK-DAG: %[[C8:.*]] = arith.constant 8 : index
// CHECK: %[[ROOM:.*]] = arith.subi %[[C8]], %[[OFF]]
// CHECK: %[[NEG:.*]] = arith.cmpi slt, %[[S]], %[[ZERO_A:.*]] : index
// CHECK: %[[ISZERO:.*]] = arith.cmpi eq, %[[S]], %[[ZERO_B:.*]] : index
// CHECK: %[[MINUS:.*]] = arith.subi %{{.*}}, %[[S]]
// CHECK: %[[MAG:.*]] = arith.select %[[NEG]], %[[MINUS]], %[[S]]
// CHECK: %[[DIV:.*]] = arith.select %[[ISZERO]], %[[C1]], %[[MAG]]
// CHECK: %[[LAST:.*]] = arith.subi %[[ROOM]], %[[C1]]
// CHECK: %[[LIMIT:.*]] = arith.select %[[NEG]], %[[OFF]], %[[LAST]]
// CHECK: %[[REACH:.*]] = arith.divui %[[LIMIT]], %[[DIV]]
// CHECK: %[[FITS:.*]] = arith.cmpi uge, %[[REACH]], %{{.*}} : index
// CHECK: %[[ANY:.*]] = arith.ori %[[ISZERO]], %[[FITS]]
// CHECK: %[[START:.*]] = arith.cmpi ult, %[[OFF]], %[[C8]]
// CHECK: %[[OK:.*]] = arith.andi %[[START]], %[[ANY]]
// CHECK: cf.assert %[[OK]], "'tensor.extract_slice': the offset, size and stride of dimension 0 are out of bounds of the source"
// CHECK: tensor.extract_slice %[[T]][%[[OFF]]] [3] [%[[S]]]
func.func @dynamic_stride(%t: tensor<8xf32>, %offset: index, %stride: index) -> tensor<3xf32> {
  %s = tensor.extract_slice %t[%offset] [3] [%stride] : tensor<8xf32> to tensor<3xf32>
  return %s : tensor<3xf32>
}

// -----

// The same for the destination of an insert_slice.
// CHECK-LABEL: func.func @dynamic_stride_insert
// CHECK: arith.divui
// CHECK: cf.assert %{{.*}}, "'tensor.insert_slice': the offset, size and stride of dimension 0 are out of bounds of the destination"
// CHECK: tensor.insert_slice
func.func @dynamic_stride_insert(%t: tensor<8xf32>, %v: tensor<2xf32>, %offset: index, %stride: index) -> tensor<8xf32> {
  %r = tensor.insert_slice %v into %t[%offset] [2] [%stride] : tensor<2xf32> into tensor<8xf32>
  return %r : tensor<8xf32>
}

// -----

// A constant stride of 0 or below is checked too (it was skipped before):
// a static slice that reads past the start folds to a failed assert.
// CHECK-LABEL: func.func @negative_stride
// CHECK: cf.assert %false, "'tensor.extract_slice': the offset, size and stride of dimension 0 are out of bounds of the source"
func.func @negative_stride(%t: tensor<8xf32>) -> tensor<3xf32> {
  %c1 = arith.constant 1 : index
  %m1 = arith.constant -1 : index
  %s = tensor.extract_slice %t[%c1] [3] [%m1] : tensor<8xf32> to tensor<3xf32>
  return %s : tensor<3xf32>
}

// -----

// In range with a negative constant stride: nothing is asserted.
// CHECK-LABEL: func.func @negative_stride_in_range
// CHECK-NOT: cf.assert
func.func @negative_stride_in_range(%t: tensor<8xf32>) -> tensor<3xf32> {
  %c7 = arith.constant 7 : index
  %m3 = arith.constant -3 : index
  %s = tensor.extract_slice %t[%c7] [3] [%m3] : tensor<8xf32> to tensor<3xf32>
  return %s : tensor<3xf32>
}
