// Passes.td - the hal phase: executables compiled for their targets, and
// the stream schedule lowered to typed hal ops.

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
  let options =
      [Option<"target", "target", "std::string", /*default=*/"\"llvm-cpu\"",
              "The target backend that compiles the executable">,
       Option<"targetTriple", "target-triple", "std::string",
              /*default=*/"\"\"",
              "LLVM target triple of the kernels (default: the host's)">,
       Option<"targetCpu", "target-cpu", "std::string", /*default=*/"\"host\"",
              "LLVM CPU name of the kernels, or 'host' to detect this machine; "
              "a comma-separated list (or x86-64-multi) compiles one library "
              "per CPU, best first (hal.executable.variant)">,
  ];
  let dependentDialects = ["::mlir::strata::hal::HALDialect"];
}

def ConvertStreamToHALPass
    : Pass<"strata-convert-stream-to-hal", "::mlir::ModuleOp"> {
  let summary = "lower the stream schedule to typed hal ops";
  let description = [{
    Translates each stream op on its own (Dialect/HAL/Conversion/
    StreamToHAL): resources become `!hal.buffer`s and timepoints
    `!hal.fence`s; `stream.cmd.execute` becomes a one-shot command buffer
    (`hal.command_buffer.create`, a `hal.command_buffer.dispatch` per
    dispatch with its export's grid and its push constants as 32-bit
    words, execution barriers, `finalize`), a new fence, and the
    `hal.device.queue.execute` that waits for the awaited fence and
    signals it; allocations go to the device's allocator
    (`hal.device.allocator` of device 0, resolved once per function);
    constants are wrapped in place (`hal.buffer.wrap`); host tensors are
    buffer views (`hal.tensor.export` / `hal.tensor.import`). Runs after
    `--strata-compile-executables`: a dispatch names a
    `hal.executable.export`, whose grid it takes.

    Example result:

    ```mlir
    %cb = hal.command_buffer.create device(%device) mode(%c1_i32) categories(%c0_i32)
    hal.command_buffer.dispatch command_buffer(%cb) executable(%exe) ordinal(%c0_i32)
        x(%c4_i32) y(%c1_i32) z(%c1_i32) constants()
        bindings(%a, %c0, %c16, %r, %c0, %c16 : !hal.buffer, index, index, !hal.buffer, index, index)
    hal.command_buffer.finalize command_buffer(%cb)
    %fence = hal.fence.create device(%device) flags(%c0_i32)
    hal.device.queue.execute device(%device) signal(%fence) command_buffers(%cb : !hal.command_buffer)
    ```
  }];
  let dependentDialects = [
    "::mlir::strata::hal::HALDialect",
    "::mlir::arith::ArithDialect",
  ];
}

#endif // STRATA_DIALECT_HAL_TRANSFORMS_PASSES_TD
