// RUN: strata-opt --split-input-file --strata-lower-onnx --canonicalize %s | FileCheck %s

// NonZero: a mask, a Hillis-Steele scan (ceil(log2 6) = 3 steps, each
// reading the previous one only through tensor.extract), the count read
// back from the scan's last element on the host, then the result allocated
// with that count and filled: a binary search per element over the scan,
// and each row's coordinate.
// CHECK-LABEL: func.func @nonzero
// CHECK-SAME: (%[[X:.*]]: tensor<2x3xf32>) -> tensor<2x?xi64>
// CHECK: %[[FLAT:.*]] = tensor.collapse_shape %[[X]]
// CHECK: %[[MASK:.*]] = linalg.generic {{.*}} ins(%[[FLAT]] : tensor<6xf32>)
// CHECK: arith.cmpf une
// CHECK: %[[S1:.*]] = linalg.generic
// CHECK: tensor.extract %[[MASK]]
// CHECK: %[[S2:.*]] = linalg.generic
// CHECK: tensor.extract %[[S1]]
// CHECK: %[[S3:.*]] = linalg.generic
// CHECK: tensor.extract %[[S2]]
// CHECK: %[[LAST:.*]] = tensor.extract %[[S3]][%c5] : tensor<6xi64>
// CHECK: %[[COUNT:.*]] = arith.index_cast %[[LAST]] : i64 to index
// CHECK: %[[PEMPTY:.*]] = tensor.empty(%[[COUNT]]) : tensor<?xi64>
// CHECK: %[[POS:.*]] = linalg.generic {{.*}} outs(%[[PEMPTY]] : tensor<?xi64>)
// CHECK-COUNT-3: tensor.extract %[[S3]]
// CHECK: %[[REMPTY:.*]] = tensor.empty(%[[COUNT]]) : tensor<2x?xi64>
// CHECK: %[[R:.*]] = linalg.generic {{.*}} outs(%[[REMPTY]] : tensor<2x?xi64>)
// CHECK: tensor.extract %[[POS]]
// CHECK: return %[[R]]
func.func @nonzero(%x: tensor<2x3xf32>) -> tensor<2x?xi64> {
  %0 = onnx.node "NonZero"(%x) {attrs = {}, domain = "", node_name = "nz", opset = 13 : i64} : (tensor<2x3xf32>) -> tensor<2x?xi64>
  return %0 : tensor<2x?xi64>
}

// -----

// Compress with a run-time condition: the condition's first 3 values (the
// axis' length) counted, the count read back, the kept rows gathered.
// CHECK-LABEL: func.func @compress_at_run_time
// CHECK-SAME: (%[[X:.*]]: tensor<3x2xf32>, %[[C:.*]]: tensor<5xi1>) -> tensor<?x2xf32>
// CHECK: %[[CUT:.*]] = tensor.extract_slice %[[C]][0] [3] [1]
// CHECK: linalg.generic {{.*}} ins(%[[CUT]] : tensor<3xi1>)
// CHECK: linalg.generic
// CHECK: %[[S2:.*]] = linalg.generic
// CHECK: %[[LAST:.*]] = tensor.extract %[[S2]][%c2] : tensor<3xi64>
// CHECK: %[[COUNT:.*]] = arith.index_cast %[[LAST]] : i64 to index
// CHECK: %[[POS:.*]] = linalg.generic
// CHECK: %[[EMPTY:.*]] = tensor.empty(%[[COUNT]]) : tensor<?x2xf32>
// CHECK: linalg.generic {{.*}} outs(%[[EMPTY]] : tensor<?x2xf32>)
// CHECK: tensor.extract %[[POS]]
// CHECK: tensor.extract %[[X]]
func.func @compress_at_run_time(%x: tensor<3x2xf32>, %c: tensor<5xi1>) -> tensor<?x2xf32> {
  %0 = onnx.node "Compress"(%x, %c) {attrs = {axis = 0 : i64}, domain = "", node_name = "cp", opset = 11 : i64} : (tensor<3x2xf32>, tensor<5xi1>) -> tensor<?x2xf32>
  return %0 : tensor<?x2xf32>
}

// -----

// A constant condition that keeps nothing: a statically empty result, no
// kernel.
// CHECK-LABEL: func.func @compress_nothing
// CHECK-NEXT: %[[E:.*]] = tensor.empty() : tensor<3x0xf32>
// CHECK-NEXT: return %[[E]]
func.func @compress_nothing(%x: tensor<3x2xf32>) -> tensor<3x0xf32> {
  %c = arith.constant dense<false> : tensor<2xi1>
  %0 = onnx.node "Compress"(%x, %c) {attrs = {axis = 1 : i64}, domain = "", node_name = "cp", opset = 11 : i64} : (tensor<3x2xf32>, tensor<2xi1>) -> tensor<3x0xf32>
  return %0 : tensor<3x0xf32>
}

