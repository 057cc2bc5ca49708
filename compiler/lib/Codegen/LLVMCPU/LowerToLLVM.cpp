//===- LowerToLLVM.cpp - bufferized exports to the LLVM dialect -----------===//
//
// Kernels run without a C library: nothing here may leave a call the linker
// has to resolve. So allocations go on the stack, memref.copy becomes loops
// instead of the MLIR runtime's memrefCopy, transcendental math ops become
// upstream polynomial approximations instead of libm calls, and math.fma
// becomes a contractable multiply-add (llvm.fma is a libm call on CPUs
// without FMA). Ops that would still need a library are errors at their
// location.
//
//===----------------------------------------------------------------------===//
#include "Strata/Codegen/LLVMCPU/Codegen.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Arith/Transforms/Passes.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Math/Transforms/Passes.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

#include "IndexBounds.h"
#include "MathExpansions.h"
#include "PassPipelines.h"

namespace mlir::strata::llvmcpu {
namespace {

// Temporaries up to this many bytes per workgroup live on the stack.
constexpr int64_t kMaxStackBytes = 64 * 1024;
// Larger ones live in the workgroup's local memory, which the runtime
// provides up to this size (hal/src/task_pool.cpp, device.cpp).
constexpr int64_t kMaxLocalMemoryBytes = int64_t{64} << 20;
constexpr int64_t kTemporaryAlignment = 64;

int64_t alignTo(int64_t value, int64_t alignment) {
  return (value + alignment - 1) / alignment * alignment;
}

// Places the function's temporaries (memref.allocs, whose dynamic sizes
// must have constant upper bounds): all of them at
// the entry as allocas when they are small (never inside a loop, where each
// iteration would grow the stack), else at fixed offsets of one local memory
// argument, inserted after the workgroup ids, whose size is recorded in
// kLocalMemorySizeAttr. Deallocations go.
LogicalResult placeTemporaries(func::FuncOp func) {
  IRRewriter rewriter(func.getContext());
  Block &entry = func.getBody().front();
  SmallVector<memref::AllocOp> allocs;
  SmallVector<memref::DeallocOp> deallocs;
  func.walk([&](memref::AllocOp alloc) { allocs.push_back(alloc); });
  func.walk([&](memref::DeallocOp dealloc) { deallocs.push_back(dealloc); });
  SmallVector<int64_t> offsets;
  // The static type each temporary gets: a dynamic size is given room for
  // its upper bound (tiles bound them) and viewed with its actual size.
  SmallVector<MemRefType> placedTypes;
  int64_t total = 0;
  for (memref::AllocOp alloc : allocs) {
    MemRefType type = alloc.getType();
    if (!type.getLayout().isIdentity() || !alloc.getSymbolOperands().empty() ||
        !type.getElementType().isIntOrFloat()) {
      return alloc.emitError() << "llvm-cpu kernels cannot allocate " << type
                               << " (only identity layouts)";
    }
    SmallVector<int64_t> shape(type.getShape());
    unsigned dynamicIndex = 0;
    for (int64_t &size : shape) {
      if (!ShapedType::isDynamic(size)) {
        continue;
      }
      Value dynamicSize = alloc.getDynamicSizes()[dynamicIndex++];
      FailureOr<int64_t> bound = indexUpperBound(dynamicSize);
      if (failed(bound)) {
        return alloc.emitError()
               << "llvm-cpu kernels cannot allocate " << type
               << ": a dynamic size has no upper bound known at compile time";
      }
      size = std::max<int64_t>(*bound, 0);
    }
    placedTypes.push_back(MemRefType::get(shape, type.getElementType()));
    int64_t elementBytes =
        std::max<int64_t>(1, (type.getElementTypeBitWidth() + 7) / 8);
    offsets.push_back(total);
    total += alignTo(placedTypes.back().getNumElements() * elementBytes,
                     kTemporaryAlignment);
  }
  for (memref::DeallocOp dealloc : deallocs) {
    rewriter.eraseOp(dealloc);
  }
  // Replaces `alloc` by `placed`, viewed with the actual sizes when some
  // are dynamic.
  auto replace = [&](memref::AllocOp alloc, Value placed) {
    if (alloc.getType().hasStaticShape()) {
      rewriter.replaceOp(alloc, placed);
      return;
    }
    rewriter.setInsertionPoint(alloc);
    rewriter.replaceOp(alloc, createRowMajorView(rewriter, alloc.getLoc(),
                                                 placed, alloc.getType(),
                                                 alloc.getMixedSizes()));
  };
  if (total <= kMaxStackBytes) {
    for (auto [alloc, placedType] : llvm::zip(allocs, placedTypes)) {
      rewriter.setInsertionPointToStart(&entry);
      Value placed = memref::AllocaOp::create(rewriter, alloc.getLoc(),
                                              placedType,
                                              alloc.getAlignmentAttr());
      replace(alloc, placed);
    }
    return success();
  }
  if (total > kMaxLocalMemoryBytes) {
    return func.emitError()
           << "this export needs " << total
           << " bytes of temporaries per workgroup, more than the "
           << kMaxLocalMemoryBytes << " the runtime provides";
  }
  auto inputCount = func->getAttrOfType<IntegerAttr>(kInputCountAttr);
  unsigned position = inputCount.getInt() + 2; // after the workgroup ids
  Type localType =
      MemRefType::get({total}, IntegerType::get(func.getContext(), 8));
  if (failed(func.insertArgument(position, localType, {}, func.getLoc()))) {
    return func.emitError() << "cannot add the local memory argument";
  }
  Value local = entry.getArgument(position);
  for (auto [alloc, offset, placedType] :
       llvm::zip(allocs, offsets, placedTypes)) {
    rewriter.setInsertionPoint(alloc);
    Value offsetValue =
        arith::ConstantIndexOp::create(rewriter, alloc.getLoc(), offset);
    Value placed = memref::ViewOp::create(rewriter, alloc.getLoc(), placedType,
                                          local, offsetValue, ValueRange());
    replace(alloc, placed);
  }
  func->setAttr(
      kLocalMemorySizeAttr,
      IntegerAttr::get(IntegerType::get(func.getContext(), 64), total));
  return success();
}

// memref.copy of a strided view would lower to a memrefCopy call.
void copiesToLinalg(func::FuncOp func) {
  IRRewriter rewriter(func.getContext());
  SmallVector<memref::CopyOp> copies;
  func.walk([&](memref::CopyOp copy) { copies.push_back(copy); });
  for (memref::CopyOp copy : copies) {
    // Bufferization leaves copies of a tile onto itself.
    if (copy.getSource() == copy.getTarget()) {
      rewriter.eraseOp(copy);
      continue;
    }
    rewriter.setInsertionPoint(copy);
    linalg::CopyOp::create(rewriter, copy.getLoc(), copy.getSource(),
                           copy.getTarget());
    rewriter.eraseOp(copy);
  }
}

struct FmaToMulAdd : OpRewritePattern<math::FmaOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(math::FmaOp op,
                                PatternRewriter &rewriter) const override {
    auto contract = arith::FastMathFlagsAttr::get(
        getContext(), arith::FastMathFlags::contract);
    Value product = arith::MulFOp::create(rewriter, op.getLoc(), op.getA(),
                                          op.getB(), contract);
    rewriter.replaceOpWithNewOp<arith::AddFOp>(op, product, op.getC(),
                                               contract);
    return success();
  }
};

LogicalResult expandMath(ModuleOp module) {
  MLIRContext *context = module.getContext();
  RewritePatternSet patterns(context);
  // Approximations first (benefit 2): tanh has both an approximation and an
  // expansion through exp; the approximation is the cheaper of the two.
  // Not rsqrt: its approximation is the AVX2 intrinsic (x86vector), which
  // would tie kernels to x86; it is expanded to 1 / sqrt instead.
  populateMathPolynomialApproximationPatterns(
      patterns, [](StringRef name) { return !name.ends_with("rsqrt"); },
      /*benefit=*/2);
  populateMathF32ExpansionPatterns(
      patterns, [](StringRef name) { return !name.ends_with("rsqrt"); },
      /*benefit=*/2);
  // Not ceil, round and roundeven: their expansions go through fptosi,
  // wrong beyond 2^63; LLVM's rounding intrinsics are exact (an instruction,
  // or the library's own floorf & co, FreestandingMath.cpp).
  // Not fma: upstream's expansion is a plain multiply and add, which LLVM
  // may not fuse; FmaToMulAdd (below) marks both contractable, so the
  // approximations' polynomials become FMA instructions where the CPU has
  // them (upstream's won the tie before: exp was 30 instructions a vector
  // on AVX-512 without one FMA).
  math::populateExpansionPatterns(patterns, {"tan", "sinh", "cosh", "asinh",
                                             "acosh", "atanh", "tanh", "exp2",
                                             "powf", "fpowi", "rsqrt", "ctlz"});
  populateMathAlgebraicSimplificationPatterns(patterns);
  // log10, sincos, and the f64 functions upstream does not approximate.
  populateMathExpansionPatterns(patterns);
  patterns.add<FmaToMulAdd>(context);
  return applyPatternsGreedily(module, std::move(patterns));
}

// Math and arith ops that LLVM turns into instructions on every target, or
// expands inline; anything else left after expandMath would be a libm call.
bool lowersWithoutLibraryCall(Operation *op) {
  if (isa<math::AbsFOp, math::AbsIOp, math::SqrtOp, math::CeilOp, math::FloorOp,
          math::TruncOp, math::RoundEvenOp, math::RoundOp, math::CopySignOp,
          math::CountLeadingZerosOp, math::CountTrailingZerosOp, math::CtPopOp,
          math::IsNaNOp, math::IsInfOp, math::IsFiniteOp, math::IsNormalOp>(
          op)) {
    return true;
  }
  if (op->getDialect() && op->getDialect()->getNamespace() == "math") {
    return false;
  }
  return !isa<arith::RemFOp>(op);
}

LogicalResult checkNoLibraryCalls(ModuleOp module) {
  bool ok = true;
  module.walk([&](Operation *op) {
    if (!lowersWithoutLibraryCall(op)) {
      // The element type: the op may have been vectorized already.
      Type type = op->getNumResults()
                      ? getElementTypeOrSelf(op->getResult(0).getType())
                      : Type();
      op->emitError() << "'" << op->getName() << "' on " << type
                      << " has no library-free lowering on llvm-cpu";
      ok = false;
    }
  });
  return success(ok);
}

// Whatever linalg and tensor ops survive the loop lowering have no lowering
// here; say so at the op rather than fail later in the LLVM conversion.
LogicalResult checkNoStructuredOps(ModuleOp module) {
  bool ok = true;
  module.walk([&](Operation *op) {
    StringRef dialect =
        op->getDialect() ? op->getDialect()->getNamespace() : StringRef();
    if (dialect == "linalg" || dialect == "tensor" ||
        dialect == "bufferization") {
      op->emitError() << "'" << op->getName()
                      << "' is not supported by the llvm-cpu target";
      ok = false;
    }
  });
  return success(ok);
}

// A binding with no elements but several dimensions (memref<2x0xf32>, the
// K = 0 operand of a matmul) has no bare-pointer lowering: the function
// would stay unconverted. It takes a memref<0xT> placeholder instead, viewed
// with its shape (nothing is ever read through it).
void placeholderEmptyBindings(ModuleOp module) {
  for (auto func : module.getOps<func::FuncOp>()) {
    if (func.isExternal() || !func.isPublic()) {
      continue;
    }
    Block &entry = func.getBody().front();
    SmallVector<Type> inputs(func.getFunctionType().getInputs());
    bool changed = false;
    for (auto [index, type] : llvm::enumerate(inputs)) {
      auto memref = dyn_cast<MemRefType>(type);
      if (!memref || memref.getRank() < 2 || !memref.hasStaticShape() ||
          memref.getNumElements() != 0 || !memref.getLayout().isIdentity()) {
        continue;
      }
      BlockArgument argument = entry.getArgument(index);
      auto placeholder = MemRefType::get({0}, memref.getElementType());
      argument.setType(placeholder);
      OpBuilder builder = OpBuilder::atBlockBegin(&entry);
      SmallVector<OpFoldResult> sizes;
      for (int64_t size : memref.getShape()) {
        sizes.push_back(builder.getIndexAttr(size));
      }
      Value view =
          createRowMajorView(builder, func.getLoc(), argument, memref, sizes);
      argument.replaceAllUsesExcept(view, view.getDefiningOp());
      inputs[index] = placeholder;
      changed = true;
    }
    if (changed) {
      func.setFunctionType(FunctionType::get(
          func.getContext(), inputs, func.getFunctionType().getResults()));
    }
  }
}

// arith.floordivsi, ceildivsi and ceildivui expand (arith-expand) into
// divisions, which the target guards (KernelGuards.cpp: x / 0 = 0), and sign
// fix-ups, which would turn that 0 into -1 or 1. Their result by a zero
// divisor is 0 too, as docs/security.md says: selected here, before the
// expansion.
void zeroRoundingDivisionsByZero(ModuleOp module) {
  SmallVector<Operation *> divisions;
  module.walk([&](Operation *op) {
    if (isa<arith::FloorDivSIOp, arith::CeilDivSIOp, arith::CeilDivUIOp>(op) &&
        !matchPattern(op->getOperand(1), m_NonZero())) {
      divisions.push_back(op);
    }
  });
  for (Operation *op : divisions) {
    OpBuilder builder(op->getContext());
    builder.setInsertionPointAfter(op);
    Location loc = op->getLoc();
    Type type = op->getResult(0).getType();
    Value zero = arith::ConstantOp::create(builder, loc, type,
                                           builder.getZeroAttr(type));
    Value isZero = arith::CmpIOp::create(builder, loc, arith::CmpIPredicate::eq,
                                         op->getOperand(1), zero);
    Value result =
        arith::SelectOp::create(builder, loc, isZero, zero, op->getResult(0));
    op->getResult(0).replaceAllUsesExcept(result, result.getDefiningOp());
  }
}

} // namespace

