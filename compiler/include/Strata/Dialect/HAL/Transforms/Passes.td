// Passes.td - the hal phase: executables compiled for their targets.

#ifndef STRATA_DIALECT_HAL_TRANSFORMS_PASSES_TD
#define STRATA_DIALECT_HAL_TRANSFORMS_PASSES_TD

include "mlir/Pass/PassBase.td"

def CompileExecutablesPass
    : Pass<"strata-compile-executables", "::mlir::ModuleOp"> {
  let summary = "compile the executable module into an embedded kernel library";
  let description = [{
    Compiles the `strata.executable` module that `--strata-form-dispatches`
    made with the target backend named by `target` (Target/TargetBackend.h;
    llvm-cpu: compiler/lib/Target/LLVMCPU): code generation of each dispatch
    function, then one kernel library (for llvm-cpu, a shared object
    exporting only the library query function of hal/include/strata/hal/
    executable_library.h). The library and its format become the module's
    `strata.executable_library` attribute; each host declaration of a
    dispatch gets its export ordinal and workgroup grid in its
    `strata.dispatch` attribute; the executable module is erased.

    Example result:

    ```mlir
    module @m attributes {strata.executable_library = {
        format = "embedded-elf-x86_64", library = "\7FELF..."}} {
      func.func private @main_dispatch_0_elementwise_4_f32(tensor<4xf32>)
          -> tensor<4xf32> attributes {strata.dispatch = {
              ordinal = 0 : i32, workgroup_count = array<i32: 1, 1, 1>}}
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
}

#endif // STRATA_DIALECT_HAL_TRANSFORMS_PASSES_TD
