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