// -----

// Unique (sorted): first occurrences and each element's distinct index by
// pairwise reductions, the number of distinct values read back, then the
// first-occurrence indices, the counts and Y sized by it. The inverse
// indices keep the input's length.
// CHECK-LABEL: func.func @unique
// CHECK-SAME: (%[[X:.*]]: tensor<6xf32>) -> (tensor<?xf32>, tensor<?xi64>, tensor<6xi64>, tensor<?xi64>)
// CHECK: %[[FIRST:.*]] = linalg.generic {{.*}} iterator_types = ["parallel", "reduction"]} ins(%[[X]], %[[X]] : tensor<6xf32>, tensor<6xf32>)
// CHECK: %[[INVERSE:.*]] = linalg.generic {{.*}} iterator_types = ["parallel", "reduction"]} ins(%[[X]], %[[X]], %[[FIRST]] : tensor<6xf32>, tensor<6xf32>, tensor<6xi64>)
// CHECK: arith.cmpf olt
// CHECK: %[[LAST:.*]] = tensor.extract %{{.*}}[%c5] : tensor<6xi64>
// CHECK: %[[COUNT:.*]] = arith.index_cast %[[LAST]] : i64 to index
// CHECK: %[[INDICES:.*]] = linalg.generic {{.*}} ins(%[[FIRST]], %[[INVERSE]] : tensor<6xi64>, tensor<6xi64>) outs(%{{.*}} : tensor<?xi64>)
// CHECK: %[[COUNTS:.*]] = linalg.generic {{.*}} ins(%[[INVERSE]] : tensor<6xi64>) outs(%{{.*}} : tensor<?xi64>)
// CHECK: %[[YEMPTY:.*]] = tensor.empty(%[[COUNT]]) : tensor<?xf32>
// CHECK: %[[Y:.*]] = linalg.generic {{.*}} ins(%[[INDICES]] : tensor<?xi64>) outs(%[[YEMPTY]] : tensor<?xf32>)
// CHECK: return %[[Y]], %[[INDICES]], %[[INVERSE]], %[[COUNTS]]
func.func @unique(%x: tensor<6xf32>) -> (tensor<?xf32>, tensor<?xi64>, tensor<6xi64>, tensor<?xi64>) {
  %0:4 = onnx.node "Unique"(%x) {attrs = {sorted = 1 : i64}, domain = "", node_name = "uq", opset = 11 : i64} : (tensor<6xf32>) -> (tensor<?xf32>, tensor<?xi64>, tensor<6xi64>, tensor<?xi64>)
  return %0#0, %0#1, %0#2, %0#3 : tensor<?xf32>, tensor<?xi64>, tensor<6xi64>, tensor<?xi64>
}

// -----

// Unique along an axis compares slices: the first element where two differ
// is a pairwise min-reduction over the slice's elements.
// CHECK-LABEL: func.func @unique_axis
// CHECK: %[[X3:.*]] = tensor.expand_shape
// CHECK: linalg.generic {{.*}} iterator_types = ["parallel", "parallel", "reduction", "reduction"]} ins(%[[X3]], %[[X3]] : tensor<1x4x2xf32>, tensor<1x4x2xf32>) outs(%{{.*}} : tensor<4x4xi64>)
// CHECK: arith.minsi
// CHECK: tensor.empty(%{{.*}}) : tensor<?x2xf32>
func.func @unique_axis(%x: tensor<4x2xf32>) -> tensor<?x2xf32> {
  %0 = onnx.node "Unique"(%x) {attrs = {axis = 0 : i64}, domain = "", node_name = "uq", opset = 11 : i64} : (tensor<4x2xf32>) -> tensor<?x2xf32>
  return %0 : tensor<?x2xf32>
}

// -----

