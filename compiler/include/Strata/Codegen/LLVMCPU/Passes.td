// Passes.td - the llvm-cpu code generator's steps as passes, so that lit
// tests (strata-opt) can run each one alone. compileExecutable runs the same
// functions (Codegen.h) in this order.

#ifndef STRATA_CODEGEN_LLVMCPU_PASSES_TD
#define STRATA_CODEGEN_LLVMCPU_PASSES_TD

include "mlir/Pass/PassBase.td"

def LLVMCPUVerifyInputPass
    : Pass<"strata-llvmcpu-verify-input", "::mlir::ModuleOp"> {
  let summary = "check the llvm-cpu target's input contract";
  let description = [{
    Every public `func.func` is an export: it must take and return ranked
    tensors of static shape whose elements are i1, i8, i16, i32, i64, f32 or
    f64, and the types inside its body must be static too. Each violation is
    an error at its op. Records `strata.input_count` and
    `strata.result_count` on each export (its bindings).

    Example of an error:

    ```mlir
    // error: argument 0 of type 'tensor<?xf32>' has a dynamic shape
    func.func @f(%a: tensor<?xf32>) -> tensor<?xf32>
    ```
  }];
}

def LLVMCPUTileAndDistributePass
    : Pass<"strata-llvmcpu-tile-and-distribute", "::mlir::ModuleOp"> {
  let summary = "tile each export's root op into one scf.forall of workgroups";
  let description = [{
    Decomposes aggregate ops, inlines private helpers and fuses elementwise
    ops, then tiles the outermost one or two parallel loops of the linalg op
    producing the export's results into an `scf.forall` whose iterations are
    the workgroups, fusing its producers into the loop. Tiles aim at 16 KiB
    of work and at most 1024 workgroups; reductions are not split.

    Example:

    ```mlir
    %r = linalg.matmul ins(%a, %b : tensor<64x16xf32>, tensor<16x32xf32>) ...
    // becomes
    %r = scf.forall (%i) = (0) to (64) step (8) shared_outs(%o = %e) ... {
      // fill and matmul of rows [%i, %i + 8)
    }
    ```
  }];
  let dependentDialects = [
    "::mlir::affine::AffineDialect", "::mlir::arith::ArithDialect",
    "::mlir::linalg::LinalgDialect", "::mlir::scf::SCFDialect",
    "::mlir::tensor::TensorDialect"
  ];
}

def LLVMCPUBufferizePass
    : Pass<"strata-llvmcpu-bufferize", "::mlir::ModuleOp"> {
  let summary = "bufferize the exports; results become out-parameters";
  let description = [{
    `eliminate-empty-tensors`, one-shot bufferization across function
    boundaries with identity layouts, then
    `buffer-results-to-out-params{hoist-static-allocs}`: each export becomes
    `(memref inputs..., memref results...)`.
  }];
  let dependentDialects = [
    "::mlir::bufferization::BufferizationDialect",
    "::mlir::memref::MemRefDialect"
  ];
}

def LLVMCPUBindWorkgroupIdsPass
    : Pass<"strata-llvmcpu-bind-workgroup-ids", "::mlir::ModuleOp"> {
  let summary = "replace the workgroup scf.forall by workgroup id arguments";
  let description = [{
    On bufferized exports: inserts two index arguments after the inputs (the
    workgroup ids x and y), inlines the top-level `scf.forall` with its
    induction variables computed from them, and records the grid in
    `strata.workgroup_count`. An export whose code outside the forall writes
    a binding is an error here (compileExecutable compiles it again as one
    workgroup).
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect"];
}

def LLVMCPULowerSoftmaxRowsPass
    : Pass<"strata-llvmcpu-lower-softmax-rows", "::mlir::ModuleOp"> {
  let summary = "lower bufferized row softmaxes to three vector passes a row";
  let description = [{
    Each `linalg.softmax` on buffers (f32, over the innermost dimension:
    what `--strata-llvmcpu-tile-and-distribute` keeps whole) becomes loops
    over its rows; per row, the maximum, then the exponentials (stored) and
    their sum, then the product with the sum's reciprocal, each on vectors
    of `native-vector-bytes` with a scalar tail, the lanes combined by
    halves. The first step of `--strata-llvmcpu-lower-to-llvm` that touches
    softmax; alone here for its tests.
  }];
  let options = [Option<
      "nativeVectorBytes", "native-vector-bytes", "int64_t",
      /*default=*/"16", "Bytes of the target's vector registers (16, 32 or 64)">];
  let dependentDialects = [
    "::mlir::vector::VectorDialect", "::mlir::scf::SCFDialect",
    "::mlir::memref::MemRefDialect", "::mlir::arith::ArithDialect",
    "::mlir::math::MathDialect"
  ];
}

def LLVMCPULowerToLLVMPass
    : Pass<"strata-llvmcpu-lower-to-llvm", "::mlir::ModuleOp"> {
  let summary = "lower bufferized exports to the LLVM dialect";
  let description = [{
    Places temporaries (stack or workgroup local memory), vectorizes linalg
    ops with upstream linalg vectorization, lowers the rest to loops, math to
    polynomial approximations, and everything to the LLVM dialect with
    bare-pointer memref arguments. With `matmul-ukernel`, large f32 matmuls
    first become calls of the matmul microkernel. Ops that would need a library call (f64
    transcendental functions, `arith.remf`) are errors at their location.
  }];
  let options = [Option<
                     "nativeVectorBytes", "native-vector-bytes", "int64_t",
                     /*default=*/"16",
                     "Bytes of the target's vector registers (16, 32 or 64)">,
                 Option<"matmulUkernel", "matmul-ukernel", "std::string",
                        /*default=*/"\"none\"",
                        "matmul microkernel variant to call (none, avx512, "
                        "avx512vnni, avx2)">,
                 Option<"streamedResultBytes", "streamed-result-bytes",
                        "int64_t",
                        /*default=*/"::mlir::strata::llvmcpu::"
                                    "kDefaultStreamedResultBytes",
                        "a microkernel call whose whole result has at least "
                        "this many bytes stores it non-temporally (0: the "
                        "variant's row of ukernel/IsaTuning.def)">];
  let dependentDialects = [
    "::mlir::LLVM::LLVMDialect", "::mlir::vector::VectorDialect",
    "::mlir::scf::SCFDialect", "::mlir::memref::MemRefDialect",
    "::mlir::arith::ArithDialect", "::mlir::affine::AffineDialect"
  ];
}

#endif // STRATA_CODEGEN_LLVMCPU_PASSES_TD
