// Passes.td - the hal phase: executables compiled for their targets.

#ifndef STRATA_DIALECT_HAL_TRANSFORMS_PASSES_TD
#define STRATA_DIALECT_HAL_TRANSFORMS_PASSES_TD

include "mlir/Pass/PassBase.td"

def CompileExecutablesPass
    : Pass<"strata-compile-executables", "::mlir::ModuleOp"> {
  let summary = "compile the executable module into an embedded kernel library";
  let description = [{
    Compiles the module of the `flow.executable` that
    `--strata-form-dispatches` made with the target backend named by `target` (Target/TargetBackend.h;
    llvm-cpu: compiler/lib/Target/LLVMCPU): code generation of each dispatch
    function, then one kernel library (for llvm-cpu, a shared object
    exporting only the library query function of hal/include/strata/hal/
    executable_library.h). A `hal.executable` of the same name replaces
    the `flow.executable`: the library's bytes and format, and one
    `hal.executable.export` per dispatch function with its ordinal in the
    library and its grid of workgroups. `stream.cmd.dispatch` refers to
    the exports by the same `@executable::@function` names.

    Example result:

    ```mlir
    hal.executable @m_linked_llvm_cpu format("embedded-elf-x86_64") data("\7FELF...") {
      hal.executable.export @main_dispatch_0_elementwise_4_f32 ordinal(0) workgroup_count([1, 1, 1])
    }
    ```
  }];
  let options = [
    Option<"target", "target", "std::string", /*default=*/"\"llvm-cpu\"",
           "The target backend that compiles the executable">,
    Option<"targetTriple", "target-triple", "std::string", /*default=*/"\"\"",
           "LLVM target triple of the kernels (default: the host's)">,
    Option<"targetCpu", "target-cpu", "std::string", /*default=*/"\"host\"",
           "LLVM CPU name of the kernels, or 'host' to detect this machine">,
  ];
  let dependentDialects = ["::mlir::strata::hal::HALDialect"];
}

#endif // STRATA_DIALECT_HAL_TRANSFORMS_PASSES_TD
