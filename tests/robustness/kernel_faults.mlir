// kernel_faults.mlir - programs whose inputs can make kernels fault when
// nothing guards them (issue 18): integer division by zero and INT_MIN / -1
// in a kernel, a gather at an index read from data, a slice at an offset
// (and a stride) read from data, host tensor.extract / tensor.insert at a run-time index,
// dynamic dimensions that linalg requires to be equal. Replayed by
// check_robustness.py (case kernel_faults).

func.func @divide(%a: tensor<4xi32>, %b: tensor<4xi32>) -> (tensor<4xi32>, tensor<4xi32>) {
  %e = tensor.empty() : tensor<4xi32>
  %q = linalg.div ins(%a, %b : tensor<4xi32>, tensor<4xi32>) outs(%e : tensor<4xi32>) -> tensor<4xi32>
  %r = linalg.generic {indexing_maps = [affine_map<(i) -> (i)>, affine_map<(i) -> (i)>, affine_map<(i) -> (i)>], iterator_types = ["parallel"]}
      ins(%a, %b : tensor<4xi32>, tensor<4xi32>) outs(%e : tensor<4xi32>) {
    ^bb0(%x: i32, %y: i32, %o: i32):
      %m = arith.remsi %x, %y : i32
      linalg.yield %m : i32
  } -> tensor<4xi32>
  return %q, %r : tensor<4xi32>, tensor<4xi32>
}

func.func @divide_i64(%a: tensor<4xi64>, %b: tensor<4xi64>) -> (tensor<4xi64>, tensor<4xi64>, tensor<4xi64>, tensor<4xi64>) {
  %e = tensor.empty() : tensor<4xi64>
  %r:4 = linalg.generic {indexing_maps = [affine_map<(i) -> (i)>, affine_map<(i) -> (i)>, affine_map<(i) -> (i)>, affine_map<(i) -> (i)>, affine_map<(i) -> (i)>, affine_map<(i) -> (i)>], iterator_types = ["parallel"]}
      ins(%a, %b : tensor<4xi64>, tensor<4xi64>) outs(%e, %e, %e, %e : tensor<4xi64>, tensor<4xi64>, tensor<4xi64>, tensor<4xi64>) {
    ^bb0(%x: i64, %y: i64, %o: i64, %o2: i64, %o3: i64, %o4: i64):
      %u = arith.divui %x, %y : i64
      %v = arith.remui %x, %y : i64
      %f = arith.floordivsi %x, %y : i64
      %c = arith.ceildivsi %x, %y : i64
      linalg.yield %u, %v, %f, %c : i64, i64, i64, i64
  } -> (tensor<4xi64>, tensor<4xi64>, tensor<4xi64>, tensor<4xi64>)
  return %r#0, %r#1, %r#2, %r#3 : tensor<4xi64>, tensor<4xi64>, tensor<4xi64>, tensor<4xi64>
}

// out[i] = table[indices[i]]
func.func @gather(%table: tensor<8xf32>, %indices: tensor<4xi32>) -> tensor<4xf32> {
  %e = tensor.empty() : tensor<4xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(i) -> (i)>, affine_map<(i) -> (i)>], iterator_types = ["parallel"]}
      ins(%indices : tensor<4xi32>) outs(%e : tensor<4xf32>) {
    ^bb0(%x: i32, %o: f32):
      %k = arith.index_cast %x : i32 to index
      %v = tensor.extract %table[%k] : tensor<8xf32>
      linalg.yield %v : f32
  } -> tensor<4xf32>
  return %r : tensor<4xf32>
}

// The same from a table of any length (which may be empty).
func.func @gather_dynamic(%table: tensor<?xf32>, %indices: tensor<4xi32>) -> tensor<4xf32> {
  %e = tensor.empty() : tensor<4xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(i) -> (i)>, affine_map<(i) -> (i)>], iterator_types = ["parallel"]}
      ins(%indices : tensor<4xi32>) outs(%e : tensor<4xf32>) {
    ^bb0(%x: i32, %o: f32):
      %k = arith.index_cast %x : i32 to index
      %v = tensor.extract %table[%k] : tensor<?xf32>
      linalg.yield %v : f32
  } -> tensor<4xf32>
  return %r : tensor<4xf32>
}

