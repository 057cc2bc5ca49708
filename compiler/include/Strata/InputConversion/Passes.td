// Passes.td - the input phase: front-end dialects to linalg/tensor/arith.

#ifndef STRATA_INPUTCONVERSION_PASSES_TD
#define STRATA_INPUTCONVERSION_PASSES_TD

include "mlir/Pass/PassBase.td"

def ConvertInputPass : Pass<"strata-convert-input", "::mlir::ModuleOp"> {
  let summary = "lower the input's front-end dialects (TOSA) to linalg, tensor and arith";
  let description = [{
    Lowers `util.unfoldable_constant` to an `arith.constant` behind a
    `util.optimization_barrier`, and `check.expect_eq_const` /
    `check.expect_almost_eq_const` to `check.expect_eq` /
    `check.expect_almost_eq` of an `arith.constant`. Detects the dialects of the input by
    itself: when the module holds TOSA
    ops, runs upstream's TOSA lowering on each function (tosa-to-linalg-named,
    tosa-to-linalg, tosa-to-arith, tosa-to-tensor, tosa-to-scf) so that the
    rest of the compiler sees only linalg, tensor, arith, math and scf. Any
    TOSA op left afterwards is an error at its location. Modules without
    TOSA are left as they are.
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect",
                           "::mlir::linalg::LinalgDialect",
                           "::mlir::math::MathDialect",
                           "::mlir::scf::SCFDialect",
                           "::mlir::strata::util::UtilDialect",
                           "::mlir::tensor::TensorDialect",
  ];
}

def InsertShapeChecksPass
    : Pass<"strata-insert-shape-checks", "::mlir::ModuleOp"> {
  let summary = "check on the host the run-time sizes and indices that ops "
                "require to be in range";
  let description = [{
    Inserts a `cf.assert` (a `FAILED_PRECONDITION` error at run time, naming
    the op, the operand and the dimension) before each op outside a linalg
    body whose correctness depends on run-time values: dynamic dimensions
    that a linalg op requires to be equal (operand dimensions indexed by the
    same loop, such as the K of both `linalg.matmul` operands, or the
    operands of an elementwise op; a `util.assert_eq`, whose message also
    gives both sizes); the offsets, sizes and (static) strides
    of `tensor.extract_slice` / `tensor.insert_slice` against the source or
    destination; and each index of a host `tensor.extract` /
    `tensor.insert` against its dimension (unsigned, so negative indices
    fail). Checks whose operands are constants fold away. Indices computed
    inside kernels are checked by the target (llvm-cpu: GuardDataIndices).
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect",
                           "::mlir::cf::ControlFlowDialect",
                           "::mlir::tensor::TensorDialect",
                           "::mlir::strata::util::UtilDialect",
  ];
}

def LowerONNXPass : Pass<"strata-lower-onnx", "::mlir::ModuleOp"> {
  let summary = "lower onnx.node ops to linalg, tensor, arith and math";
  let description = [{
    Lowers each `onnx.node` of an imported ONNX graph, in graph order, by
    the pattern registered for its op type (one per ONNX op type,
    compiler/lib/InputConversion/ONNX/*Ops.cpp). Every input of a node is
    lowered before it, so each pattern sees ranked tensors and computes its
    results' types itself. Dimensions may be dynamic (`?`) for the op types
    whose pattern says so; a node of another op type with such an input is
    refused. Shape arithmetic on dynamic dimensions (Shape, Gather, Concat,
    integer math on small vectors) stays on the host as scalars in
    `tensor.from_elements`, and the operands that decide a result's shape
    (Reshape's shape, Slice's starts, Range's limit) are read from those
    scalars, checked at run time with `cf.assert`; work on constants (shape
    subgraphs, weight preparation) folds. Unsigned ONNX
    tensors are signless values behind an `unrealized_conversion_cast` to
    their unsigned type while the pass runs. If, Loop and Scan become
    `scf.if`, `scf.for` and `scf.while` on the host: the nodes of each
    subgraph are lowered with the types of what the node passes in (a
    loop-carried value whose dimensions change between iterations is
    carried with those dimensions dynamic), and a constant If condition
    keeps only its branch. The function's results take the lowered types.
    An op type without a pattern or an unsupported attribute value is an
    error naming the node (its name, op type and opset). A result whose
    shape depends on the data (NonZero, Unique, NonMaxSuppression, Compress
    with a run-time condition) is sized by a count that kernels compute and
    the host reads back (`tensor.extract`); a count over a dynamic length
    scans in an `scf.while` on the host.
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect",
                           "::mlir::cf::ControlFlowDialect",
                           "::mlir::linalg::LinalgDialect",
                           "::mlir::math::MathDialect",
                           "::mlir::scf::SCFDialect",
                           "::mlir::strata::util::UtilDialect",
                           "::mlir::tensor::TensorDialect",
  ];
}

def PropagateTransposesPass
    : Pass<"strata-propagate-transposes", "::mlir::ModuleOp"> {
  let summary = "move linalg.transpose below elementwise ops and concats, "
                "cancelling inverse pairs";
  let description = [{
    A convolution of an NCHW model runs in NHWC (the fast layout), between
    a transpose in and a transpose out (`--strata-lower-onnx`). This pass
    moves each transpose below the elementwise `linalg.generic` ops
    (activations, bias and residual adds) and `tensor.concat` ops that
    consume it, computing them in the untransposed layout, until it meets
    the next convolution's inverse transpose and both vanish: activations
    stay NHWC between layers, with one transpose at each end of the graph.
    Splat constants and broadcast operands move along; an elementwise op
    with another full-rank operand that is not a transpose by the same
    permutation stops the motion.
  }];
  let dependentDialects = [
    "::mlir::arith::ArithDialect",
    "::mlir::linalg::LinalgDialect",
    "::mlir::tensor::TensorDialect",
  ];
}

def LowerPackUnpackPass : Pass<"strata-lower-pack-unpack", "::mlir::ModuleOp"> {
  let summary = "rewrite linalg.pack and linalg.unpack as index-computing "
                "linalg.generic ops";
  let description = [{
    Each `linalg.pack` becomes a `linalg.generic` over its destination that
    reads its source element by element (`tensor.extract` at the packed
    position: outer index times the tile size plus the inner index, with
    `outer_dims_perm` applied) and yields the padding value where that
    position is past the source's end; each `linalg.unpack` the generic
    over its destination that reads the packed element (division and
    remainder by the tile size). Static and dynamic inner tiles alike: the
    result is an ordinary dispatch, tiled and distributed like any
    elementwise op.

    ```mlir
    %p = linalg.pack %a padding_value(%pad : f32) inner_dims_pos = [0, 1]
        inner_tiles = [2, 3] into %e : tensor<5x7xf32> -> tensor<3x3x2x3xf32>
    ```
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect",
                           "::mlir::linalg::LinalgDialect",
                           "::mlir::tensor::TensorDialect",
  ];
}

#endif // STRATA_INPUTCONVERSION_PASSES_TD
