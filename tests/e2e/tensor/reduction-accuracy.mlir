// Sums users can trust: long f32 sums are partial sums over vector lanes
// and workgroups combined as a tree, f16 sums accumulate in f32. Checked
// against a float64 sum of the same values (in the program: rtol 1e-6 for
// f32, one f16 ulp for f16) and against known totals of constant inputs
// within 1e-5 (a sequential f32 sum of 2^20 x 0.1 is off by 1%, an f16 one
// of 65536 x 0.01 sticks at 32); on both devices.
// RUN: strata-compile %s -o %t.vmfb
// RUN: strata-run --module=%t.vmfb --device=local-task --function=sum_1m_f32
// RUN: strata-run --module=%t.vmfb --device=local-sync --function=sum_1m_f32
// RUN: strata-run --module=%t.vmfb --device=local-task --function=sum_64k_f16
// RUN: strata-run --module=%t.vmfb --device=local-sync --function=sum_64k_f16
// RUN: strata-run --module=%t.vmfb --device=local-task --function=rows_f32
// RUN: strata-run --module=%t.vmfb --device=local-task --function=sum_f32 --input="1048576xf32=0.1" --expected_output="f32=104857.6" --expected_f32_threshold=1.0
// RUN: strata-run --module=%t.vmfb --device=local-sync --function=sum_f32 --input="1048576xf32=0.1" --expected_output="f32=104857.6" --expected_f32_threshold=1.0
// RUN: strata-run --module=%t.vmfb --device=local-task --function=sum_f16 --input="65536xf16=0.01" --expected_output="f16=655.5"
// RUN: strata-run --module=%t.vmfb --device=local-sync --function=sum_f16 --input="65536xf16=0.01" --expected_output="f16=655.5"
//
// The sum is split into partials (a reduction dispatch over many
// workgroups), then summed in turn.
// RUN: strata-compile %s --compile-to=flow -o - | FileCheck %s --check-prefix=FLOW
// FLOW-LABEL: func.func @sum_f32(
// FLOW: flow.dispatch {{.*}}reduction_256x256x16_f32
// FLOW: flow.dispatch {{.*}}reduction_1x256x16_f32
// FLOW: flow.dispatch {{.*}}reduction_16_f32
//
// An f32 maximum or minimum is split the same way (exact in any order),
// its partials starting at -inf / +inf: the extreme of 2^20 values with
// one planted far from either end, all the others on one side of zero.
// RUN: strata-run --module=%t.vmfb --device=local-task --function=extremes
// RUN: strata-run --module=%t.vmfb --device=local-sync --function=extremes
//
// The code generator combines each vector tile's rows of partial extremes
// as a tree (any order gives the same bits for min and max): 1204224 values
// are 256 groups of 294 rows of 16 lanes, tiles of 14 rows, so rows fall
// out at odd levels. A NaN anywhere makes both NaN; among zeros, -0 is the
// minimum and +0 the maximum wherever they sit in a tile.
// RUN: strata-run --module=%t.vmfb --device=local-task --function=extremes_nan_zeros
// RUN: strata-run --module=%t.vmfb --device=local-sync --function=extremes_nan_zeros
// RUN: strata-compile %s --compile-to=flow -o - | FileCheck %s --check-prefix=ODD
// ODD-LABEL: func.func @min_odd(
// ODD: flow.dispatch {{.*}}reduction_256x294x16_f32
//
// A minimum and a maximum of the same values in one op (DynamicQuantizeLinear's
// range) are split into one op of partial extremes, one pass over the
// input, each result's partials then reduced on their own.
// RUN: strata-run --module=%t.vmfb --device=local-task --function=range_one_pass
// RUN: strata-run --module=%t.vmfb --device=local-sync --function=range_one_pass
// ODD-LABEL: func.func @range(
// ODD: flow.dispatch {{.*}}reduction_256x294x16_f32({{.*}}) : (tensor<256x294x16xf32>) -> (tensor<256x16xf32>, tensor<256x16xf32>)
// ODD: flow.dispatch {{.*}}reduction_1x256x16_f32
// ODD: flow.dispatch {{.*}}reduction_16_f32
// ODD: flow.dispatch {{.*}}reduction_1x256x16_f32
// ODD: flow.dispatch {{.*}}reduction_16_f32
// FLOW-LABEL: func.func @max_f32(
// FLOW: flow.dispatch {{.*}}reduction_256x256x16_f32
// FLOW: flow.dispatch {{.*}}reduction_1x256x16_f32
// FLOW: flow.dispatch {{.*}}reduction_16_f32

