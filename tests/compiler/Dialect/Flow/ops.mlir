// The flow dialect's ops print as they parse.
// RUN: strata-opt %s | strata-opt | FileCheck %s

// CHECK-LABEL: func.func @host(
// CHECK-SAME: %[[A:.*]]: tensor<?x4xf32>, %[[N:.*]]: index
// CHECK: %[[R:.*]] = flow.dispatch @exe::@scale(%[[A]], %[[N]], %[[N]]) : (tensor<?x4xf32>, index, index) -> tensor<?x4xf32>
// CHECK: return %[[R]]
// CHECK: flow.executable @exe {
// CHECK-NEXT: builtin.module {
// CHECK-NEXT: func.func @scale(
func.func @host(%a: tensor<?x4xf32>, %n: index) -> tensor<?x4xf32> {
  %0 = flow.dispatch @exe::@scale(%a, %n, %n) : (tensor<?x4xf32>, index, index) -> tensor<?x4xf32>
  return %0 : tensor<?x4xf32>
}
flow.executable @exe {
  builtin.module {
    func.func @scale(%a: tensor<?x4xf32>, %n: index, %m: index) -> tensor<?x4xf32> {
      return %a : tensor<?x4xf32>
    }
  }
}
