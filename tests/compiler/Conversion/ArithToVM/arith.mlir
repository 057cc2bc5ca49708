// arith ops on i32, i64, index, f32 and f64 to vm ops (narrow integers are
// in ConvertToVM/types.mlir).
// RUN: strata-opt %s --strata-convert-to-vm --split-input-file | FileCheck %s

// CHECK-LABEL: vm.func @constants
func.func @constants() -> (i1, i8, i32, i64, index, f32, f64) {
  // CHECK-DAG: %[[TRUE:.*]] = vm.const.i32 1
  // CHECK-DAG: %[[I8:.*]] = vm.const.i32 -1
  // CHECK-DAG: %[[I32:.*]] = vm.const.i32 2147483647
  // CHECK-DAG: %[[I64:.*]] = vm.const.i64 -9223372036854775808
  // CHECK-DAG: %[[IDX:.*]] = vm.const.i64 42
  // CHECK-DAG: %[[F32:.*]] = vm.const.f32 1.500000e+00
  // CHECK-DAG: %[[F64:.*]] = vm.const.f64 -2.500000e+00
  %t = arith.constant true
  %b = arith.constant -1 : i8
  %i = arith.constant 2147483647 : i32
  %l = arith.constant -9223372036854775808 : i64
  %x = arith.constant 42 : index
  %f = arith.constant 1.5 : f32
  %d = arith.constant -2.5 : f64
  // An exported i8 result leaves sign-extended.
  // CHECK: %[[I8X:.*]] = vm.ext.i8.i32.s %[[I8]]
  // CHECK: vm.return %[[TRUE]], %[[I8X]], %[[I32]], %[[I64]], %[[IDX]], %[[F32]], %[[F64]]
  return %t, %b, %i, %l, %x, %f, %d : i1, i8, i32, i64, index, f32, f64
}

// -----

// CHECK-LABEL: vm.func @int32
// CHECK-SAME: (%[[A:.*]]: i32, %[[B:.*]]: i32, %[[C:.*]]: i32)
func.func @int32(%a: i32, %b: i32, %c: i1) -> (i32, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32) {
  // An exported i1 argument is made 0 or 1 first.
  // CHECK: %[[CM:.*]] = vm.and.i32 %[[C]], %{{.*}}
  // CHECK: %[[R0:.*]] = vm.add.i32 %[[A]], %[[B]]
  // CHECK: %[[R1:.*]] = vm.sub.i32 %[[A]], %[[B]]
  // CHECK: %[[R2:.*]] = vm.mul.i32 %[[A]], %[[B]]
  // CHECK: %[[R3:.*]] = vm.div.i32.s %[[A]], %[[B]]
  // CHECK: %[[R4:.*]] = vm.div.i32.u %[[A]], %[[B]]
  // CHECK: %[[R5:.*]] = vm.rem.i32.s %[[A]], %[[B]]
  // CHECK: %[[R6:.*]] = vm.rem.i32.u %[[A]], %[[B]]
  // CHECK: %[[R7:.*]] = vm.and.i32 %[[A]], %[[B]]
  // CHECK: %[[R8:.*]] = vm.or.i32 %[[A]], %[[B]]
  // CHECK: %[[R9:.*]] = vm.xor.i32 %[[A]], %[[B]]
  // CHECK: %[[R10:.*]] = vm.shl.i32 %[[A]], %[[B]]
  // CHECK: %[[R11:.*]] = vm.shr.i32.s %[[A]], %[[B]]
  // CHECK: %[[R12:.*]] = vm.shr.i32.u %[[A]], %[[B]]
  // CHECK: %[[R13:.*]] = vm.min.i32.s %[[A]], %[[B]]
  // CHECK: %[[R14:.*]] = vm.min.i32.u %[[A]], %[[B]]
  // CHECK: %[[R15:.*]] = vm.max.i32.s %[[A]], %[[B]]
  // CHECK: %[[R16:.*]] = vm.max.i32.u %[[A]], %[[B]]
  %0 = arith.addi %a, %b : i32
  %1 = arith.subi %a, %b : i32
  %2 = arith.muli %a, %b : i32
  %3 = arith.divsi %a, %b : i32
  %4 = arith.divui %a, %b : i32
  %5 = arith.remsi %a, %b : i32
  %6 = arith.remui %a, %b : i32
  %7 = arith.andi %a, %b : i32
  %8 = arith.ori %a, %b : i32
  %9 = arith.xori %a, %b : i32
  %10 = arith.shli %a, %b : i32
  %11 = arith.shrsi %a, %b : i32
  %12 = arith.shrui %a, %b : i32
  %13 = arith.minsi %a, %b : i32
  %14 = arith.minui %a, %b : i32
  %15 = arith.maxsi %a, %b : i32
  %16 = arith.maxui %a, %b : i32
  // CHECK: %[[SEL:.*]] = vm.select %[[CM]], %[[A]], %[[B]] : i32
  %17 = arith.select %c, %a, %b : i32
  // CHECK: vm.return %[[R0]], %[[R1]], %[[R2]], %[[R3]], %[[R4]], %[[R5]], %[[R6]], %[[R7]], %[[R8]], %[[R9]], %[[R10]], %[[R11]], %[[R12]], %[[R13]], %[[R14]], %[[R15]], %[[R16]], %[[SEL]]
  return %0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, %16, %17 : i32, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32
}

