// Unranked TOSA is an error naming the op and the type, not upstream's
// "failed to legalize" without a reason.
// RUN: not strata-compile %s -o %t.vmfb 2>&1 | FileCheck %s
// CHECK: tosa-unranked.mlir:7:8: error: 'tosa.abs' on 'tensor<*xf32>': unranked tensors are not supported; give the function's arguments ranked types

func.func @t(%a: tensor<*xf32>) -> tensor<*xf32> {
  %r = tosa.abs %a : (tensor<*xf32>) -> tensor<*xf32>
  return %r : tensor<*xf32>
}
