// RUN: strata-opt --strata-convert-to-vm --split-input-file --verify-diagnostics %s

module @m {
  // expected-error @+1 {{executable 'm_linked_llvm_cpu' was not compiled; the hal phase must run before the vm conversion}}
  flow.executable @m_linked_llvm_cpu {
    builtin.module {
    }
  }
}

// -----

module @m {
  hal.executable @m_linked_llvm_cpu format("embedded-elf-x86_64") data("\7FELF") {
  }
  func.func @f(%a: tensor<4xf32>) {
    %c0 = arith.constant 0 : index
    %c16 = arith.constant 16 : index
    %device, %allocator = stream.context.resolve : !stream.device, !stream.allocator
    %in = stream.tensor.import %a : tensor<4xf32> -> !stream.resource
    %tp = stream.cmd.execute on(%device) {
      // expected-error @+1 {{dispatch 'f_dispatch_0' has no compiled kernel; the hal phase (code generation of the executable) must run before the vm conversion}}
      stream.cmd.dispatch @m_linked_llvm_cpu::@f_dispatch_0 bindings(%in[%c0, %c16])
    }
    stream.timepoint.await %tp
    return
  }
}

// -----

func.func @f(%a: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{dispatch 'f_dispatch_0' was not scheduled; the stream phase (--strata-schedule-execution) and the hal phase must run before the vm conversion}}
  %0 = flow.dispatch @f_linked_llvm_cpu::@f_dispatch_0(%a) : (tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}
