// Module-level encoding: imports with variadic spans, globals with initial
// values (stored by a synthesized initializer), rodata, the type table.
// RUN: strata-compile --compile-mode=vm %s -o %t.vmfb
// RUN: strata-dump %t.vmfb | FileCheck %s
// RUN: strata-run --module=%t.vmfb --function=globals | FileCheck %s --check-prefix=GLOBALS
// RUN: strata-run --module=%t.vmfb --function=table --input=i64=2 | FileCheck %s --check-prefix=TABLE
// GLOBALS: i32=7
// GLOBALS-NEXT: i64=-5
// GLOBALS-NEXT: f32=1.5
// GLOBALS-NEXT: f64=0.25
// TABLE: i32=30

// CHECK: types: vm.list
// CHECK: imports (2):
// CHECK-NEXT: [0] custom.sum 0iCID_I (i32, i64...) -> i64 optional
// CHECK-NEXT: [1] custom.maybe 0_ () -> () optional
// CHECK: [3] @__strata_initialize_globals 0_
// CHECK: initializer: @__strata_initialize_globals
// CHECK: globals: 28 bytes, 1 refs
// CHECK: rodata segments (1):
// CHECK-NEXT: [0] offset 0 size 16 align 64
vm.module @module {
  vm.import optional @custom.sum {variadic_spans = array<i32: 1, 1>} : (i32, i64) -> i64
  vm.import optional @custom.maybe : () -> ()
  vm.global.i32 mutable @counter = 7
  vm.global.i64 @offset = -5
  vm.global.f32 @scale = 1.5
  vm.global.f64 @quarter = 0.25
  vm.global.i32 @zero
  vm.global.ref mutable @cache : !vm.list
  vm.rodata @numbers dense<[10, 20, 30, 40]> : tensor<4xi32>

  vm.func @globals() -> (i32, i64, f32, f64) {
    %a = vm.global.load.i32 @counter
    %b = vm.global.load.i64 @offset
    %c = vm.global.load.f32 @scale
    %d = vm.global.load.f64 @quarter
    vm.return %a, %b, %c, %d : i32, i64, f32, f64
  }
  vm.export @globals

  vm.func @table(%i: i64) -> i32 {
    %buf = vm.const.ref.rodata @numbers
    // The index counts elements, not bytes.
    %v = vm.buffer.load.i32 %buf, %i
    vm.return %v : i32
  }
  vm.export @table

  vm.func @cast(%r: !vm.ref<?>) -> !vm.list {
    %l = vm.cast.ref %r, !vm.list : !vm.ref<?>, !vm.list
    vm.return %l : !vm.list
  }
}
