// HALOps.td - the hal ops written by hand: compiled executables, their
// lookup, and the bridges between host tensors and buffer views. The ops of
// the hal module's functions are generated (HALImportOps.td).

#ifndef STRATA_DIALECT_HAL_IR_HALOPS_TD
#define STRATA_DIALECT_HAL_IR_HALOPS_TD

include "Strata/Dialect/HAL/IR/HALBase.td"
include "mlir/IR/SymbolInterfaces.td"
include "mlir/Interfaces/SideEffectInterfaces.td"

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

def HAL_ExecutableVariantOp
    : HAL_Op<"executable.variant", [HasParent<"ExecutableOp">]> {
  let summary = "another build of a kernel library, for a lesser CPU";
  let description = [{
    A multi-ISA module (`--target-cpu` a list, `x86-64-multi`) compiles its
    executable once per CPU: the enclosing `hal.executable`'s `format` and
    `data` are the first (best) CPU's library, and each
    `hal.executable.variant` is the next one, in order. Every variant has
    the executable's exports with the same ordinals and grids (the compiler
    checks it). The vm conversion stores each library in the module's
    read-only data (equal bytes once) and loads, once per context, the
    first one the host can run (`hal.executable.create_first`). `target`
    is the CPU it was compiled for.

    Example:

    ```mlir
    hal.executable @m format("embedded-elf-x86_64") data("\7FELF...") {
      hal.executable.variant target("x86-64-v3") format("embedded-elf-x86_64") data("\7FELF...")
      hal.executable.export @main_dispatch_0 ordinal(0) workgroup_count([4, 1, 1])
    }
    ```
  }];
  let arguments = (ins StrAttr:$target, StrAttr:$format, StrAttr:$data);
  let assemblyFormat = [{
    `target` `(` $target `)` `format` `(` $format `)` `data` `(` $data `)`
    attr-dict
  }];
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

def HAL_ExecutableLookupOp : HAL_Op<"executable.lookup", [
    Pure, DeclareOpInterfaceMethods<SymbolUserOpInterface>]> {
  let summary = "the loaded form of a hal.executable";
  let description = [{
    The executable `hal.executable @name` as the runtime loaded it (once
    per context, when the context is made: a bad library fails there).

    Example:

    ```mlir
    %exe = hal.executable.lookup @m_linked_llvm_cpu : !hal.executable
    ```
  }];
  let arguments = (ins FlatSymbolRefAttr:$executable);
  let results = (outs HAL_Executable:$result);
  let assemblyFormat = "$executable attr-dict `:` type($result)";
}

def HAL_FenceImmediateOp : HAL_Op<"fence.immediate", [Pure]> {
  let summary = "a fence that is already reached";
  let description = [{
    Null at run time: every hal function that waits on a fence skips a
    null one.

    Example:

    ```mlir
    %f = hal.fence.immediate : !hal.fence
    ```
  }];
  let results = (outs HAL_Fence:$result);
  let assemblyFormat = "attr-dict `:` type($result)";
}

def HAL_TensorExportOp : HAL_Op<"tensor.export", [Pure]> {
  let summary = "the buffer view a host tensor is";
  let description = [{
    Host tensors are buffer views at run time; this names one as such, so
    hal ops can take it. The vm conversion drops it.

    Example:

    ```mlir
    %view = hal.tensor.export %t : tensor<?x4xf32> -> !hal.buffer_view
    ```
  }];
  let arguments = (ins AnyRankedTensor:$source);
  let results = (outs HAL_BufferView:$result);
  let assemblyFormat =
      "$source attr-dict `:` type($source) `->` type($result)";
}

def HAL_TensorImportOp : HAL_Op<"tensor.import", [Pure]> {
  let summary = "a host tensor over a buffer view";
  let description = [{
    The host tensor a buffer view is, with the dynamic dimensions it was
    created with (in order). The vm conversion drops it.

    Example:

    ```mlir
    %t = hal.tensor.import %view : !hal.buffer_view -> tensor<?x4xf32>{%n}
    ```
  }];
  let arguments = (ins HAL_BufferView:$source, Variadic<Index>:$dynamic_dims);
  let results = (outs AnyRankedTensor:$result);
  let assemblyFormat = [{
    $source attr-dict `:` type($source) `->` type($result)
    (`{` $dynamic_dims^ `}`)?
  }];
  let hasVerifier = 1;
}

#endif // STRATA_DIALECT_HAL_IR_HALOPS_TD