// -----

// index and i64 use the i64 ops.
// CHECK-LABEL: vm.func @int64
// CHECK-SAME: (%[[A:.*]]: i64, %[[B:.*]]: i64, %[[C:.*]]: i64)
func.func @int64(%a: i64, %b: index, %c: i64) -> (i64, index, index, i64, index, i64) {
  // CHECK: %[[R0:.*]] = vm.add.i64 %[[A]], %[[A]]
  // CHECK: %[[R1:.*]] = vm.mul.i64 %[[B]], %[[B]]
  // CHECK: %[[R2:.*]] = vm.div.i64.u %[[B]], %[[B]]
  // CHECK: %[[R3:.*]] = vm.shr.i64.s %[[A]], %[[A]]
  // CHECK: %[[R4:.*]] = vm.rem.i64.s %[[B]], %[[B]]
  // CHECK: %[[R5:.*]] = vm.max.i64.u %[[A]], %[[C]]
  %0 = arith.addi %a, %a : i64
  %1 = arith.muli %b, %b : index
  %2 = arith.divui %b, %b : index
  %3 = arith.shrsi %a, %a : i64
  %4 = arith.remsi %b, %b : index
  %5 = arith.maxui %a, %c : i64
  // CHECK: vm.return %[[R0]], %[[R1]], %[[R2]], %[[R3]], %[[R4]], %[[R5]]
  return %0, %1, %2, %3, %4, %5 : i64, index, index, i64, index, i64
}

// -----

