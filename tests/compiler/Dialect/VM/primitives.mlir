// Round trip of generated opcode ops on primitives: constants, arithmetic,
// compares, conversions, select and mov.
// RUN: strata-opt %s | strata-opt | FileCheck %s

vm.module @primitives {
  // CHECK-LABEL: vm.func @constants
  vm.func @constants() -> (i32, i64, f32, f64) {
    // CHECK: %[[A:.*]] = vm.const.i32 -7
    %a = vm.const.i32 -7
    // CHECK: %[[B:.*]] = vm.const.i64 4294967296
    %b = vm.const.i64 4294967296
    // CHECK: %[[C:.*]] = vm.const.f32 1.500000e+00
    %c = vm.const.f32 1.5
    // CHECK: %[[D:.*]] = vm.const.f64 -2.500000e-01
    %d = vm.const.f64 -0.25
    // CHECK: vm.return %[[A]], %[[B]], %[[C]], %[[D]] : i32, i64, f32, f64
    vm.return %a, %b, %c, %d : i32, i64, f32, f64
  }

  // CHECK-LABEL: vm.func @arithmetic
  // CHECK-SAME: (%[[X:.*]]: i32, %[[Y:.*]]: i64, %[[F:.*]]: f32, %[[G:.*]]: f64)
  vm.func @arithmetic(%x: i32, %y: i64, %f: f32, %g: f64) -> i32 {
    // CHECK: %[[ADD:.*]] = vm.add.i32 %[[X]], %[[X]]
    %0 = vm.add.i32 %x, %x
    // CHECK: vm.div.i32.s %[[ADD]], %[[X]]
    %1 = vm.div.i32.s %0, %x
    // CHECK: vm.shr.i64.u %[[Y]], %[[Y]]
    %2 = vm.shr.i64.u %y, %y
    // CHECK: vm.ctlz.i64 %[[Y]]
    %3 = vm.ctlz.i64 %y
    // CHECK: vm.fma.f32 %[[F]], %[[F]], %[[F]]
    %4 = vm.fma.f32 %f, %f, %f
    // CHECK: vm.roundeven.f64 %[[G]]
    %5 = vm.roundeven.f64 %g
    // CHECK: vm.not.i32 %[[X]]
    %6 = vm.not.i32 %x
    vm.return %1 : i32
  }

  // CHECK-LABEL: vm.func @compares
  // CHECK-SAME: (%[[X:.*]]: i32, %[[Y:.*]]: i64, %[[F:.*]]: f32)
  vm.func @compares(%x: i32, %y: i64, %f: f32) -> i32 {
    // CHECK: vm.cmp.lt.i32.s %[[X]], %[[X]]
    %0 = vm.cmp.lt.i32.s %x, %x
    // CHECK: vm.cmp.le.i64.u %[[Y]], %[[Y]]
    %1 = vm.cmp.le.i64.u %y, %y
    // CHECK: vm.cmp.nz.i64 %[[Y]]
    %2 = vm.cmp.nz.i64 %y
    // CHECK: %[[NAN:.*]] = vm.cmp.nan.f32 %[[F]], %[[F]]
    %3 = vm.cmp.nan.f32 %f, %f
    // CHECK: vm.return %[[NAN]] : i32
    vm.return %3 : i32
  }

  // CHECK-LABEL: vm.func @conversions
  // CHECK-SAME: (%[[X:.*]]: i32, %[[Y:.*]]: i64, %[[F:.*]]: f32, %[[G:.*]]: f64)
  vm.func @conversions(%x: i32, %y: i64, %f: f32, %g: f64) -> f64 {
    // CHECK: vm.trunc.i64.i32 %[[Y]]
    %0 = vm.trunc.i64.i32 %y
    // CHECK: vm.ext.i32.i64.s %[[X]]
    %1 = vm.ext.i32.i64.s %x
    // CHECK: vm.ext.i8.i32.u %[[X]]
    %2 = vm.ext.i8.i32.u %x
    // CHECK: vm.cast.ui64.f32 %[[Y]]
    %3 = vm.cast.ui64.f32 %y
    // CHECK: vm.cast.f64.si32 %[[G]]
    %4 = vm.cast.f64.si32 %g
    // CHECK: vm.bitcast.f32.i32 %[[F]]
    %5 = vm.bitcast.f32.i32 %f
    // CHECK: %[[EXT:.*]] = vm.ext.f32.f64 %[[F]]
    %6 = vm.ext.f32.f64 %f
    // CHECK: vm.return %[[EXT]] : f64
    vm.return %6 : f64
  }

  // CHECK-LABEL: vm.func @select_mov
  // CHECK-SAME: (%[[C:.*]]: i32, %[[A:.*]]: f64, %[[B:.*]]: f64)
  vm.func @select_mov(%c: i32, %a: f64, %b: f64) -> f64 {
    // CHECK: %[[S:.*]] = vm.select %[[C]], %[[A]], %[[B]] : f64
    %0 = vm.select %c, %a, %b : f64
    // CHECK: %[[M:.*]] = vm.mov %[[S]] : f64
    %1 = vm.mov %0 : f64
    // CHECK: vm.return %[[M]] : f64
    vm.return %1 : f64
  }
}
