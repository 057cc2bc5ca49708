// StreamOps.td - the stream dialect: submissions, bindings, timepoints.

#ifndef STRATA_DIALECT_STREAM_IR_STREAMOPS_TD
#define STRATA_DIALECT_STREAM_IR_STREAMOPS_TD

include "mlir/IR/AttrTypeBase.td"
include "mlir/IR/BuiltinAttributeInterfaces.td"
include "mlir/IR/OpBase.td"
include "mlir/IR/SymbolInterfaces.td"
include "mlir/Interfaces/SideEffectInterfaces.td"
include "Strata/Dialect/HAL/IR/HALBase.td"

def Stream_Dialect : Dialect {
  let name = "stream";
  let cppNamespace = "::mlir::strata::stream";
  let summary = "How dispatches are submitted: execute regions, bindings, "
                "timepoints and allocations.";
  let description = [{
    The schedule of a host program (`--strata-schedule-execution` writes
    it from the flow phase's dispatch calls): each group of dispatches is
    one `stream.cmd.execute` (one submission) that awaits a timepoint and
    signals its own; each dispatch binds ranges of resources (host tensors
    imported as resources, fresh allocations, a transient slab, constant
    data); execution barriers order the dispatches of a submission; the
    host awaits a timepoint only before it reads what the work produced.
    Work goes to the context's device; a caller's fences are `!hal.fence`.
    The hal phase (`--strata-convert-stream-to-hal`) translates each op on
    its own into hal ops.
  }];
  let useDefaultTypePrinterParser = 1;
  let dependentDialects = ["::mlir::strata::hal::HALDialect"];
}

class Stream_Type<string name, string typeMnemonic, string summaryText>
    : TypeDef<Stream_Dialect, name> {
  let mnemonic = typeMnemonic;
  let summary = summaryText;
}

def Stream_Timepoint : Stream_Type<"Timepoint", "timepoint",
    "a point on the device's timeline (a fence at run time)">;
def Stream_Resource : Stream_Type<"Resource", "resource",
    "device-visible memory (a hal.buffer at run time)">;

class Stream_Op<string mnemonic, list<Trait> traits = []>
    : Op<Stream_Dialect, mnemonic, traits>;

//===----------------------------------------------------------------------===//
// Context and resources
//===----------------------------------------------------------------------===//

def Stream_ResourceAllocOp : Stream_Op<"resource.alloc", [
    MemoryEffects<[MemAlloc]>]> {
  let summary = "memory for a dispatch result that outlives its submission";
  let description = [{
    `size` bytes from the device's allocator, 64-byte aligned, contents
    unspecified: the dispatch that binds it writes every byte before
    anything reads it.

    Example:

    ```mlir
    %r = stream.resource.alloc %c64 : !stream.resource
    ```
  }];
  let arguments = (ins Index:$size);
  let results = (outs Stream_Resource:$result);
  let assemblyFormat = "$size attr-dict `:` type($result)";
}

def Stream_ResourceAllocaOp : Stream_Op<"resource.alloca", [
    MemoryEffects<[MemAlloc]>]> {
  let summary = "the transient slab of a block of host code";
  let description = [{
    One allocation for the intermediates of a block's submissions: results
    that only later dispatches of the block read, each at its own 64-byte
    aligned offset. No host value views it. `size` is computed on the host
    from the memory plan: a constant when every transient has a static
    shape, else index arithmetic over the dynamic sizes, evaluated per
    call.

    Example:

    ```mlir
    %c128 = arith.constant 128 : index
    %slab = stream.resource.alloca %c128 : !stream.resource
    ```
  }];
  let arguments = (ins Index:$size);
  let results = (outs Stream_Resource:$result);
  let assemblyFormat = "$size attr-dict `:` type($result)";
}

def Stream_ResourceConstantOp : Stream_Op<"resource.constant", [
    Pure, ConstantLike]> {
  let summary = "constant data used in place";
  let description = [{
    A constant tensor kept on the host (a model's weights): stored once in
    the module's read-only data and bound to dispatches in place, without
    a copy.

    Example:

    ```mlir
    %w = stream.resource.constant dense<[1.0, 2.0]> : tensor<2xf32> -> !stream.resource
    ```
  }];
  let arguments = (ins ElementsAttr:$value);
  let results = (outs Stream_Resource:$result);
  let assemblyFormat = "$value attr-dict `->` type($result)";
  let hasVerifier = 1;
}

def Stream_ResourceSizeOp : Stream_Op<"resource.size", [Pure]> {
  let summary = "the length of a resource in bytes";
  let description = [{
    Example:

    ```mlir
    %n = stream.resource.size %r : !stream.resource
    ```
  }];
  let arguments = (ins Stream_Resource:$resource);
  let results = (outs Index:$size);
  let assemblyFormat = "$resource attr-dict `:` type($resource)";
}

def Stream_TensorImportOp : Stream_Op<"tensor.import", [Pure]> {
  let summary = "the resource that holds a host tensor";
  let description = [{
    The memory behind a host tensor (the buffer of a hal.buffer_view), for
    a dispatch to bind.

    Example:

    ```mlir
    %r = stream.tensor.import %t : tensor<4xf32> -> !stream.resource
    ```
  }];
  let arguments = (ins AnyRankedTensor:$source);
  let results = (outs Stream_Resource:$result);
  let assemblyFormat =
      "$source attr-dict `:` type($source) `->` type($result)";
}

def Stream_TensorExportOp : Stream_Op<"tensor.export", [Pure]> {
  let summary = "a host tensor over a range of a resource";
  let description = [{
    A tensor of the result type (its dynamic dimensions given in order)
    whose bytes are `[offset, offset + length)` of `source`, row-major.
    It describes memory; its contents are valid once the timepoint of the
    work that writes them is reached.

    Example:

    ```mlir
    %t = stream.tensor.export %r[%c0, %c16] : !stream.resource -> tensor<?x4xf32>{%n}
    ```
  }];
  let arguments = (ins Stream_Resource:$source, Index:$offset, Index:$length,
                       Variadic<Index>:$dynamic_dims);
  let results = (outs AnyRankedTensor:$result);
  let assemblyFormat = [{
    $source `[` $offset `,` $length `]` attr-dict `:` type($source) `->`
    type($result) (`{` $dynamic_dims^ `}`)?
  }];
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Submissions
//===----------------------------------------------------------------------===//

def Stream_CmdExecuteOp : Stream_Op<"cmd.execute", [
    SingleBlock, NoTerminator, RecursiveMemoryEffects]> {
  let summary = "one submission: commands run after a timepoint";
  let description = [{
    Records the commands of its region (`stream.cmd.dispatch`,
    `stream.cmd.barrier`) into one command buffer and submits it to the
    context's device. The work starts once `await` is reached (at once without
    it) and the result, a new timepoint, is reached when all of it is
    done (or failed with the error). Dispatches between barriers may run
    at the same time. Everything the commands bind is computed before.

    Example:

    ```mlir
    %tp = stream.cmd.execute await(%prev) {
      stream.cmd.dispatch @exe::@d0 bindings(%a[%c0, %c16], %slab[%c0, %c16])
      stream.cmd.barrier
      stream.cmd.dispatch @exe::@d1 bindings(%slab[%c0, %c16], %b[%c0, %c16])
    }
    ```
  }];
  let arguments = (ins Optional<Stream_Timepoint>:$await_timepoint);
  let results = (outs Stream_Timepoint:$result);
  let regions = (region SizedRegion<1>:$body);
  let assemblyFormat = [{
    (`await` `(` $await_timepoint^ `)`)? $body attr-dict
  }];
  let hasVerifier = 1;
  let skipDefaultBuilders = 1;
  let builders = [
    OpBuilder<(ins "Value":$awaitTimepoint)>,
  ];
}

def Stream_CmdDispatchOp : Stream_Op<"cmd.dispatch", [
    HasParent<"CmdExecuteOp">, AttrSizedOperandSegments]> {
  let summary = "one dispatch of an executable export";
  let description = [{
    Runs the export `entry_point` (`@executable::@export`) with the scalar
    `constants` (push constants, in the order of the export's scalar
    arguments) and one binding per tensor argument then result of the
    export: a range `[offset, offset + length)` of a resource, in bytes.
    The grid of workgroups is the export's. With `if(%nonempty)` (an i1
    computed on the host from the results' dynamic sizes), the dispatch is
    recorded with no workgroups when it is false: every result is empty,
    so there is nothing to write, and the device never launches it.

    Example:

    ```mlir
    stream.cmd.dispatch @exe::@rows(%n : index)
        bindings(%in[%c0, %len], %out[%c0, %len]) if(%nonempty)
    ```
  }];
  let arguments = (ins SymbolRefAttr:$entry_point, Variadic<AnyType>:$constants,
      Variadic<Stream_Resource>:$resources, Variadic<Index>:$offsets,
      Variadic<Index>:$lengths, Optional<I1>:$enabled);
  let assemblyFormat = [{
    $entry_point (`(` $constants^ `:` type($constants) `)`)?
    `bindings` `(` custom<Bindings>($resources, $offsets, $lengths) `)`
    (`if` `(` $enabled^ `)`)?
    attr-dict
  }];
  let hasVerifier = 1;
}

def Stream_CmdBarrierOp : Stream_Op<"cmd.barrier", [
    HasParent<"CmdExecuteOp">]> {
  let summary = "the dispatches before it finish before those after start";
  let description = [{
    An execution barrier: needed before a dispatch that reads what an
    earlier one of the same submission writes.

    Example:

    ```mlir
    stream.cmd.barrier
    ```
  }];
  let assemblyFormat = "attr-dict";
}

//===----------------------------------------------------------------------===//
// Timepoints
//===----------------------------------------------------------------------===//

def Stream_TimepointImmediateOp : Stream_Op<"timepoint.immediate", [Pure]> {
  let summary = "a timepoint that is already reached";
  let description = [{
    Example:

    ```mlir
    %tp = stream.timepoint.immediate : !stream.timepoint
    ```
  }];
  let results = (outs Stream_Timepoint:$result);
  let assemblyFormat = "attr-dict `:` type($result)";
}

def Stream_TimepointAwaitOp : Stream_Op<"timepoint.await", [
    AllTypesMatch<["resource_operands", "results"]>,
    MemoryEffects<[MemWrite]>]> {
  let summary = "the host waits for a timepoint";
  let description = [{
    Blocks the invocation (or suspends it, on an async host) until
    `timepoint` is reached, then returns its operands: the values produced
    by the work it waits for, now safe to read on the host. A failed
    timepoint fails the invocation with its error.

    Example:

    ```mlir
    %ready:2 = stream.timepoint.await %tp ready(%a, %b : tensor<4xf32>, tensor<4xf32>)
    ```
  }];
  let arguments = (ins Stream_Timepoint:$timepoint,
                       Variadic<AnyType>:$resource_operands);
  let results = (outs Variadic<AnyType>:$results);
  let assemblyFormat = [{
    $timepoint (`ready` `(` $resource_operands^ `:` type($resource_operands)
    `)`)? attr-dict
  }];
}

def Stream_TimepointImportOp : Stream_Op<"timepoint.import", [Pure]> {
  let summary = "a timepoint from a caller's fence";
  let description = [{
    The timepoint a caller's wait fence stands for; a null fence is
    reached already.

    Example:

    ```mlir
    %tp = stream.timepoint.import %wait : !hal.fence
    ```
  }];
  let arguments = (ins HAL_Fence:$fence);
  let results = (outs Stream_Timepoint:$result);
  let assemblyFormat = "$fence attr-dict `:` type($fence)";
}

def Stream_TimepointChainExternalOp
    : Stream_Op<"timepoint.chain_external", [
        MemoryEffects<[MemWrite]>]> {
  let summary = "signals a caller's fence once a timepoint is reached";
  let description = [{
    Hands the work of an async-external function to its caller: `fence` is
    signaled once `timepoint` is reached (or failed with its error),
    without the host waiting. Without a timepoint it is signaled now.

    Example:

    ```mlir
    stream.timepoint.chain_external await(%tp) signal(%fence)
    stream.timepoint.chain_external signal(%fence)
    ```
  }];
  let arguments = (ins Optional<Stream_Timepoint>:$timepoint,
                       HAL_Fence:$fence);
  let assemblyFormat = [{
    (`await` `(` $timepoint^ `)`)? `signal` `(` $fence `)` attr-dict
  }];
}

#endif // STRATA_DIALECT_STREAM_IR_STREAMOPS_TD
