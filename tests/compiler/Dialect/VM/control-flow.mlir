// Round trip of the hand-written control-flow and call ops.
// RUN: strata-opt %s | strata-opt | FileCheck %s

vm.module @control {
  vm.import @math.scale : (f32) -> f32
  vm.import @fmt.join {variadic_spans = array<i32: 0, 1>} : (i32) -> !vm.buffer

  vm.func @callee(%x: i32) -> i32 {
    vm.return %x : i32
  }

  // CHECK-LABEL: vm.func @branches
  // CHECK-SAME: (%[[C:.*]]: i32, %[[X:.*]]: i32)
  vm.func @branches(%c: i32, %x: i32) -> i32 {
    // CHECK: vm.br ^[[BB1:.*]](%[[X]] : i32)
    vm.br ^bb1(%x : i32)
  // CHECK: ^[[BB1]](%[[A:.*]]: i32):
  ^bb1(%a: i32):
    // CHECK: vm.cond_br %[[C]], ^[[BB2:.*]](%[[A]] : i32), ^[[BB3:.*]]{{$}}
    vm.cond_br %c, ^bb2(%a : i32), ^bb3
  // CHECK: ^[[BB2]](%[[B:.*]]: i32):
  ^bb2(%b: i32):
    // CHECK: vm.br_table %[[B]] [^[[BB1]](%[[B]] : i32), ^[[BB3]]] default ^[[BB4:.*]]{{$}}
    vm.br_table %b [^bb1(%b : i32), ^bb3] default ^bb4
  // CHECK: ^[[BB3]]:
  ^bb3:
    // CHECK: vm.cond_fail %[[C]], %[[X]], "checked"
    vm.cond_fail %c, %x, "checked"
    // CHECK: vm.yield ^[[BB4]]
    vm.yield ^bb4
  // CHECK: ^[[BB4]]:
  ^bb4:
    // CHECK: vm.fail %[[X]], "unreachable"
    vm.fail %x, "unreachable"
  }

  // CHECK-LABEL: vm.func @empty_table
  vm.func @empty_table(%i: i32) {
    // CHECK: vm.br_table %{{.*}} [] default ^
    vm.br_table %i [] default ^bb1
  ^bb1:
    vm.return
  }

  // CHECK-LABEL: vm.func @calls
  // CHECK-SAME: (%[[X:.*]]: i32, %[[F:.*]]: f32)
  vm.func @calls(%x: i32, %f: f32) -> !vm.buffer {
    // CHECK: vm.call @callee(%[[X]]) : (i32) -> i32
    %0 = vm.call @callee(%x) : (i32) -> i32
    // CHECK: vm.call.import @math.scale(%[[F]]) : (f32) -> f32
    %1 = vm.call.import @math.scale(%f) : (f32) -> f32
    // CHECK: %[[J:.*]] = vm.call.variadic @fmt.join(%[[X]], %[[X]], %[[X]]) segments [3] : (i32, i32, i32) -> !vm.buffer
    %2 = vm.call.variadic @fmt.join(%x, %x, %x) segments [3] : (i32, i32, i32) -> !vm.buffer
    // CHECK: %[[R:.*]] = vm.import.resolved @math.scale
    %3 = vm.import.resolved @math.scale
    // CHECK: vm.return %[[J]] : !vm.buffer
    vm.return %2 : !vm.buffer
  }
}
