//===- Codegen.h - the llvm-cpu code generation steps ----------*- C++ -*-===//
//
// The steps that take a module of tensor dispatch functions down to the LLVM
// dialect, in the order compileExecutable runs them. Each one reports its
// errors at the offending op and returns failure.
//
//===----------------------------------------------------------------------===//
#ifndef STRATA_CODEGEN_LLVMCPU_CODEGEN_H_
#define STRATA_CODEGEN_LLVMCPU_CODEGEN_H_

#include <array>
#include <string>

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Support/LLVM.h"
#include "llvm/ADT/StringSet.h"

namespace mlir::strata::llvmcpu {

/// Attribute on each export: its argument count before bufferization (the
/// number of input bindings), an i64.
inline constexpr llvm::StringLiteral kInputCountAttr = "strata.input_count";
/// Attribute on each export: its result count before bufferization.
inline constexpr llvm::StringLiteral kResultCountAttr = "strata.result_count";
/// Attribute on each export: the workgroup grid, a dense i64 array (x, y, z).
inline constexpr llvm::StringLiteral kWorkgroupCountAttr =
    "strata.workgroup_count";

/// Attribute on an export whose temporaries are too large for the stack:
/// the bytes of workgroup local memory it needs, an i64. Such a kernel takes
/// one more argument, the local memory, after the workgroup ids.
inline constexpr llvm::StringLiteral kLocalMemorySizeAttr =
    "strata.local_memory_size";
/// On exports with dynamic shapes: one DenseI64ArrayAttr per binding
/// (tensor inputs, then results), a static size as itself and a dynamic one
/// as -1 - (the index of the argument that holds it).
inline constexpr llvm::StringLiteral kBindingShapesAttr =
    "strata.binding_shapes";

/// Checks the input contract of compileExecutable (static ranked tensors of
/// supported element types at the function boundary and inside) and records
/// kInputCountAttr / kResultCountAttr on each public function.
LogicalResult verifyExecutableInput(ModuleOp module);

/// Decomposes aggregate ops (softmax, except with `keepSoftmaxRows` an f32
/// linalg.softmax over the innermost dimension, which stays whole for
/// lowerSoftmaxRows and is cut into bands of rows as a root of its own),
/// inlines private helpers, fuses
/// elementwise producers into their consumers (moving reshapes of results
/// toward the arguments), then tiles the outermost parallel loops of each
/// public function's root op (the linalg op producing its last result; the
/// other results may come from producers it reads as it writes) into
/// one scf.forall whose iterations are the workgroups, fusing the producers
/// into it. Functions named in `singleWorkgroup`, and functions without such
/// a root, stay whole (one workgroup); with `tileDynamicRanges` (llvm-cpu)
/// the dynamic ranges of those are still tiled sequentially (scf.for) and
/// dynamic matmul depths cut into tiles, which the portable target, running
/// whole ops, does not want.
/// A convolution whose filter is larger than `streamedFilterBytes` keeps
/// each image's rows whole (column tiles only); 0 takes
/// kDefaultStreamedFilterBytes (a target passes its microkernel variant's,
/// ukernelStreamedFilterBytes).
LogicalResult tileAndDistributeToWorkgroups(
    ModuleOp module, const llvm::StringSet<> &singleWorkgroup,
    bool tileDynamicRanges = true, bool keepSoftmaxRows = true,
    int64_t streamedFilterBytes = 0);

/// The filter size above which a convolution's rows stay whole without a
/// microkernel variant to say (the value of every row of
/// ukernel/IsaTuning.def today).
constexpr int64_t kDefaultStreamedFilterBytes = 4 * 1024 * 1024;

/// One-shot bufferization across function boundaries with identity layouts;
/// results become trailing out-parameters.
/// Gives exports with dynamic shapes bare-pointer bindings viewed with
/// their run-time sizes and out-parameter results (DynamicShapes.cpp).
LogicalResult bindDynamicShapes(ModuleOp module);

/// `source` (any memref with room for the elements) viewed as `type`, an
/// identity-layout memref, with `sizes` and compact row-major strides.
Value createRowMajorView(OpBuilder &b, Location loc, Value source,
                         MemRefType type, ArrayRef<OpFoldResult> sizes);

LogicalResult bufferizeExecutable(ModuleOp module);

/// Replaces the workgroup scf.forall of each export by the workgroup ids,
/// passed as two index arguments inserted after the inputs (x, then y), and
/// records kWorkgroupCountAttr. A function whose code outside the forall
/// writes to a binding cannot be distributed: its name is added to `unsafe`
/// and the module is left in an unspecified state (the caller starts over
/// with that function in `singleWorkgroup`).
LogicalResult bindWorkgroupIds(ModuleOp module,
                               SmallVectorImpl<std::string> &unsafe);

/// What a kernel returns (through its dispatch function) when an index it
/// computed from data was out of range:
/// STRATA_HAL_EXECUTABLE_DISPATCH_INDEX_OUT_OF_RANGE of executable_library.h.
inline constexpr int64_t kIndexOutOfRangeCode = 2;

/// Checks every memref.load and memref.store inside a linalg body whose
/// memref the body captures (a gather or scatter at indices computed from
/// data) against the memref's dimensions: out of range, a load reads a zero
/// and a store writes nothing, and the export returns kIndexOutOfRangeCode
/// with the index and the size of the dimension it indexes (results i32,
/// i64, i64; the code is 0 when every index was in range). Runs on
/// bufferized exports, first in lowerToLLVMDialect.
void guardDataIndices(ModuleOp module);

/// Lowers each bufferized linalg.softmax (f32, over the innermost
/// dimension: what tileAndDistributeToWorkgroups keeps) to loops over its
/// rows, each row in three passes on vectors of `nativeVectorBytes`: the
/// maximum, the exponentials and their sum, the scaling by the sum's
/// reciprocal (SoftmaxRows.cpp). Runs in lowerToLLVMDialect.
LogicalResult lowerSoftmaxRows(ModuleOp module, int64_t nativeVectorBytes);

/// Vectorizes, with upstream linalg vectorization, the linalg ops of the
/// bufferized module whose innermost parallel loop splits into vectors of at
/// most `nativeVectorBytes` (16 for SSE/NEON, 32 for AVX2, 64 for AVX-512);
/// the rest stay for lowerToLLVMDialect's loops. f64 row sums are split into
/// per-lane partial sums first (splitRowSums).
LogicalResult vectorizeExecutable(ModuleOp module, int64_t nativeVectorBytes);

/// Rewrites each bufferized f64 sum along the innermost loop of contiguous
/// rows as sums into a rows x lanes temporary (a native vector of f64
/// lanes, the rows' elements a vector a step) and the sum of each row's
/// lanes (SplitRowSums.cpp).
void splitRowSums(Operation *root, int64_t nativeVectorBytes);

/// A microkernel call whose whole result has at least this many bytes
/// writes it with non-temporal stores (STRATA_SGEMM_STREAM): its reader
/// would find little of it in the cache anyway, and streaming saves reading
/// each line in before it is overwritten. Smaller results stay cached for
/// their reader: at 12 MiB the readers of 12-15 MB results (mobilenet_v2,
/// batch 8, AMD Zen 3/4) lost as much as the writers gained. 0 (the
/// default) takes the microkernel variant's row of the tuning table
/// (ukernel/IsaTuning.def: 32 MiB, the last-level cache of the AMD machines
/// measured, on every class today); a target that knows its CPU's
/// last-level cache passes that when larger (ukernelStreamedResultBytes).
constexpr int64_t kDefaultStreamedResultBytes = 0;

/// Lowers the bufferized module to the LLVM dialect: temporaries to the
/// stack or to workgroup local memory (kLocalMemorySizeAttr), memref.copy to
/// linalg.copy, vectorizeExecutable, the remaining linalg ops to loops, math
/// to polynomial approximations, then everything to LLVM with bare-pointer
/// memref arguments. Fails, at the op, on anything that would need a
/// library call or has no lowering.
/// `ukernelVariant` names the matmul microkernel the target links
/// ("avx512", "avx2", "neon"; empty or "none": no microkernel, matmuls are
/// vectorized like other ops).
/// `streamedResultBytes`: lowerToUkernels'.
LogicalResult
lowerToLLVMDialect(ModuleOp module, int64_t nativeVectorBytes,
                   StringRef ukernelVariant = {},
                   int64_t streamedResultBytes = kDefaultStreamedResultBytes);

/// The fewest multiply-adds of an f32 matmul or convolution (of one
/// workgroup's tile, for the microkernel call) that the code generator cuts
/// into matmul tiles and hands to the microkernel; smaller ones are cut like
/// elementwise ops and stay on vectorized loops. The flow phase reads it
/// through TargetBackend::minMatmulTileWork (which weights it packs, which
/// convolutions become im2col matmuls).
inline constexpr int64_t kMinMatmulTileWork = 64 * 64 * 64;

/// The symbol of the f32 matmul microkernel (ukernel/SgemmDriver.h).
inline constexpr llvm::StringLiteral kSgemmUkernelSymbol =
    "strata_ukernel_sgemm_f32";
/// The symbol of the f32 NHWC convolution microkernel (the same driver,
/// packing the input's windows straight into its panels).
inline constexpr llvm::StringLiteral kSconvUkernelSymbol =
    "strata_ukernel_sconv_f32";
/// The symbol of the int8 matmul microkernel (i8 x i8 -> i32;
/// ukernel/IgemmDriver.h), in every x86-64 variant's bitcode (not "neon").
inline constexpr llvm::StringLiteral kIgemmUkernelSymbol =
    "strata_ukernel_igemm_s8";
/// The symbol of the f32 NHWC depthwise convolution microkernel
/// (ukernel/DwconvDriver.h).
inline constexpr llvm::StringLiteral kSdwconvUkernelSymbol =
    "strata_ukernel_sdwconv_f32";
/// The symbol of the int8 NHWC depthwise convolution microkernel (i8 x i8
/// -> i32 or requantized i8; ukernel/IdwconvDriver.h), in every x86-64
/// variant's bitcode.
inline constexpr llvm::StringLiteral kIdwconvUkernelSymbol =
    "strata_ukernel_idwconv_s8";

/// Replaces each f32 linalg.matmul on row-major memrefs with at least
/// kMinMatmulTileWork multiply-adds by a call of kSgemmUkernelSymbol (declared
/// private in the module; the target links its definition) for microkernel
/// variant `variant` ("avx512", "avx2", "neon"; empty or "none" does
/// nothing),
/// folding a zero fill of its output right before it, with a packing scratch
/// memref.alloc. Likewise each f32 linalg.conv_2d_nhwc_hwcf of one image
/// whose output pixels and filter rows are dense becomes a call of
/// kSconvUkernelSymbol, and each f32 linalg.depthwise_conv_2d_nhwc_hwc of
/// one image a call of kSdwconvUkernelSymbol. A linalg.matmul of i8
/// operands into i32 with as much work becomes a call of
/// kIgemmUkernelSymbol (vpdpbusd for "avx512vnni", none for "neon",
/// vpmaddwd otherwise).
/// An elementwise bias /
/// residual / clamp epilogue that reads the whole result is applied by the
/// call as it stores. A call whose whole result has at least
/// `streamedResultBytes` stores it with non-temporal stores. Runs on
/// bufferized exports, before temporaries are placed.
LogicalResult
lowerToUkernels(ModuleOp module, StringRef variant,
                int64_t streamedResultBytes = kDefaultStreamedResultBytes);

/// The streaming-store threshold of microkernel `variant` (its row of
/// ukernel/IsaTuning.def, in bytes); 0 for no variant.
int64_t ukernelStreamedResultBytes(StringRef variant);

/// The filter size above which a convolution keeps each image's rows whole
/// with microkernel `variant` (its row of ukernel/IsaTuning.def, in bytes);
/// 0 for no variant.
int64_t ukernelStreamedFilterBytes(StringRef variant);

/// The columns per panel (NR) microkernel `variant` reads B in: weights
/// packed at compile time (--strata-pack-weights) use it. 0 for no variant.
int64_t ukernelPanelColumns(StringRef variant);

/// The panel (columns NR, depth group KG, multiple the packed depth is
/// padded to) int8 microkernel `variant` reads a constant B in
/// (STRATA_IGEMM_PACKED_B): {32, 4, 4} for vpdpbusd, {32, 4, 64} for AMX
/// tiles, {16, 2, 2} for vpmaddwd; {0, 0, 0} for no variant or no int8
/// kernel ("neon").
std::array<int64_t, 3> ukernelInt8Panel(StringRef variant);

} // namespace mlir::strata::llvmcpu

#endif // STRATA_CODEGEN_LLVMCPU_CODEGEN_H_