// NonMaxSuppression: the boxes ranked by score, the box of each rank, the
// overlaps between the boxes of each batch as 64-bit masks (a reduction over
// the 64 bits of a word, the same for every class), then the greedy walk: a
// reduction over the ranks whose results are the selected boxes as masks by
// box and by rank, and the count per (batch, class). The counts' total is
// read back and sizes the [count, 3] result.
// CHECK-LABEL: func.func @nms
// CHECK: %[[RANKS:.*]] = linalg.generic {{.*}} iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%arg1, %arg1 : tensor<1x1x6xf32>, tensor<1x1x6xf32>)
// CHECK: %[[ORDER:.*]] = linalg.generic {{.*}} iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%[[RANKS]] : tensor<1x1x6xi64>)
// CHECK: %[[OVERLAPS:.*]] = linalg.generic {{.*}} iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%{{.*}} : tensor<64xi8>) outs(%{{.*}} : tensor<1x6x1xi64>)
// CHECK: arith.divf
// CHECK: arith.cmpf ogt
// CHECK: %[[GREEDY:.*]]:3 = linalg.generic {{.*}} iterator_types = ["parallel", "parallel", "reduction"]} ins(%[[ORDER]] : tensor<1x1x6xi64>) outs(%{{.*}}, %{{.*}}, %{{.*}} : tensor<1x1xi64>, tensor<1x1xi64>, tensor<1x1xi64>)
// CHECK: tensor.extract %[[OVERLAPS]]
// CHECK: %[[COUNTS:.*]] = tensor.collapse_shape %[[GREEDY]]#2
// CHECK-NEXT: %[[TOTAL:.*]] = tensor.extract %[[COUNTS]][%c0] : tensor<1xi64>
// CHECK-NEXT: %[[COUNT:.*]] = arith.index_cast %[[TOTAL]] : i64 to index
// CHECK: math.ctpop
// CHECK: %[[EMPTY:.*]] = tensor.empty(%[[COUNT]]) : tensor<?x3xi64>
// CHECK: %[[R:.*]] = linalg.generic {{.*}} outs(%[[EMPTY]] : tensor<?x3xi64>)
// CHECK: tensor.extract %[[ORDER]]
// CHECK: return %[[R]]
func.func @nms(%b: tensor<1x6x4xf32>, %s: tensor<1x1x6xf32>, %m: tensor<1xi64>, %i: tensor<1xf32>, %t: tensor<1xf32>) -> tensor<?x3xi64> {
  %0 = onnx.node "NonMaxSuppression"(%b, %s, %m, %i, %t) {attrs = {}, domain = "", node_name = "nms", opset = 11 : i64} : (tensor<1x6x4xf32>, tensor<1x1x6xf32>, tensor<1xi64>, tensor<1xf32>, tensor<1xf32>) -> tensor<?x3xi64>
  return %0 : tensor<?x3xi64>
}

// -----

// NonZero of a dynamic input: the element count is checked below 2^40 (the
// binary search's 40 steps), the scan's steps run in an scf.while on the
// host (one kernel each), and the count of an empty input is 0 without a
// read-back.
// CHECK-LABEL: func.func @nonzero_dynamic
// CHECK: cf.assert %{{.*}}, "onnx node 'nz' (NonZero, opset 13): the input has 2^40 elements or more at run time"
// CHECK: %[[FLAT:.*]] = tensor.collapse_shape %{{.*}} : tensor<?x3xf32> into tensor<?xf32>
// CHECK: %[[N:.*]] = tensor.dim %[[FLAT]]
// CHECK: %[[MASK:.*]] = linalg.generic {{.*}} ins(%[[FLAT]] : tensor<?xf32>)
// CHECK: %[[SCAN:.*]]:2 = scf.while (%[[ACC:.*]] = %[[MASK]], %[[STEP:.*]] = %c1)
// CHECK: arith.cmpi ult, %[[STEP]], %[[N]] : index
// CHECK: scf.condition
// CHECK: linalg.generic
// CHECK: arith.muli %{{.*}}, %c2 : index
// CHECK: scf.yield
// CHECK: %[[SOME:.*]] = arith.cmpi ne, %{{.*}}, %c0 : index
// CHECK: %[[LAST:.*]] = scf.if %[[SOME]] -> (i64) {
// CHECK: tensor.extract %[[SCAN]]#0
// CHECK: } else {
// CHECK: %[[COUNT:.*]] = arith.index_cast %[[LAST]] : i64 to index
// CHECK: tensor.empty(%[[COUNT]]) : tensor<?xi64>
// CHECK: tensor.empty(%[[COUNT]]) : tensor<2x?xi64>
func.func @nonzero_dynamic(%x: tensor<?x3xf32>) -> tensor<2x?xi64> {
  %0 = onnx.node "NonZero"(%x) {attrs = {}, domain = "", node_name = "nz", opset = 13 : i64} : (tensor<?x3xf32>) -> tensor<2x?xi64>
  return %0 : tensor<2x?xi64>
}