// 2 * t[offset : offset + 4], the offset read from a tensor.
func.func @slice(%t: tensor<8xf32>, %offset: tensor<i64>) -> tensor<4xf32> {
  %o = tensor.extract %offset[] : tensor<i64>
  %k = arith.index_cast %o : i64 to index
  %s = tensor.extract_slice %t[%k] [4] [1] : tensor<8xf32> to tensor<4xf32>
  %e = tensor.empty() : tensor<4xf32>
  %r = linalg.add ins(%s, %s : tensor<4xf32>, tensor<4xf32>) outs(%e : tensor<4xf32>) -> tensor<4xf32>
  return %r : tensor<4xf32>
}

// 2 * t[offset + i * stride] for i < 3: a slice with a run-time stride
// (zero or negative too).
func.func @strided_slice(%t: tensor<8xf32>, %offset: i64, %stride: i64) -> tensor<3xf32> {
  %k = arith.index_cast %offset : i64 to index
  %s = arith.index_cast %stride : i64 to index
  %slice = tensor.extract_slice %t[%k] [3] [%s] : tensor<8xf32> to tensor<3xf32>
  %e = tensor.empty() : tensor<3xf32>
  %r = linalg.add ins(%slice, %slice : tensor<3xf32>, tensor<3xf32>) outs(%e : tensor<3xf32>) -> tensor<3xf32>
  return %r : tensor<3xf32>
}

// t with t[offset + i * stride] = v[i] for i < 2.
func.func @strided_insert(%t: tensor<8xf32>, %v: tensor<2xf32>, %offset: i64, %stride: i64) -> tensor<8xf32> {
  %k = arith.index_cast %offset : i64 to index
  %s = arith.index_cast %stride : i64 to index
  %r = tensor.insert_slice %v into %t[%k] [2] [%s] : tensor<2xf32> into tensor<8xf32>
  return %r : tensor<8xf32>
}

func.func @element(%t: tensor<2x4xf32>, %i: i64, %j: i64) -> f32 {
  %a = arith.index_cast %i : i64 to index
  %b = arith.index_cast %j : i64 to index
  %v = tensor.extract %t[%a, %b] : tensor<2x4xf32>
  return %v : f32
}

func.func @set_element(%t: tensor<2x4xf32>, %i: i64, %j: i64) -> tensor<2x4xf32> {
  %a = arith.index_cast %i : i64 to index
  %b = arith.index_cast %j : i64 to index
  %c = arith.constant 9.0 : f32
  %v = tensor.insert %c into %t[%a, %b] : tensor<2x4xf32>
  return %v : tensor<2x4xf32>
}

func.func @matmul(%a: tensor<?x?xf32>, %b: tensor<?x?xf32>) -> tensor<?x?xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %m = tensor.dim %a, %c0 : tensor<?x?xf32>
  %n = tensor.dim %b, %c1 : tensor<?x?xf32>
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty(%m, %n) : tensor<?x?xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<?x?xf32>) -> tensor<?x?xf32>
  %r = linalg.matmul ins(%a, %b : tensor<?x?xf32>, tensor<?x?xf32>) outs(%f : tensor<?x?xf32>) -> tensor<?x?xf32>
  return %r : tensor<?x?xf32>
}

func.func @add(%a: tensor<?xf32>, %b: tensor<?xf32>) -> tensor<?xf32> {
  %c0 = arith.constant 0 : index
  %n = tensor.dim %a, %c0 : tensor<?xf32>
  %e = tensor.empty(%n) : tensor<?xf32>
  %r = linalg.add ins(%a, %b : tensor<?xf32>, tensor<?xf32>) outs(%e : tensor<?xf32>) -> tensor<?xf32>
  return %r : tensor<?xf32>
}

// Boolean elements are bytes; a caller's byte other than 0 or 1 reads as
// true: [as 0/1 integers, negated].
func.func @booleans(%m: tensor<4xi1>) -> (tensor<4xi32>, tensor<4xi1>) {
  %e = tensor.empty() : tensor<4xi32>
  %e1 = tensor.empty() : tensor<4xi1>
  %r:2 = linalg.generic {indexing_maps = [affine_map<(i) -> (i)>, affine_map<(i) -> (i)>, affine_map<(i) -> (i)>], iterator_types = ["parallel"]}
      ins(%m : tensor<4xi1>) outs(%e, %e1 : tensor<4xi32>, tensor<4xi1>) {
    ^bb0(%b: i1, %o: i32, %o1: i1):
      %x = arith.extui %b : i1 to i32
      %t = arith.constant true
      %y = arith.xori %b, %t : i1
      linalg.yield %x, %y : i32, i1
  } -> (tensor<4xi32>, tensor<4xi1>)
  return %r#0, %r#1 : tensor<4xi32>, tensor<4xi1>
}
