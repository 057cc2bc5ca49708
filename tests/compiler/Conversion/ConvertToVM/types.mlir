// i1, i8 and i16 live in i32 registers. An i1 is always 0 or 1, so ops that
// could set other bits mask their i1 result. An i8/i16 has unspecified high
// bits: ops that read them (div, rem, right shifts, compares, min/max,
// extensions, int-to-float) extend their operands first.
// RUN: strata-opt %s --strata-convert-to-vm --split-input-file | FileCheck %s
// Functions with i1/i8/i16 in their signature are private here: exported
// ones also normalize those at the boundary (types.mlir, @exported_narrow).

// CHECK-LABEL: vm.func @i1_ops
// CHECK-SAME: (%[[A:.*]]: i32, %[[B:.*]]: i32) -> (i32, i32, i32, i32, i32, i32, i32)
func.func private @i1_ops(%a: i1, %b: i1) -> (i1, i1, i1, i32, i32, i1, i1) {
  // 1 + 1 is 0 in i1: the sum is masked.
  // CHECK: %[[SUM:.*]] = vm.add.i32 %[[A]], %[[B]]
  // CHECK: %[[ONE:.*]] = vm.const.i32 1
  // CHECK: %[[ADD:.*]] = vm.and.i32 %[[SUM]], %[[ONE]]
  %0 = arith.addi %a, %b : i1
  // and/or/xor of 0/1 values stay 0/1: no mask.
  // CHECK: %[[XOR:.*]] = vm.xor.i32 %[[A]], %[[B]]
  // CHECK-NOT: vm.and.i32
  %1 = arith.xori %a, %b : i1
  // Signed i1 comparisons see true as -1.
  // CHECK: %[[NA:.*]] = vm.neg.i32 %[[A]]
  // CHECK: %[[NB:.*]] = vm.neg.i32 %[[B]]
  // CHECK: %[[SLT:.*]] = vm.cmp.lt.i32.s %[[NA]], %[[NB]]
  %2 = arith.cmpi slt, %a, %b : i1
  // CHECK: %[[SEXT:.*]] = vm.neg.i32 %[[A]]
  %3 = arith.extsi %a : i1 to i32
  // Zero-extending a 0/1 value is free.
  %4 = arith.extui %b : i1 to i32
  // CHECK: %[[TRUE:.*]] = vm.const.i32 1
  %true = arith.constant true
  // CHECK: %[[SEL:.*]] = vm.select %[[A]], %[[B]], %[[TRUE]] : i32
  %5 = arith.select %a, %b, %true : i1
  // CHECK: %[[SMAX:.*]] = vm.max.i32.s
  // CHECK: %[[MAX:.*]] = vm.and.i32 %[[SMAX]]
  %6 = arith.maxsi %a, %b : i1
  // CHECK: vm.return %[[ADD]], %[[XOR]], %[[SLT]], %[[SEXT]], %[[B]], %[[SEL]], %[[MAX]]
  return %0, %1, %2, %3, %4, %5, %6 : i1, i1, i1, i32, i32, i1, i1
}

// -----

