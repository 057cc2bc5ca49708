// Round trip (parse, print, parse again) of the vm module structure ops.
// RUN: strata-opt %s | strata-opt | FileCheck %s

// CHECK-LABEL: vm.module @structure
vm.module @structure {
  // CHECK: vm.global.i32 mutable @counter = 7
  vm.global.i32 mutable @counter = 7
  // CHECK: vm.global.i64 @big = 1099511627776
  vm.global.i64 @big = 1099511627776
  // CHECK: vm.global.f32 @scale = 5.000000e-01
  vm.global.f32 @scale = 0.5
  // CHECK: vm.global.f64 mutable @zero{{$}}
  vm.global.f64 mutable @zero
  // CHECK: vm.global.ref mutable @cache : !vm.buffer
  vm.global.ref mutable @cache : !vm.buffer
  // CHECK: vm.global.ref @any : !vm.ref<?>
  vm.global.ref @any : !vm.ref<?>
  // CHECK: vm.global.ref @typed : !vm.ref<!vm.list>
  vm.global.ref @typed : !vm.ref<!vm.list>
  // CHECK: vm.rodata @table dense<[1, 2, 3, 4]> : tensor<4xi8>
  vm.rodata @table dense<[1, 2, 3, 4]> : tensor<4xi8>
  // CHECK: vm.rodata @greeting "hello"
  vm.rodata @greeting "hello"
  // CHECK: vm.import @hal.buffer.length : (!vm.ref<?>) -> i64
  vm.import @hal.buffer.length : (!vm.ref<?>) -> i64
  // CHECK: vm.import optional @check.expect_true : (i32) -> ()
  vm.import optional @check.expect_true : (i32) -> ()

  // CHECK: vm.func @declared(i32) -> i32{{$}}
  vm.func @declared(i32) -> i32

  // CHECK: vm.func @identity(%[[X:.*]]: i32, %[[B:.*]]: !vm.buffer) -> (i32, !vm.buffer)
  vm.func @identity(%x: i32, %b: !vm.buffer) -> (i32, !vm.buffer) {
    // CHECK-NEXT: vm.return %[[X]], %[[B]] : i32, !vm.buffer
    vm.return %x, %b : i32, !vm.buffer
  }

  // CHECK: vm.func @nothing() {
  vm.func @nothing() {
    // CHECK-NEXT: vm.return{{$}}
    vm.return
  }

  // The initializer: no signature, run once per context.
  // CHECK: vm.initializer @__init {
  vm.initializer @__init {
    // CHECK-NEXT: %[[C:.*]] = vm.const.i32 3
    %c = vm.const.i32 3
    // CHECK-NEXT: vm.global.store.i32 %[[C]], @counter
    vm.global.store.i32 %c, @counter
    // CHECK-NEXT: vm.return{{$}}
    vm.return
  }

  // CHECK: vm.export @identity{{$}}
  vm.export @identity
  // CHECK: vm.export @nothing as "run"
  vm.export @nothing as "run"
}
