// func.func/call/return to vm.func, vm.export, vm.import and calls, wrapped
// in a vm.module named after the builtin module.
// RUN: strata-opt %s --strata-convert-to-vm --split-input-file | FileCheck %s

// CHECK: module @program {
// CHECK-NEXT: vm.module @program {
module @program {
  // A public function with a body is a vm.func plus a vm.export.
  // CHECK-LABEL: vm.func @add
  // CHECK-SAME: (%[[A:.*]]: i32, %[[B:.*]]: i32) -> i32
  func.func @add(%a: i32, %b: i32) -> i32 {
    // CHECK: %[[SUM:.*]] = vm.add.i32 %[[A]], %[[B]]
    %0 = arith.addi %a, %b : i32
    // CHECK: vm.return %[[SUM]] : i32
    return %0 : i32
  }
  // CHECK: vm.export @add{{$}}

  // A private declaration named module.function is an import.
  // CHECK: vm.import @hal.buffer.length : (i64, f32) -> (i64, i32)
  func.func private @hal.buffer.length(index, f32) -> (index, i1)

  // A private function with a body is internal: no vm.export.
  // CHECK-LABEL: vm.func @twice
  // CHECK-SAME: (%[[X:.*]]: i64) -> (i64, i64)
  func.func private @twice(%x: i64) -> (i64, i64) {
    // CHECK: vm.return %[[X]], %[[X]] : i64, i64
    return %x, %x : i64, i64
  }
  // CHECK-NOT: vm.export @twice

  // CHECK-LABEL: vm.func @calls
  // CHECK-SAME: (%[[I:.*]]: i64, %[[F:.*]]: f32) -> (i64, i32, i64)
  func.func @calls(%i: index, %f: f32) -> (index, i1, i64) {
    // CHECK: %[[R:.*]]:2 = vm.call.import @hal.buffer.length(%[[I]], %[[F]]) : (i64, f32) -> (i64, i32)
    %r:2 = call @hal.buffer.length(%i, %f) : (index, f32) -> (index, i1)
    // CHECK: %[[ONE:.*]] = vm.const.i64 1
    %c1 = arith.constant 1 : i64
    // CHECK: %[[T:.*]]:2 = vm.call @twice(%[[ONE]]) : (i64) -> (i64, i64)
    %t:2 = call @twice(%c1) : (i64) -> (i64, i64)
    // CHECK: vm.return %[[R]]#0, %[[R]]#1, %[[T]]#1 : i64, i32, i64
    return %r#0, %r#1, %t#1 : index, i1, i64
  }
  // CHECK: vm.export @calls

  // A function whose name has a dot but has a body is an ordinary function.
  // CHECK-LABEL: vm.func @lib.helper()
  func.func @lib.helper() {
    // CHECK-NEXT: vm.return{{$}}
    return
  }
  // CHECK: vm.export @lib.helper

  // CHECK-LABEL: vm.func @call_defined_dotted
  func.func @call_defined_dotted() {
    // CHECK: vm.call @lib.helper() : () -> ()
    call @lib.helper() : () -> ()
    return
  }
}

// -----

// An unnamed builtin module gives a vm.module named @module.
// CHECK: vm.module @module {
// CHECK-LABEL: vm.func @refs
// CHECK-SAME: (%[[BUF:.*]]: !vm.buffer) -> !vm.buffer
func.func @refs(%b: !vm.buffer) -> !vm.buffer {
  // CHECK: vm.return %[[BUF]] : !vm.buffer
  return %b : !vm.buffer
}
