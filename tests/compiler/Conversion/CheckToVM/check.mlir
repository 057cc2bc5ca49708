// check ops become calls of the native check module; tensors pass as
// hal.buffer_views, tolerances as f32 (-1: the runtime's default).
// RUN: strata-opt --strata-convert-to-vm --split-input-file %s | FileCheck %s

// CHECK-LABEL: vm.module @scalars
// CHECK-DAG: vm.import @check.expect_true : (i32) -> ()
// CHECK-DAG: vm.import @check.expect_false : (i32) -> ()
// Only the imports the module calls.
// CHECK-NOT: vm.import @check.expect_eq
// CHECK: vm.func @f(%[[A:.*]]: i32)
// CHECK: vm.call.import @check.expect_true(%[[A]])
// CHECK: vm.call.import @check.expect_false(%[[A]])
module @scalars {
  func.func @f(%a: i32) {
    check.expect_true(%a) : i32
    check.expect_false(%a) : i32
    return
  }
}

// -----

// CHECK-LABEL: vm.module @tensors
// CHECK-DAG: vm.import @check.expect_eq : (!vm.ref<?>, !vm.ref<?>) -> ()
// CHECK-DAG: vm.import @check.expect_almost_eq : (!vm.ref<?>, !vm.ref<?>) -> ()
// CHECK-DAG: vm.import @check.expect_almost_eq_tol : (!vm.ref<?>, !vm.ref<?>, f32, f32) -> ()
// CHECK: vm.func @f(%[[X:.*]]: !vm.ref<?>, %[[Y:.*]]: !vm.ref<?>)
// CHECK: vm.call.import @check.expect_eq(%[[X]], %[[Y]])
// CHECK: vm.call.import @check.expect_almost_eq(%[[X]], %[[Y]])
// CHECK: %[[ATOL:.*]] = vm.const.f32 5.000000e-01
// CHECK: %[[RTOL:.*]] = vm.const.f32 -1.000000e+00
// CHECK: vm.call.import @check.expect_almost_eq_tol(%[[X]], %[[Y]], %[[ATOL]], %[[RTOL]])
module @tensors {
  func.func @f(%x: tensor<4xf32>, %y: tensor<4xf32>) {
    check.expect_eq(%x, %y) : tensor<4xf32>
    check.expect_almost_eq(%x, %y) : tensor<4xf32>
    check.expect_almost_eq(%x, %y, atol 0.5) : tensor<4xf32>
    return
  }
}
