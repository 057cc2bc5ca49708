// ScheduleExecution.cpp - --strata-schedule-execution: the dispatch calls of
// the host grouped into stream submissions, with barriers, transient slabs
// and timepoints (see Passes.td).

#include "Strata/Dialect/Stream/Transforms/Passes.h"

#include <map>
#include <numeric>

#include "Strata/Dialect/Flow/IR/FlowOps.h"
#include "Strata/Dialect/Util/IR/UtilOps.h"

#include "calling_convention.h"

#include "mlir/Dialect/ControlFlow/IR/ControlFlowOps.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Dominance.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "llvm/ADT/BitVector.h"
#include "llvm/ADT/SetVector.h"

namespace mlir::strata::stream {
#define GEN_PASS_DEF_SCHEDULEEXECUTIONPASS
#include "Strata/Dialect/Stream/Transforms/Passes.h.inc"
} // namespace mlir::strata::stream

using namespace mlir;
using namespace mlir::strata;

namespace {

/// Offsets of transient results in a slab are multiples of this.
constexpr int64_t kSlabAlignment = 64;
/// The async-external entry point's suffix and arguments (the wait and
/// signal fences after the function's): schemas/calling_convention.h.
constexpr llvm::StringRef kAsyncSuffix(::strata::cconv::kAsyncSuffix.data(),
                                       ::strata::cconv::kAsyncSuffix.size());

bool hasTensor(TypeRange types) {
  return llvm::any_of(types, [](Type t) { return isa<TensorType>(t); });
}

int64_t byteCount(RankedTensorType type) {
  unsigned bits = type.getElementTypeBitWidth();
  return type.getNumElements() * (bits < 8 ? 1 : bits / 8);
}

Value indexConstant(OpBuilder &b, Location loc, int64_t value) {
  return arith::ConstantIndexOp::create(b, loc, value);
}

/// The index constants of one group, each made once where the group starts.
class Constants {
public:
  Constants(Operation *start) : builder(start), loc(start->getLoc()) {}
  Value get(int64_t value) {
    Value &constant = values[value];
    if (!constant) {
      constant = indexConstant(builder, loc, value);
    }
    return constant;
  }

private:
  OpBuilder builder;
  Location loc;
  DenseMap<int64_t, Value> values;
};

/// The bytes of a `type` tensor with dimensions `dims` (index values; null
/// for static ones).
Value byteSize(OpBuilder &b, Location loc, Constants &constants,
               RankedTensorType type, ArrayRef<Value> dims) {
  if (type.hasStaticShape()) {
    return constants.get(byteCount(type));
  }
  unsigned bits = type.getElementTypeBitWidth();
  Value size = constants.get(bits < 8 ? 1 : bits / 8);
  for (auto [dim, value] : llvm::zip(type.getShape(), dims)) {
    if (ShapedType::isDynamic(dim)) {
      size = arith::MulIOp::create(b, loc, size, value);
    } else if (dim != 1) {
      size = arith::MulIOp::create(b, loc, size, constants.get(dim));
    }
  }
  return size;
}

/// The value a reshape (a view of the same memory on the host) shows, or
/// `value` itself.
Value throughReshapes(Value value) {
  while (Operation *def = value.getDefiningOp()) {
    if (auto collapse = dyn_cast<tensor::CollapseShapeOp>(def)) {
      value = collapse.getSrc();
    } else if (auto expand = dyn_cast<tensor::ExpandShapeOp>(def)) {
      value = expand.getSrc();
    } else {
      break;
    }
  }
  return value;
}

/// Whether the host must have the results of earlier dispatches before
/// `op` runs: it reads tensors (other than their shapes), holds regions
/// that touch tensors, or ends the block (waits are not carried across
/// blocks).
bool needsDispatchResults(Operation &op) {
  if (op.hasTrait<OpTrait::IsTerminator>()) {
    return true;
  }
  if (isa<tensor::DimOp, tensor::CollapseShapeOp, tensor::ExpandShapeOp,
          util::OptimizationBarrierOp>(op)) {
    return false;
  }
  if (hasTensor(op.getOperandTypes())) {
    return true;
  }
  if (op.getNumRegions() == 0) {
    return false;
  }
  WalkResult touches = op.walk([&](Operation *nested) {
    return hasTensor(nested->getOperandTypes()) ||
                   hasTensor(nested->getResultTypes())
               ? WalkResult::interrupt()
               : WalkResult::advance();
  });
  return touches.wasInterrupted();
}

/// Whether `op`, met between the dispatches of a block, ends their group:
/// anything that touches a tensor or has effects does, except reads of
/// shapes and reshapes (views of memory whose contents they do not read).
/// Scalar work may sit between dispatches.
bool endsGroup(Operation &op) {
  if (isa<tensor::DimOp, tensor::CollapseShapeOp, tensor::ExpandShapeOp>(op)) {
    return false;
  }
  // A check of host values (the equalities between dynamic dimensions that
  // a graph implies) orders nothing on the device. A group's submission
  // goes where its last dispatch is, so every dispatch after the check is
  // still submitted after it: the check still runs before the dispatches
  // it guards. Ending the group there split a dynamic-batch resnet18 into
  // ten submissions.
  if (isa<util::AssertEqOp, cf::AssertOp>(op) &&
      !hasTensor(op.getOperandTypes())) {
    return false;
  }
  return op.hasTrait<OpTrait::IsTerminator>() || !isMemoryEffectFree(&op) ||
         op.getNumRegions() != 0 || hasTensor(op.getOperandTypes()) ||
         hasTensor(op.getResultTypes());
}

/// Whether `call` reads what an earlier dispatch of its group writes,
/// directly or through a reshape: a barrier goes before it.
bool readsGroupResult(flow::DispatchOp call,
                      const SmallPtrSetImpl<Operation *> &group) {
  return llvm::any_of(call.getOperands(), [&](Value operand) {
    Operation *def = throughReshapes(operand).getDefiningOp();
    return def && group.contains(def);
  });
}

/// The sizes of the dynamic dimensions of `call`'s result `index`: among
/// the call's last operands (flow's contract with the dispatch).
SmallVector<Value> resultDynamicDims(flow::DispatchOp call, unsigned index) {
  unsigned total = 0, before = 0;
  for (auto [i, type] : llvm::enumerate(call.getResultTypes())) {
    unsigned count = cast<RankedTensorType>(type).getNumDynamicDims();
    total += count;
    if (i < index) {
      before += count;
    }
  }
  ValueRange dims = ValueRange(call.getOperands()).take_back(total);
  unsigned count = cast<RankedTensorType>(call.getResult(index).getType())
                       .getNumDynamicDims();
  return llvm::to_vector(dims.drop_front(before).take_front(count));
}

/// Dimension `index` of `tensor` as the host knows it without reading the
/// tensor: a constant, the size a dispatch was given for its result, or
/// what a reshape of such a tensor makes of them (its output shape, or the
/// product of the dimensions it collapses); null otherwise. New ops go at
/// `b`'s insertion point.
Value knownDim(OpBuilder &b, Location loc, Value tensor, int64_t index) {
  auto type = cast<RankedTensorType>(tensor.getType());
  if (!type.isDynamicDim(index)) {
    return indexConstant(b, loc, type.getDimSize(index));
  }
  if (auto result = dyn_cast<OpResult>(tensor)) {
    if (auto call = dyn_cast<flow::DispatchOp>(result.getOwner())) {
      return resultDynamicDims(
          call, result.getResultNumber())[type.getDynamicDimIndex(index)];
    }
  }
  if (auto expand = tensor.getDefiningOp<tensor::ExpandShapeOp>()) {
    return dyn_cast<Value>(expand.getMixedOutputShape()[index]);
  }
  if (auto collapse = tensor.getDefiningOp<tensor::CollapseShapeOp>()) {
    Value product;
    // A copy: the groups are returned by value, and a range-for over an
    // element of that temporary would read freed memory.
    SmallVector<ReassociationIndices> groups =
        collapse.getReassociationIndices();
    for (int64_t source : groups[index]) {
      Value dim = knownDim(b, loc, collapse.getSrc(), source);
      if (!dim) {
        return Value();
      }
      product = product
                    ? arith::MulIOp::create(b, loc, product, dim).getResult()
                    : dim;
    }
    return product;
  }
  return Value();
}

/// Rewrites `tensor.dim` of a dispatch result, or of a reshape of one, to
/// the size the host gave the dispatch (knownDim): the host knows every
/// result's shape before the dispatch runs, and a result read only for its
/// shape may still be transient.
void resolveResultDims(Block &block) {
  SmallVector<tensor::DimOp> dims;
  for (Operation &op : block) {
    if (auto dim = dyn_cast<tensor::DimOp>(op)) {
      dims.push_back(dim);
    }
  }
  for (tensor::DimOp dim : dims) {
    Value source = throughReshapes(dim.getSource());
    auto result = dyn_cast<OpResult>(source);
    std::optional<int64_t> index = dim.getConstantIndex();
    auto type = dyn_cast<RankedTensorType>(dim.getSource().getType());
    if (!result || !isa<flow::DispatchOp>(result.getOwner()) || !index ||
        !type || *index < 0 || *index >= type.getRank()) {
      continue;
    }
    OpBuilder b(dim);
    if (Value size = knownDim(b, dim.getLoc(), dim.getSource(), *index)) {
      dim.replaceAllUsesWith(size);
      dim.erase();
    }
  }
}

/// An integer division or remainder: free of effects, but it fails on a
/// zero divisor (its second operand), so it may not run where the program
/// does not run it.
bool isDivision(Operation *op) {
  return isa<arith::DivUIOp, arith::DivSIOp, arith::RemUIOp, arith::RemSIOp,
             arith::CeilDivUIOp, arith::CeilDivSIOp, arith::FloorDivSIOp>(op);
}

/// Whether `value` can be computed before `point` (an op of `block`): it
/// is defined there already, or by scalar ops without effects (and
/// `tensor.dim` of tensors that are) that can be computed there. Those ops
/// are appended to `ops`, operands first.
bool computableBefore(Value value, Block &block, Operation *point,
                      SetVector<Operation *> &ops) {
  Operation *def = value.getDefiningOp();
  if (!def || def->getBlock() != &block || def->isBeforeInBlock(point) ||
      ops.contains(def)) {
    return true;
  }
  bool scalar =
      isa<tensor::DimOp>(def) ||
      (!hasTensor(def->getOperandTypes()) && !hasTensor(def->getResultTypes()));
  if (!scalar || def->getNumRegions() != 0 ||
      !(isPure(def) || isDivision(def))) {
    return false;
  }
  for (Value operand : def->getOperands()) {
    if (!computableBefore(operand, block, point, ops)) {
      return false;
    }
  }
  ops.insert(def);
  return true;
}

/// Makes `dims` (computableBefore with `ops`) available before `point`: the
/// ops move there when they are pure. A division (a size inferred from an
/// element count, as a reshape's -1) may sit after the check that makes
/// its divisor non-zero; then the ops are cloned there instead, each
/// division of a clone by max(divisor, 1) (a wrong size only where that
/// check fails before any dispatch reads the slab), and the clones' values
/// replace `dims`. `mapping` holds the clones made for the block so far.
void computeBefore(SmallVectorImpl<Value> &dims, Operation *point,
                   const SetVector<Operation *> &ops, IRMapping &mapping) {
  if (llvm::none_of(ops, isDivision)) {
    for (Operation *op : ops) {
      op->moveBefore(point);
    }
    return;
  }
  OpBuilder b(point);
  for (Operation *op : ops) {
    if (mapping.contains(op)) {
      continue; // cloned for an earlier transient
    }
    Operation *clone = b.clone(*op, mapping);
    if (isDivision(clone)) {
      Value divisor = clone->getOperand(1);
      Value one = arith::ConstantOp::create(
          b, clone->getLoc(), b.getIntegerAttr(divisor.getType(), 1));
      Value positive = arith::MaxUIOp::create(b, clone->getLoc(), divisor, one);
      clone->setOperand(1, positive);
      clone->moveAfter(positive.getDefiningOp());
      b.setInsertionPointAfter(clone);
    }
  }
  for (Value &dim : dims) {
    dim = mapping.lookupOrDefault(dim);
  }
}

/// Where the transient results of a block live: one slab for all of its
/// groups, and room in it for the slabs of the blocks nested in its ops.
struct SlabPlan {
  /// A transient's range in the slab. Static ranges are relative to the
  /// block's base; a range whose offset or length the host computes has
  /// them as values once the slab is made.
  struct Slot {
    int64_t offset;
    int64_t bytes;
    Value offsetValue, lengthValue;
  };
  /// One transient (a result, or a nested op's room) as the planner sees
  /// it: `factor` bytes times its dynamic sizes `dims` (none: static),
  /// placed at `offset` in a layout with every dynamic size estimated, and
  /// at run time just past the ends of the transients `below` it.
  struct Extent {
    Value result;  // null for a nested op's room
    Operation *op; // the nested op
    int64_t factor;
    SmallVector<Value> dims;
    int64_t offset, capacity;
    SmallVector<unsigned> below;
  };
  /// In order of their layout offsets (each after those below it).
  SmallVector<Extent> extents;
  /// The extents no other one sits on: their ends bound the slab's size.
  SmallVector<unsigned> tops;
  bool symbolic = false;

