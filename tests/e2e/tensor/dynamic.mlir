// Dynamic dimensions that flow from the inputs: a batch of any size through
// matmul + bias + relu, a chain of dispatches whose sizes come from earlier
// results, a reduction and a row-dependent generic (linalg.index), a
// dynamic slice, read-back by run-time index; on both devices.
// RUN: strata-compile %s -o %t.vmfb
// RUN: strata-dump %t.vmfb | FileCheck %s --check-prefix=DUMP
// DUMP: arg0 = ?x4xf32
// DUMP: result0 = ?x3xf32
// DUMP: kernel library (ELF shared object, x86-64)
//
// Batches of 3, 1 and 0 rows.
// RUN: strata-run --module=%t.vmfb --device=local-task --function=dense --input="3x4xf32=1 2 3 4 5 6 7 8 -1 -2 -3 -4" --input="4x3xf32=1 0 0 0 1 0 0 0 1 1 1 1" --input="3xf32=0.5 0 -100" --expected_output="3x3xf32=5.5 6 0 13.5 14 0 0 0 0"
// RUN: strata-run --module=%t.vmfb --device=local-sync --function=dense --input="3x4xf32=1 2 3 4 5 6 7 8 -1 -2 -3 -4" --input="4x3xf32=1 0 0 0 1 0 0 0 1 1 1 1" --input="3xf32=0.5 0 -100" --expected_output="3x3xf32=5.5 6 0 13.5 14 0 0 0 0"
// RUN: strata-run --module=%t.vmfb --function=dense --input="1x4xf32=1 1 1 1" --input="4x3xf32=1 0 0 0 1 0 0 0 1 1 1 1" --input="3xf32=0 0 0" --expected_output="1x3xf32=2 2 2"
// RUN: strata-run --module=%t.vmfb --function=dense --input="0x4xf32=" --input="4x3xf32=1 0 0 0 1 0 0 0 1 1 1 1" --input="3xf32=0 0 0" --expected_output="0x3xf32="
//
// 70 rows: one-row tiles, more of them than the 64 workgroups of the grid.
// Row i of the 70x1024 product is 10 * x[i] in every column; its sum is
// 10240 * x[i].
// RUN: strata-run --module=%t.vmfb --device=local-task --function=wide_rows --input="70xf32=0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 21 22 23 24 25 26 27 28 29 30 31 32 33 34 35 36 37 38 39 40 41 42 43 44 45 46 47 48 49 50 51 52 53 54 55 56 57 58 59 60 61 62 63 64 65 66 67 68 69" --expected_output="70xf32=0 10240 20480 30720 40960 51200 61440 71680 81920 92160 102400 112640 122880 133120 143360 153600 163840 174080 184320 194560 204800 215040 225280 235520 245760 256000 266240 276480 286720 296960 307200 317440 327680 337920 348160 358400 368640 378880 389120 399360 409600 419840 430080 440320 450560 460800 471040 481280 491520 501760 512000 522240 532480 542720 552960 563200 573440 583680 593920 604160 614400 624640 634880 645120 655360 665600 675840 686080 696320 706560"
// RUN: strata-run --module=%t.vmfb --device=local-sync --function=wide_rows --input="70xf32=0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 21 22 23 24 25 26 27 28 29 30 31 32 33 34 35 36 37 38 39 40 41 42 43 44 45 46 47 48 49 50 51 52 53 54 55 56 57 58 59 60 61 62 63 64 65 66 67 68 69" --expected_output="70xf32=0 10240 20480 30720 40960 51200 61440 71680 81920 92160 102400 112640 122880 133120 143360 153600 163840 174080 184320 194560 204800 215040 225280 235520 245760 256000 266240 276480 286720 296960 307200 317440 327680 337920 348160 358400 368640 378880 389120 399360 409600 419840 430080 440320 450560 460800 471040 481280 491520 501760 512000 522240 532480 542720 552960 563200 573440 583680 593920 604160 614400 624640 634880 645120 655360 665600 675840 686080 696320 706560"
//
// RUN: strata-run --module=%t.vmfb --function=tail --input="6xi32=1 2 3 4 5 6" --input=i64=2 --expected_output="4xi32=3 4 5 6" --expected_output=i32=6
//
// The shape check at the call names the argument, with ? for any size.
// RUN: not strata-run --module=%t.vmfb --function=dense --input="2x5xf32=0" --input="4x3xf32=0" --input="3xf32=0" 2>&1 | FileCheck %s --check-prefix=SHAPE
// SHAPE: argument 0 of {{.*}}dense is a ?x4xf32 tensor, not 2x5xf32

