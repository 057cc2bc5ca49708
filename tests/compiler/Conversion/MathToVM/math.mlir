// math ops to vm opcodes, and the expansions of those without one.
// RUN: strata-opt %s --strata-convert-to-vm --split-input-file | FileCheck %s
// Functions with i1/i8/i16 in their signature are private here: exported
// ones also normalize those at the boundary (ConvertToVM/types.mlir, @exported_narrow).

// CHECK-LABEL: vm.func @unary_f32
// CHECK-SAME: (%[[X:.*]]: f32)
func.func @unary_f32(%x: f32) -> (f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32) {
  // CHECK: %[[R0:.*]] = vm.sqrt.f32 %[[X]]
  // CHECK: %[[R1:.*]] = vm.exp.f32 %[[X]]
  // CHECK: %[[R2:.*]] = vm.log.f32 %[[X]]
  // CHECK: %[[R3:.*]] = vm.tanh.f32 %[[X]]
  // CHECK: %[[R4:.*]] = vm.erf.f32 %[[X]]
  // CHECK: %[[R5:.*]] = vm.floor.f32 %[[X]]
  // CHECK: %[[R6:.*]] = vm.ceil.f32 %[[X]]
  // CHECK: %[[R7:.*]] = vm.round.f32 %[[X]]
  // CHECK: %[[R8:.*]] = vm.roundeven.f32 %[[X]]
  // CHECK: %[[R9:.*]] = vm.abs.f32 %[[X]]
  // CHECK: %[[R10:.*]] = vm.sin.f32 %[[X]]
  // CHECK: %[[R11:.*]] = vm.cos.f32 %[[X]]
  // CHECK: %[[R12:.*]] = vm.exp2.f32 %[[X]]
  // CHECK: %[[R13:.*]] = vm.log2.f32 %[[X]]
  // CHECK: %[[R14:.*]] = vm.pow.f32 %[[X]], %[[R13]]
  %0 = math.sqrt %x : f32
  %1 = math.exp %x : f32
  %2 = math.log %x : f32
  %3 = math.tanh %x : f32
  %4 = math.erf %x : f32
  %5 = math.floor %x : f32
  %6 = math.ceil %x : f32
  %7 = math.round %x : f32
  %8 = math.roundeven %x : f32
  %9 = math.absf %x : f32
  %10 = math.sin %x : f32
  %11 = math.cos %x : f32
  %12 = math.exp2 %x : f32
  %13 = math.log2 %x : f32
  %14 = math.powf %x, %13 : f32
  // CHECK: vm.return %[[R0]], %[[R1]], %[[R2]], %[[R3]], %[[R4]], %[[R5]], %[[R6]], %[[R7]], %[[R8]], %[[R9]], %[[R10]], %[[R11]], %[[R12]], %[[R13]], %[[R14]]
  return %0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14 : f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32
}

// -----

// CHECK-LABEL: vm.func @f64
// CHECK-SAME: (%[[X:.*]]: f64, %[[Y:.*]]: f64, %[[Z:.*]]: f64)
func.func @f64(%x: f64, %y: f64, %z: f64) -> (f64, f64, f64, f64) {
  // CHECK: %[[FMA:.*]] = vm.fma.f64 %[[X]], %[[Y]], %[[Z]]
  %0 = math.fma %x, %y, %z : f64
  // CHECK: %[[POW:.*]] = vm.pow.f64 %[[X]], %[[Y]]
  %1 = math.powf %x, %y : f64
  // CHECK: %[[EXP:.*]] = vm.exp.f64 %[[X]]
  %2 = math.exp %x : f64
  // CHECK: %[[ERF:.*]] = vm.erf.f64 %[[Z]]
  %3 = math.erf %z : f64
  // CHECK: vm.return %[[FMA]], %[[POW]], %[[EXP]], %[[ERF]]
  return %0, %1, %2, %3 : f64, f64, f64, f64
}

// -----

// CHECK-LABEL: vm.func @integer
// CHECK-SAME: (%[[A:.*]]: i32, %[[L:.*]]: i64, %[[B:.*]]: i32)
func.func private @integer(%a: i32, %l: i64, %b: i8) -> (i32, i64, i8, i32, i64, i8) {
  // CHECK: %[[ABS:.*]] = vm.abs.i32 %[[A]]
  %0 = math.absi %a : i32
  // CHECK: %[[ABS64:.*]] = vm.abs.i64 %[[L]]
  %1 = math.absi %l : i64
  // CHECK: %[[BS:.*]] = vm.ext.i8.i32.s %[[B]]
  // CHECK: %[[ABS8:.*]] = vm.abs.i32 %[[BS]]
  %2 = math.absi %b : i8
  // CHECK: %[[CTLZ:.*]] = vm.ctlz.i32 %[[A]]
  %3 = math.ctlz %a : i32
  // CHECK: %[[CTLZ64:.*]] = vm.ctlz.i64 %[[L]]
  %4 = math.ctlz %l : i64
  // An i8 is counted in 32 bits, less the 24 extra leading zeros.
  // CHECK: %[[BU:.*]] = vm.ext.i8.i32.u %[[B]]
  // CHECK: %[[CTLZ32:.*]] = vm.ctlz.i32 %[[BU]]
  // CHECK: %[[EXTRA:.*]] = vm.const.i32 24
  // CHECK: %[[CTLZ8:.*]] = vm.sub.i32 %[[CTLZ32]], %[[EXTRA]]
  %5 = math.ctlz %b : i8
  // CHECK: vm.return %[[ABS]], %[[ABS64]], %[[ABS8]], %[[CTLZ]], %[[CTLZ64]], %[[CTLZ8]]
  return %0, %1, %2, %3, %4, %5 : i32, i64, i8, i32, i64, i8
}

