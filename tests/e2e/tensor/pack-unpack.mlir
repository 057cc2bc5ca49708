// linalg.pack / linalg.unpack: static tiles, padding values, outer_dims_perm
// and dynamic tiles (a tile size passed in), round trips; on both devices.
// RUN: strata-compile %s -o %t.vmfb
// RUN: strata-run --module=%t.vmfb --device=local-sync --function=pack_static --input="4x6xf32=0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 21 22 23" --expected_output="2x2x2x3xf32=0 1 2 6 7 8 3 4 5 9 10 11 12 13 14 18 19 20 15 16 17 21 22 23"
// RUN: strata-run --module=%t.vmfb --device=local-task --function=pack_static --input="4x6xf32=0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 21 22 23" --expected_output="2x2x2x3xf32=0 1 2 6 7 8 3 4 5 9 10 11 12 13 14 18 19 20 15 16 17 21 22 23"
// RUN: strata-run --module=%t.vmfb --device=local-task --function=unpack_static --input="2x2x2x3xf32=0 1 2 6 7 8 3 4 5 9 10 11 12 13 14 18 19 20 15 16 17 21 22 23" --expected_output="4x6xf32=0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 21 22 23"
//
// 3x5 into 2x3 tiles padded with -1: the last row and column of tiles are
// partly padding.
// RUN: strata-run --module=%t.vmfb --device=local-sync --function=pack_pad --input="3x5xi32=1 2 3 4 5 6 7 8 9 10 11 12 13 14 15" --expected_output="2x2x2x3xi32=1 2 3 6 7 8 4 5 -1 9 10 -1 11 12 13 -1 -1 -1 14 15 -1 -1 -1 -1"
// RUN: strata-run --module=%t.vmfb --device=local-task --function=pack_pad --input="3x5xi32=1 2 3 4 5 6 7 8 9 10 11 12 13 14 15" --expected_output="2x2x2x3xi32=1 2 3 6 7 8 4 5 -1 9 10 -1 11 12 13 -1 -1 -1 14 15 -1 -1 -1 -1"
//
// Dynamic sizes and a dynamic tile of 2 rows, outer dimensions swapped,
// padded with 0; then the round trip back.
// RUN: strata-run --module=%t.vmfb --device=local-sync --function=pack_dynamic --input="3x5xf32=0 1 2 3 4 5 6 7 8 9 10 11 12 13 14" --input=i64=2 --expected_output="2x2x2x4xf32=0 1 2 3 5 6 7 8 10 11 12 13 0 0 0 0 4 0 0 0 9 0 0 0 14 0 0 0 0 0 0 0"
// RUN: strata-run --module=%t.vmfb --device=local-task --function=pack_dynamic --input="3x5xf32=0 1 2 3 4 5 6 7 8 9 10 11 12 13 14" --input=i64=2 --expected_output="2x2x2x4xf32=0 1 2 3 5 6 7 8 10 11 12 13 0 0 0 0 4 0 0 0 9 0 0 0 14 0 0 0 0 0 0 0"
// RUN: strata-run --module=%t.vmfb --device=local-task --function=round_trip --input="3x5xf32=0 1 2 3 4 5 6 7 8 9 10 11 12 13 14" --input=i64=3 --expected_output="3x5xf32=0 1 2 3 4 5 6 7 8 9 10 11 12 13 14"
// RUN: strata-run --module=%t.vmfb --device=local-sync --function=round_trip --input="3x5xf32=0 1 2 3 4 5 6 7 8 9 10 11 12 13 14" --input=i64=1 --expected_output="3x5xf32=0 1 2 3 4 5 6 7 8 9 10 11 12 13 14"
//
// A larger pack spread over many workgroups, checked in the program.
// RUN: strata-run --module=%t.vmfb --device=local-task --function=large_round_trip
// RUN: strata-run --module=%t.vmfb --device=local-sync --function=large_round_trip

func.func @pack_static(%a: tensor<4x6xf32>) -> tensor<2x2x2x3xf32> {
  %e = tensor.empty() : tensor<2x2x2x3xf32>
  %p = linalg.pack %a inner_dims_pos = [0, 1] inner_tiles = [2, 3] into %e : tensor<4x6xf32> -> tensor<2x2x2x3xf32>
  return %p : tensor<2x2x2x3xf32>
}