func.func @dense(%x: tensor<?x4xf32>, %w: tensor<4x3xf32>, %b: tensor<3xf32>) -> tensor<?x3xf32> {
  %c0 = arith.constant 0 : index
  %zero = arith.constant 0.0 : f32
  %n = tensor.dim %x, %c0 : tensor<?x4xf32>
  %e = tensor.empty(%n) : tensor<?x3xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<?x3xf32>) -> tensor<?x3xf32>
  %m = linalg.matmul ins(%x, %w : tensor<?x4xf32>, tensor<4x3xf32>) outs(%f : tensor<?x3xf32>) -> tensor<?x3xf32>
  %bb = linalg.broadcast ins(%b : tensor<3xf32>) outs(%e : tensor<?x3xf32>) dimensions = [0]
  %a = linalg.add ins(%m, %bb : tensor<?x3xf32>, tensor<?x3xf32>) outs(%e : tensor<?x3xf32>) -> tensor<?x3xf32>
  %r = linalg.max ins(%a, %f : tensor<?x3xf32>, tensor<?x3xf32>) outs(%e : tensor<?x3xf32>) -> tensor<?x3xf32>
  return %r : tensor<?x3xf32>
}

// x[i] -> rows [x, 2x, 3x, 4x] (linalg.index), times a 4x1024 matrix of
// ones, then summed per row: three dispatches, each sized by the one before.
func.func @wide_rows(%x: tensor<?xf32>) -> tensor<?xf32> {
  %c0 = arith.constant 0 : index
  %zero = arith.constant 0.0 : f32
  %ones = arith.constant dense<1.0> : tensor<4x1024xf32>
  %n = tensor.dim %x, %c0 : tensor<?xf32>
  %e4 = tensor.empty(%n) : tensor<?x4xf32>
  %rows = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i)>, affine_map<(i, j) -> (i, j)>],
                          iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<?xf32>) outs(%e4 : tensor<?x4xf32>) {
    ^bb0(%v: f32, %o: f32):
      %j = linalg.index 1 : index
      %j1 = arith.addi %j, %c0 : index
      %ji = arith.index_cast %j1 : index to i32
      %jf = arith.sitofp %ji : i32 to f32
      %one = arith.constant 1.0 : f32
      %k = arith.addf %jf, %one : f32
      %y = arith.mulf %v, %k : f32
      linalg.yield %y : f32
  } -> tensor<?x4xf32>
  %optimized = util.optimization_barrier %rows : tensor<?x4xf32>
  %ew = tensor.empty(%n) : tensor<?x1024xf32>
  %fw = linalg.fill ins(%zero : f32) outs(%ew : tensor<?x1024xf32>) -> tensor<?x1024xf32>
  %p = linalg.matmul ins(%optimized, %ones : tensor<?x4xf32>, tensor<4x1024xf32>) outs(%fw : tensor<?x1024xf32>) -> tensor<?x1024xf32>
  %p2 = util.optimization_barrier %p : tensor<?x1024xf32>
  %m = tensor.dim %p2, %c0 : tensor<?x1024xf32>
  %es = tensor.empty(%m) : tensor<?xf32>
  %fs = linalg.fill ins(%zero : f32) outs(%es : tensor<?xf32>) -> tensor<?xf32>
  %s = linalg.reduce ins(%p2 : tensor<?x1024xf32>) outs(%fs : tensor<?xf32>) dimensions = [1]
    (%in: f32, %acc: f32) {
      %t = arith.addf %in, %acc : f32
      linalg.yield %t : f32
    }
  return %s : tensor<?xf32>
}

// The elements from index %k on, and the last element read back.
func.func @tail(%a: tensor<?xi32>, %k: index) -> (tensor<?xi32>, i32) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %n = tensor.dim %a, %c0 : tensor<?xi32>
  %len = arith.subi %n, %k : index
  %s = tensor.extract_slice %a[%k] [%len] [1] : tensor<?xi32> to tensor<?xi32>
  %last = arith.subi %len, %c1 : index
  %v = tensor.extract %s[%last] : tensor<?xi32>
  return %s, %v : tensor<?xi32>, i32
}
