// scf is lowered to cf inside the pass, then to vm.br/vm.cond_br.
// RUN: strata-opt %s --strata-convert-to-vm --split-input-file | FileCheck %s
// Functions with i1/i8/i16 in their signature are private here: exported
// ones also normalize those at the boundary (ConvertToVM/types.mlir, @exported_narrow).

// CHECK-LABEL: vm.func @for_sum
// CHECK-SAME: (%[[N:.*]]: i64) -> i64
func.func @for_sum(%n: index) -> i64 {
  // CHECK-DAG: %[[LB:.*]] = vm.const.i64 0
  // CHECK-DAG: %[[STEP:.*]] = vm.const.i64 1
  // CHECK-DAG: %[[INIT:.*]] = vm.const.i64 5
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %init = arith.constant 5 : i64
  // CHECK: vm.br ^[[HEADER:.*]](%[[LB]], %[[INIT]] : i64, i64)
  // CHECK: ^[[HEADER]](%[[I:.*]]: i64, %[[ACC:.*]]: i64):
  // CHECK: %[[MORE:.*]] = vm.cmp.lt.i64.s %[[I]], %[[N]]
  // CHECK: vm.cond_br %[[MORE]], ^[[BODY:.*]], ^[[EXIT:.*]]{{$}}
  // CHECK: ^[[BODY]]:
  // CHECK: %[[NEXT_ACC:.*]] = vm.add.i64 %[[ACC]], %[[I]]
  // CHECK: %[[NEXT_I:.*]] = vm.add.i64 %[[I]], %[[STEP]]
  // CHECK: vm.br ^[[HEADER]](%[[NEXT_I]], %[[NEXT_ACC]] : i64, i64)
  %r = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %init) -> i64 {
    %ii = arith.index_cast %i : index to i64
    %s = arith.addi %acc, %ii : i64
    scf.yield %s : i64
  }
  // CHECK: ^[[EXIT]]:
  // CHECK: vm.return %[[ACC]] : i64
  return %r : i64
}

// -----

// CHECK-LABEL: vm.func @if_else
// CHECK-SAME: (%[[C:.*]]: i32, %[[A:.*]]: f32, %[[B:.*]]: f32) -> f32
func.func private @if_else(%c: i1, %a: f32, %b: f32) -> f32 {
  // CHECK: vm.cond_br %[[C]], ^[[THEN:.*]], ^[[ELSE:.*]]{{$}}
  // CHECK: ^[[THEN]]:
  // CHECK: %[[SUM:.*]] = vm.add.f32 %[[A]], %[[B]]
  // CHECK: vm.br ^[[MERGE:.*]](%[[SUM]] : f32)
  // CHECK: ^[[ELSE]]:
  // CHECK: %[[DIFF:.*]] = vm.sub.f32 %[[A]], %[[B]]
  // CHECK: vm.br ^[[MERGE]](%[[DIFF]] : f32)
  // CHECK: ^[[MERGE]](%[[R:.*]]: f32):
  // CHECK: vm.return %[[R]] : f32
  %r = scf.if %c -> f32 {
    %s = arith.addf %a, %b : f32
    scf.yield %s : f32
  } else {
    %d = arith.subf %a, %b : f32
    scf.yield %d : f32
  }
  return %r : f32
}

// -----

// CHECK-LABEL: vm.func @while_doubling
// CHECK-SAME: (%[[X:.*]]: i32, %[[LIMIT:.*]]: i32) -> i32
func.func @while_doubling(%x: i32, %limit: i32) -> i32 {
  // CHECK: vm.br ^[[BEFORE:.*]](%[[X]] : i32)
  // CHECK: ^[[BEFORE]](%[[V:.*]]: i32):
  // CHECK: %[[LT:.*]] = vm.cmp.lt.i32.s %[[V]], %[[LIMIT]]
  // CHECK: vm.cond_br %[[LT]], ^[[AFTER:.*]](%[[V]] : i32), ^[[DONE:.*]]{{$}}
  // CHECK: ^[[AFTER]](%[[W:.*]]: i32):
  // CHECK: %[[TWICE:.*]] = vm.add.i32 %[[W]], %[[W]]
  // CHECK: vm.br ^[[BEFORE]](%[[TWICE]] : i32)
  // CHECK: ^[[DONE]]:
  // CHECK: vm.return %[[V]] : i32
  %r = scf.while (%v = %x) : (i32) -> i32 {
    %lt = arith.cmpi slt, %v, %limit : i32
    scf.condition(%lt) %v : i32
  } do {
  ^bb0(%w: i32):
    %t = arith.addi %w, %w : i32
    scf.yield %t : i32
  }
  return %r : i32
}

// -----

// CHECK-LABEL: vm.func @index_switch
// CHECK-SAME: (%[[K:.*]]: i64) -> i32
func.func @index_switch(%k: index) -> i32 {
  // CHECK: %[[K32:.*]] = vm.trunc.i64.i32 %[[K]]
  // CHECK: %[[C2:.*]] = vm.const.i32 2
  // CHECK: %[[IS2:.*]] = vm.cmp.eq.i32 %[[K32]], %[[C2]]
  // CHECK: vm.cond_br %[[IS2]]
  // CHECK-NOT: scf.
  %r = scf.index_switch %k -> i32
  case 2 {
    %c10 = arith.constant 10 : i32
    scf.yield %c10 : i32
  }
  default {
    %c0 = arith.constant 0 : i32
    scf.yield %c0 : i32
  }
  return %r : i32
}
