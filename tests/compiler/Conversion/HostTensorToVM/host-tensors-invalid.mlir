// RUN: strata-opt --strata-convert-to-vm --split-input-file --verify-diagnostics %s

module @m {
  // expected-error @+1 {{executable 'm_linked_llvm_cpu' was not compiled; the hal phase must run before the vm conversion}}
  flow.executable @m_linked_llvm_cpu {
    builtin.module {
    }
  }
}

// -----

func.func @f(%a: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{dispatch 'f_dispatch_0' was not scheduled; the stream phase (--strata-schedule-execution) and the hal phase must run before the vm conversion}}
  %0 = flow.dispatch @f_linked_llvm_cpu::@f_dispatch_0(%a) : (tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}