// CHECK-LABEL: vm.func @i8_ops
// CHECK-SAME: (%[[A:.*]]: i32, %[[B:.*]]: i32)
func.func private @i8_ops(%a: i8, %b: i8) -> (i8, i8, i8, i8, i8, i8, i1, i1, i8, i8, i8) {
  // Wrapping ops read only the low bits.
  // CHECK: %[[ADD:.*]] = vm.add.i32 %[[A]], %[[B]]
  // CHECK: %[[MUL:.*]] = vm.mul.i32 %[[A]], %[[B]]
  %0 = arith.addi %a, %b : i8
  %1 = arith.muli %a, %b : i8
  // CHECK: %[[SA:.*]] = vm.ext.i8.i32.s %[[A]]
  // CHECK: %[[SB:.*]] = vm.ext.i8.i32.s %[[B]]
  // CHECK: %[[DIVS:.*]] = vm.div.i32.s %[[SA]], %[[SB]]
  %2 = arith.divsi %a, %b : i8
  // CHECK: %[[UA:.*]] = vm.ext.i8.i32.u %[[A]]
  // CHECK: %[[UB:.*]] = vm.ext.i8.i32.u %[[B]]
  // CHECK: %[[REMU:.*]] = vm.rem.i32.u %[[UA]], %[[UB]]
  %3 = arith.remui %a, %b : i8
  // The value of an arithmetic shift is sign-extended, its amount zero-extended.
  // CHECK: %[[SHV:.*]] = vm.ext.i8.i32.s %[[A]]
  // CHECK: %[[SHA:.*]] = vm.ext.i8.i32.u %[[B]]
  // CHECK: %[[SHRS:.*]] = vm.shr.i32.s %[[SHV]], %[[SHA]]
  %4 = arith.shrsi %a, %b : i8
  // A left shift reads only the low bits of its value.
  // CHECK: %[[SHLA:.*]] = vm.ext.i8.i32.u %[[B]]
  // CHECK: %[[SHL:.*]] = vm.shl.i32 %[[A]], %[[SHLA]]
  %5 = arith.shli %a, %b : i8
  // CHECK: %[[EA:.*]] = vm.ext.i8.i32.u %[[A]]
  // CHECK: %[[EB:.*]] = vm.ext.i8.i32.u %[[B]]
  // CHECK: %[[EQ:.*]] = vm.cmp.eq.i32 %[[EA]], %[[EB]]
  %6 = arith.cmpi eq, %a, %b : i8
  // CHECK: %[[GA:.*]] = vm.ext.i8.i32.s %[[A]]
  // CHECK: %[[GB:.*]] = vm.ext.i8.i32.s %[[B]]
  // CHECK: %[[SGT:.*]] = vm.cmp.lt.i32.s %[[GB]], %[[GA]]
  %7 = arith.cmpi sgt, %a, %b : i8
  // CHECK: vm.ext.i8.i32.s %[[A]]
  // CHECK: vm.ext.i8.i32.s %[[B]]
  // CHECK: %[[MIN:.*]] = vm.min.i32.s
  %8 = arith.minsi %a, %b : i8
  // CHECK: vm.ext.i8.i32.u %[[A]]
  // CHECK: vm.ext.i8.i32.u %[[B]]
  // CHECK: %[[MAX:.*]] = vm.max.i32.u
  %9 = arith.maxui %a, %b : i8
  // -1 : i8 is sign-extended into the register; only the low 8 bits count.
  // CHECK: %[[M1:.*]] = vm.const.i32 -1
  %m1 = arith.constant -1 : i8
  // CHECK: vm.return %[[ADD]], %[[MUL]], %[[DIVS]], %[[REMU]], %[[SHRS]], %[[SHL]], %[[EQ]], %[[SGT]], %[[MIN]], %[[MAX]], %[[M1]]
  return %0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %m1 : i8, i8, i8, i8, i8, i8, i1, i1, i8, i8, i8
}

// -----

