//===- UkernelCommon.h - what the microkernel rewrites share ----*- C++ -*-===//
//
// The pieces the matmul (MatmulUkernel.cpp), convolution (ConvUkernel.cpp)
// and window-op (WindowUkernel.cpp) rewrites share: the microkernel
// variants, memref operands as (aligned pointer, offset, row stride), the
// fills and elementwise epilogues a call absorbs, and the weights packed
// at compile time that the kernels read in place (PackedWeights.cpp).
// LowerToUkernels.cpp runs the rewrites over a module.
//
//===----------------------------------------------------------------------===//
#ifndef STRATA_LIB_CODEGEN_LLVMCPU_UKERNELCOMMON_H_
#define STRATA_LIB_CODEGEN_LLVMCPU_UKERNELCOMMON_H_

#include <limits>
#include <optional>

#include "Strata/Codegen/LLVMCPU/Codegen.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "llvm/ADT/SmallPtrSet.h"

#include "ukernel/SgemmParams.h"

namespace mlir::strata::llvmcpu::ukernel {

// Rows a matmul of fewer rows (a matrix-vector product) is counted as.
constexpr int64_t kFewRowsWork = 16;

struct Variant {
  int64_t mr, nr;
  int64_t lanes; // f32 per vector (the depthwise kernel's channel block)
  // The int8 kernel's panel: columns, depth steps per 32-bit lane, and the
  // multiple its packed depth is padded to.
  int64_t intNr, intKg, intKMultiple;
  // The variant's row of ukernel/IsaTuning.def (lookupVariant): the
  // blocking that sizes a call's packing scratch.
  int64_t kc = 0, mcRows = 0, nc = 0;
  // A result of at least this many bytes in all is written with
  // non-temporal stores (streamFlag): lookupVariant gives the row's,
  // lowerToUkernels the target's when it passes one.
  int64_t streamedResultBytes = 0;
  // A convolution's filter larger than this keeps each image's rows whole
  // in its workgroups (TileAndDistribute.cpp chooseConvTileSizes).
  int64_t streamedFilterBytes = 0;
};

// The microkernel variant named `name` ("avx512", "avx2", ...).
std::optional<Variant> lookupVariant(StringRef name);

// Floats of packing scratch an f32 matmul or convolution call of m x n x k
// (bounds) needs with `variant`'s blocking: packed A rounded up to 16
// floats, then packed B unless B was packed at compile time.
int64_t sgemmScratchFloats(const Variant &variant, int64_t m, int64_t n,
                           int64_t k, bool packedB);

// The buffer `memref` is a view of (through subviews, casts, reshapes).
Value rootBuffer(Value memref);

// STRATA_SGEMM_STREAM when the whole buffer `memref` is a view of (through
// subviews, casts and reshapes) has a static shape of at least
// variant.streamedResultBytes; a tile of a large result streams like the
// rest.
int64_t streamFlag(Value memref, const Variant &variant);

// A row-major f32 memref (unit inner stride) of rank 2.
bool isRowMajorF32(Value value);

// The fill of exactly `output` right before `consumer` whose value
// `matches`, if any: only ops without memory effects (views, constants,
// index math) may sit between.
linalg::FillOp findFill(Operation *consumer, Value output,
                        function_ref<bool(Value)> matches);

// The zero fill of `output` right before `consumer`. -0.0 + x differs from
// x only in the sign of a zero result; the kernel's overwrite gives x,
// which is what 0.0 + x gives.
linalg::FillOp findZeroFill(Operation *consumer, Value output);

struct MatmulOperands {
  Value alignedPointer, offset, rowStride;
};

// `memref`'s aligned base pointer, offset and row stride (as index): the
// stride of dimension `rowStrideDim`.
MatmulOperands decompose(OpBuilder &b, Location loc, Value memref,
                         int64_t rowStrideDim = 0);

// An address (i64) of the first element of a memref of `elementBytes`.
Value elementAddress(OpBuilder &b, Location loc, Value memref,
                     int64_t elementBytes);

// A weight packed at compile time (--strata-pack-weights) that a
// microkernel reads in place (PackedWeights.cpp).
struct PackedWeights {
  Value panels;        // P
  OpFoldResult column; // the first column of the view (a multiple of width)
  // Columns per packed panel: the variant's own NR, or a multiple of it
  // (a multi-ISA module packs for its first variant; a variant of
  // narrower vectors reads each panel as width / NR strips).
  int64_t width = 0;
};

// Whether `value` is provably a multiple of `factor`: a constant, a
// product with such a factor, a sum of multiples, or the induction
// variable of an scf.forall whose lower bound and step are multiples (the
// column offset of a workgroup's tile, before or after its loop became
// workgroup ids).
bool isMultipleOf(OpFoldResult value, int64_t factor, int depth = 0);

// The f32 packed weight `rhs` (the right-hand operand of a matmul or the
// filter of a conv) is a view of, for a microkernel of `nr` columns: panels
// of nr columns or of a multiple of nr.
std::optional<PackedWeights> findPackedWeights(Value rhs, int64_t nr);

// The packed Winograd transform a convolution `filter` is read back from
// (--strata-pack-weights winograd): the filter is (a view of columns of) a
// buffer that one linalg.generic carrying the Winograd marker
// (PackedWeightLayout.h) writes from a packed f32 weight (findPackedWeights,
// alpha x alpha x C x F). The panels of the filter's first column, each
// alpha * alpha * C deep.
std::optional<PackedWeights> findWinogradWeights(Value filter, int64_t nr);

// The int8 packed weight `rhs` (the right-hand operand of an int8 matmul)
// is a view of, for panels of `nr` columns and depth groups of `kg`.
std::optional<PackedWeights> findPackedIntWeights(Value rhs, int64_t nr,
                                                  int64_t kg);

// The pointer and element offset of the first panel `packed` reads:
// P's own offset plus column * depth (each panel is depth x width
// elements), and the panel width as the row stride (the microkernels'
// ldb under STRATA_SGEMM_PACKED_B).
MatmulOperands decomposePacked(OpBuilder &b, Location loc,
                               const PackedWeights &packed, int64_t depth);

// The transposes of packed weights whose output nothing reads any more
// (every view of it became a microkernel call): the views, the transpose
// and its buffer go. One still read (by an op left on loops) stays, with a
// warning.
void eraseDeadRelayouts(SmallPtrSetImpl<Operation *> &relayouts);

// The elementwise op that reads a product's whole result and writes the
// real output, when the microkernel can apply it as it stores the last
// depth block (SgemmEpilogue.h): out' = clamp((out + bias) + residual)
// with every part optional and the two additions in either order, the
// body's own order.
struct FusedEpilogue {
  linalg::GenericOp generic;
  Value target;   // the generic's output: the microkernel's C
  Value bias;     // memref<N>, or null
  Value residual; // shaped like the output, or null
  bool residualFirst = false;
  bool clamp = false;
  float lo = -std::numeric_limits<float>::infinity();
  float hi = std::numeric_limits<float>::infinity();

