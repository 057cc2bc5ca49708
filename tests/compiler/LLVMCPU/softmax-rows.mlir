// RUN: strata-opt %s --split-input-file "--strata-llvmcpu-lower-softmax-rows=native-vector-bytes=64" | FileCheck %s

// A band of rows of 37 (two vectors of 16 lanes and a tail of 5): per row
// the maximum (a compare and select on vectors, halved to one lane), the
// exponentials stored and summed, then the product with the reciprocal.
// CHECK-LABEL: func.func @band
// CHECK-SAME: (%[[IN:.*]]: memref<4x37xf32>, %[[OUT:.*]]: memref<4x37xf32>)
// CHECK-DAG: %[[C16:.*]] = arith.constant 16 : index
// CHECK-DAG: %[[NEG_INF:.*]] = arith.constant 0xFF800000 : f32
// CHECK-DAG: %[[ONE:.*]] = arith.constant 1.000000e+00 : f32
// CHECK: scf.for %[[ROW:.*]] =
// Pass 1: the maximum.
// CHECK: %[[VMAX:.*]] = scf.for %[[J:.*]] = %{{.*}} to %[[WHOLE:.*]] step %[[C16]] iter_args(%[[ACC:.*]] = %{{.*}}) -> (vector<16xf32>)
// CHECK:   %[[V:.*]] = vector.load %[[IN]][%[[ROW]], %[[J]]] : memref<4x37xf32>, vector<16xf32>
// CHECK:   %[[GT:.*]] = arith.cmpf ogt, %[[V]], %[[ACC]] : vector<16xf32>
// CHECK:   arith.select %[[GT]], %[[V]], %[[ACC]]
// CHECK: vector.extract_strided_slice %[[VMAX]] {offsets = [0], sizes = [8], strides = [1]}
// CHECK: vector.extract_strided_slice %[[VMAX]] {offsets = [8], sizes = [8], strides = [1]}
// CHECK: %[[MAX:.*]] = scf.for %{{.*}} = %[[WHOLE]] to %{{.*}} step %{{.*}} iter_args
// CHECK:   memref.load %[[IN]]
// Pass 2: exp(x - max), stored, and summed.
// CHECK: %[[MAXV:.*]] = vector.broadcast %[[MAX]] : f32 to vector<16xf32>
// CHECK: scf.for {{.*}} -> (vector<16xf32>)
// CHECK:   %[[D:.*]] = arith.subf %{{.*}}, %[[MAXV]] : vector<16xf32>
// CHECK:   %[[E:.*]] = math.exp %[[D]] : vector<16xf32>
// CHECK:   vector.store %[[E]], %[[OUT]]
// CHECK:   arith.addf %{{.*}}, %[[E]] : vector<16xf32>
// CHECK: %[[SUM:.*]] = scf.for
// CHECK:   math.exp %{{.*}} : f32
// CHECK:   memref.store
// Pass 3: one division a row, then products.
// CHECK: %[[RCP:.*]] = arith.divf %[[ONE]], %[[SUM]] : f32
// CHECK: %[[RCPV:.*]] = vector.broadcast %[[RCP]]
// CHECK: scf.for
// CHECK:   %[[O:.*]] = vector.load %[[OUT]]
// CHECK:   arith.mulf %[[O]], %[[RCPV]] : vector<16xf32>
// CHECK: scf.for
// CHECK:   arith.mulf %{{.*}}, %[[RCP]] : f32
// CHECK-NOT: linalg.softmax
func.func @band(%in: memref<4x37xf32>, %out: memref<4x37xf32>) {
  linalg.softmax dimension(1) ins(%in : memref<4x37xf32>) outs(%out : memref<4x37xf32>)
  return
}

// -----

// Rows whose elements are not contiguous (a column band): the same three
// passes one element at a time.
// CHECK-LABEL: func.func @strided
// CHECK-NOT: vector.
// CHECK: memref.load
// CHECK: math.exp %{{.*}} : f32
// CHECK: arith.divf
// CHECK-NOT: linalg.softmax
func.func @strided(%in: memref<4x8xf32, strided<[1, 4]>>, %out: memref<4x8xf32>) {
  linalg.softmax dimension(1) ins(%in : memref<4x8xf32, strided<[1, 4]>>) outs(%out : memref<4x8xf32>)
  return
}

