//===- BindWorkgroupIds.cpp - bufferization and workgroup ids -------------===//
//
// After bufferization each export is (inputs..., results...) on memrefs, with
// at most one top-level scf.forall: its iterations are the workgroups. The
// forall is replaced by its body with the induction variables computed from
// two new index arguments, the workgroup ids x and y, which the ABI wrapper
// reads from the workgroup state. Every workgroup runs the code outside the
// forall too, so that code may only write to its own temporaries: a write to
// a binding there would be done by every workgroup at once.
//
//===----------------------------------------------------------------------===//
#include "Strata/Codegen/LLVMCPU/Codegen.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/Transforms/Transforms.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Interfaces/ViewLikeInterface.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

#include "PassPipelines.h"

namespace mlir::strata::llvmcpu {
namespace {

// The value `value` is a view of (through subviews, casts, reshapes).
Value rootOfView(Value value) {
  while (Operation *op = value.getDefiningOp()) {
    auto view = dyn_cast<ViewLikeOpInterface>(op);
    if (!view) {
      break;
    }
    value = view.getViewSource();
  }
  return value;
}

// Whether `op` (and what it contains) may write to memory other than its
// function's temporaries, such as a binding.
bool mayWriteOutsideTemporaries(Operation *op) {
  bool writes = false;
  op->walk([&](Operation *nested) {
    if (writes) {
      return;
    }
    auto effects = dyn_cast<MemoryEffectOpInterface>(nested);
    if (!effects) {
      if (!nested->hasTrait<OpTrait::HasRecursiveMemoryEffects>() &&
          !isMemoryEffectFree(nested)) {
        writes = true; // unknown effects
      }
      return;
    }
    SmallVector<MemoryEffects::EffectInstance> instances;
    effects.getEffects(instances);
    for (const MemoryEffects::EffectInstance &instance : instances) {
      if (!isa<MemoryEffects::Write>(instance.getEffect())) {
        continue;
      }
      Value written = instance.getValue();
      if (!written) {
        writes = true; // writes somewhere unknown
        return;
      }
      // Only writes into the workgroup's own temporaries are safe; anything
      // else (a binding, or a view this walk cannot see through) is not.
      Operation *root = rootOfView(written).getDefiningOp();
      if (!isa_and_nonnull<memref::AllocOp, memref::AllocaOp>(root)) {
        writes = true;
        return;
      }
    }
  });
  return writes;
}

// Workgroups of an export whose workgroup loop has run-time trip counts:
// enough to keep any worker pool busy; the ones without a tile return at
// once.
constexpr int64_t kDynamicWorkgroups = 64;

// Replaces the forall by its body, for the workgroup (ids[0], ids[1]).
void inlineForall(scf::ForallOp forall, ArrayRef<Value> ids) {
  IRRewriter rewriter(forall.getContext());
  rewriter.setInsertionPoint(forall);
  Location loc = forall.getLoc();
  SmallVector<Value> ivs;
  SmallVector<OpFoldResult> lbs = forall.getMixedLowerBound();
  SmallVector<OpFoldResult> steps = forall.getMixedStep();
  for (unsigned dim = 0; dim < forall.getRank(); ++dim) {
    int64_t lb = *getConstantIntValue(lbs[dim]);
    int64_t step = *getConstantIntValue(steps[dim]);
    Value iv = ids[dim];
    if (step != 1) {
      Value stepValue = arith::ConstantIndexOp::create(rewriter, loc, step);
      iv = arith::MulIOp::create(rewriter, loc, iv, stepValue);
    }
    if (lb != 0) {
      Value lbValue = arith::ConstantIndexOp::create(rewriter, loc, lb);
      iv = arith::AddIOp::create(rewriter, loc, iv, lbValue);
    }
    ivs.push_back(iv);
  }
  Block *body = forall.getBody();
  // After bufferization the terminator (scf.forall.in_parallel) is empty.
  rewriter.eraseOp(body->getTerminator());
  rewriter.inlineBlockBefore(body, forall, ivs);
  rewriter.eraseOp(forall);
}

// Replaces a forall whose trip counts are known only at run time by a loop
// over its iterations, linearized: of the kDynamicWorkgroups = G
// workgroups the grid has, workgroup x runs its contiguous share of the T
// iterations.
void cycleForall(scf::ForallOp forall, Value id) {
  IRRewriter rewriter(forall.getContext());
  rewriter.setInsertionPoint(forall);
  Location loc = forall.getLoc();
  auto toValue = [&](OpFoldResult ofr) {
    if (auto value = dyn_cast<Value>(ofr)) {
      return value;
    }
    return arith::ConstantIndexOp::create(
               rewriter, loc, cast<IntegerAttr>(cast<Attribute>(ofr)).getInt())
        .getResult();
  };
  SmallVector<Value> lbs, steps, trips;
  Value one = arith::ConstantIndexOp::create(rewriter, loc, 1);
  Value total = one;
  for (auto [lb, ub, step] :
       llvm::zip(forall.getMixedLowerBound(), forall.getMixedUpperBound(),
                 forall.getMixedStep())) {
    lbs.push_back(toValue(lb));
    steps.push_back(toValue(step));
    Value range = arith::SubIOp::create(rewriter, loc, toValue(ub), lbs.back());
    Value count =
        arith::CeilDivSIOp::create(rewriter, loc, range, steps.back());
    count = arith::MaxSIOp::create(
        rewriter, loc, count, arith::ConstantIndexOp::create(rewriter, loc, 0));
    trips.push_back(count);
    total = arith::MulIOp::create(rewriter, loc, total, count);
  }
  // Workgroup x takes the iterations [x * T / G, (x + 1) * T / G): a
  // contiguous share, and the shares spread over the whole grid however
  // few the iterations are, so the workers, which take the grid in
  // contiguous ranges, each get some (with iterations x, x + G, ... the
  // 8 images of a batch all went to the workgroups of the first worker).
  Value grid =
      arith::ConstantIndexOp::create(rewriter, loc, kDynamicWorkgroups);
  Value begin = arith::DivUIOp::create(
      rewriter, loc, arith::MulIOp::create(rewriter, loc, id, total), grid);
  Value next = arith::AddIOp::create(rewriter, loc, id, one);
  Value end = arith::DivUIOp::create(
      rewriter, loc, arith::MulIOp::create(rewriter, loc, next, total), grid);
  auto loop = scf::ForOp::create(rewriter, loc, begin, end, one);
  rewriter.setInsertionPointToStart(loop.getBody());
  // Row-major: the last dimension varies fastest.
  SmallVector<Value> ivs(forall.getRank());
  Value rest = loop.getInductionVar();
  for (int64_t d = forall.getRank() - 1; d >= 0; --d) {
    Value index = d == 0 ? rest
                         : arith::RemUIOp::create(rewriter, loc, rest, trips[d])
                               .getResult();
    if (d != 0) {
      rest = arith::DivUIOp::create(rewriter, loc, rest, trips[d]);
    }
    Value scaled = arith::MulIOp::create(rewriter, loc, index, steps[d]);
    ivs[d] = arith::AddIOp::create(rewriter, loc, scaled, lbs[d]);
  }
  Block *body = forall.getBody();
  rewriter.eraseOp(body->getTerminator());
  rewriter.inlineBlockBefore(body, loop.getBody()->getTerminator(), ivs);
  rewriter.eraseOp(forall);
}

// Binds the workgroup ids of one export; false when it is unsafe to
// distribute.
bool bindFunction(func::FuncOp func) {
  MLIRContext *context = func.getContext();
  auto inputCount = func->getAttrOfType<IntegerAttr>(kInputCountAttr);
  unsigned idPosition = inputCount.getInt();
  // The ids come right after the inputs, before the result out-parameters.
  Type indexType = IndexType::get(context);
  if (failed(func.insertArguments({idPosition, idPosition},
                                  {indexType, indexType}, {{}, {}},
                                  {func.getLoc(), func.getLoc()}))) {
    return false;
  }
  Block &entry = func.getBody().front();
  SmallVector<Value> ids = {entry.getArgument(idPosition),
                            entry.getArgument(idPosition + 1)};

  SmallVector<scf::ForallOp> foralls;
  for (Operation &op : entry) {
    if (auto forall = dyn_cast<scf::ForallOp>(op)) {
      foralls.push_back(forall);
    }
  }
  SmallVector<int64_t> counts = {1, 1, 1};
  if (foralls.size() > 1) {
    return false;
  }
  if (foralls.size() == 1) {
    scf::ForallOp forall = foralls.front();
    for (Operation &op : entry) {
      if (&op != forall.getOperation() && mayWriteOutsideTemporaries(&op)) {
        return false;
      }
    }
    ArrayRef<int64_t> lbs = forall.getStaticLowerBound();
    ArrayRef<int64_t> ubs = forall.getStaticUpperBound();
    ArrayRef<int64_t> steps = forall.getStaticStep();
    if (forall.getNumResults() != 0) {
      return false;
    }
    if (llvm::any_of(lbs, ShapedType::isDynamic) ||
        llvm::any_of(ubs, ShapedType::isDynamic) ||
        llvm::any_of(steps, ShapedType::isDynamic)) {
      cycleForall(forall, ids[0]);
      counts[0] = kDynamicWorkgroups;
      func->setAttr(kWorkgroupCountAttr,
                    DenseI64ArrayAttr::get(context, counts));
      return true;
    }
    // Row-major: the forall's last dimension is x, which the runtime's
    // linear workgroup order varies fastest, so each worker's contiguous
    // range of workgroups is a contiguous block of the result (whole rows
    // of a matmul's tiles, whole matrices of a batch), as the workers of
    // the dispatch before wrote it: what a worker reads was mostly written
    // by itself, in its own cache. Dimension 0 as x spread every worker
    // over all of them (a softmax over 32 matrices after their batch
    // matmul: no faster on two workers than on one). A kernel has two ids
    // (x and y): the dimensions before the last are y, linearized in the
    // same row-major order (a convolution cut into images, rows and
    // filters: its images and rows; refused, it was one workgroup of
    // scalar loops).
    unsigned rank = forall.getRank();
    SmallVector<int64_t> trips(rank);
    int64_t outer = 1;
    for (unsigned dim = 0; dim < rank; ++dim) {
      if (steps[dim] <= 0) {
        return false;
      }
      trips[dim] = (ubs[dim] - lbs[dim] + steps[dim] - 1) / steps[dim];
      if (trips[dim] < 1) {
        return false;
      }
      if (dim + 1 < rank) {
        outer *= trips[dim];
      }
    }
    if (trips[rank - 1] > 65535 || outer > 65535) {
      return false;
    }
    counts[0] = trips[rank - 1];
    counts[1] = outer;
    SmallVector<Value> dimIds(rank);
    dimIds[rank - 1] = ids[0];
    if (rank > 1) {
      OpBuilder b(forall);
      Value rest = ids[1];
      for (unsigned dim = rank - 2; dim > 0; --dim) {
        Value count =
            arith::ConstantIndexOp::create(b, forall.getLoc(), trips[dim]);
        dimIds[dim] = arith::RemUIOp::create(b, forall.getLoc(), rest, count);
        rest = arith::DivUIOp::create(b, forall.getLoc(), rest, count);
      }
      dimIds[0] = rest;
    }
    inlineForall(forall, dimIds);
  }
  func->setAttr(kWorkgroupCountAttr, DenseI64ArrayAttr::get(context, counts));
  return true;
}

} // namespace

/// One-shot bufferization names the constants it moves into memref.globals
/// (__constant_64xf32, _0, _1, ...) in the order it visits the functions,
/// which for functions that call nothing is a hash map's: the same input
/// compiled twice gave kernel libraries with their bias vectors swapped in
/// .rodata. The globals are renamed and placed in the order the module's
/// functions first read them, so the bytes depend on the input only.
void orderConstantGlobals(ModuleOp module) {
  SmallVector<memref::GlobalOp> order;
  llvm::SmallPtrSet<Operation *, 16> seen;
  SymbolTable symbols(module);
  module.walk([&](memref::GetGlobalOp get) {
    auto global = symbols.lookup<memref::GlobalOp>(get.getName());
    if (global && global.getConstant() && seen.insert(global).second) {
      order.push_back(global);
    }
  });
  // Temporary names first, so no final name collides with an old one.
  for (auto [i, global] : llvm::enumerate(order)) {
    (void)symbols.rename(global, "__strata_ordering_" + std::to_string(i));
  }
  Operation *front = &module.getBody()->front();
  for (auto [i, global] : llvm::enumerate(order)) {
    (void)symbols.rename(global, "__constant_" + std::to_string(i));
    if (global.getOperation() != front) {
      global->moveBefore(front);
    }
    front = global->getNextNode();
  }
}

/// A linalg.fill that several ops take as their init (CSE merges the
/// identical zero fills of a dispatch: mobilenet_v2's expansion and its
/// depthwise convolution at the same shape) is cloned right before each
/// of them, so that each op writes a buffer of its own rather than a copy
/// of the one the fill wrote, with its fill in front of it, where the
/// microkernel rewrites find it (findFill) and fold it along with the
/// epilogue after it (with the copy, each image's two 14x14x576 epilogues
/// ran as loops of their own and a 451 KB copy more).
void cloneSharedFills(ModuleOp module) {
  SmallVector<linalg::FillOp> fills;
  module.walk([&](linalg::FillOp fill) {
    if (fill.hasPureTensorSemantics() && !fill->getResult(0).hasOneUse() &&
        llvm::all_of(fill->getResult(0).getUses(), [](OpOperand &use) {
          auto dps = dyn_cast<DestinationStyleOpInterface>(use.getOwner());
          return dps && dps.isDpsInit(&use);
        })) {
      fills.push_back(fill);
    }
  });
  for (linalg::FillOp fill : fills) {
    for (OpOperand &use :
         llvm::make_early_inc_range(fill->getResult(0).getUses())) {
      OpBuilder builder(use.getOwner());
      use.set(builder.clone(*fill.getOperation())->getResult(0));
    }
    fill.erase();
  }
}

LogicalResult bufferizeExecutable(ModuleOp module) {
  if (failed(bindDynamicShapes(module))) {
    return failure();
  }
  cloneSharedFills(module);
  // A tensor.concat becomes insert_slices into one tensor.empty, which
  // eliminate-empty-tensors then places in the result's binding: the
  // operands are copied straight into the result, with no buffer of the
  // kernel's own (which a dynamic concat could not have: no upper bound).
  RewritePatternSet concats(module.getContext());
  tensor::populateDecomposeTensorConcatPatterns(concats);
  if (failed(applyPatternsGreedily(module, std::move(concats)))) {
    return module.emitError() << "llvm-cpu: decomposing tensor.concat failed";
  }
  if (failed(runPassPipeline(
          module, "func.func(eliminate-empty-tensors),"
                  "one-shot-bufferize{bufferize-function-boundaries "
                  "function-boundary-type-conversion=identity-layout-map "
                  "unknown-type-conversion=identity-layout-map},"
                  "buffer-results-to-out-params{hoist-static-allocs "
                  "modify-public-functions},"
                  "func.func(canonicalize,cse)"))) {
    return failure();
  }
  orderConstantGlobals(module);
  return success();
}

LogicalResult bindWorkgroupIds(ModuleOp module,
                               SmallVectorImpl<std::string> &unsafe) {
  for (auto func : module.getOps<func::FuncOp>()) {
    if (!func.isPublic()) {
      continue;
    }
    // Where the inputs end is set by the input check
    // (--strata-llvmcpu-verify-input), which must run first.
    if (!func->getAttrOfType<IntegerAttr>(kInputCountAttr)) {
      return func.emitError()
             << "llvm-cpu: binding workgroup ids needs the input count of "
                "the input check (--strata-llvmcpu-verify-input) first";
    }
    if (!bindFunction(func)) {
      unsafe.push_back(func.getSymName().str());
    }
  }
  return success();
}

} // namespace mlir::strata::llvmcpu
