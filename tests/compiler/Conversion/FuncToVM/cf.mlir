// cf.br/cond_br/switch/assert to vm control flow.
// RUN: strata-opt %s --strata-convert-to-vm --split-input-file | FileCheck %s
// Functions with i1/i8/i16 in their signature are private here: exported
// ones also normalize those at the boundary (ConvertToVM/types.mlir, @exported_narrow).

// Block arguments are converted like function arguments.
// CHECK-LABEL: vm.func @branches
// CHECK-SAME: (%[[C:.*]]: i32, %[[X:.*]]: i64, %[[B:.*]]: i32) -> (i64, i32)
func.func private @branches(%c: i1, %x: index, %b: i8) -> (index, i8) {
  // CHECK: vm.cond_br %[[C]], ^[[T:.*]](%[[X]], %[[B]] : i64, i32), ^[[F:.*]](%[[B]] : i32)
  cf.cond_br %c, ^t(%x, %b : index, i8), ^f(%b : i8)
// CHECK: ^[[T]](%[[TX:.*]]: i64, %[[TB:.*]]: i32):
^t(%tx: index, %tb: i8):
  // CHECK: vm.br ^[[JOIN:.*]](%[[TX]], %[[TB]] : i64, i32)
  cf.br ^join(%tx, %tb : index, i8)
// CHECK: ^[[F]](%[[FB:.*]]: i32):
^f(%fb: i8):
  // CHECK: %[[ZERO:.*]] = vm.const.i64 0
  %zero = arith.constant 0 : index
  // CHECK: vm.br ^[[JOIN]](%[[ZERO]], %[[FB]] : i64, i32)
  cf.br ^join(%zero, %fb : index, i8)
// CHECK: ^[[JOIN]](%[[JX:.*]]: i64, %[[JB:.*]]: i32):
^join(%jx: index, %jb: i8):
  // CHECK: vm.return %[[JX]], %[[JB]] : i64, i32
  return %jx, %jb : index, i8
}

// -----

// Sparse cases are a chain of comparisons, then the default.
// CHECK-LABEL: vm.func @switch_i32
// CHECK-SAME: (%[[FLAG:.*]]: i32, %[[X:.*]]: f32) -> f32
func.func @switch_i32(%flag: i32, %x: f32) -> f32 {
  // CHECK: %[[C0:.*]] = vm.const.i32 0
  // CHECK: %[[IS0:.*]] = vm.cmp.eq.i32 %[[FLAG]], %[[C0]]
  // CHECK: vm.cond_br %[[IS0]], ^[[CASE0:.*]](%[[X]] : f32), ^[[NEXT:.*]]{{$}}
  // CHECK: ^[[NEXT]]:
  // CHECK: %[[C7:.*]] = vm.const.i32 7
  // CHECK: %[[IS7:.*]] = vm.cmp.eq.i32 %[[FLAG]], %[[C7]]
  // CHECK: vm.cond_br %[[IS7]], ^[[CASE7:.*]], ^[[DEFAULT:.*]]{{$}}
  // CHECK: ^[[DEFAULT]]:
  // CHECK: vm.br ^[[CASE0]](%[[X]] : f32)
  cf.switch %flag : i32, [
    default: ^case0(%x : f32),
    0: ^case0(%x : f32),
    7: ^case7
  ]
^case0(%v: f32):
  return %v : f32
^case7:
  %neg = arith.negf %x : f32
  return %neg : f32
}

// -----

// Cases 0..n-1, in any order, are one vm.br_table indexed by the flag.
// CHECK-LABEL: vm.func @switch_dense
// CHECK-SAME: (%[[FLAG:.*]]: i32, %[[X:.*]]: i32) -> i32
func.func @switch_dense(%flag: i32, %x: i32) -> i32 {
  // CHECK: vm.br_table %[[FLAG]] [^[[ZERO:.*]], ^[[ONE:.*]](%[[X]] : i32), ^[[TWO:.*]]] default ^[[DEFAULT:[^ ]*]]{{$}}
  cf.switch %flag : i32, [
    default: ^default,
    1: ^one(%x : i32),
    0: ^zero,
    2: ^two
  ]
// CHECK: ^[[ZERO]]:
// CHECK-NEXT: vm.const.i32 10
^zero:
  %c10 = arith.constant 10 : i32
  return %c10 : i32
// CHECK: ^[[ONE]](%[[V:.*]]: i32):
// CHECK-NEXT: vm.return %[[V]]
^one(%v: i32):
  return %v : i32
// CHECK: ^[[TWO]]:
// CHECK-NEXT: vm.const.i32 12
^two:
  %c12 = arith.constant 12 : i32
  return %c12 : i32
// CHECK: ^[[DEFAULT]]:
// CHECK-NEXT: vm.const.i32 -1
^default:
  %m1 = arith.constant -1 : i32
  return %m1 : i32
}

// -----

// An i8 flag and its case values are compared zero-extended.
// CHECK-LABEL: vm.func @switch_i8
// CHECK-SAME: (%[[FLAG:.*]]: i32)
func.func private @switch_i8(%flag: i8) -> i32 {
  // CHECK: %[[EXT:.*]] = vm.ext.i8.i32.u %[[FLAG]]
  // CHECK: %[[M1:.*]] = vm.const.i32 255
  // CHECK: vm.cmp.eq.i32 %[[EXT]], %[[M1]]
  cf.switch %flag : i8, [
    default: ^other,
    -1: ^minus_one
  ]
^minus_one:
  %c1 = arith.constant 1 : i32
  return %c1 : i32
^other:
  %c0 = arith.constant 0 : i32
  return %c0 : i32
}

// -----

// CHECK-LABEL: vm.func @switch_i64
// CHECK-SAME: (%[[FLAG:.*]]: i64)
func.func @switch_i64(%flag: i64) -> i32 {
  // CHECK: %[[BIG:.*]] = vm.const.i64 4294967296
  // CHECK: vm.cmp.eq.i64 %[[FLAG]], %[[BIG]]
  cf.switch %flag : i64, [
    default: ^other,
    4294967296: ^big
  ]
^big:
  %c1 = arith.constant 1 : i32
  return %c1 : i32
^other:
  %c0 = arith.constant 0 : i32
  return %c0 : i32
}

// -----

// cf.assert fails the invocation with FAILED_PRECONDITION (9) when false.
// CHECK-LABEL: vm.func @assert
// CHECK-SAME: (%[[C:.*]]: i32)
func.func private @assert(%c: i1) {
  // CHECK: %[[ONE:.*]] = vm.const.i32 1
  // CHECK: %[[FAILED:.*]] = vm.xor.i32 %[[C]], %[[ONE]]
  // CHECK: %[[STATUS:.*]] = vm.const.i32 9
  // CHECK: vm.cond_fail %[[FAILED]], %[[STATUS]], "must hold"
  cf.assert %c, "must hold"
  return
}

