// Passes.td - the flow phase: tensor programs into dispatches.

#ifndef STRATA_DIALECT_FLOW_TRANSFORMS_PASSES_TD
#define STRATA_DIALECT_FLOW_TRANSFORMS_PASSES_TD

include "mlir/Pass/PassBase.td"

def FormDispatchesPass : Pass<"strata-form-dispatches", "::mlir::ModuleOp"> {
  let summary = "fuse elementwise ops, then outline each dispatch into the executable";
  let description = [{
    Moves every tensor computation of the module's functions into dispatch
    functions, leaving the host functions with calls and tensor values:

    1. Elementwise named ops are generalized and producer/consumer
       elementwise linalg ops are fused (upstream
       `populateElementwiseOpsFusionPatterns`, for producers with one use).
    2. Each remaining tensor op (the root: a linalg op, or any other tensor
       op such as `tensor.concat`) becomes one dispatch, together with the
       ops that are cheaper to recompute than to pass (`tensor.empty`,
       `arith.constant` of scalars, splats or at most 256 bytes
       (`kMaxInlinedConstantBytes`), and `linalg.fill` feeding the root's
       outputs) and
       a linalg producer whose only use is the root, an elementwise generic
       reading its whole result in the same layout (matmul + bias + relu
       is one dispatch, named after the matmul).
    3. The dispatch is outlined into a public function of the module of
       one `flow.executable @<module>_linked_llvm_cpu`, named after where
       it comes from and what it does:
       `main_dispatch_0_matmul_64x32x16_f32`. The host calls it with
       `flow.dispatch @<module>_linked_llvm_cpu::@<function>`.
    4. Dispatches with the same body share one function.

    Larger constant tensors (weights) stay on the host and are passed to
    the dispatch like any other tensor, so they are stored once (in the
    module's rodata, bound in place) rather than in every dispatch's code.

    Scalars the dispatch reads from the host (index, i1..i64, f32, f64)
    become arguments after its tensors; the host passes them as push
    constants. Dimensions may be dynamic: after the scalars come the sizes
    of every dynamic dimension of each tensor argument, then of each
    result, in order. The host computes them before the call, from the
    buffer views of host tensors (`tensor.dim`) or from what the dispatch
    computes its results from (a `tensor.empty`'s sizes, a destination's).

    Example:

    ```mlir
    func.func @main(%a: tensor<4xf32>, %b: tensor<4xf32>) -> tensor<4xf32> {
      %e = tensor.empty() : tensor<4xf32>
      %0 = linalg.add ins(%a, %b : tensor<4xf32>, tensor<4xf32>)
                      outs(%e : tensor<4xf32>) -> tensor<4xf32>
      return %0 : tensor<4xf32>
    }
    // becomes
    func.func @main(%a: tensor<4xf32>, %b: tensor<4xf32>) -> tensor<4xf32> {
      %0 = flow.dispatch @m_linked_llvm_cpu::@main_dispatch_0_elementwise_4_f32(%a, %b)
          : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
      return %0 : tensor<4xf32>
    }
    ```
  }];
  let options =
      [Option<"im2colConvolutions", "im2col-convolutions", "bool",
              /*default=*/"true",
              "rewrite static f32 NHWC convolutions as an im2col dispatch and "
              "a matmul (for targets without a convolution microkernel; "
              "strata-compile turns it off when the target has one)">,
       Option<"im2colMinWork", "im2col-min-work", "int64_t",
              /*default=*/"0",
              "the fewest multiply-adds of a convolution made an im2col "
              "matmul: the target's smallest matmul tile work "
              "(TargetBackend::minMatmulTileWork; 0: any size)">,
       Option<"im2colDynamicBatch", "im2col-dynamic-batch", "bool",
              /*default=*/"false",
              "also rewrite convolutions whose batch (alone) is dynamic, "
              "their work estimated at batch 1 "
              "(TargetBackend::im2colDynamicBatch)">,
       Option<"fuseIntoConcat", "fuse-into-concat", "bool",
              /*default=*/"false",
              "compute a static concatenation's convolution operands (and "
              "their epilogues) in its dispatch, each written in place into "
              "its slice of the result (TargetBackend::"
              "writesConcatOperandsInPlace)">,
       Option<"fuseIntoPool", "fuse-into-pool", "bool",
              /*default=*/"false",
              "compute a large convolution (and its epilogue) read only by a "
              "max pool in the pool's dispatch, band by band "
              "(TargetBackend::fusesConvolutionIntoPool)">,
       Option<"fuseIntoDepthwise", "fuse-into-depthwise", "bool",
              /*default=*/"false",
              "compute a large convolution (and its epilogue) read only by a "
              "depthwise convolution in that convolution's dispatch, band by "
              "band (TargetBackend::fusesConvolutionIntoDepthwise)">,
       Option<"fuseIntoProjection", "fuse-into-projection", "bool",
              /*default=*/"false",
              "compute a large depthwise convolution (and its epilogue) read "
              "only by a 1x1 convolution in that convolution's dispatch, "
              "band by band (TargetBackend::fusesDepthwiseIntoProjection)">,
  ];
  let dependentDialects = [
    "::mlir::strata::flow::FlowDialect",
    "::mlir::func::FuncDialect",
    "::mlir::linalg::LinalgDialect",
    "::mlir::tensor::TensorDialect",
  ];
}

def SplitSlicedResultsPass
    : Pass<"strata-split-sliced-results", "::mlir::ModuleOp"> {
  let summary = "compute a result read only in disjoint slices slice by slice";
  let description = [{
    A value whose uses are all `tensor.extract_slice` ops taking disjoint
    parts of one dimension (and the whole of the others) is computed part
    by part, when every op of the chain that computes it can be: an
    elementwise linalg op (a generic, `linalg.add`, a transpose: its
    operands sliced along the same loop), a `linalg.matmul`'s columns, an
    `expand_shape` or `collapse_shape` on a dimension whose group is
    otherwise 1, each read by nothing else, down to constants (sliced at
    compile time), `tensor.empty` and `linalg.fill`. Otherwise the chain
    is left as it is: a slice of a run-time value would be a copy.

    An attention's query, key and value projection (one matmul of 3 * D
    columns, its bias, three slices) becomes three matmuls of D columns,
    each on its third of the weight, and nothing is copied:

    ```mlir
    %m = linalg.matmul ins(%x, %w : tensor<128x256xf32>, tensor<256x768xf32>)
           outs(%fill : tensor<128x768xf32>) -> tensor<128x768xf32>
    %q = tensor.extract_slice %m[0, 0] [128, 256] [1, 1]
    %k = tensor.extract_slice %m[0, 256] [128, 256] [1, 1]
    // becomes
    %wq = arith.constant dense<...> : tensor<256x256xf32>  // columns 0..255
    %q = linalg.matmul ins(%x, %wq : tensor<128x256xf32>, tensor<256x256xf32>)
           outs(%fillq : tensor<128x256xf32>) -> tensor<128x256xf32>
    ...
    ```
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect",
                           "::mlir::linalg::LinalgDialect",
                           "::mlir::tensor::TensorDialect",
  ];
}

def PackWeightsPass : Pass<"strata-pack-weights", "::mlir::ModuleOp"> {
  let summary = "store constant matmul and convolution weights in the "
                "microkernel's panel layout";
  let description = [{
    A constant right-hand operand of an f32 `linalg.matmul` (K x N) or
    `linalg.conv_2d_nhwc_hwcf` filter (KH x KW x C x F, read as the
    (KH * KW * C) x F matrix) is rewritten, at compile time, into the
    layout the target's matmul microkernel reads: panels of
    `panel-columns` (NR) columns, each its whole depth k-major.

    ```mlir
    %w = arith.constant dense<...> : tensor<3x3x64x128xf32>
    // becomes
    %p = arith.constant dense<...> : tensor<4x3x3x64x32xf32>  // NR = 32
    %t = linalg.transpose ins(%p) outs(%e : tensor<3x3x64x4x32xf32>)
           permutation = [1, 2, 3, 0, 4]
    %w = tensor.collapse_shape %t [[0], [1], [2], [3, 4]]
           : tensor<3x3x64x4x32xf32> into tensor<3x3x64x128xf32>
    ```

    The program means the same; dispatch formation puts the transpose and
    the reshape into the consumer's dispatch, whose code generator hands
    the packed constant to the microkernel (`STRATA_SGEMM_PACKED_B`), so
    the weight is neither transposed nor packed at run time. When N is
    not a multiple of NR the last panel is padded with zero columns and a
    `tensor.extract_slice` takes the first N columns. Only operands of
    products the code generator cuts into microkernel tiles (at least
    `min-work` multiply-adds, TargetBackend::minMatmulTileWork) are
    packed. A matmul's rows may be dynamic (a batch or a sequence: its
    work is weighed per tile of 64 rows), and so may a convolution's batch
    (weighed per image); the weight itself is static. `panel-columns=0`
    (the default; targets without a microkernel) does nothing.

    The constant i8 weight (K x N) of an i8 x i8 -> i32 `linalg.matmul`
    (a quantized layer's contraction) is packed likewise for the int8
    microkernel (`int8-panel-columns` NR, `int8-depth-group` KG; 0: not
    packed): panel p holds columns [p * NR, p * NR + NR), depth group g
    of column j at byte ((p * G + g) * NR + j) * KG + t, zeros past K and
    N. G is the groups of K rounded up to a multiple of
    `int8-depth-multiple` (AMX tiles read 64 of depth at a time: the
    padding is zeros in the constant, not a copy at run time).

    ```mlir
    %w = arith.constant dense<...> : tensor<4608x512xi8>
    // becomes (NR = 32, KG = 4)
    %p = arith.constant dense<...> : tensor<16x1152x32x4xi8>
    %t = linalg.transpose ins(%p) outs(%e : tensor<1152x4x16x32xi8>)
           permutation = [1, 3, 0, 2]
    %w = tensor.collapse_shape %t [[0, 1], [2, 3]]
           : tensor<1152x4x16x32xi8> into tensor<4608x512xi8>
    ```

    The microkernel reads the panels in place (`STRATA_IGEMM_PACKED_B`);
    the column sums its `vpdpbusd` correction needs are computed from
    them once per call.

    With `winograd`, the constant 3x3 x C x F filter of a stride-1,
    dilation-1 f32 `linalg.conv_2d_nhwc_hwcf` whose output is at least
    8x8, C at least 16 and F at least 32, is stored instead as its
    Winograd F(4x4, 3x3) transform U = G g G^T (6 x 6 x C x F, packed in
    panels as above) and read back through a `linalg.generic` computing
    g = L U L^T (L a left inverse of G) that carries the Winograd marker
    (PackedWeightLayout.h, WinogradFilter):

    ```mlir
    %p = arith.constant dense<...> : tensor<2x6x6x64x32xf32>
    %t = linalg.transpose ins(%p) outs(%e : tensor<6x6x64x2x32xf32>)
           permutation = [1, 2, 3, 0, 4]
    %u = tensor.collapse_shape %t [[0], [1], [2], [3, 4]]
           : tensor<6x6x64x2x32xf32> into tensor<6x6x64x64xf32>
    %g = linalg.generic {strata.winograd_filter = {output_tile = 4}, ...}
           ins(%l, %l, %u : tensor<3x6xf32>, tensor<3x6xf32>,
               tensor<6x6x64x64xf32>) outs(%zero : tensor<3x3x64x64xf32>)
    ```

    The target's convolution kernel then reads U and runs the convolution
    by Winograd's algorithm. A transform larger than 10 MiB (512 -> 512
    channels: 36 MiB, read from memory by every call), and a convolution
    whose result a concatenation, pooling or depthwise convolution reads
    (the code generator cuts those into bands of a row or a few), keep
    their filter.
  }];
  let options =
      [Option<"panelColumns", "panel-columns", "int64_t", /*default=*/"0",
              "columns per panel of the target's matmul microkernel (NR); "
              "0 leaves weights as they are">,
       Option<"minWork", "min-work", "int64_t", /*default=*/"0",
              "the fewest multiply-adds of a product whose weight is packed: "
              "the target's smallest microkernel tile work (0: any size)">,
       Option<"winograd", "winograd", "bool", /*default=*/"false",
              "store the filters of 3x3 stride-1 convolutions as their "
              "Winograd F(4x4, 3x3) transforms (the target's convolution "
              "kernel reads those)">,
       Option<"int8PanelColumns", "int8-panel-columns", "int64_t",
              /*default=*/"0",
              "columns per panel of the target's int8 matmul microkernel; 0 "
              "leaves int8 weights as they are">,
       Option<"int8DepthGroup", "int8-depth-group", "int64_t", /*default=*/"0",
              "depth steps per 32-bit lane of the int8 microkernel (4: "
              "vpdpbusd, 2: vpmaddwd)">,
       Option<"int8DepthMultiple", "int8-depth-multiple", "int64_t",
              /*default=*/"0",
              "the packed int8 depth is padded with zeros to a multiple of "
              "this (64: AMX tiles); 0: of the depth group">,
  ];
  let dependentDialects = ["::mlir::arith::ArithDialect",
                           "::mlir::linalg::LinalgDialect",
                           "::mlir::tensor::TensorDialect",
  ];
}

#endif // STRATA_DIALECT_FLOW_TRANSFORMS_PASSES_TD