// sgt/sge/ugt/uge swap the operands of lt/le.
// CHECK-LABEL: vm.func @cmpi
// CHECK-SAME: (%[[A:.*]]: i32, %[[B:.*]]: i32, %[[X:.*]]: i64, %[[Y:.*]]: i64)
func.func @cmpi(%a: i32, %b: i32, %x: index, %y: i64) -> (i1, i1, i1, i1, i1, i1, i1, i1, i1, i1, i1, i1) {
  // CHECK: %[[EQ:.*]] = vm.cmp.eq.i32 %[[A]], %[[B]]
  // CHECK: %[[NE:.*]] = vm.cmp.ne.i32 %[[A]], %[[B]]
  // CHECK: %[[SLT:.*]] = vm.cmp.lt.i32.s %[[A]], %[[B]]
  // CHECK: %[[SLE:.*]] = vm.cmp.le.i32.s %[[A]], %[[B]]
  // CHECK: %[[SGT:.*]] = vm.cmp.lt.i32.s %[[B]], %[[A]]
  // CHECK: %[[SGE:.*]] = vm.cmp.le.i32.s %[[B]], %[[A]]
  // CHECK: %[[ULT:.*]] = vm.cmp.lt.i32.u %[[A]], %[[B]]
  // CHECK: %[[ULE:.*]] = vm.cmp.le.i32.u %[[A]], %[[B]]
  // CHECK: %[[UGT:.*]] = vm.cmp.lt.i32.u %[[B]], %[[A]]
  // CHECK: %[[UGE:.*]] = vm.cmp.le.i32.u %[[B]], %[[A]]
  // CHECK: %[[EQ64:.*]] = vm.cmp.eq.i64 %[[X]], %[[Y]]
  // CHECK: %[[UGT64:.*]] = vm.cmp.lt.i64.u %[[Y]], %[[X]]
  %0 = arith.cmpi eq, %a, %b : i32
  %1 = arith.cmpi ne, %a, %b : i32
  %2 = arith.cmpi slt, %a, %b : i32
  %3 = arith.cmpi sle, %a, %b : i32
  %4 = arith.cmpi sgt, %a, %b : i32
  %5 = arith.cmpi sge, %a, %b : i32
  %6 = arith.cmpi ult, %a, %b : i32
  %7 = arith.cmpi ule, %a, %b : i32
  %8 = arith.cmpi ugt, %a, %b : i32
  %9 = arith.cmpi uge, %a, %b : i32
  %yi = arith.index_cast %y : i64 to index
  %10 = arith.cmpi eq, %x, %yi : index
  %11 = arith.cmpi ugt, %x, %yi : index
  // CHECK: vm.return %[[EQ]], %[[NE]], %[[SLT]], %[[SLE]], %[[SGT]], %[[SGE]], %[[ULT]], %[[ULE]], %[[UGT]], %[[UGE]], %[[EQ64]], %[[UGT64]]
  return %0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11 : i1, i1, i1, i1, i1, i1, i1, i1, i1, i1, i1, i1
}

// -----

// CHECK-LABEL: vm.func @select_ref
// CHECK-SAME: (%[[C:.*]]: i32, %[[A:.*]]: !vm.buffer, %[[B:.*]]: !vm.buffer)
func.func @select_ref(%c: i1, %a: !vm.buffer, %b: !vm.buffer) -> !vm.buffer {
  // CHECK: %[[CM:.*]] = vm.and.i32 %[[C]], %{{.*}}
  // CHECK: %[[R:.*]] = vm.select.ref %[[CM]], %[[A]], %[[B]] : !vm.buffer
  %0 = arith.select %c, %a, %b : !vm.buffer
  // CHECK: vm.return %[[R]]
  return %0 : !vm.buffer
}

// -----

// CHECK-LABEL: vm.func @int_casts
// CHECK-SAME: (%[[A:.*]]: i32, %[[X:.*]]: i64)
func.func @int_casts(%a: i32, %x: i64) -> (i64, i64, i32, index, i32, index, index) {
  // CHECK: %[[SEXT:.*]] = vm.ext.i32.i64.s %[[A]]
  // CHECK: %[[ZEXT:.*]] = vm.ext.i32.i64.u %[[A]]
  // CHECK: %[[TRUNC:.*]] = vm.trunc.i64.i32 %[[X]]
  // CHECK: %[[TOIDX:.*]] = vm.ext.i32.i64.s %[[A]]
  // CHECK: %[[FROMIDX:.*]] = vm.trunc.i64.i32 %[[TOIDX]]
  // CHECK: %[[TOIDXU:.*]] = vm.ext.i32.i64.u %[[A]]
  %0 = arith.extsi %a : i32 to i64
  %1 = arith.extui %a : i32 to i64
  %2 = arith.trunci %x : i64 to i32
  %3 = arith.index_cast %a : i32 to index
  %4 = arith.index_cast %3 : index to i32
  %5 = arith.index_castui %a : i32 to index
  // An i64 <-> index cast changes nothing.
  %6 = arith.index_cast %x : i64 to index
  // CHECK: vm.return %[[SEXT]], %[[ZEXT]], %[[TRUNC]], %[[TOIDX]], %[[FROMIDX]], %[[TOIDXU]], %[[X]]
  return %0, %1, %2, %3, %4, %5, %6 : i64, i64, i32, index, i32, index, index
}

// -----

