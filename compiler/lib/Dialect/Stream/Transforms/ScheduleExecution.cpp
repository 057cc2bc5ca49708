// ScheduleExecution.cpp - --strata-schedule-execution: the dispatch calls of
// the host grouped into stream submissions, with barriers, transient slabs
// and timepoints (see Passes.td).

#include "Strata/Dialect/Stream/Transforms/Passes.h"

#include <numeric>

#include "Strata/Dialect/Flow/IR/FlowOps.h"
#include "Strata/Dialect/Util/IR/UtilOps.h"

#include "calling_convention.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Dominance.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
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

/// Where the transient results of a block live: one slab for all of its
/// groups, and room in it for the slabs of the blocks nested in its ops.
struct SlabPlan {
  struct Slot {
    int64_t offset;
    int64_t bytes;
  };
  DenseMap<Value, Slot> slots;
  /// Where each op holding blocks with transients keeps them: the offset
  /// of their slabs (all at the same place: one runs at a time).
  DenseMap<Operation *, int64_t> nested;
  int64_t bytes = 0;
  /// The reshapes of transient results: views that die with the block.
  SmallVector<Operation *> views;
  /// The slab and where this block's part of it begins: made by the
  /// block's first group or nested op that needs it, or, for a nested
  /// block, the enclosing block's slab at the op's offset.
  Value slab;
  int64_t base = 0;
};