func.func @unpack_static(%a: tensor<2x2x2x3xf32>) -> tensor<4x6xf32> {
  %e = tensor.empty() : tensor<4x6xf32>
  %u = linalg.unpack %a inner_dims_pos = [0, 1] inner_tiles = [2, 3] into %e : tensor<2x2x2x3xf32> -> tensor<4x6xf32>
  return %u : tensor<4x6xf32>
}

func.func @pack_pad(%a: tensor<3x5xi32>) -> tensor<2x2x2x3xi32> {
  %pad = arith.constant -1 : i32
  %e = tensor.empty() : tensor<2x2x2x3xi32>
  %p = linalg.pack %a padding_value(%pad : i32) inner_dims_pos = [0, 1] inner_tiles = [2, 3] into %e : tensor<3x5xi32> -> tensor<2x2x2x3xi32>
  return %p : tensor<2x2x2x3xi32>
}

func.func @pack_dynamic(%a: tensor<?x?xf32>, %t: index) -> tensor<?x?x?x4xf32> {
  %pad = arith.constant 0.0 : f32
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %d0 = tensor.dim %a, %c0 : tensor<?x?xf32>
  %d1 = tensor.dim %a, %c1 : tensor<?x?xf32>
  %o0 = arith.ceildivui %d0, %t : index
  %o1 = arith.ceildivui %d1, %c4 : index
  %e = tensor.empty(%o1, %o0, %t) : tensor<?x?x?x4xf32>
  %p = linalg.pack %a padding_value(%pad : f32) outer_dims_perm = [1, 0] inner_dims_pos = [0, 1] inner_tiles = [%t, 4] into %e : tensor<?x?xf32> -> tensor<?x?x?x4xf32>
  return %p : tensor<?x?x?x4xf32>
}

func.func @round_trip(%a: tensor<?x?xf32>, %t: index) -> tensor<?x?xf32> {
  %p = call @pack_dynamic(%a, %t) : (tensor<?x?xf32>, index) -> tensor<?x?x?x4xf32>
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %d0 = tensor.dim %a, %c0 : tensor<?x?xf32>
  %d1 = tensor.dim %a, %c1 : tensor<?x?xf32>
  %e = tensor.empty(%d0, %d1) : tensor<?x?xf32>
  %u = linalg.unpack %p outer_dims_perm = [1, 0] inner_dims_pos = [0, 1] inner_tiles = [%t, 4] into %e : tensor<?x?x?x4xf32> -> tensor<?x?xf32>
  return %u : tensor<?x?xf32>
}

// 250x300 i32 (values i * 300 + j) packed into 16x8 tiles, padded, then
// unpacked.
func.func @large_round_trip() {
  %e0 = tensor.empty() : tensor<250x300xi32>
  %src = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "parallel"]} outs(%e0 : tensor<250x300xi32>) {
  ^bb0(%o: i32):
    %i = linalg.index 0 : index
    %j = linalg.index 1 : index
    %c300 = arith.constant 300 : index
    %r = arith.muli %i, %c300 : index
    %v = arith.addi %r, %j : index
    %vi = arith.index_cast %v : index to i32
    linalg.yield %vi : i32
  } -> tensor<250x300xi32>
  %x = util.optimization_barrier %src : tensor<250x300xi32>
  %pad = arith.constant 7 : i32
  %ep = tensor.empty() : tensor<16x38x16x8xi32>
  %p = linalg.pack %x padding_value(%pad : i32) inner_dims_pos = [0, 1] inner_tiles = [16, 8] into %ep : tensor<250x300xi32> -> tensor<16x38x16x8xi32>
  %pb = util.optimization_barrier %p : tensor<16x38x16x8xi32>
  %eu = tensor.empty() : tensor<250x300xi32>
  %u = linalg.unpack %pb inner_dims_pos = [0, 1] inner_tiles = [16, 8] into %eu : tensor<16x38x16x8xi32> -> tensor<250x300xi32>
  check.expect_eq(%u, %src) : tensor<250x300xi32>
  // The padding: the last tile row holds rows 240..255, of which 250.. pad.
  %c15 = arith.constant 15 : index
  %c37 = arith.constant 37 : index
  %c12 = arith.constant 12 : index
  %c7 = arith.constant 7 : index
  %padded = tensor.extract %pb[%c15, %c37, %c12, %c7] : tensor<16x38x16x8xi32>
  %is = arith.cmpi eq, %padded, %pad : i32
  %is32 = arith.extui %is : i1 to i32
  check.expect_true(%is32) : i32
  return
}