  int64_t flags() const {
    return (bias ? STRATA_SGEMM_BIAS : 0) |
           (residual ? STRATA_SGEMM_RESIDUAL : 0) |
           (residualFirst ? STRATA_SGEMM_RESIDUAL_FIRST : 0) |
           (clamp ? STRATA_SGEMM_CLAMP : 0);
  }
};

// `out` is the product's temporary output (a memref.alloc written by
// `fill`, which the call folds, and `product`); `layoutOk` says whether a
// memref can be the microkernel's C (or residual) in its place.
std::optional<FusedEpilogue> findEpilogue(Operation *product, Value out,
                                          linalg::FillOp fill,
                                          function_ref<bool(Value)> layoutOk);

// The epilogue's five call arguments (bias and residual addresses, the
// residual's row stride, the clamp bounds' bits), zeros without one.
void appendEpilogueArguments(OpBuilder &b, Location loc,
                             const std::optional<FusedEpilogue> &epilogue,
                             int64_t residualRowStrideDim,
                             SmallVectorImpl<Value> &args);

// Erases what an applied epilogue leaves: the generic, and the product's
// temporary when nothing else reads it.
void eraseFusedEpilogue(const std::optional<FusedEpilogue> &epilogue,
                        Value out);

// The requantization of an int8 product's i32 result (QDQFusion.cpp), when
// a microkernel can apply it as it stores (STRATA_IGEMM_REQUANTIZE): an
// elementwise generic reading the whole product, a per-channel (last
// dimension) i32 adjust and f32 multiplier, writing i8 with the body
//   trunci(fptosi(min(max(roundeven(sitofp(acc + adjust) * mult) + zero,
//   lo), hi)))
// (the zero's addition may be absent), possibly followed by an xori of
// 0x80 (the next layer's u8 shift), which is folded into zero, lo and hi.
struct IntEpilogue {
  linalg::GenericOp generic;
  Value target, adjust, multiplier;
  float zero = 0.0f, lo = 0.0f, hi = 0.0f;
};

// `out` is the product's temporary i32 output, written by `fill` (a zero
// fill the call folds; none: no requantization); `layoutOk` says whether
// an i8 memref can be the microkernel's output.
std::optional<IntEpilogue>
findRequantization(Operation *product, Value out, linalg::FillOp fill,
                   function_ref<bool(Value)> layoutOk);

// A workgroup's padded input window, as bufferization leaves a fused
// tensor.pad: an alloc filled with the pad value into whose view at
// (0, top, left, 0) a view of the input is copied, possibly under the
// pad's guard
//   scf.if %empty { alloc; fill } else { view; alloc; fill; copy }
// where %empty says the view has no rows or no columns. The depthwise
// microkernel reads the view in place and skips the taps outside it.
struct PaddedInput {
  Value source; // what is copied (in the else region when guarded)
  OpFoldResult top, left;
  Value padValue;
  Operation *root; // the scf.if, or the alloc: erased once unused
};

// The padded window `input` reads, when it is one (see PaddedInput);
// `consumer` is the op that reads it.
std::optional<PaddedInput> matchPaddedInput(Value input, Operation *consumer);

// Erases a padded window the microkernel no longer reads (matchPaddedInput:
// nothing else reads it), with its fill, view and copy.
void erasePaddedWindow(const std::optional<PaddedInput> &padded);

// What a microkernel reads in place of `padded`: the view that was copied
// (cloned at `b` when the guard's else branch made it) and the padding
// before it (top, left), as index values.
Value paddedSource(OpBuilder &b, Location loc, const PaddedInput &padded,
                   Value &top, Value &left);

// Whether `memref` has a unit innermost stride.
bool unitInnerStride(Value memref);

// The rewrites, each of one op on bufferized memrefs; `rewritten` (when
// given) says whether it became a call. They fail only on malformed IR.

// MatmulUkernel.cpp: an f32 linalg.matmul as a call of `callee`
// (kSgemmUkernelSymbol).
LogicalResult rewriteMatmul(linalg::MatmulOp matmul, const Variant &variant,
                            func::FuncOp callee, bool &rewritten);
// MatmulUkernel.cpp: an i8 x i8 -> i32 linalg.matmul as a call of `callee`
// (kIgemmUkernelSymbol).
LogicalResult rewriteIntMatmul(linalg::MatmulOp matmul, const Variant &variant,
                               func::FuncOp callee, bool &rewritten);
// MatmulUkernel.cpp: a batch_matmul of one batch as a linalg.matmul.
void unbatchMatmul(linalg::BatchMatmulOp batch);

// ConvUkernel.cpp: a conv_2d_nhwc_hwcf of one image as a call of `callee`
// (kSconvUkernelSymbol, declared in `module` on first use).
LogicalResult rewriteConv(linalg::Conv2DNhwcHwcfOp conv, const Variant &variant,
                          func::FuncOp &callee, ModuleOp module,
                          bool &rewritten);

// WindowUkernel.cpp: a depthwise_conv_2d_nhwc_hwc, pooling_nhwc_max or
// pooling_nhwc_sum of one image as a call of `callee`
// (kSdwconvUkernelSymbol), an int8 depthwise one as a call of `intCallee`
// (kIdwconvUkernelSymbol), each declared in `module` on first use. Other
// ops are left alone.
LogicalResult rewriteWindowOp(Operation *op, const Variant &variant,
                              func::FuncOp &callee, func::FuncOp &intCallee,
                              ModuleOp module);

} // namespace mlir::strata::llvmcpu::ukernel

#endif // STRATA_LIB_CODEGEN_LLVMCPU_UKERNELCOMMON_H_