// CHECK-LABEL: vm.func @float_casts
// CHECK-SAME: (%[[A:.*]]: i32, %[[X:.*]]: i64, %[[F:.*]]: f32, %[[D:.*]]: f64)
func.func @float_casts(%a: i32, %x: i64, %f: f32, %d: f64) -> (f32, f64, f32, f64, i32, i64, i32, i64, f64, f32, i32, f32, i64, f64) {
  // CHECK: %[[R0:.*]] = vm.cast.si32.f32 %[[A]]
  // CHECK: %[[R1:.*]] = vm.cast.si64.f64 %[[X]]
  // CHECK: %[[R2:.*]] = vm.cast.ui32.f32 %[[A]]
  // CHECK: %[[R3:.*]] = vm.cast.ui64.f64 %[[X]]
  // CHECK: %[[R4:.*]] = vm.cast.f32.si32 %[[F]]
  // CHECK: %[[R5:.*]] = vm.cast.f64.si64 %[[D]]
  // CHECK: %[[R6:.*]] = vm.cast.f64.ui32 %[[D]]
  // CHECK: %[[R7:.*]] = vm.cast.f32.ui64 %[[F]]
  // CHECK: %[[R8:.*]] = vm.ext.f32.f64 %[[F]]
  // CHECK: %[[R9:.*]] = vm.trunc.f64.f32 %[[D]]
  // CHECK: %[[R10:.*]] = vm.bitcast.f32.i32 %[[F]]
  // CHECK: %[[R11:.*]] = vm.bitcast.i32.f32 %[[A]]
  // CHECK: %[[R12:.*]] = vm.bitcast.f64.i64 %[[D]]
  // CHECK: %[[R13:.*]] = vm.bitcast.i64.f64 %[[X]]
  %0 = arith.sitofp %a : i32 to f32
  %1 = arith.sitofp %x : i64 to f64
  %2 = arith.uitofp %a : i32 to f32
  %3 = arith.uitofp %x : i64 to f64
  %4 = arith.fptosi %f : f32 to i32
  %5 = arith.fptosi %d : f64 to i64
  %6 = arith.fptoui %d : f64 to i32
  %7 = arith.fptoui %f : f32 to i64
  %8 = arith.extf %f : f32 to f64
  %9 = arith.truncf %d : f64 to f32
  %10 = arith.bitcast %f : f32 to i32
  %11 = arith.bitcast %a : i32 to f32
  %12 = arith.bitcast %d : f64 to i64
  %13 = arith.bitcast %x : i64 to f64
  // CHECK: vm.return %[[R0]], %[[R1]], %[[R2]], %[[R3]], %[[R4]], %[[R5]], %[[R6]], %[[R7]], %[[R8]], %[[R9]], %[[R10]], %[[R11]], %[[R12]], %[[R13]]
  return %0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13 : f32, f64, f32, f64, i32, i64, i32, i64, f64, f32, i32, f32, i64, f64
}

// -----

// CHECK-LABEL: vm.func @float_arith
// CHECK-SAME: (%[[A:.*]]: f32, %[[B:.*]]: f32, %[[D:.*]]: f64, %[[E:.*]]: f64)
func.func @float_arith(%a: f32, %b: f32, %d: f64, %e: f64) -> (f32, f32, f32, f32, f32, f32, f64, f32, f64) {
  // CHECK: %[[R0:.*]] = vm.add.f32 %[[A]], %[[B]]
  // CHECK: %[[R1:.*]] = vm.sub.f32 %[[A]], %[[B]]
  // CHECK: %[[R2:.*]] = vm.mul.f32 %[[A]], %[[B]]
  // CHECK: %[[R3:.*]] = vm.div.f32 %[[A]], %[[B]]
  // CHECK: %[[R4:.*]] = vm.rem.f32 %[[A]], %[[B]]
  // CHECK: %[[R5:.*]] = vm.neg.f32 %[[A]]
  // CHECK: %[[R6:.*]] = vm.div.f64 %[[D]], %[[E]]
  // CHECK: %[[R7:.*]] = vm.max.f32 %[[A]], %[[B]]
  // CHECK: %[[R8:.*]] = vm.min.f64 %[[D]], %[[E]]
  %0 = arith.addf %a, %b : f32
  %1 = arith.subf %a, %b : f32
  %2 = arith.mulf %a, %b : f32
  %3 = arith.divf %a, %b : f32
  %4 = arith.remf %a, %b : f32
  %5 = arith.negf %a : f32
  %6 = arith.divf %d, %e : f64
  %7 = arith.maximumf %a, %b : f32
  %8 = arith.minimumf %d, %e : f64
  // CHECK: vm.return %[[R0]], %[[R1]], %[[R2]], %[[R3]], %[[R4]], %[[R5]], %[[R6]], %[[R7]], %[[R8]]
  return %0, %1, %2, %3, %4, %5, %6, %7, %8 : f32, f32, f32, f32, f32, f32, f64, f32, f64
}