// CHECK-LABEL: vm.func @narrow_casts
// CHECK-SAME: (%[[B:.*]]: i32, %[[S:.*]]: i32, %[[W:.*]]: i32, %[[L:.*]]: i64, %[[P:.*]]: i32)
func.func private @narrow_casts(%b: i8, %s: i16, %w: i32, %l: i64, %p: i1) -> (i64, i32, i16, i8, i8, i1, index, i16, i64) {
  // CHECK: %[[B32:.*]] = vm.ext.i8.i32.s %[[B]]
  // CHECK: %[[B64:.*]] = vm.ext.i32.i64.s %[[B32]]
  %0 = arith.extsi %b : i8 to i64
  // CHECK: %[[S32:.*]] = vm.ext.i16.i32.u %[[S]]
  %1 = arith.extui %s : i16 to i32
  // i8 -> i16 sign-extends through i32.
  // CHECK: %[[B16:.*]] = vm.ext.i8.i32.s %[[B]]
  %2 = arith.extsi %b : i8 to i16
  // Truncation to i8 keeps the register: the high bits become unspecified.
  %3 = arith.trunci %w : i32 to i8
  // CHECK: %[[L8:.*]] = vm.trunc.i64.i32 %[[L]]
  %4 = arith.trunci %l : i64 to i8
  // Truncation to i1 masks.
  // CHECK: %[[MASK:.*]] = vm.const.i32 1
  // CHECK: %[[W1:.*]] = vm.and.i32 %[[W]], %[[MASK]]
  %5 = arith.trunci %w : i32 to i1
  // CHECK: %[[BX:.*]] = vm.ext.i8.i32.s %[[B]]
  // CHECK: %[[BIDX:.*]] = vm.ext.i32.i64.s %[[BX]]
  %6 = arith.index_cast %b : i8 to index
  %bi = arith.index_cast %l : i64 to index
  // CHECK: %[[IDX16:.*]] = vm.trunc.i64.i32 %[[L]]
  %7 = arith.index_cast %bi : index to i16
  // CHECK: %[[P64:.*]] = vm.ext.i32.i64.u %[[P]]
  %8 = arith.extui %p : i1 to i64
  // CHECK: vm.return %[[B64]], %[[S32]], %[[B16]], %[[W]], %[[L8]], %[[W1]], %[[BIDX]], %[[IDX16]], %[[P64]]
  return %0, %1, %2, %3, %4, %5, %6, %7, %8 : i64, i32, i16, i8, i8, i1, index, i16, i64
}

// -----

// CHECK-LABEL: vm.func @narrow_float_casts
// CHECK-SAME: (%[[S:.*]]: i32, %[[P:.*]]: i32, %[[F:.*]]: f32)
func.func private @narrow_float_casts(%s: i16, %p: i1, %f: f32) -> (f32, f64, i8, i1) {
  // CHECK: %[[SU:.*]] = vm.ext.i16.i32.u %[[S]]
  // CHECK: %[[R0:.*]] = vm.cast.ui32.f32 %[[SU]]
  %0 = arith.uitofp %s : i16 to f32
  // CHECK: %[[PS:.*]] = vm.neg.i32 %[[P]]
  // CHECK: %[[R1:.*]] = vm.cast.si32.f64 %[[PS]]
  %1 = arith.sitofp %p : i1 to f64
  // CHECK: %[[R2:.*]] = vm.cast.f32.si32 %[[F]]
  %2 = arith.fptosi %f : f32 to i8
  // CHECK: %[[U:.*]] = vm.cast.f32.ui32 %[[F]]
  // CHECK: %[[ONE:.*]] = vm.const.i32 1
  // CHECK: %[[R3:.*]] = vm.and.i32 %[[U]], %[[ONE]]
  %3 = arith.fptoui %f : f32 to i1
  // CHECK: vm.return %[[R0]], %[[R1]], %[[R2]], %[[R3]]
  return %0, %1, %2, %3 : f32, f64, i8, i1
}

// -----

// An exported function's callers may be outside the module and pass or read
// whole i32 registers: its i1 arguments are masked to 0 or 1 at the entry,
// and its i8/i16 results are sign-extended at each return.
// CHECK-LABEL: vm.func @exported_narrow
// CHECK-SAME: (%[[P:.*]]: i32, %[[B:.*]]: i32, %[[S:.*]]: i32)
func.func @exported_narrow(%p: i1, %b: i8, %s: i16) -> (i1, i8, i16) {
  // CHECK: %[[ONE:.*]] = vm.const.i32 1
  // CHECK: %[[PM:.*]] = vm.and.i32 %[[P]], %[[ONE]]
  // CHECK: %[[BX:.*]] = vm.ext.i8.i32.s %[[B]]
  // CHECK: %[[SX:.*]] = vm.ext.i16.i32.s %[[S]]
  // CHECK: vm.return %[[PM]], %[[BX]], %[[SX]]
  return %p, %b, %s : i1, i8, i16
}
// CHECK: vm.export @exported_narrow
