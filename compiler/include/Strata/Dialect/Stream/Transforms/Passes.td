// Passes.td - the stream phase: dispatches scheduled into submissions.

#ifndef STRATA_DIALECT_STREAM_TRANSFORMS_PASSES_TD
#define STRATA_DIALECT_STREAM_TRANSFORMS_PASSES_TD

include "mlir/Pass/PassBase.td"

def ScheduleExecutionPass
    : Pass<"strata-schedule-execution", "::mlir::ModuleOp"> {
  let summary = "group the dispatch calls of the host into submissions";
  let description = [{
    Rewrites each call of a dispatch (a declaration marked `strata.dispatch`
    by `--strata-form-dispatches`) into stream IR, block by block:

    - Consecutive dispatch calls of a block form one group (scalar host
      ops, `tensor.dim` and static reshapes may sit between them; any
      other op that touches a tensor, has effects or holds regions ends
      the group). A group is one `stream.cmd.execute`: one submission
      that signals a timepoint.
    - A `stream.cmd.barrier` goes before a dispatch that reads what an
      earlier dispatch of its group writes, directly or through a reshape
      (a view of the same memory).
    - A dispatch whose results are all empty is not launched: it is left
      out when they are empty at compile time, and carries
      `if(%nonempty)` (computed from the results' dynamic sizes) when they
      may be empty at run time.
    - Results that only later dispatches of their block read (in their own
      group or a later one) live in the block's transient slab
      (`stream.resource.alloca` where the block's first group starts, each
      at a 64-byte aligned offset) and have no host tensor. A block nested
      in an op (a loop body, a branch) keeps its transients (static shapes
      only) in one place of the enclosing block's slab, held while the op
      runs. The slab is sized by lifetime: a result takes the place of an
      earlier one whose last reader a barrier, the start of a later group
      or a nested op separates from the result's dispatch. In a block of
      the function's body, results with dynamic sizes are transient too
      when their sizes can be computed where the slab is made (scalar host
      ops that compute them move there, or are cloned there when they
      divide): the plan is then symbolic,
      host index arithmetic that places each result just past the ends of
      the results it sits on in a layout made with estimated sizes, and
      computes the slab's size, once per call. Other
      results get their own `stream.resource.alloc` and become host
      tensors (`stream.tensor.export`); host tensors a dispatch reads are
      bound through `stream.tensor.import`, constant tensors through
      `stream.resource.constant` (in place).
    - The groups of a block form a chain: each submission awaits the
      previous group's timepoint, and the host awaits
      (`stream.timepoint.await`, which returns the values it makes safe to
      read) only before the first op that needs results: one that reads a
      tensor other than its shape, holds regions that touch tensors, or
      ends the block.

    With `async-exports`, each public function with tensors in its
    signature also gets an async-external twin `<name>$async`: two
    `!hal.fence` arguments follow the others, a wait fence (imported as
    the timepoint its first submission awaits) and a signal fence, which
    its returns chain the pending work to (`stream.timepoint.chain_external`)
    instead of waiting.

    Example:

    ```mlir
    %0 = call @d0(%a) : (tensor<4xf32>) -> tensor<4xf32>
    %1 = call @d1(%0) : (tensor<4xf32>) -> tensor<4xf32>
    return %1 : tensor<4xf32>
    // becomes
    %slab = stream.resource.alloca %c64 : !stream.resource
    %in = stream.tensor.import %a : tensor<4xf32> -> !stream.resource
    %out = stream.resource.alloc %c16 : !stream.resource
    %1 = stream.tensor.export %out[%c0, %c16] : !stream.resource -> tensor<4xf32>
    %tp = stream.cmd.execute {
      stream.cmd.dispatch @exe::@d0 bindings(%in[%c0, %c16], %slab[%c0, %c16])
      stream.cmd.barrier
      stream.cmd.dispatch @exe::@d1 bindings(%slab[%c0, %c16], %out[%c0, %c16])
    }
    %ready = stream.timepoint.await %tp ready(%1 : tensor<4xf32>)
    return %ready : tensor<4xf32>
    ```
  }];
  let options =
      [Option<"asyncExports", "async-exports", "bool", /*default=*/"false",
              "also export <name>$async(args..., wait fence, signal fence) for "
              "each public function with tensors in its signature">,
       Option<
           "dynamicTransients", "dynamic-transients", "bool",
           /*default=*/"true",
           "plan results with dynamic sizes in the slab (the symbolic plan); "
           "false gives each its own allocation, as results with static "
           "sizes never are (for comparisons)">,
  ];
  let dependentDialects = [
    "::mlir::strata::stream::StreamDialect",
    "::mlir::arith::ArithDialect",
  ];
}

#endif // STRATA_DIALECT_STREAM_TRANSFORMS_PASSES_TD