// -----

// maxnumf/minnumf replace a NaN operand by the other one, then use the
// NaN-propagating vm.max/vm.min.
// CHECK-LABEL: vm.func @num_min_max
// CHECK-SAME: (%[[A:.*]]: f32, %[[B:.*]]: f32)
func.func @num_min_max(%a: f32, %b: f32) -> (f32, f32) {
  // CHECK: %[[ANAN:.*]] = vm.cmp.nan.f32 %[[A]], %[[A]]
  // CHECK: %[[BNAN:.*]] = vm.cmp.nan.f32 %[[B]], %[[B]]
  // CHECK: %[[L:.*]] = vm.select %[[ANAN]], %[[B]], %[[A]] : f32
  // CHECK: %[[R:.*]] = vm.select %[[BNAN]], %[[A]], %[[B]] : f32
  // CHECK: %[[MAX:.*]] = vm.max.f32 %[[L]], %[[R]]
  %0 = arith.maxnumf %a, %b : f32
  // CHECK: %[[MIN:.*]] = vm.min.f32
  %1 = arith.minnumf %a, %b : f32
  // CHECK: vm.return %[[MAX]], %[[MIN]]
  return %0, %1 : f32, f32
}

// -----

// CHECK-LABEL: vm.func @cmpf
// CHECK-SAME: (%[[A:.*]]: f32, %[[B:.*]]: f32)
func.func @cmpf(%a: f32, %b: f32) -> (i1, i1, i1, i1, i1, i1, i1, i1, i1, i1, i1, i1, i1, i1, i1, i1) {
  // CHECK: %[[FALSE:.*]] = vm.const.i32 0
  %0 = arith.cmpf false, %a, %b : f32
  // CHECK: %[[OEQ:.*]] = vm.cmp.eq.f32 %[[A]], %[[B]]
  %1 = arith.cmpf oeq, %a, %b : f32
  // CHECK: %[[OGT:.*]] = vm.cmp.lt.f32 %[[B]], %[[A]]
  %2 = arith.cmpf ogt, %a, %b : f32
  // CHECK: %[[OGE:.*]] = vm.cmp.le.f32 %[[B]], %[[A]]
  %3 = arith.cmpf oge, %a, %b : f32
  // CHECK: %[[OLT:.*]] = vm.cmp.lt.f32 %[[A]], %[[B]]
  %4 = arith.cmpf olt, %a, %b : f32
  // CHECK: %[[OLE:.*]] = vm.cmp.le.f32 %[[A]], %[[B]]
  %5 = arith.cmpf ole, %a, %b : f32
  // CHECK: %[[ONE_NE:.*]] = vm.cmp.ne.f32 %[[A]], %[[B]]
  // CHECK: %[[ONE_NAN:.*]] = vm.cmp.nan.f32 %[[A]], %[[B]]
  // CHECK: %[[ONE:.*]] = vm.xor.i32 %[[ONE_NE]], %[[ONE_NAN]]
  %6 = arith.cmpf one, %a, %b : f32
  // CHECK: %[[ORD_NAN:.*]] = vm.cmp.nan.f32 %[[A]], %[[B]]
  // CHECK: %[[ORD_ONE:.*]] = vm.const.i32 1
  // CHECK: %[[ORD:.*]] = vm.xor.i32 %[[ORD_NAN]], %[[ORD_ONE]]
  %7 = arith.cmpf ord, %a, %b : f32
  // CHECK: %[[UEQ_EQ:.*]] = vm.cmp.eq.f32 %[[A]], %[[B]]
  // CHECK: %[[UEQ_NAN:.*]] = vm.cmp.nan.f32 %[[A]], %[[B]]
  // CHECK: %[[UEQ:.*]] = vm.or.i32 %[[UEQ_EQ]], %[[UEQ_NAN]]
  %8 = arith.cmpf ueq, %a, %b : f32
  // ugt = !ole
  // CHECK: %[[UGT_LE:.*]] = vm.cmp.le.f32 %[[A]], %[[B]]
  // CHECK: %[[UGT:.*]] = vm.xor.i32 %[[UGT_LE]]
  %9 = arith.cmpf ugt, %a, %b : f32
  // uge = !olt
  // CHECK: %[[UGE_LT:.*]] = vm.cmp.lt.f32 %[[A]], %[[B]]
  // CHECK: %[[UGE:.*]] = vm.xor.i32 %[[UGE_LT]]
  %10 = arith.cmpf uge, %a, %b : f32
  // ult = !oge
  // CHECK: %[[ULT_LE:.*]] = vm.cmp.le.f32 %[[B]], %[[A]]
  // CHECK: %[[ULT:.*]] = vm.xor.i32 %[[ULT_LE]]
  %11 = arith.cmpf ult, %a, %b : f32
  // ule = !ogt
  // CHECK: %[[ULE_LT:.*]] = vm.cmp.lt.f32 %[[B]], %[[A]]
  // CHECK: %[[ULE:.*]] = vm.xor.i32 %[[ULE_LT]]
  %12 = arith.cmpf ule, %a, %b : f32
  // CHECK: %[[UNE:.*]] = vm.cmp.ne.f32 %[[A]], %[[B]]
  %13 = arith.cmpf une, %a, %b : f32
  // CHECK: %[[UNO:.*]] = vm.cmp.nan.f32 %[[A]], %[[B]]
  %14 = arith.cmpf uno, %a, %b : f32
  // CHECK: %[[TRUE:.*]] = vm.const.i32 1
  %15 = arith.cmpf true, %a, %b : f32
  // CHECK: vm.return %[[FALSE]], %[[OEQ]], %[[OGT]], %[[OGE]], %[[OLT]], %[[OLE]], %[[ONE]], %[[ORD]], %[[UEQ]], %[[UGT]], %[[UGE]], %[[ULT]], %[[ULE]], %[[UNE]], %[[UNO]], %[[TRUE]]
  return %0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15 : i1, i1, i1, i1, i1, i1, i1, i1, i1, i1, i1, i1, i1, i1, i1, i1
}

