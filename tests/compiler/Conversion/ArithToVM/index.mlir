// index dialect ops to i64 vm ops.
// RUN: strata-opt %s --strata-convert-to-vm --split-input-file | FileCheck %s

// CHECK-LABEL: vm.func @binary
// CHECK-SAME: (%[[A:.*]]: i64, %[[B:.*]]: i64)
func.func @binary(%a: index, %b: index) -> (index, index, index, index, index, index, index, index, index, index, index, index, index, index, index, index, index) {
  // CHECK: %[[R0:.*]] = vm.add.i64 %[[A]], %[[B]]
  // CHECK: %[[R1:.*]] = vm.sub.i64 %[[A]], %[[B]]
  // CHECK: %[[R2:.*]] = vm.mul.i64 %[[A]], %[[B]]
  // CHECK: %[[R3:.*]] = vm.div.i64.s %[[A]], %[[B]]
  // CHECK: %[[R4:.*]] = vm.div.i64.u %[[A]], %[[B]]
  // CHECK: %[[R5:.*]] = vm.rem.i64.s %[[A]], %[[B]]
  // CHECK: %[[R6:.*]] = vm.rem.i64.u %[[A]], %[[B]]
  // CHECK: %[[R7:.*]] = vm.max.i64.s %[[A]], %[[B]]
  // CHECK: %[[R8:.*]] = vm.max.i64.u %[[A]], %[[B]]
  // CHECK: %[[R9:.*]] = vm.min.i64.s %[[A]], %[[B]]
  // CHECK: %[[R10:.*]] = vm.min.i64.u %[[A]], %[[B]]
  // CHECK: %[[R11:.*]] = vm.shl.i64 %[[A]], %[[B]]
  // CHECK: %[[R12:.*]] = vm.shr.i64.s %[[A]], %[[B]]
  // CHECK: %[[R13:.*]] = vm.shr.i64.u %[[A]], %[[B]]
  // CHECK: %[[R14:.*]] = vm.and.i64 %[[A]], %[[B]]
  // CHECK: %[[R15:.*]] = vm.or.i64 %[[A]], %[[B]]
  // CHECK: %[[R16:.*]] = vm.xor.i64 %[[A]], %[[B]]
  %0 = index.add %a, %b
  %1 = index.sub %a, %b
  %2 = index.mul %a, %b
  %3 = index.divs %a, %b
  %4 = index.divu %a, %b
  %5 = index.rems %a, %b
  %6 = index.remu %a, %b
  %7 = index.maxs %a, %b
  %8 = index.maxu %a, %b
  %9 = index.mins %a, %b
  %10 = index.minu %a, %b
  %11 = index.shl %a, %b
  %12 = index.shrs %a, %b
  %13 = index.shru %a, %b
  %14 = index.and %a, %b
  %15 = index.or %a, %b
  %16 = index.xor %a, %b
  // CHECK: vm.return %[[R0]], %[[R1]], %[[R2]], %[[R3]], %[[R4]], %[[R5]], %[[R6]], %[[R7]], %[[R8]], %[[R9]], %[[R10]], %[[R11]], %[[R12]], %[[R13]], %[[R14]], %[[R15]], %[[R16]]
  return %0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, %16 : index, index, index, index, index, index, index, index, index, index, index, index, index, index, index, index, index
}

// -----

// CHECK-LABEL: vm.func @cmp_and_constants
// CHECK-SAME: (%[[A:.*]]: i64, %[[B:.*]]: i64)
func.func @cmp_and_constants(%a: index, %b: index) -> (i1, i1, i1, index, i1, index) {
  // CHECK: %[[SLT:.*]] = vm.cmp.lt.i64.s %[[A]], %[[B]]
  %0 = index.cmp slt(%a, %b)
  // CHECK: %[[UGE:.*]] = vm.cmp.le.i64.u %[[B]], %[[A]]
  %1 = index.cmp uge(%a, %b)
  // CHECK: %[[NE:.*]] = vm.cmp.ne.i64 %[[A]], %[[B]]
  %2 = index.cmp ne(%a, %b)
  // CHECK: %[[C:.*]] = vm.const.i64 -3
  %3 = index.constant -3
  // CHECK: %[[T:.*]] = vm.const.i32 1
  %4 = index.bool.constant true
  // CHECK: %[[BITS:.*]] = vm.const.i64 64
  %5 = index.sizeof
  // CHECK: vm.return %[[SLT]], %[[UGE]], %[[NE]], %[[C]], %[[T]], %[[BITS]]
  return %0, %1, %2, %3, %4, %5 : i1, i1, i1, index, i1, index
}

// -----

// CHECK-LABEL: vm.func @casts
// CHECK-SAME: (%[[A:.*]]: i64, %[[W:.*]]: i32, %[[B:.*]]: i32)
func.func @casts(%a: index, %w: i32, %b: i8) -> (i32, index, index, index, i1) {
  // CHECK: %[[TRUNC:.*]] = vm.trunc.i64.i32 %[[A]]
  %0 = index.casts %a : index to i32
  // CHECK: %[[SEXT:.*]] = vm.ext.i32.i64.s %[[W]]
  %1 = index.casts %w : i32 to index
  // CHECK: %[[ZEXT:.*]] = vm.ext.i32.i64.u %[[W]]
  %2 = index.castu %w : i32 to index
  // CHECK: %[[B32:.*]] = vm.ext.i8.i32.u %[[B]]
  // CHECK: %[[B64:.*]] = vm.ext.i32.i64.u %[[B32]]
  %3 = index.castu %b : i8 to index
  // CHECK: %[[LOW:.*]] = vm.trunc.i64.i32 %[[A]]
  // CHECK: %[[ONE:.*]] = vm.const.i32 1
  // CHECK: %[[BIT:.*]] = vm.and.i32 %[[LOW]], %[[ONE]]
  %4 = index.casts %a : index to i1
  // CHECK: vm.return %[[TRUNC]], %[[SEXT]], %[[ZEXT]], %[[B64]], %[[BIT]]
  return %0, %1, %2, %3, %4 : i32, index, index, index, i1
}

// -----

// ceildivs/ceildivu/floordivs are expanded into vm divisions.
// CHECK-LABEL: vm.func @ceil_floor
// CHECK-SAME: (%[[A:.*]]: i64, %[[B:.*]]: i64)
func.func @ceil_floor(%a: index, %b: index) -> (index, index, index) {
  // CHECK: vm.div.i64.s %[[A]], %[[B]]
  %0 = index.ceildivs %a, %b
  // CHECK: vm.div.i64.u
  %1 = index.ceildivu %a, %b
  // CHECK: vm.div.i64.s %[[A]], %[[B]]
  %2 = index.floordivs %a, %b
  // CHECK-NOT: index.
  // CHECK-NOT: arith.
  // CHECK: vm.return
  return %0, %1, %2 : index, index, index
}