// -----

// rsqrt and tan come from the upstream math expansions.
// CHECK-LABEL: vm.func @upstream_expansions
// CHECK-SAME: (%[[X:.*]]: f32, %[[N:.*]]: i32)
func.func @upstream_expansions(%x: f32, %n: i32) -> (f32, f32, f32) {
  // CHECK: %[[ONE:.*]] = vm.const.f32 1.000000e+00
  // CHECK: %[[SQRT:.*]] = vm.sqrt.f32 %[[X]]
  // CHECK: %[[RSQRT:.*]] = vm.div.f32 %[[ONE]], %[[SQRT]]
  %0 = math.rsqrt %x : f32
  // CHECK: %[[SIN:.*]] = vm.sin.f32 %[[X]]
  // CHECK: %[[COS:.*]] = vm.cos.f32 %[[X]]
  // CHECK: %[[TAN:.*]] = vm.div.f32 %[[SIN]], %[[COS]]
  %1 = math.tan %x : f32
  // CHECK: %[[NF:.*]] = vm.cast.si32.f32 %[[N]]
  // CHECK: %[[POWI:.*]] = vm.pow.f32 %[[X]], %[[NF]]
  %2 = math.fpowi %x, %n : f32, i32
  // CHECK: vm.return %[[RSQRT]], %[[TAN]], %[[POWI]]
  return %0, %1, %2 : f32, f32, f32
}

// -----

// log1p with Kahan's correction: x when 1 + x rounds to 1.
// CHECK-LABEL: vm.func @log1p
// CHECK-SAME: (%[[X:.*]]: f64)
func.func @log1p(%x: f64) -> f64 {
  // CHECK-DAG: %[[ONE:.*]] = vm.const.f64 1.000000e+00
  // CHECK: %[[U:.*]] = vm.add.f64 %[[X]], %[[ONE]]
  // CHECK: %[[UM1:.*]] = vm.sub.f64 %[[U]], %[[ONE]]
  // CHECK: %[[LOGU:.*]] = vm.log.f64 %[[U]]
  // CHECK: %[[RATIO:.*]] = vm.div.f64 %[[X]], %[[UM1]]
  // CHECK: %[[GENERAL:.*]] = vm.mul.f64 %[[LOGU]], %[[RATIO]]
  // CHECK: %[[LARGE:.*]] = vm.select %{{.*}}, %[[LOGU]], %[[GENERAL]] : f64
  // CHECK: %[[ISONE:.*]] = vm.cmp.eq.f64 %[[U]], %[[ONE]]
  // CHECK: %[[R:.*]] = vm.select %[[ISONE]], %[[X]], %[[LARGE]] : f64
  %0 = math.log1p %x : f64
  // CHECK: vm.return %[[R]]
  return %0 : f64
}

// -----

// CHECK-LABEL: vm.func @local_expansions
// CHECK-SAME: (%[[X:.*]]: f32)
func.func private @local_expansions(%x: f32) -> (f32, f32, f32, i1, i1, i1) {
  // expm1 is x when exp(x) rounds to 1.
  // CHECK: vm.exp.f32 %[[X]]
  // CHECK: %[[EXPM1:.*]] = vm.select %{{.*}}, %[[X]], %{{.*}} : f32
  %0 = math.expm1 %x : f32
  // CHECK: %[[LOG:.*]] = vm.log.f32 %[[X]]
  // CHECK: %[[INVLN10:.*]] = vm.const.f32 0.434294492
  // CHECK: %[[LOG10:.*]] = vm.mul.f32 %[[LOG]], %[[INVLN10]]
  %1 = math.log10 %x : f32
  // CHECK: %[[ZERO:.*]] = vm.const.f32 0.000000e+00
  // CHECK: %[[NEG:.*]] = vm.cmp.lt.f32 %[[X]], %[[ZERO]]
  // CHECK: %[[CEIL:.*]] = vm.ceil.f32 %[[X]]
  // CHECK: %[[FLOOR:.*]] = vm.floor.f32 %[[X]]
  // CHECK: %[[TRUNC:.*]] = vm.select %[[NEG]], %[[CEIL]], %[[FLOOR]] : f32
  %2 = math.trunc %x : f32
  // CHECK: %[[ISNAN:.*]] = vm.cmp.nan.f32 %[[X]], %[[X]]
  %3 = math.isnan %x : f32
  // CHECK: %[[ABS:.*]] = vm.abs.f32 %[[X]]
  // CHECK: %[[INF:.*]] = vm.const.f32 0x7F800000
  // CHECK: %[[ISINF:.*]] = vm.cmp.eq.f32 %[[ABS]], %[[INF]]
  %4 = math.isinf %x : f32
  // CHECK: %[[ABS2:.*]] = vm.abs.f32 %[[X]]
  // CHECK: %[[INF2:.*]] = vm.const.f32 0x7F800000
  // CHECK: %[[ISFINITE:.*]] = vm.cmp.lt.f32 %[[ABS2]], %[[INF2]]
  %5 = math.isfinite %x : f32
  // CHECK: vm.return %[[EXPM1]], %[[LOG10]], %[[TRUNC]], %[[ISNAN]], %[[ISINF]], %[[ISFINITE]]
  return %0, %1, %2, %3, %4, %5 : f32, f32, f32, i1, i1, i1
}