// -----

// CHECK-LABEL: vm.func @cmpf_f64
// CHECK-SAME: (%[[A:.*]]: f64, %[[B:.*]]: f64)
func.func @cmpf_f64(%a: f64, %b: f64) -> (i1, i1) {
  // CHECK: %[[OLT:.*]] = vm.cmp.lt.f64 %[[A]], %[[B]]
  %0 = arith.cmpf olt, %a, %b : f64
  // CHECK: %[[UNO:.*]] = vm.cmp.nan.f64 %[[A]], %[[B]]
  %1 = arith.cmpf uno, %a, %b : f64
  // CHECK: vm.return %[[OLT]], %[[UNO]]
  return %0, %1 : i1, i1
}

// -----

// ceildivsi/floordivsi/ceildivui are expanded into vm divisions; the vm
// division by zero still fails at run time.
// CHECK-LABEL: vm.func @ceil_floor_div
// CHECK-SAME: (%[[A:.*]]: i32, %[[B:.*]]: i32)
func.func @ceil_floor_div(%a: i32, %b: i32) -> (i32, i32, i32) {
  // CHECK: vm.div.i32.s %[[A]], %[[B]]
  %0 = arith.ceildivsi %a, %b : i32
  // CHECK: vm.div.i32.s %[[A]], %[[B]]
  %1 = arith.floordivsi %a, %b : i32
  // CHECK: vm.div.i32.u
  %2 = arith.ceildivui %a, %b : i32
  // CHECK-NOT: arith.
  // CHECK: vm.return
  return %0, %1, %2 : i32, i32, i32
}
