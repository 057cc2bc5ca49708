// RUN: strata-opt --strata-convert-to-vm --split-input-file --verify-diagnostics %s

module @m {
  // expected-error @+1 {{executable 'm_linked_llvm_cpu' was not compiled; the hal phase must run before the vm conversion}}
  module @m_linked_llvm_cpu attributes {strata.executable} {
  }
}

// -----

func.func @f(%a: tensor<4xf32>) -> tensor<4xf32> {
  %0 = call @f_dispatch_0(%a) : (tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}
// expected-error @+1 {{dispatch 'f_dispatch_0' has no compiled kernel; the hal phase (code generation of the executable) must run before the vm conversion}}
func.func private @f_dispatch_0(tensor<4xf32>) -> tensor<4xf32> attributes {strata.dispatch}