/// The slab plan of `block`, given the plans of the blocks nested in its
/// ops. A result with a static shape is transient when only later
/// dispatches of the block read it (directly or through reshapes), in its
/// own group or a later one: groups chain, each submission waiting for the
/// one before, so the data flow through the block's groups is all on the
/// device. An op holding blocks with transients (a loop, a branch) runs
/// between a wait for everything before it and its blocks' own waits at
/// their ends: its blocks' slabs take one place in this block's slab, clear
/// only of the results live across the op. Two transient results may share
/// bytes when one's last reader is done before the other's dispatch
/// writes: a barrier, the start of a later group or a nested op separates
/// them. Places are chosen greedily by size (largest first, each at the
/// lowest 64-byte aligned offset clear of every placed result it may not
/// share with), which packs a chain of layers close to its largest pair of
/// neighbours.
SlabPlan planSlab(Block &block, const DenseMap<Block *, SlabPlan> &plans) {
  SlabPlan plan;
  struct Transient {
    Value result;  // null for a nested op's room
    Operation *op; // the nested op
    unsigned def, lastReader;
    int64_t bytes, capacity;
  };
  auto capacity = [](int64_t bytes) {
    return (bytes + kSlabAlignment - 1) / kSlabAlignment * kSlabAlignment;
  };
  SmallVector<Transient> transients;
  // The block's dispatches and nested ops in order, and orderedUpTo[i]: the
  // points up to entry i before which everything earlier has finished.
  DenseMap<Operation *, unsigned> indexOf;
  SmallVector<flow::DispatchOp> calls;
  SmallVector<unsigned> orderedUpTo;
  unsigned points = 0;
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
      transients.push_back({Value(), &op, index, index, room, capacity(room)});
    }
  }

  for (flow::DispatchOp call : calls) {
    unsigned index = indexOf[call];
    for (OpResult result : call->getResults()) {
      auto type = dyn_cast<RankedTensorType>(result.getType());
      if (!type || !type.hasStaticShape() || result.use_empty()) {
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
      llvm::append_range(plan.views, views);
      int64_t bytes = byteCount(type);
      transients.push_back({result, nullptr, index, *llvm::max_element(readers),
                            bytes, capacity(bytes)});
    }
  }
  auto doneBefore = [&](const Transient &first, const Transient &second) {
    return first.lastReader < second.def &&
           orderedUpTo[second.def] > orderedUpTo[first.lastReader];
  };
  SmallVector<unsigned> bySize(transients.size());
  std::iota(bySize.begin(), bySize.end(), 0u);
  llvm::stable_sort(bySize, [&](unsigned a, unsigned b) {
    return transients[a].capacity > transients[b].capacity;
  });
  SmallVector<std::pair<unsigned, int64_t>> placed; // transient, offset
  for (unsigned i : bySize) {
    const Transient &t = transients[i];
    SmallVector<std::pair<int64_t, int64_t>> taken; // [begin, end)
    for (auto [j, offset] : placed) {
      const Transient &other = transients[j];
      if (!doneBefore(t, other) && !doneBefore(other, t)) {
        taken.push_back({offset, offset + other.capacity});
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
    placed.push_back({i, offset});
    if (t.result) {
      plan.slots[t.result] = {offset, t.bytes};
    } else {
      plan.nested[t.op] = offset;
    }
    plan.bytes = std::max(plan.bytes, offset + t.capacity);
  }
  return plan;
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
  /// `waitFence`/`signalFence`: the fences of an async-external function.
  void schedule(func::FuncOp func, Value waitFence, Value signalFence);

private:
  /// Work submitted and not awaited yet: the last submission's timepoint
  /// (it follows every earlier one of the chain), its device, and the
  /// host tensors the chain produces.
  struct Pending {
    Value timepoint;
    Value device;
    SmallVector<Value> values;
  };

  void scheduleBlock(Block &block, Value entryTimepoint, Value signalFence);
  /// Emits one group's submission; its calls go to `done`, erased when the
  /// block is (a later group may still read their transient results).
  void emitGroup(MutableArrayRef<flow::DispatchOp> calls, Value awaitTimepoint,
                 Pending &pending, SlabPlan &plan,
                 SmallVectorImpl<flow::DispatchOp> &done);
  void awaitBefore(Operation &op, Pending &pending);

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
    SlabPlan plan = planSlab(*block, plans);
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
    auto room = plan.nested.find(&op);
    if (room != plan.nested.end()) {
      // The op's blocks keep their transients in this block's slab.
      if (!plan.slab) {
        OpBuilder b(&op);
        auto resolve = stream::ContextResolveOp::create(
            b, op.getLoc(), stream::DeviceType::get(op.getContext()),
            stream::AllocatorType::get(op.getContext()));
        plan.slab = stream::ResourceAllocaOp::create(
            b, op.getLoc(), stream::ResourceType::get(op.getContext()),
            resolve.getAllocator(), plan.bytes);
      }
      for (Region &region : op.getRegions()) {
        for (Block &inner : region) {
          SlabPlan &innerPlan = plans[&inner];
          innerPlan.slab = plan.slab;
          innerPlan.base = plan.base + room->second;
        }
      }
    }

    if (signalFence && isa<func::ReturnOp>(op)) {
      // An async-external return: what is pending goes to the signal
      // fence; the host does not wait.
      OpBuilder b(&op);
      Location loc = op.getLoc();
      Value device = pending.device;
      Value timepoint = pending.timepoint ? pending.timepoint : pendingEntry;
      if (timepoint && !device) {
        device = stream::ContextResolveOp::create(
                     b, loc, stream::DeviceType::get(b.getContext()),
                     stream::AllocatorType::get(b.getContext()))
                     .getDevice();
      }
      stream::TimepointChainExternalOp::create(b, loc, device, timepoint,
                                               signalFence);
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
  auto resolve = stream::ContextResolveOp::create(
      b, groupLoc, stream::DeviceType::get(context),
      stream::AllocatorType::get(context));
  Type resourceType = stream::ResourceType::get(context);
  if (plan.bytes && !plan.slab) {
    plan.slab = stream::ResourceAllocaOp::create(
        b, groupLoc, resourceType, resolve.getAllocator(), plan.bytes);
  }
  Value slab = plan.slab;

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
        bind(slab, consts.get(plan.base + slot->second.offset),
             consts.get(slot->second.bytes));
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
        bind(slab, consts.get(plan.base + slot->second.offset),
             consts.get(slot->second.bytes));
        continue;
      }
      SmallVector<Value> dims;
      unsigned next = 0;
      for (int64_t dim : type.getShape()) {
        dims.push_back(ShapedType::isDynamic(dim) ? resultDims[next++]
                                                  : Value());
      }
      Value bytes = byteSize(b, loc, consts, type, dims);
      Value resource = stream::ResourceAllocOp::create(
          b, loc, resourceType, resolve.getAllocator(), bytes);
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
  auto execute = stream::CmdExecuteOp::create(
      b, calls.back().getLoc(), resolve.getDevice(), awaitTimepoint);
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
  pending.device = resolve.getDevice();
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
    Type fence = stream::FenceType::get(module.getContext());
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
    Scheduler scheduler;
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
