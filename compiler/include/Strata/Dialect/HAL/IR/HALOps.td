// HALOps.td - the hal dialect: compiled executables the host dispatches.

#ifndef STRATA_DIALECT_HAL_IR_HALOPS_TD
#define STRATA_DIALECT_HAL_IR_HALOPS_TD

include "mlir/IR/OpBase.td"
include "mlir/IR/SymbolInterfaces.td"

def HAL_Dialect : Dialect {
  let name = "hal";
  let cppNamespace = "::mlir::strata::hal";
  let summary = "What the hal phase hands to the vm: compiled executables.";
  let description = [{
    The hal phase (`--strata-compile-executables`) replaces the executable
    module of dispatch functions with a `hal.executable`: the kernel
    library its target backend made, in a format the runtime's
    `hal.executable.create` loads, and one `hal.executable.export` per
    dispatch function with its ordinal in the library and its grid of
    workgroups. `stream.cmd.dispatch @executable::@export` refers to them.
  }];
}

class HAL_Op<string mnemonic, list<Trait> traits = []>
    : Op<HAL_Dialect, mnemonic, traits>;

def HAL_ExecutableOp : HAL_Op<"executable", [
    IsolatedFromAbove, NoTerminator, SingleBlock, Symbol, SymbolTable]> {
  let summary = "a kernel library and its exports";
  let description = [{
    `data` holds the library's bytes (for llvm-cpu, a shared object that
    exports only the library query function of
    hal/include/strata/hal/executable_library.h), `format` names how the
    runtime loads it (`embedded-elf-x86_64`). The vm conversion stores both
    in the module's read-only data and creates the executable once per
    context.

    Example:

    ```mlir
    hal.executable @m_linked_llvm_cpu format("embedded-elf-x86_64") data("\7FELF...") {
      hal.executable.export @main_dispatch_0 ordinal(0) workgroup_count([4, 1, 1])
    }
    ```
  }];
  let arguments = (ins SymbolNameAttr:$sym_name, StrAttr:$format,
                       StrAttr:$data);
  let regions = (region SizedRegion<1>:$body);
  let assemblyFormat = [{
    $sym_name `format` `(` $format `)` `data` `(` $data `)`
    attr-dict-with-keyword $body
  }];
  let skipDefaultBuilders = 1;
  let builders = [
    OpBuilder<(ins "StringRef":$name, "StringRef":$format, "StringRef":$data)>,
  ];
}

def HAL_ExecutableExportOp : HAL_Op<"executable.export", [
    HasParent<"ExecutableOp">, Symbol]> {
  let summary = "one entry point of a kernel library";
  let description = [{
    The dispatch function `sym_name` is export `ordinal` of its library and
    runs over a grid of `workgroup_count` (x, y, z) workgroups.

    Example:

    ```mlir
    hal.executable.export @main_dispatch_0 ordinal(0) workgroup_count([4, 1, 1])
    ```
  }];
  let arguments = (ins SymbolNameAttr:$sym_name,
                       ConfinedAttr<I32Attr, [IntNonNegative]>:$ordinal,
                       DenseI32ArrayAttr:$workgroup_count);
  let assemblyFormat = [{
    $sym_name `ordinal` `(` $ordinal `)`
    `workgroup_count` `(` $workgroup_count `)` attr-dict
  }];
  let hasVerifier = 1;
}

#endif // STRATA_DIALECT_HAL_IR_HALOPS_TD