// What arith-expand{include-bf16} does, but for maximumf/minimumf (and
// maxnumf/minnumf): those stay for convert-arith-to-llvm, whose LLVM
// intrinsics give IEEE maximum and minimum, signed zeros included (+0 over
// -0); arith-expand's compare-and-select ignores the sign of zeros.
static LogicalResult expandArith(ModuleOp module) {
  RewritePatternSet patterns(module.getContext());
  arith::populateCeilFloorDivExpandOpsPatterns(patterns);
  arith::populateExpandBFloat16Patterns(patterns);
  arith::populateExpandScalingExtTruncPatterns(patterns);
  return applyPatternsGreedily(module, std::move(patterns));
}

LogicalResult lowerToLLVMDialect(ModuleOp module, int64_t nativeVectorBytes,
                                 StringRef ukernelVariant,
                                 int64_t streamedResultBytes) {
  guardDataIndices(module);
  placeholderEmptyBindings(module);
  if (failed(lowerToUkernels(module, ukernelVariant, streamedResultBytes))) {
    return failure();
  }
  for (auto func : module.getOps<func::FuncOp>()) {
    copiesToLinalg(func);
    if (failed(placeTemporaries(func))) {
      return failure();
    }
  }
  if (failed(lowerSoftmaxRows(module, nativeVectorBytes)) ||
      failed(vectorizeExecutable(module, nativeVectorBytes)) ||
      failed(runPassPipeline(module, "func.func(convert-linalg-to-loops,"
                                     "canonicalize,cse)"))) {
    return failure();
  }
  // Math on f16 is computed in f32 (extf, the f32 op, truncf), where the
  // approximations apply; f16 arithmetic itself LLVM promotes to f32.
  // bf16 likewise: arithmetic in f32, conversions as integer code
  // (arith-expand, below), so no target needs bf16 instructions.
  if (failed(runPassPipeline(module, "math-extend-to-supported-types,"
                                     "func.func(arith-emulate-unsupported-"
                                     "floats{source-types=bf16 "
                                     "target-type=f32})")) ||
      failed(expandMath(module)) || failed(checkNoLibraryCalls(module)) ||
      failed(checkNoStructuredOps(module))) {
    return failure();
  }
  zeroRoundingDivisionsByZero(module);
  if (failed(runPassPipeline(
          module,
          "func.func(lower-vector-multi-reduction,"
          "convert-vector-to-scf{full-unroll=true},"
          "lower-affine,convert-scf-to-cf,canonicalize),"
          "convert-vector-to-llvm{vector-contract-lowering=outerproduct},"
          "expand-strided-metadata,lower-affine,finalize-memref-to-llvm")) ||
      failed(expandArith(module))) {
    return failure();
  }
  return runPassPipeline(
      module,
      "convert-math-to-llvm,"
      "convert-arith-to-llvm,"
      "convert-index-to-llvm,"
      "convert-func-to-llvm{use-bare-ptr-memref-call-conv=1},"
      "convert-cf-to-llvm,convert-ub-to-llvm,reconcile-unrealized-casts,"
      "canonicalize,cse");
}

} // namespace mlir::strata::llvmcpu
