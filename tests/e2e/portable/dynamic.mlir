// Dynamic shapes and f16 storage on the portable target end to end: the
// sizes reach each dispatch as push constants, which its shape instruction
// turns into loop sizes, binding bytes, strides and gather extents,
// checked once per dispatch call; f16 is loaded as f32 and stored rounded.
// RUN: strata-compile %s --target=portable -o %t.vmfb
// RUN: strata-run --module=%t.vmfb --no-native-kernels --device=local-sync --function=add_rows --input="2x3xf32=1 2 3 4 5 6" --input="2x3xf32=6 5 4 3 2 1" --expected_output="2x3xf32=7 7 7 7 7 7"
// RUN: strata-run --module=%t.vmfb --no-native-kernels --device=local-task --function=add_rows --input="3x3xf32=1 2 3 4 5 6 7 8 9" --input="3x3xf32=1 1 1 1 1 1 1 1 1" --expected_output="3x3xf32=2 3 4 5 6 7 8 9 10"
// RUN: strata-run --module=%t.vmfb --no-native-kernels --function=add_rows --input="0x3xf32=" --input="0x3xf32=" --expected_output="0x3xf32="
// RUN: strata-run --module=%t.vmfb --no-native-kernels --function=lookup --input="3x2xf32=1 10 2 20 3 30" --input="3xi32=2 0 1" --expected_output="3xf32=30 10 20"
// RUN: not strata-run --module=%t.vmfb --no-native-kernels --function=lookup --input="3x2xf32=1 10 2 20 3 30" --input="3xi32=2 3 1" 2>&1 | FileCheck %s --check-prefix=LOOKUP
// RUN: strata-run --module=%t.vmfb --no-native-kernels --function=column --input="2x3xf32=1 2 3 4 5 6" --input="3xi32=2 0 1" --expected_output="3xf32=6 4 5"
// RUN: strata-run --module=%t.vmfb --no-native-kernels --function=column --input="2x4xf32=1 2 3 4 5 6 7 8" --input="3xi32=3 0 1" --expected_output="3xf32=8 5 6"
// RUN: strata-run --module=%t.vmfb --no-native-kernels --function=half --input="4xf16=1 2.5 65504 -0.5" --expected_output="4xf16=2 5 inf -1"

// The table has 3 rows of 2 at this call: its extent (6 elements) comes
// from the push constants; row 3, column 1 is element 3 * 2 + 1 = 7.
// LOOKUP: OUT_OF_RANGE
// LOOKUP-SAME: index 7 computed from tensor data is out of range [0, 6)

func.func @add_rows(%a: tensor<?x3xf32>, %b: tensor<?x3xf32>) -> tensor<?x3xf32> {
  %c0 = arith.constant 0 : index
  %n = tensor.dim %a, %c0 : tensor<?x3xf32>
  %e = tensor.empty(%n) : tensor<?x3xf32>
  %s = linalg.add ins(%a, %b : tensor<?x3xf32>, tensor<?x3xf32>) outs(%e : tensor<?x3xf32>) -> tensor<?x3xf32>
  return %s : tensor<?x3xf32>
}

func.func @lookup(%table: tensor<?x2xf32>, %idx: tensor<3xi32>) -> tensor<3xf32> {
  %e = tensor.empty() : tensor<3xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} ins(%idx : tensor<3xi32>) outs(%e : tensor<3xf32>) {
  ^bb0(%i: i32, %o: f32):
    %k = arith.index_cast %i : i32 to index
    %c1 = arith.constant 1 : index
    %v = tensor.extract %table[%k, %c1] : tensor<?x2xf32>
    linalg.yield %v : f32
  } -> tensor<3xf32>
  return %r : tensor<3xf32>
}

func.func @half(%a: tensor<4xf16>) -> tensor<4xf16> {
  %e = tensor.empty() : tensor<4xf16>
  %s = linalg.add ins(%a, %a : tensor<4xf16>, tensor<4xf16>) outs(%e : tensor<4xf16>) -> tensor<4xf16>
  return %s : tensor<4xf16>
}

// A gather through a run-time row stride (the i64 constant the shape
// instruction patches).
func.func @column(%table: tensor<2x?xf32>, %idx: tensor<3xi32>) -> tensor<3xf32> {
  %e = tensor.empty() : tensor<3xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} ins(%idx : tensor<3xi32>) outs(%e : tensor<3xf32>) {
  ^bb0(%i: i32, %o: f32):
    %k = arith.index_cast %i : i32 to index
    %c1 = arith.constant 1 : index
    %v = tensor.extract %table[%c1, %k] : tensor<2x?xf32>
    linalg.yield %v : f32
  } -> tensor<3xf32>
  return %r : tensor<3xf32>
}
