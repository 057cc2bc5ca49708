// RUN: strata-opt --strata-convert-stream-to-hal --split-input-file --verify-diagnostics %s

// A dispatch of an export the executable does not have: code generation
// (--strata-compile-executables) did not run, or dropped it.
module @m {
  hal.executable @m_linked_llvm_cpu format("embedded-elf-x86_64") data("\7FELF") {
  }
  func.func @f(%a: tensor<4xf32>) {
    %c0 = arith.constant 0 : index
    %c16 = arith.constant 16 : index
    %in = stream.tensor.import %a : tensor<4xf32> -> !stream.resource
    %tp = stream.cmd.execute {
      // expected-error @+1 {{dispatch 'f_dispatch_0' has no compiled kernel; the hal phase's code generation (--strata-compile-executables) must run first}}
      stream.cmd.dispatch @m_linked_llvm_cpu::@f_dispatch_0 bindings(%in[%c0, %c16])
    }
    stream.timepoint.await %tp
    return
  }
}

// -----

// A host tensor of an element type the runtime has no code for.
func.func @export_i4(%r: !stream.resource, %c0: index, %c8: index) -> tensor<16xi4> {
  // expected-error @+1 {{'stream.tensor.export' op has element type 'i4', which the runtime has no code for}}
  %t = stream.tensor.export %r[%c0, %c8] : !stream.resource -> tensor<16xi4>
  return %t : tensor<16xi4>
}
