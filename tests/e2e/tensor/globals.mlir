// IREE's module globals (util.global, util.global.load/store): scalar and
// tensor, mutable and immutable, with and without initial values; state
// persists across calls within one context; on both devices.
// RUN: strata-compile %s -o %t.vmfb
// RUN: strata-run --module=%t.vmfb --device=local-sync --function=counter
// RUN: strata-run --module=%t.vmfb --device=local-task --function=counter
// RUN: strata-run --module=%t.vmfb --device=local-sync --function=scalars
// RUN: strata-run --module=%t.vmfb --device=local-sync --function=tensors
// RUN: strata-run --module=%t.vmfb --device=local-task --function=tensors
// RUN: strata-run --module=%t.vmfb --device=local-task --function=accumulate --input="3xf32=1 1 1" --expected_output="3xf32=2 3 4"
// RUN: strata-run --module=%t.vmfb --device=local-sync --function=accumulate --input="3xf32=1 1 1" --expected_output="3xf32=2 3 4"
//
// An immutable global is its constant; a store to it is an error.
// RUN: not strata-compile %S/Inputs/global-store-immutable.mlir -o %t.bad 2>&1 | FileCheck %s --check-prefix=IMMUTABLE
// IMMUTABLE: stores to the immutable global '@limit'

util.global private mutable @count = 0 : i32
util.global private mutable @big : i64
util.global private @limit = 3 : index
util.global private mutable @flag = true
util.global private mutable @ratio = 0.25 : f64
util.global public mutable @scale = 2.5 : f32
util.global private mutable @state = dense<[1.0, 2.0, 3.0]> : tensor<3xf32>
util.global private @table = dense<[10, 20, 30, 40]> : tensor<4xi32>
util.global private mutable @later : tensor<2x2xi32>

func.func private @bump() -> i32 {
  %v = util.global.load @count : i32
  %c1 = arith.constant 1 : i32
  %n = arith.addi %v, %c1 : i32
  util.global.store %n, @count : i32
  return %n : i32
}

func.func @counter() {
  %a = call @bump() : () -> i32
  %b = call @bump() : () -> i32
  %c = call @bump() : () -> i32
  %three = arith.constant 3 : i32
  %eq = arith.cmpi eq, %c, %three : i32
  %eq_i32 = arith.extui %eq : i1 to i32
  check.expect_true(%eq_i32) : i32
  return
}

func.func @scalars() {
  %big = util.global.load @big : i64
  %zero = arith.constant 0 : i64
  %z = arith.cmpi eq, %big, %zero : i64
  %z_i32 = arith.extui %z : i1 to i32
  check.expect_true(%z_i32) : i32
  %big2 = arith.constant 5000000000 : i64
  util.global.store %big2, @big : i64
  %big3 = util.global.load @big : i64
  %b = arith.cmpi eq, %big3, %big2 : i64
  %b_i32 = arith.extui %b : i1 to i32
  check.expect_true(%b_i32) : i32
  %flag = util.global.load @flag : i1
  %flag_i32 = arith.extui %flag : i1 to i32
  check.expect_true(%flag_i32) : i32
  %false = arith.constant false
  util.global.store %false, @flag : i1
  %flag2 = util.global.load @flag : i1
  %flag2_i32 = arith.extui %flag2 : i1 to i32
  check.expect_false(%flag2_i32) : i32
  %limit = util.global.load immutable @limit : index
  %c3 = arith.constant 3 : index
  %l = arith.cmpi eq, %limit, %c3 : index
  %l_i32 = arith.extui %l : i1 to i32
  check.expect_true(%l_i32) : i32
  %r = util.global.load @ratio : f64
  %q = arith.constant 0.25 : f64
  %rq = arith.cmpf oeq, %r, %q : f64
  %rq_i32 = arith.extui %rq : i1 to i32
  check.expect_true(%rq_i32) : i32
  %s = util.global.load @scale : f32
  %s2 = arith.mulf %s, %s : f32
  util.global.store %s2, @scale : f32
  %s3 = util.global.load @scale : f32
  %e = arith.constant 6.25 : f32
  %se = arith.cmpf oeq, %s3, %e : f32
  %se_i32 = arith.extui %se : i1 to i32
  check.expect_true(%se_i32) : i32
  return
}

func.func @tensors() {
  %t = util.global.load @table : tensor<4xi32>
  check.expect_eq_const(%t, dense<[10, 20, 30, 40]> : tensor<4xi32>) : tensor<4xi32>
  %s = util.global.load @state : tensor<3xf32>
  check.expect_almost_eq_const(%s, dense<[1.0, 2.0, 3.0]> : tensor<3xf32>) : tensor<3xf32>
  // A computed tensor stored, then loaded and used by a dispatch.
  %d = arith.addf %s, %s : tensor<3xf32>
  util.global.store %d, @state : tensor<3xf32>
  %s2 = util.global.load @state : tensor<3xf32>
  %m = arith.mulf %s2, %s2 : tensor<3xf32>
  check.expect_almost_eq_const(%m, dense<[4.0, 16.0, 36.0]> : tensor<3xf32>) : tensor<3xf32>
  %k = util.unfoldable_constant dense<[[1, 2], [3, 4]]> : tensor<2x2xi32>
  util.global.store %k, @later : tensor<2x2xi32>
  %l = util.global.load @later : tensor<2x2xi32>
  check.expect_eq_const(%l, dense<[[1, 2], [3, 4]]> : tensor<2x2xi32>) : tensor<2x2xi32>
  return
}

func.func @accumulate(%x: tensor<3xf32>) -> tensor<3xf32> {
  %v = util.global.load @state : tensor<3xf32>
  %e = tensor.empty() : tensor<3xf32>
  %s = linalg.add ins(%v, %x : tensor<3xf32>, tensor<3xf32>) outs(%e : tensor<3xf32>) -> tensor<3xf32>
  util.global.store %s, @state : tensor<3xf32>
  %again = util.global.load @state : tensor<3xf32>
  return %again : tensor<3xf32>
}