  DenseMap<Value, Slot> slots;
  /// Where each op holding blocks with transients keeps them: the offset
  /// of their slabs (all at the same place: one runs at a time), static
  /// or, once the slab is made, a host value.
  DenseMap<Operation *, int64_t> nested;
  DenseMap<Operation *, Value> nestedValues;
  /// The size of the slab when it is static.
  int64_t bytes = 0;
  /// The reshapes of transient results: views that die with the block.
  SmallVector<Operation *> views;
  /// The slab and where this block's part of it begins (`baseValue`, when
  /// the host computes it, plus `base`): made by the block's first group
  /// or nested op that needs it, or, for a nested block, the enclosing
  /// block's slab at the op's offset.
  Value slab;
  int64_t base = 0;
  Value baseValue;

  bool needsSlab() const { return bytes != 0 || symbolic; }
};

/// The estimate of a dynamic size that the layout of a symbolic plan is
/// made with: it decides which transient sits on which, never a size.
constexpr int64_t kDynamicSizeEstimate = 64;

int64_t alignSlot(int64_t bytes) {
  return (bytes + kSlabAlignment - 1) / kSlabAlignment * kSlabAlignment;
}

/// The slab plan of `block`, given the plans of the blocks nested in its
/// ops. A result is transient when only later dispatches of the block read
/// it (directly or through reshapes), in its own group or a later one:
/// groups chain, each submission waiting for the one before, so the data
/// flow through the block's groups is all on the device. A result with
/// dynamic sizes is transient too when `symbolic` (the blocks of a
/// function's body, whose slab is their own) and its sizes can be computed
/// where the slab is made (the block's first dispatch or nested op): pure
/// scalar host ops move there. An op holding blocks with transients (a
/// loop, a branch) runs between a wait for everything before it and its
/// blocks' own waits at their ends: its blocks' slabs take one place in
/// this block's slab, clear only of the results live across the op. Two
/// transient results may share bytes when one's last reader is done before
/// the other's dispatch writes: a barrier, the start of a later group or a
/// nested op separates them. Places are chosen greedily by size (largest
/// first, each at the lowest 64-byte aligned offset clear of every placed
/// result it may not share with), which packs a chain of layers close to
/// its largest pair of neighbours. Dynamic sizes are estimated for that
/// layout, and it becomes host arithmetic: each transient sits at the
/// largest end of those it may not share with that lie below it in the
/// layout (so every such pair stays apart whatever the sizes), and the
/// slab ends at the largest end. With static sizes that is the layout.
SlabPlan planSlab(Block &block, const DenseMap<Block *, SlabPlan> &plans,
                  bool symbolic) {
  SlabPlan plan;
  using Extent = SlabPlan::Extent;
  struct Life {
    unsigned def, lastReader;
  };
  SmallVector<Extent> extents;
  SmallVector<Life> lives;
  if (symbolic) {
    resolveResultDims(block);
  }
  // The block's dispatches and nested ops in order, and orderedUpTo[i]: the
  // points up to entry i before which everything earlier has finished.
  DenseMap<Operation *, unsigned> indexOf;
  SmallVector<flow::DispatchOp> calls;
  SmallVector<unsigned> orderedUpTo;
  unsigned points = 0;
  // Where the slab is made: the first dispatch or nested op with room; and
  // the ops cloned there to compute sizes.
  Operation *point = nullptr;
  IRMapping cloned;
  SmallPtrSet<Operation *, 8> group; // the open group
  for (Operation &op : block) {
    if (auto call = dyn_cast<flow::DispatchOp>(op)) {
      if ((group.empty() && !orderedUpTo.empty()) ||
          readsGroupResult(call, group)) {
        ++points;
      }
      group.insert(call);
      indexOf[call] = orderedUpTo.size();
      calls.push_back(call);
      orderedUpTo.push_back(points);
      point = point ? point : call.getOperation();
      continue;
    }
    if (!endsGroup(op)) {
      continue;
    }
    group.clear();
    int64_t room = 0;
    for (Region &region : op.getRegions()) {
      for (Block &inner : region) {
        auto it = plans.find(&inner);
        if (it != plans.end()) {
          room = std::max(room, it->second.bytes);
        }
      }
    }
    if (room) {
      unsigned index = orderedUpTo.size();
      orderedUpTo.push_back(++points);
      ++points;
      extents.push_back({Value(), &op, room, {}, 0, alignSlot(room), {}});
      lives.push_back({index, index});
      point = point ? point : &op;
    }
  }

  for (flow::DispatchOp call : calls) {
    unsigned index = indexOf[call];
    for (OpResult result : call->getResults()) {
      auto type = dyn_cast<RankedTensorType>(result.getType());
      if (!type || result.use_empty() ||
          (!type.hasStaticShape() && !symbolic)) {
        continue;
      }
      // Its readers, seen through reshapes (the slot is the same memory).
      SmallVector<unsigned> readers;
      SmallVector<Operation *> views;
      bool transient = true;
      SmallVector<Value> worklist = {result};
      while (transient && !worklist.empty()) {
        Value value = worklist.pop_back_val();
        for (Operation *user : value.getUsers()) {
          auto reader = indexOf.find(user);
          if (reader != indexOf.end()) {
            readers.push_back(reader->second);
          } else if (isa<tensor::CollapseShapeOp, tensor::ExpandShapeOp>(
                         user)) {
            views.push_back(user);
            worklist.push_back(user->getResult(0));
          } else {
            transient = false;
            break;
          }
        }
      }
      if (!transient || readers.empty()) {
        continue;
      }
      unsigned bits = type.getElementTypeBitWidth();
      int64_t factor = bits < 8 ? 1 : bits / 8;
      for (int64_t dim : type.getShape()) {
        factor *= ShapedType::isDynamic(dim) ? 1 : dim;
      }
      SmallVector<Value> dims =
          resultDynamicDims(call, result.getResultNumber());
      if (!dims.empty()) {
        SetVector<Operation *> ops;
        if (!llvm::all_of(dims, [&](Value dim) {
              return computableBefore(dim, block, point, ops);
            })) {
          continue;
        }
        computeBefore(dims, point, ops, cloned);
      }
      // The layout's estimate, saturated far below overflow.
      constexpr int64_t kLimit = int64_t(1) << 48;
      int64_t estimate = factor;
      for (size_t i = 0; i < dims.size(); ++i) {
        estimate = std::min(kLimit, estimate * kDynamicSizeEstimate);
      }
      llvm::append_range(plan.views, views);
      extents.push_back(
          {result, nullptr, factor, dims, 0, alignSlot(estimate), {}});
      lives.push_back({index, *llvm::max_element(readers)});
    }
  }
  auto doneBefore = [&](unsigned first, unsigned second) {
    return lives[first].lastReader < lives[second].def &&
           orderedUpTo[lives[second].def] >
               orderedUpTo[lives[first].lastReader];
  };
  auto interfere = [&](unsigned a, unsigned b) {
    return !doneBefore(a, b) && !doneBefore(b, a);
  };
  SmallVector<unsigned> bySize(extents.size());
  std::iota(bySize.begin(), bySize.end(), 0u);
  llvm::stable_sort(bySize, [&](unsigned a, unsigned b) {
    return extents[a].capacity > extents[b].capacity;
  });
  SmallVector<unsigned> placed;
  for (unsigned i : bySize) {
    Extent &t = extents[i];
    SmallVector<std::pair<int64_t, int64_t>> taken; // [begin, end)
    for (unsigned j : placed) {
      if (interfere(i, j)) {
        taken.push_back(
            {extents[j].offset, extents[j].offset + extents[j].capacity});
      }
    }
    llvm::sort(taken);
    int64_t offset = 0;
    for (auto [begin, end] : taken) {
      if (offset + t.capacity <= begin) {
        break;
      }
      offset = std::max(offset, end);
    }
    t.offset = offset;
    placed.push_back(i);
    plan.symbolic |= !t.dims.empty();
  }
  if (!plan.symbolic) {
    for (const Extent &t : extents) {
      if (t.result) {
        plan.slots[t.result] = {t.offset, t.factor, Value(), Value()};
      } else {
        plan.nested[t.op] = t.offset;
      }
      plan.bytes = std::max(plan.bytes, t.offset + t.capacity);
    }
    return plan;
  }
  // The symbolic plan: which transients each one sits on (those it may not
  // share with that end below its offset in the layout), without those
  // that another one it sits on already clears.
  SmallVector<unsigned> byOffset(extents.size());
  std::iota(byOffset.begin(), byOffset.end(), 0u);
  llvm::stable_sort(byOffset, [&](unsigned a, unsigned b) {
    return extents[a].offset < extents[b].offset;
  });
  SmallVector<unsigned> position(extents.size());
  for (auto [pos, i] : llvm::enumerate(byOffset)) {
    position[i] = pos;
  }
  SmallVector<llvm::BitVector> below(extents.size(),
                                     llvm::BitVector(extents.size()));
  llvm::BitVector covered(extents.size());
  for (unsigned t = 0; t < extents.size(); ++t) {
    if (!extents[t].capacity) {
      continue;
    }
    for (unsigned u = 0; u < extents.size(); ++u) {
      if (u != t && extents[u].capacity && interfere(t, u) &&
          extents[u].offset + extents[u].capacity <= extents[t].offset) {
        below[t].set(u);
        covered.set(u);
      }
    }
  }
  for (unsigned t = 0; t < extents.size(); ++t) {
    llvm::BitVector direct = below[t];
    for (unsigned u : below[t].set_bits()) {
      direct.reset(below[u]);
    }
    for (unsigned u : direct.set_bits()) {
      extents[t].below.push_back(position[u]);
    }
  }
  SmallVector<Extent> ordered;
  for (unsigned i : byOffset) {
    ordered.push_back(std::move(extents[i]));
    if (!covered.test(i)) {
      plan.tops.push_back(ordered.size() - 1);
    }
  }
  plan.extents = std::move(ordered);
  return plan;
}

/// Emits the slab of `plan` at `b`'s insertion point: its size and, for a
/// symbolic plan, every offset and length, as host arithmetic.
void makeSlab(OpBuilder &b, Location loc, SlabPlan &plan) {
  Type resourceType = stream::ResourceType::get(b.getContext());
  DenseMap<int64_t, Value> constants;
  auto constant = [&](int64_t value) {
    Value &c = constants[value];
    if (!c) {
      c = indexConstant(b, loc, value);
    }
    return c;
  };
  if (!plan.symbolic) {
    plan.slab = stream::ResourceAllocaOp::create(b, loc, resourceType,
                                                 constant(plan.bytes));
    return;
  }
  // A quantity the host may know only at run time: `value` (if any) plus
  // `constant`.
  struct Quantity {
    int64_t constant = 0;
    Value value;
  };
  auto materialize = [&](Quantity q) -> Value {
    if (!q.value) {
      return constant(q.constant);
    }
    if (!q.constant) {
      return q.value;
    }
    return arith::AddIOp::create(b, loc, q.value, constant(q.constant));
  };
  auto max = [&](ArrayRef<Quantity> quantities) -> Quantity {
    // The constants' largest, and each value's largest constant (the ends
    // of two transients on the same one are often the same).
    int64_t known = 0;
    SmallVector<Quantity> variable;
    for (const Quantity &q : quantities) {
      if (!q.value) {
        known = std::max(known, q.constant);
        continue;
      }
      auto same = llvm::find_if(
          variable, [&](const Quantity &v) { return v.value == q.value; });
      if (same == variable.end()) {
        variable.push_back(q);
      } else {
        same->constant = std::max(same->constant, q.constant);
      }
    }
    if (variable.empty()) {
      return {known, Value()};
    }
    if (variable.size() == 1 && variable.front().constant >= known) {
      return variable.front();
    }
    Value result;
    for (const Quantity &q : variable) {
      Value v = materialize(q);
      result =
          result ? arith::MaxUIOp::create(b, loc, result, v).getResult() : v;
    }
    if (known) {
      result = arith::MaxUIOp::create(b, loc, result, constant(known));
    }
    return {0, result};
  };
  // The bytes and the aligned capacity of each dynamic size, made once.
  std::map<std::pair<int64_t, SmallVector<void *>>, std::pair<Value, Value>>
      sizes;
  DenseMap<std::pair<Value, Value>, Value> sums;
  SmallVector<Quantity> ends;
  for (SlabPlan::Extent &t : plan.extents) {
    SmallVector<Quantity> beneath;
    for (unsigned u : t.below) {
      beneath.push_back(ends[u]);
    }
    Quantity offset = max(beneath);
    Quantity length{t.factor, Value()}, capacity{t.capacity, Value()};
    if (!t.dims.empty()) {
      SmallVector<void *> key;
      for (Value dim : t.dims) {
        key.push_back(dim.getAsOpaquePointer());
      }
      auto &[bytes, aligned] = sizes[{t.factor, key}];
      if (!bytes) {
        bytes = t.factor == 1 ? Value() : constant(t.factor);
        for (Value dim : t.dims) {
          bytes = bytes ? arith::MulIOp::create(b, loc, bytes, dim).getResult()
                        : dim;
        }
        Value padded =
            arith::AddIOp::create(b, loc, bytes, constant(kSlabAlignment - 1));
        aligned =
            arith::AndIOp::create(b, loc, padded, constant(-kSlabAlignment));
      }
      length = {0, bytes};
      capacity = {0, aligned};
    }
    Quantity end;
    if (!offset.value || !capacity.value) {
      end = {offset.constant + capacity.constant,
             offset.value ? offset.value : capacity.value};
    } else {
      Value &sum = sums[{offset.value, capacity.value}];
      if (!sum) {
        sum = arith::AddIOp::create(b, loc, offset.value, capacity.value);
      }
      end = {offset.constant, sum};
    }
    ends.push_back(end);
    if (t.result) {
      SlabPlan::Slot slot{offset.constant, t.factor, Value(), Value()};
      if (offset.value) {
        slot.offsetValue = materialize(offset);
      }
      slot.lengthValue = length.value;
      plan.slots[t.result] = slot;
    } else if (offset.value) {
      plan.nestedValues[t.op] = materialize(offset);
    } else {
      plan.nested[t.op] = offset.constant;
    }
  }
  SmallVector<Quantity> tops;
  for (unsigned t : plan.tops) {
    tops.push_back(ends[t]);
  }
  plan.slab = stream::ResourceAllocaOp::create(b, loc, resourceType,
                                               materialize(max(tops)));
}

/// The constant data of a host tensor, if it is one.
ElementsAttr getConstantTensor(Value value) {
  auto constant = value.getDefiningOp<arith::ConstantOp>();
  if (!constant || !isa<RankedTensorType>(constant.getType())) {
    return {};
  }
  return dyn_cast<ElementsAttr>(constant.getValue());
}

/// Schedules the dispatch calls of functions into stream IR.
class Scheduler {
public:
  /// `dynamicTransients`: whether results with dynamic sizes may be
  /// transient (the pass's option).
  explicit Scheduler(bool dynamicTransients)
      : dynamicTransients(dynamicTransients) {}

