// util ops to vm ops (populateUtilToVMPatterns).
// RUN: strata-opt %s --strata-convert-to-vm --split-input-file | FileCheck %s

// util.assert_eq is one vm.cond_fail.ne.i64 (FAILED_PRECONDITION, 9) that
// puts both values into its message; index values are i64 in the vm.
// CHECK-LABEL: vm.func @assert_eq
// CHECK-SAME: (%[[A:.*]]: i64, %[[B:.*]]: i64)
func.func private @assert_eq(%a: index, %b: index) {
  // CHECK: %[[STATUS:.*]] = vm.const.i32 9
  // CHECK: vm.cond_fail.ne.i64 %[[A]], %[[B]], %[[STATUS]], "N is {0} and {1}"
  util.assert_eq %a, %b, "N is {0} and {1}" : index
  return
}

// -----

// A list on the host is a vm.list of refs; indices and sizes (i64 in the
// vm) are i32 for the list ops; util.list.cast is the identity.
// CHECK-LABEL: vm.func @lists
// CHECK-SAME: (%[[L:.*]]: !vm.list, %[[I:.*]]: i64) -> (!vm.list, i64)
// CHECK: %[[NEW:.*]] = vm.list.alloc
// CHECK: vm.list.resize %[[NEW]]
// CHECK: %[[I32:.*]] = vm.trunc.i64.i32 %[[I]]
// CHECK: %[[E:.*]] = vm.list.get.ref %[[L]], %[[I32]] : !vm.ref<?>
// An element read as a ranked tensor is checked as an argument is.
// CHECK: vm.call.variadic @hal.buffer_view.assert(%[[E]],
// CHECK: vm.list.set.ref %[[NEW]], %{{.*}}, %[[E]] : !vm.ref<?>
// CHECK: %[[SIZE:.*]] = vm.list.size %[[NEW]]
// CHECK: %[[SIZE64:.*]] = vm.ext.i32.i64.u %[[SIZE]]
// CHECK: vm.return %[[NEW]], %[[SIZE64]]
func.func @lists(%l: !util.list<tensor<?xf32>>, %i: index) -> (!util.list<tensor<*xf32>>, index) {
  %c2 = arith.constant 2 : index
  %n = util.list.create %c2 : !util.list<tensor<?xf32>>
  util.list.resize %n, %c2 : !util.list<tensor<?xf32>>
  %t = util.list.get %l[%i] : !util.list<tensor<?xf32>> -> tensor<?xf32>
  util.list.set %n[%i], %t : !util.list<tensor<?xf32>>, tensor<?xf32>
  %s = util.list.size %n : !util.list<tensor<?xf32>>
  %c = util.list.cast %n : !util.list<tensor<?xf32>> to !util.list<tensor<*xf32>>
  return %c, %s : !util.list<tensor<*xf32>>, index
}
