// RUN: strata-opt --strata-vm-peephole --split-input-file %s | FileCheck %s

vm.module @imm {
  // CHECK-LABEL: vm.func @immediates
  // CHECK-SAME: (%[[X:.*]]: i64)
  vm.func @immediates(%x: i64) -> (i64, i64, i64, i64, i64) {
    // CHECK-NOT: vm.const.i64
    // CHECK: %[[A:.*]] = vm.add.i64.imm %[[X]], 3
    // CHECK: %[[M:.*]] = vm.mul.i64.imm %[[X]], 3
    // CHECK: %[[S:.*]] = vm.add.i64.imm %[[X]], -3
    // CHECK: %[[R:.*]] = vm.rem.i64.s.imm %[[X]], 1000003
    // CHECK: %[[L:.*]] = vm.add.i64.imm %[[X]], 3
    // CHECK: vm.return %[[A]], %[[M]], %[[S]], %[[R]], %[[L]]
    %c3 = vm.const.i64 3
    %m = vm.const.i64 1000003
    %0 = vm.add.i64 %x, %c3
    %1 = vm.mul.i64 %x, %c3
    %2 = vm.sub.i64 %x, %c3
    %3 = vm.rem.i64.s %x, %m
    %4 = vm.add.i64 %c3, %x
    vm.return %0, %1, %2, %3, %4 : i64, i64, i64, i64, i64
  }

  // Divisors 0 and -1 keep their run-time checks; x - INT64_MIN has no
  // immediate form; a non-constant operand stays.
  // CHECK-LABEL: vm.func @kept
  vm.func @kept(%x: i64, %y: i64) -> (i64, i64, i64, i64) {
    // CHECK: vm.rem.i64.s %{{.*}}, %{{.*}}
    // CHECK: vm.rem.i64.s %{{.*}}, %{{.*}}
    // CHECK: vm.sub.i64 %{{.*}}, %{{.*}}
    // CHECK: vm.add.i64 %{{.*}}, %{{.*}}
    // CHECK-NOT: .imm
    %zero = vm.const.i64 0
    %minus1 = vm.const.i64 -1
    %min = vm.const.i64 -9223372036854775808
    %0 = vm.rem.i64.s %x, %zero
    %1 = vm.rem.i64.s %x, %minus1
    %2 = vm.sub.i64 %x, %min
    %3 = vm.add.i64 %x, %y
    vm.return %0, %1, %2, %3 : i64, i64, i64, i64
  }
}

// -----

vm.module @branch {
  // CHECK-LABEL: vm.func @fused
  // CHECK-SAME: (%[[A:.*]]: i64, %[[B:.*]]: i64)
  vm.func @fused(%a: i64, %b: i64) -> i64 {
    // CHECK-NOT: vm.cmp.lt.i64.s
    // CHECK: vm.cond_br.lt.i64.s %[[A]], %[[B]], ^bb1(%[[A]] : i64), ^bb1(%[[B]] : i64)
    %lt = vm.cmp.lt.i64.s %a, %b
    vm.cond_br %lt, ^bb1(%a : i64), ^bb1(%b : i64)
  ^bb1(%r: i64):
    vm.return %r : i64
  }

  // A constant bound goes into the instruction.
  // CHECK-LABEL: vm.func @base_case
  // CHECK-SAME: (%[[N:.*]]: i64)
  vm.func @base_case(%n: i64) -> i64 {
    // CHECK-NOT: vm.const.i64 2
    // CHECK: vm.cond_br.lt.i64.s.imm %[[N]], 2,
    %two = vm.const.i64 2
    %lt = vm.cmp.lt.i64.s %n, %two
    vm.cond_br %lt, ^bb1, ^bb2
  ^bb1:
    vm.return %n : i64
  ^bb2:
    %z = vm.const.i64 0
    vm.return %z : i64
  }

  // The comparison has another use, so it stays and the branch is kept.
  // CHECK-LABEL: vm.func @shared
  vm.func @shared(%a: i64, %b: i64) -> i32 {
    // CHECK: %[[LT:.*]] = vm.cmp.lt.i64.s
    // CHECK: vm.cond_br %[[LT]]
    %lt = vm.cmp.lt.i64.s %a, %b
    vm.cond_br %lt, ^bb1, ^bb1
  ^bb1:
    vm.return %lt : i32
  }
}
