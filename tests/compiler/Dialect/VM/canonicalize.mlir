// Constants fold, so --canonicalize hoists and merges equal ones and drops
// unused pure ops.
// RUN: strata-opt --canonicalize %s | FileCheck %s

vm.module @fold {
  // CHECK-LABEL: vm.func @merge_constants
  vm.func @merge_constants(%x: i32) -> (i32, i32) {
    // CHECK-NEXT: %[[C:.*]] = vm.const.i32 3
    // CHECK-NEXT: %[[A:.*]] = vm.add.i32 %{{.*}}, %[[C]]
    // CHECK-NEXT: %[[B:.*]] = vm.mul.i32 %[[A]], %[[C]]
    // CHECK-NEXT: vm.return %[[A]], %[[B]] : i32, i32
    %c0 = vm.const.i32 3
    %a = vm.add.i32 %x, %c0
    %c1 = vm.const.i32 3
    %b = vm.mul.i32 %a, %c1
    %c2 = vm.const.f32 1.0
    %dead = vm.sub.f32 %c2, %c2
    vm.return %a, %b : i32, i32
  }

  // Integer division may fail at run time, so it stays even when unused.
  // CHECK-LABEL: vm.func @keep_trapping
  vm.func @keep_trapping(%x: i32) {
    // CHECK: vm.div.i32.s
    %0 = vm.div.i32.s %x, %x
    vm.return
  }
}

vm.module @arith {
  // CHECK-LABEL: vm.func @fold_constants
  vm.func @fold_constants() -> (i32, i64, i32) {
    // CHECK-DAG: %[[SUM:.*]] = vm.const.i32 -2147483648
    // CHECK-DAG: %[[PROD:.*]] = vm.const.i64 -6
    // CHECK-DAG: %[[XOR:.*]] = vm.const.i32 6
    // CHECK: vm.return %[[SUM]], %[[PROD]], %[[XOR]] : i32, i64, i32
    %max = vm.const.i32 2147483647
    %one = vm.const.i32 1
    %sum = vm.add.i32 %max, %one
    %a = vm.const.i64 -2
    %b = vm.const.i64 3
    %prod = vm.mul.i64 %a, %b
    %c = vm.const.i32 5
    %d = vm.const.i32 3
    %xor = vm.xor.i32 %c, %d
    vm.return %sum, %prod, %xor : i32, i64, i32
  }

  // CHECK-LABEL: vm.func @fold_identities
  // CHECK-SAME: (%[[X:.*]]: i32, %[[Y:.*]]: i64)
  vm.func @fold_identities(%x: i32, %y: i64) -> (i32, i64, i32, i32) {
    // CHECK-NOT: vm.add
    // CHECK-NOT: vm.mul
    // CHECK-NOT: vm.and
    // CHECK-NOT: vm.sub
    // CHECK: vm.return %[[X]], %[[Y]], %[[X]], %[[X]] : i32, i64, i32, i32
    %zero = vm.const.i32 0
    %one = vm.const.i64 1
    %ones = vm.const.i32 -1
    %0 = vm.add.i32 %zero, %x
    %1 = vm.mul.i64 %y, %one
    %2 = vm.and.i32 %ones, %x
    %3 = vm.sub.i32 %x, %zero
    vm.return %0, %1, %2, %3 : i32, i64, i32, i32
  }

  // x - 0 folds, 0 - x does not.
  // CHECK-LABEL: vm.func @no_fold
  vm.func @no_fold(%x: i32) -> i32 {
    // CHECK: %[[R:.*]] = vm.sub.i32 %{{.*}}, %{{.*}}
    // CHECK: vm.return %[[R]]
    %zero = vm.const.i32 0
    %0 = vm.sub.i32 %zero, %x
    vm.return %0 : i32
  }
}