  /// `waitFence`/`signalFence`: the fences of an async-external function.
  void schedule(func::FuncOp func, Value waitFence, Value signalFence);

private:
  /// Work submitted and not awaited yet: the last submission's timepoint
  /// (it follows every earlier one of the chain) and the host tensors the
  /// chain produces.
  struct Pending {
    Value timepoint;
    SmallVector<Value> values;
  };

  void scheduleBlock(Block &block, Value entryTimepoint, Value signalFence);
  /// Emits one group's submission; its calls go to `done`, erased when the
  /// block is (a later group may still read their transient results).
  void emitGroup(MutableArrayRef<flow::DispatchOp> calls, Value awaitTimepoint,
                 Pending &pending, SlabPlan &plan,
                 SmallVectorImpl<flow::DispatchOp> &done);
  void awaitBefore(Operation &op, Pending &pending);

  bool dynamicTransients;
  std::unique_ptr<DominanceInfo> dominance;
  /// Every block's slab plan, made (innermost first) before any block is
  /// scheduled.
  DenseMap<Block *, SlabPlan> plans;
};

void Scheduler::schedule(func::FuncOp func, Value waitFence,
                         Value signalFence) {
  dominance = std::make_unique<DominanceInfo>(func);
  Value entryTimepoint;
  if (waitFence) {
    Block &entry = func.getBody().front();
    OpBuilder b = OpBuilder::atBlockBegin(&entry);
    entryTimepoint = stream::TimepointImportOp::create(
                         b, func.getLoc(),
                         stream::TimepointType::get(b.getContext()), waitFence)
                         .getResult();
  }
  SmallVector<Block *> blocks;
  func.walk<WalkOrder::PreOrder>(
      [&](Block *block) { blocks.push_back(block); });
  plans.clear();
  for (Block *block : llvm::reverse(blocks)) {
    // A block of the function's body has a slab of its own, whose size the
    // host may compute; a nested block's part of its enclosing slab has a
    // static size.
    SlabPlan plan = planSlab(*block, plans,
                             dynamicTransients &&
                                 block->getParentOp() == func.getOperation());
    plans[block] = std::move(plan);
  }
  for (Block *block : blocks) {
    scheduleBlock(*block,
                  block->isEntryBlock() &&
                          block->getParentOp() == func.getOperation()
                      ? entryTimepoint
                      : Value(),
                  signalFence);
  }
}

void Scheduler::scheduleBlock(Block &block, Value entryTimepoint,
                              Value signalFence) {
  SlabPlan &plan = plans[&block];
  SmallVector<flow::DispatchOp> done;
  SmallVector<flow::DispatchOp> group; // the open group
  Pending pending;
  // The caller's wait fence, until something waits for it.
  Value pendingEntry = entryTimepoint;
  auto close = [&]() {
    if (group.empty()) {
      return;
    }
    // The chain goes on: this submission waits for the pending one (or the
    // caller's fence), whose wait the host leaves to this one's.
    emitGroup(group, pending.timepoint ? pending.timepoint : pendingEntry,
              pending, plan, done);
    pendingEntry = Value();
    group.clear();
  };
  for (Operation &op : llvm::make_early_inc_range(block)) {
    if (auto dispatch = dyn_cast<flow::DispatchOp>(op)) {
      group.push_back(dispatch);
      continue;
    }
    if (isa<tensor::DimOp, tensor::CollapseShapeOp, tensor::ExpandShapeOp>(
            op)) {
      continue;
    }
    if (endsGroup(op)) {
      close();
    }
    bool hasRoom = plan.symbolic ? llvm::any_of(plan.extents,
                                                [&](const SlabPlan::Extent &t) {
                                                  return t.op == &op;
                                                })
                                 : plan.nested.contains(&op);
    if (hasRoom) {
      // The op's blocks keep their transients in this block's slab.
      if (!plan.slab) {
        OpBuilder b(&op);
        makeSlab(b, op.getLoc(), plan);
      }
      // Its place: a host value in a symbolic plan, else static (after the
      // enclosing block's base).
      Value roomValue = plan.nestedValues.lookup(&op);
      for (Region &region : op.getRegions()) {
        for (Block &inner : region) {
          SlabPlan &innerPlan = plans[&inner];
          innerPlan.slab = plan.slab;
          innerPlan.baseValue = roomValue ? roomValue : plan.baseValue;
          innerPlan.base = roomValue ? 0 : plan.base + plan.nested.lookup(&op);
        }
      }
    }

    if (signalFence && isa<func::ReturnOp>(op)) {
      // An async-external return: what is pending goes to the signal
      // fence; the host does not wait.
      OpBuilder b(&op);
      Location loc = op.getLoc();
      Value timepoint = pending.timepoint ? pending.timepoint : pendingEntry;
      stream::TimepointChainExternalOp::create(b, loc, timepoint, signalFence);
      pending = Pending();
      pendingEntry = Value();
      continue;
    }
    if (!needsDispatchResults(op)) {
      continue;
    }
    if (pending.timepoint) {
      awaitBefore(op, pending);
      pending = Pending();
    } else if (pendingEntry) {
      OpBuilder b(&op);
      stream::TimepointAwaitOp::create(b, op.getLoc(), TypeRange(),
                                       pendingEntry, ValueRange());
      pendingEntry = Value();
    }
  }
  close();
  // Transient results had only the block's dispatches as users, and views
  // of them read only by those: the calls and views use each other's
  // results, so every reference goes before any of them is erased.
  for (flow::DispatchOp call : done) {
    call->dropAllReferences();
  }
  for (Operation *view : plan.views) {
    view->dropAllReferences();
  }
  for (Operation *view : plan.views) {
    view->erase();
  }
  for (flow::DispatchOp call : llvm::reverse(done)) {
    call->dropAllUses();
    call.erase();
  }
}

void Scheduler::emitGroup(MutableArrayRef<flow::DispatchOp> calls,
                          Value awaitTimepoint, Pending &pending,
                          SlabPlan &plan,
                          SmallVectorImpl<flow::DispatchOp> &done) {
  MLIRContext *context = calls.front().getContext();
  SmallPtrSet<Operation *, 8> inGroup;
  for (flow::DispatchOp call : calls) {
    inGroup.insert(call);
  }
  // A barrier goes before a dispatch that reads what an earlier one of its
  // group writes, directly or through a reshape.
  SmallVector<bool> barriers;
  for (flow::DispatchOp call : calls) {
    barriers.push_back(readsGroupResult(call, inGroup));
  }
  DenseMap<Value, SlabPlan::Slot> &slots = plan.slots;

  Location groupLoc = calls.front().getLoc();
  Constants consts(calls.front());
  OpBuilder b(calls.front());
  Type resourceType = stream::ResourceType::get(context);
  if (plan.needsSlab() && !plan.slab) {
    makeSlab(b, groupLoc, plan);
  }
  Value slab = plan.slab;
  // A slot's range: host values in a symbolic plan or after a base the
  // host computes, else constants.
  DenseMap<int64_t, Value> basedOffsets;
  auto bindSlot = [&](const SlabPlan::Slot &slot, auto bind) {
    Value length = slot.lengthValue ? slot.lengthValue : consts.get(slot.bytes);
    Value offset = slot.offsetValue;
    if (!offset && !plan.baseValue) {
      offset = consts.get(plan.base + slot.offset);
    } else if (!offset) {
      Value &based = basedOffsets[plan.base + slot.offset];
      if (!based) {
        OpBuilder start(calls.front());
        based = arith::AddIOp::create(start, groupLoc, plan.baseValue,
                                      consts.get(plan.base + slot.offset));
      }
      offset = based;
    }
    bind(slab, offset, length);
  };

  struct Command {
    Location loc;
    SymbolRefAttr entryPoint;
    bool barrier;
    SmallVector<Value> constants, resources, offsets, lengths;
    /// Null when the dispatch always runs; else whether one of its results
    /// has elements (an i1 on the host).
    Value enabled;
    /// Every result is statically empty: there is nothing to dispatch.
    bool skipped = false;
  };
  SmallVector<Command, 4> commands;
  SmallVector<Value> exports;
  for (auto [call, barrier] : llvm::zip(calls, barriers)) {
    Location loc = call.getLoc();
    b.setInsertionPoint(call);
    Command command{loc, call.getEntryPoint(), barrier};
    auto bind = [&](Value resource, Value offset, Value length) {
      command.resources.push_back(resource);
      command.offsets.push_back(offset);
      command.lengths.push_back(length);
    };
    // Bindings: every tensor input, then every result. Other operands are
    // push constants.
    for (Value operand : call.getOperands()) {
      auto type = dyn_cast<RankedTensorType>(operand.getType());
      if (!type) {
        command.constants.push_back(operand);
        continue;
      }
      auto slot = slots.find(throughReshapes(operand));
      if (slot != slots.end()) {
        bindSlot(slot->second, bind);
        continue;
      }
      Value zero = consts.get(0);
      if (ElementsAttr data = getConstantTensor(operand)) {
        Value constant =
            stream::ResourceConstantOp::create(b, loc, resourceType, data);
        bind(constant, zero, consts.get(byteCount(type)));
        continue;
      }
      Value resource =
          stream::TensorImportOp::create(b, loc, resourceType, operand);
      Value length = type.hasStaticShape()
                         ? consts.get(byteCount(type))
                         : stream::ResourceSizeOp::create(
                               b, loc, b.getIndexType(), resource)
                               .getResult();
      bind(resource, zero, length);
    }
    // The sizes of the results' dynamic dimensions are the call's last
    // operands (flow's contract with the dispatch).
    unsigned resultDynamicDims = 0;
    for (Type type : call.getResultTypes()) {
      resultDynamicDims += cast<RankedTensorType>(type).getNumDynamicDims();
    }
    ValueRange dynamicDims =
        ValueRange(call.getOperands()).take_back(resultDynamicDims);
    // A dispatch writes only its results: when all are empty, it is not
    // launched (statically empty: not recorded; dynamic: recorded with no
    // workgroups when the sizes say so at run time).
    bool alwaysRuns = false;
    SmallVector<Value> nonEmpty;
    for (OpResult result : call->getResults()) {
      auto type = cast<RankedTensorType>(result.getType());
      ValueRange resultDims = dynamicDims.take_front(type.getNumDynamicDims());
      dynamicDims = dynamicDims.drop_front(type.getNumDynamicDims());
      if (llvm::is_contained(type.getShape(), 0)) {
        // Empty whatever the dynamic sizes.
      } else if (type.hasStaticShape()) {
        alwaysRuns = true;
      } else {
        Value some;
        for (Value size : resultDims) {
          Value positive = arith::CmpIOp::create(
              b, loc, arith::CmpIPredicate::ne, size, consts.get(0));
          some = some
                     ? arith::AndIOp::create(b, loc, some, positive).getResult()
                     : positive;
        }
        nonEmpty.push_back(some);
      }
      auto slot = slots.find(result);
      if (slot != slots.end()) {
        bindSlot(slot->second, bind);
        continue;
      }
      SmallVector<Value> dims;
      unsigned next = 0;
      for (int64_t dim : type.getShape()) {
        dims.push_back(ShapedType::isDynamic(dim) ? resultDims[next++]
                                                  : Value());
      }
      Value bytes = byteSize(b, loc, consts, type, dims);
      Value resource =
          stream::ResourceAllocOp::create(b, loc, resourceType, bytes);
      Value zero = consts.get(0);
      bind(resource, zero, bytes);
      Value tensor = stream::TensorExportOp::create(b, loc, type, resource,
                                                    zero, bytes, resultDims);
      result.replaceAllUsesWith(tensor);
      exports.push_back(tensor);
    }
    if (!alwaysRuns) {
      command.skipped = nonEmpty.empty();
      for (Value some : nonEmpty) {
        command.enabled =
            command.enabled
                ? arith::OrIOp::create(b, loc, command.enabled, some)
                      .getResult()
                : some;
      }
    }
    commands.push_back(std::move(command));
  }

  b.setInsertionPoint(calls.back());
  auto execute =
      stream::CmdExecuteOp::create(b, calls.back().getLoc(), awaitTimepoint);
  OpBuilder body = OpBuilder::atBlockEnd(&execute.getBody().front());
  for (const Command &command : commands) {
    if (command.skipped) {
      continue;
    }
    if (command.barrier) {
      stream::CmdBarrierOp::create(body, command.loc);
    }
    stream::CmdDispatchOp::create(
        body, command.loc, command.entryPoint, command.constants,
        command.resources, command.offsets, command.lengths, command.enabled);
  }
  done.append(calls.begin(), calls.end());
  pending.timepoint = execute.getResult();
  pending.values.append(exports);
}

void Scheduler::awaitBefore(Operation &op, Pending &pending) {
  // The pending tensors and the views of them (reshapes, and barriers,
  // which are the identity).
  SetVector<Value> values;
  std::function<void(Value)> add = [&](Value value) {
    if (!values.insert(value)) {
      return;
    }
    for (OpOperand &use : value.getUses()) {
      Operation *user = use.getOwner();
      // Views made after the await read the awaited value already.
      if (!dominance->properlyDominates(user, &op)) {
        continue;
      }
      if (isa<tensor::CollapseShapeOp, tensor::ExpandShapeOp>(user)) {
        add(user->getResult(0));
      } else if (isa<util::OptimizationBarrierOp>(user)) {
        add(user->getResult(use.getOperandNumber()));
      }
    }
  };
  for (Value value : pending.values) {
    add(value);
  }
  // Uses at and after `op` read the awaited values.
  auto after = [&](Operation *user) {
    return user == &op || dominance->properlyDominates(&op, user);
  };
  SmallVector<Value> tied;
  for (Value value : values) {
    if (llvm::any_of(value.getUsers(), after)) {
      tied.push_back(value);
    }
  }
  OpBuilder b(&op);
  auto await = stream::TimepointAwaitOp::create(
      b, op.getLoc(), ValueRange(tied).getTypes(), pending.timepoint, tied);
  for (auto [value, ready] : llvm::zip(tied, await.getResults())) {
    value.replaceUsesWithIf(ready, [&](OpOperand &use) {
      return use.getOwner() != await.getOperation() && after(use.getOwner());
    });
  }
}

/// Adds `<name>$async` (a wait fence and a signal fence after the other
/// arguments) next to each public function with tensors in its signature.
SmallVector<func::FuncOp> addAsyncExports(ModuleOp module) {
  SmallVector<func::FuncOp> exports;
  for (auto func : module.getOps<func::FuncOp>()) {
    FunctionType type = func.getFunctionType();
    if (func.isPublic() && !func.isDeclaration() &&
        (hasTensor(type.getInputs()) || hasTensor(type.getResults()))) {
      exports.push_back(func);
    }
  }
  SmallVector<func::FuncOp> twins;
  for (func::FuncOp func : exports) {
    OpBuilder builder(func);
    builder.setInsertionPointAfter(func);
    auto twin = cast<func::FuncOp>(builder.clone(*func));
    twin.setSymName((func.getSymName() + kAsyncSuffix).str());
    Type fence = hal::FenceType::get(module.getContext());
    unsigned count = twin.getNumArguments();
    if (failed(twin.insertArguments({count, count}, {fence, fence}, {{}, {}},
                                    {func.getLoc(), func.getLoc()}))) {
      func.emitError("cannot add the fence arguments of its async twin");
      continue;
    }
    twins.push_back(twin);
  }
  return twins;
}

struct ScheduleExecutionPass
    : mlir::strata::stream::impl::ScheduleExecutionPassBase<
          ScheduleExecutionPass> {
  using ScheduleExecutionPassBase::ScheduleExecutionPassBase;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    SmallVector<func::FuncOp> twins;
    if (asyncExports) {
      twins = addAsyncExports(module);
    }
    Scheduler scheduler(dynamicTransients);
    for (auto func : module.getOps<func::FuncOp>()) {
      if (func.isDeclaration()) {
        continue;
      }
      Value waitFence, signalFence;
      if (llvm::is_contained(twins, func)) {
        Block &entry = func.getBody().front();
        waitFence = entry.getArgument(entry.getNumArguments() - 2);
        signalFence = entry.getArgument(entry.getNumArguments() - 1);
      }
      scheduler.schedule(func, waitFence, signalFence);
    }

    // Constant tensors the host still holds (returned, read back) are
    // constant resources too, viewed as tensors.
    SmallVector<arith::ConstantOp> constants;
    for (auto func : module.getOps<func::FuncOp>()) {
      func.walk([&](arith::ConstantOp constant) {
        if (getConstantTensor(constant)) {
          constants.push_back(constant);
        }
      });
    }
    for (arith::ConstantOp constant : constants) {
      ElementsAttr data = getConstantTensor(constant);
      if (!constant->use_empty()) {
        OpBuilder b(constant);
        Location loc = constant.getLoc();
        auto type = cast<RankedTensorType>(constant.getType());
        Value resource = stream::ResourceConstantOp::create(
            b, loc, stream::ResourceType::get(b.getContext()), data);
        Value view = stream::TensorExportOp::create(
            b, loc, type, resource, indexConstant(b, loc, 0),
            indexConstant(b, loc, byteCount(type)), ValueRange());
        constant.replaceAllUsesWith(view);
      }
      constant.erase();
    }
  }
};

} // namespace