#id = affine_map<(i) -> (i)>
#sum = affine_map<(i) -> ()>

func.func @sum_f32(%x: tensor<1048576xf32>) -> tensor<f32> {
  %e = tensor.empty() : tensor<f32>
  %zero = arith.constant 0.0 : f32
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<f32>) -> tensor<f32>
  %r = linalg.reduce ins(%x : tensor<1048576xf32>) outs(%f : tensor<f32>) dimensions = [0]
    (%in: f32, %acc: f32) {
      %s = arith.addf %in, %acc : f32
      linalg.yield %s : f32
    }
  return %r : tensor<f32>
}

func.func @sum_f16(%x: tensor<65536xf16>) -> tensor<f16> {
  %e = tensor.empty() : tensor<f16>
  %zero = arith.constant 0.0 : f16
  %f = linalg.fill ins(%zero : f16) outs(%e : tensor<f16>) -> tensor<f16>
  %r = linalg.generic {indexing_maps = [#id, #sum], iterator_types = ["reduction"]}
      ins(%x : tensor<65536xf16>) outs(%f : tensor<f16>) {
    ^bb0(%in: f16, %acc: f16):
      %s = arith.addf %in, %acc : f16
      linalg.yield %s : f16
  } -> tensor<f16>
  return %r : tensor<f16>
}

// x[i] = ((i * 40503) mod 65536) / 65536: well spread values in [0, 1).
func.func private @values(%n: index) -> tensor<?xf32> {
  %e = tensor.empty(%n) : tensor<?xf32>
  %g = linalg.generic {indexing_maps = [#id], iterator_types = ["parallel"]} outs(%e : tensor<?xf32>) {
  ^bb0(%o: f32):
    %i = linalg.index 0 : index
    %ii = arith.index_cast %i : index to i32
    %m = arith.constant 40503 : i32
    %p = arith.muli %ii, %m : i32
    %mask = arith.constant 65535 : i32
    %q = arith.andi %p, %mask : i32
    %qf = arith.sitofp %q : i32 to f32
    %scale = arith.constant 1.52587890625e-05 : f32
    %v = arith.mulf %qf, %scale : f32
    linalg.yield %v : f32
  } -> tensor<?xf32>
  return %g : tensor<?xf32>
}

func.func private @sum_f64(%x: tensor<?xf64>) -> tensor<f64> {
  %e = tensor.empty() : tensor<f64>
  %zero = arith.constant 0.0 : f64
  %f = linalg.fill ins(%zero : f64) outs(%e : tensor<f64>) -> tensor<f64>
  %r = linalg.reduce ins(%x : tensor<?xf64>) outs(%f : tensor<f64>) dimensions = [0]
    (%in: f64, %acc: f64) {
      %s = arith.addf %in, %acc : f64
      linalg.yield %s : f64
    }
  return %r : tensor<f64>
}

func.func @sum_1m_f32() {
  %n = arith.constant 1048576 : index
  %v = call @values(%n) : (index) -> tensor<?xf32>
  %xs = tensor.cast %v : tensor<?xf32> to tensor<1048576xf32>
  %x = util.optimization_barrier %xs : tensor<1048576xf32>
  %s = call @sum_f32(%x) : (tensor<1048576xf32>) -> tensor<f32>
  %xd = tensor.cast %x : tensor<1048576xf32> to tensor<?xf32>
  %x64 = arith.extf %xd : tensor<?xf32> to tensor<?xf64>
  %r64 = call @sum_f64(%x64) : (tensor<?xf64>) -> tensor<f64>
  %r = arith.truncf %r64 : tensor<f64> to tensor<f32>
  check.expect_almost_eq(%s, %r, atol 0.0, rtol 1.0e-06) : tensor<f32>
  return
}

func.func @sum_64k_f16() {
  %n = arith.constant 65536 : index
  %v = call @values(%n) : (index) -> tensor<?xf32>
  %small = arith.constant 0.01 : f32
  %vs = tensor.splat %small[%n] : tensor<?xf32>
  %scaled = arith.mulf %v, %vs : tensor<?xf32>
  %h = arith.truncf %scaled : tensor<?xf32> to tensor<?xf16>
  %hs = tensor.cast %h : tensor<?xf16> to tensor<65536xf16>
  %x = util.optimization_barrier %hs : tensor<65536xf16>
  %s = call @sum_f16(%x) : (tensor<65536xf16>) -> tensor<f16>
  %xd = tensor.cast %x : tensor<65536xf16> to tensor<?xf16>
  %x64 = arith.extf %xd : tensor<?xf16> to tensor<?xf64>
  %r64 = call @sum_f64(%x64) : (tensor<?xf64>) -> tensor<f64>
  %r32 = arith.truncf %r64 : tensor<f64> to tensor<f32>
  %r = arith.truncf %r32 : tensor<f32> to tensor<f16>
  // Both are rounded to f16 once: within one f16 ulp (~1e-3).
  check.expect_almost_eq(%s, %r, atol 0.0, rtol 1.0e-03) : tensor<f16>
  return
}

// 64 rows of 16384: row sums, each against its float64 sum.
func.func @rows_f32() {
  %n = arith.constant 1048576 : index
  %v = call @values(%n) : (index) -> tensor<?xf32>
  %vs = tensor.cast %v : tensor<?xf32> to tensor<1048576xf32>
  %rows = tensor.expand_shape %vs [[0, 1]] output_shape [64, 16384] : tensor<1048576xf32> into tensor<64x16384xf32>
  %x = util.optimization_barrier %rows : tensor<64x16384xf32>
  %e = tensor.empty() : tensor<64xf32>
  %zero = arith.constant 0.0 : f32
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<64xf32>) -> tensor<64xf32>
  %s = linalg.reduce ins(%x : tensor<64x16384xf32>) outs(%f : tensor<64xf32>) dimensions = [1]
    (%in: f32, %acc: f32) {
      %a = arith.addf %in, %acc : f32
      linalg.yield %a : f32
    }
  %x64 = arith.extf %x : tensor<64x16384xf32> to tensor<64x16384xf64>
  %e64 = tensor.empty() : tensor<64xf64>
  %zero64 = arith.constant 0.0 : f64
  %f64 = linalg.fill ins(%zero64 : f64) outs(%e64 : tensor<64xf64>) -> tensor<64xf64>
  %s64 = linalg.reduce ins(%x64 : tensor<64x16384xf64>) outs(%f64 : tensor<64xf64>) dimensions = [1]
    (%in: f64, %acc: f64) {
      %a = arith.addf %in, %acc : f64
      linalg.yield %a : f64
    }
  %r = arith.truncf %s64 : tensor<64xf64> to tensor<64xf32>
  check.expect_almost_eq(%s, %r, atol 0.0, rtol 1.0e-06) : tensor<64xf32>
  return
}

func.func @max_f32(%x: tensor<1048576xf32>) -> tensor<f32> {
  %e = tensor.empty() : tensor<f32>
  %lo = arith.constant 0xFF800000 : f32
  %f = linalg.fill ins(%lo : f32) outs(%e : tensor<f32>) -> tensor<f32>
  %r = linalg.reduce ins(%x : tensor<1048576xf32>) outs(%f : tensor<f32>) dimensions = [0]
    (%in: f32, %acc: f32) {
      %m = arith.maximumf %in, %acc : f32
      linalg.yield %m : f32
    }
  return %r : tensor<f32>
}

func.func @min_f32(%x: tensor<1048576xf32>) -> tensor<f32> {
  %e = tensor.empty() : tensor<f32>
  %hi = arith.constant 0x7F800000 : f32
  %f = linalg.fill ins(%hi : f32) outs(%e : tensor<f32>) -> tensor<f32>
  %r = linalg.reduce ins(%x : tensor<1048576xf32>) outs(%f : tensor<f32>) dimensions = [0]
    (%in: f32, %acc: f32) {
      %m = arith.minimumf %acc, %in : f32
      linalg.yield %m : f32
    }
  return %r : tensor<f32>
}

func.func @extremes() {
  %n = arith.constant 1048576 : index
  %v = call @values(%n) : (index) -> tensor<?xf32>
  %xs = tensor.cast %v : tensor<?xf32> to tensor<1048576xf32>
  // All below zero but one for the maximum, all above but one for the
  // minimum: a partial starting at 0 would show.
  %down = arith.constant dense<-3.0> : tensor<1048576xf32>
  %up = arith.constant dense<1.0> : tensor<1048576xf32>
  %neg = arith.addf %xs, %down : tensor<1048576xf32>
  %pos = arith.addf %xs, %up : tensor<1048576xf32>
  %big = arith.constant -0.75 : f32
  %small = arith.constant 0.5 : f32
  %i = arith.constant 777777 : index
  %j = arith.constant 123457 : index
  %a = tensor.insert %big into %neg[%i] : tensor<1048576xf32>
  %b = tensor.insert %small into %pos[%j] : tensor<1048576xf32>
  %xa = util.optimization_barrier %a : tensor<1048576xf32>
  %xb = util.optimization_barrier %b : tensor<1048576xf32>
  %mx = call @max_f32(%xa) : (tensor<1048576xf32>) -> tensor<f32>
  %mn = call @min_f32(%xb) : (tensor<1048576xf32>) -> tensor<f32>
  %emx = arith.constant dense<-0.75> : tensor<f32>
  %emn = arith.constant dense<0.5> : tensor<f32>
  check.expect_almost_eq(%mx, %emx, atol 0.0, rtol 0.0) : tensor<f32>
  check.expect_almost_eq(%mn, %emn, atol 0.0, rtol 0.0) : tensor<f32>
  return
}

func.func @min_odd(%x: tensor<1204224xf32>) -> tensor<f32> {
  %e = tensor.empty() : tensor<f32>
  %hi = arith.constant 0x7F800000 : f32
  %f = linalg.fill ins(%hi : f32) outs(%e : tensor<f32>) -> tensor<f32>
  %r = linalg.reduce ins(%x : tensor<1204224xf32>) outs(%f : tensor<f32>) dimensions = [0]
    (%in: f32, %acc: f32) {
      %m = arith.minimumf %acc, %in : f32
      linalg.yield %m : f32
    }
  return %r : tensor<f32>
}

func.func @max_odd(%x: tensor<1204224xf32>) -> tensor<f32> {
  %e = tensor.empty() : tensor<f32>
  %lo = arith.constant 0xFF800000 : f32
  %f = linalg.fill ins(%lo : f32) outs(%e : tensor<f32>) -> tensor<f32>
  %r = linalg.reduce ins(%x : tensor<1204224xf32>) outs(%f : tensor<f32>) dimensions = [0]
    (%in: f32, %acc: f32) {
      %m = arith.maximumf %in, %acc : f32
      linalg.yield %m : f32
    }
  return %r : tensor<f32>
}

// The bits of a scalar result, as i32.
func.func private @bits(%x: tensor<f32>) -> tensor<i32> {
  %b = arith.bitcast %x : tensor<f32> to tensor<i32>
  return %b : tensor<i32>
}

// 1 when the scalar result is a NaN.
func.func private @is_nan(%x: tensor<f32>) -> i32 {
  %v = tensor.extract %x[] : tensor<f32>
  %u = arith.cmpf uno, %v, %v : f32
  %i = arith.extui %u : i1 to i32
  return %i : i32
}

func.func @extremes_nan_zeros() {
  %pz = arith.constant dense<0.0> : tensor<1204224xf32>
  %nz = arith.constant dense<-0.0> : tensor<1204224xf32>
  %minus = arith.constant -0.0 : f32
  %plus = arith.constant 0.0 : f32
  %nan = arith.constant 0x7FC00000 : f32
  // Index 16 * row + lane: row 13 of a tile (the last), row 6 (out at the
  // second level), and a tile of the last group.
  %last = arith.constant 213 : index
  %sixth = arith.constant 470501 : index
  %end = arith.constant 1204223 : index
  %a = tensor.insert %minus into %pz[%last] : tensor<1204224xf32>
  %b = tensor.insert %plus into %nz[%sixth] : tensor<1204224xf32>
  %xa = util.optimization_barrier %a : tensor<1204224xf32>
  %xb = util.optimization_barrier %b : tensor<1204224xf32>
  %mn = call @min_odd(%xa) : (tensor<1204224xf32>) -> tensor<f32>
  %mx = call @max_odd(%xb) : (tensor<1204224xf32>) -> tensor<f32>
  %mnb = call @bits(%mn) : (tensor<f32>) -> tensor<i32>
  %mxb = call @bits(%mx) : (tensor<f32>) -> tensor<i32>
  %negzero = arith.constant dense<-2147483648> : tensor<i32>
  %poszero = arith.constant dense<0> : tensor<i32>
  check.expect_eq(%mnb, %negzero) : tensor<i32>
  check.expect_eq(%mxb, %poszero) : tensor<i32>
  %n = arith.constant 1204224 : index
  %v = call @values(%n) : (index) -> tensor<?xf32>
  %xs = tensor.cast %v : tensor<?xf32> to tensor<1204224xf32>
  %c = tensor.insert %nan into %xs[%sixth] : tensor<1204224xf32>
  %d = tensor.insert %nan into %xs[%end] : tensor<1204224xf32>
  %xc = util.optimization_barrier %c : tensor<1204224xf32>
  %xd = util.optimization_barrier %d : tensor<1204224xf32>
  %mnc = call @min_odd(%xc) : (tensor<1204224xf32>) -> tensor<f32>
  %mxc = call @max_odd(%xc) : (tensor<1204224xf32>) -> tensor<f32>
  %mnd = call @min_odd(%xd) : (tensor<1204224xf32>) -> tensor<f32>
  %mxd = call @max_odd(%xd) : (tensor<1204224xf32>) -> tensor<f32>
  %n1 = call @is_nan(%mnc) : (tensor<f32>) -> i32
  %n2 = call @is_nan(%mxc) : (tensor<f32>) -> i32
  %n3 = call @is_nan(%mnd) : (tensor<f32>) -> i32
  %n4 = call @is_nan(%mxd) : (tensor<f32>) -> i32
  check.expect_true(%n1) : i32
  check.expect_true(%n2) : i32
  check.expect_true(%n3) : i32
  check.expect_true(%n4) : i32
  return
}

func.func @range(%x: tensor<1204224xf32>) -> (tensor<f32>, tensor<f32>) {
  %e = tensor.empty() : tensor<f32>
  %hi = arith.constant 0x7F800000 : f32
  %lo = arith.constant 0xFF800000 : f32
  %fmin = linalg.fill ins(%hi : f32) outs(%e : tensor<f32>) -> tensor<f32>
  %fmax = linalg.fill ins(%lo : f32) outs(%e : tensor<f32>) -> tensor<f32>
  %r:2 = linalg.generic {indexing_maps = [#id, #sum, #sum], iterator_types = ["reduction"]}
      ins(%x : tensor<1204224xf32>) outs(%fmin, %fmax : tensor<f32>, tensor<f32>) {
    ^bb0(%in: f32, %a: f32, %b: f32):
      %m = arith.minimumf %a, %in : f32
      %n = arith.maximumf %b, %in : f32
      linalg.yield %m, %n : f32, f32
  } -> (tensor<f32>, tensor<f32>)
  return %r#0, %r#1 : tensor<f32>, tensor<f32>
}

func.func @range_one_pass() {
  %n = arith.constant 1204224 : index
  %v = call @values(%n) : (index) -> tensor<?xf32>
  %xs = tensor.cast %v : tensor<?xf32> to tensor<1204224xf32>
  // Values in [1, 2), one 0.5 and one 7.0 planted.
  %up = arith.constant dense<1.0> : tensor<1204224xf32>
  %pos = arith.addf %xs, %up : tensor<1204224xf32>
  %small = arith.constant 0.5 : f32
  %big = arith.constant 7.0 : f32
  %i = arith.constant 470501 : index
  %j = arith.constant 213 : index
  %a = tensor.insert %small into %pos[%i] : tensor<1204224xf32>
  %b = tensor.insert %big into %a[%j] : tensor<1204224xf32>
  %xb = util.optimization_barrier %b : tensor<1204224xf32>
  %mn, %mx = call @range(%xb) : (tensor<1204224xf32>) -> (tensor<f32>, tensor<f32>)
  %emn = arith.constant dense<0.5> : tensor<f32>
  %emx = arith.constant dense<7.0> : tensor<f32>
  check.expect_almost_eq(%mn, %emn, atol 0.0, rtol 0.0) : tensor<f32>
  check.expect_almost_eq(%mx, %emx, atol 0.0, rtol 0.0) : tensor<f32>
  // A NaN makes both NaN.
  %nan = arith.constant 0x7FC00000 : f32
  %end = arith.constant 1204223 : index
  %c = tensor.insert %nan into %b[%end] : tensor<1204224xf32>
  %xc = util.optimization_barrier %c : tensor<1204224xf32>
  %nmn, %nmx = call @range(%xc) : (tensor<1204224xf32>) -> (tensor<f32>, tensor<f32>)
  %n1 = call @is_nan(%nmn) : (tensor<f32>) -> i32
  %n2 = call @is_nan(%nmx) : (tensor<f32>) -> i32
  check.expect_true(%n1) : i32
  check.expect_true(%n2) : i32
  return
}
