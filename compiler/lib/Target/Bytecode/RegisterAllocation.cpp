// RegisterAllocation.cpp - interval-based register assignment per bank.

#include "Strata/Target/Bytecode/RegisterAllocation.h"

#include "format.h"

using namespace mlir;
using namespace mlir::strata::vm;

namespace {

/// Inclusive range of points; an op n reads at 2n and writes at 2n + 1.
/// A block argument's write by a branch is the point 2n + 1 of the branch,
/// tagged with the successor it is written for: only one successor's
/// arguments are written when the branch runs, so writes for different
/// successors never conflict.
struct Interval {
  uint32_t start;
  uint32_t end;
  int32_t successor = -1;
};
using Intervals = SmallVector<Interval, 4>;

bool overlaps(ArrayRef<Interval> a, ArrayRef<Interval> b) {
  for (const Interval &x : a) {
    for (const Interval &y : b) {
      if (x.start > y.end || y.start > x.end) {
        continue;
      }
      if (x.successor >= 0 && y.successor >= 0 &&
          x.successor != y.successor) {
        continue; // writes on two different edges of one branch
      }
      return true;
    }
  }
  return false;
}

/// One bank's registers and the intervals already placed in each.
struct Bank {
  SmallVector<Intervals> occupied;
  uint32_t limit;
  bool ref;

  bool fits(uint32_t reg, ArrayRef<Interval> live) const {
    return reg >= occupied.size() || !overlaps(occupied[reg], live);
  }
  void place(uint32_t reg, ArrayRef<Interval> live) {
    if (reg >= occupied.size()) {
      occupied.resize(reg + 1);
    }
    occupied[reg].append(live.begin(), live.end());
  }
  uint32_t lowestFree(ArrayRef<Interval> live) const {
    for (uint32_t reg = 0; reg < occupied.size(); ++reg) {
      if (fits(reg, live)) {
        return reg;
      }
    }
    return occupied.size();
  }
  uint16_t encode(uint32_t index) const {
    return static_cast<uint16_t>(ref ? STRATA_REGISTER_REF_BIT | index : index);
  }
  static uint32_t index(uint16_t encoded) {
    return encoded & (encoded & STRATA_REGISTER_REF_BIT
                          ? STRATA_REGISTER_REF_MASK
                          : STRATA_REGISTER_PRIM_MASK);
  }
};

} // namespace

FailureOr<std::unique_ptr<RegisterAllocation>>
RegisterAllocation::compute(FunctionOpInterface func) {
  std::unique_ptr<RegisterAllocation> allocation(new RegisterAllocation(func));
  if (failed(allocation->allocate(func))) {
    return failure();
  }
  return allocation;
}

LogicalResult RegisterAllocation::allocate(FunctionOpInterface func) {
  Region &body = func.getFunctionBody();

  // Points: each block has a header slot (its arguments are written at the
  // slot's odd point), then one slot per op.
  DenseMap<Operation *, uint32_t> opSlot;
  DenseMap<Block *, uint32_t> headerSlot;
  uint32_t slot = 0;
  for (Block &block : body) {
    headerSlot[&block] = slot++;
    for (Operation &op : block) {
      opSlot[&op] = slot++;
    }
  }
  auto terminatorSlot = [&](Block *block) {
    return opSlot.lookup(block->getTerminator());
  };

  auto liveIntervals = [&](Value value) {
    Intervals live;
    Block *defBlock = value.getParentBlock();
    uint32_t defPoint = isa<BlockArgument>(value)
                            ? 2 * headerSlot.lookup(defBlock) + 1
                            : 2 * opSlot.lookup(value.getDefiningOp()) + 1;
    for (Block &block : body) {
      bool isDef = &block == defBlock;
      if (!isDef && !liveness.getLiveIn(&block).contains(value)) {
        continue;
      }
      uint32_t start = isDef ? defPoint : 2 * headerSlot.lookup(&block);
      uint32_t end = start;
      if (liveness.getLiveOut(&block).contains(value)) {
        end = 2 * terminatorSlot(&block) + 1;
      } else {
        for (Operation *user : value.getUsers()) {
          if (user->getBlock() == &block) {
            end = std::max(end, 2 * opSlot.lookup(user));
          }
        }
      }
      live.push_back({start, end});
    }
    // A block argument is written by each predecessor's branch remap.
    if (auto arg = dyn_cast<BlockArgument>(value)) {
      Block *owner = arg.getOwner();
      for (auto it = owner->pred_begin(), e = owner->pred_end(); it != e;
           ++it) {
        uint32_t point = 2 * terminatorSlot(*it) + 1;
        live.push_back(
            {point, point, static_cast<int32_t>(it.getSuccessorIndex())});
      }
    }
    return live;
  };

  Bank prims{{}, STRATA_MAX_PRIM_REGISTERS, false};
  Bank refs{{}, STRATA_MAX_REF_REGISTERS, true};
  auto bankOf = [&](Value value) -> Bank & {
    return isRefType(value.getType()) ? refs : prims;
  };

  auto assign = [&](Value value, ArrayRef<Value> hints) -> LogicalResult {
    Bank &bank = bankOf(value);
    Intervals live = liveIntervals(value);
    std::optional<uint32_t> chosen;
    for (Value hint : hints) {
      auto it = registers.find(hint);
      if (it == registers.end() || &bankOf(hint) != &bank) {
        continue;
      }
      uint32_t reg = Bank::index(it->second);
      if (bank.fits(reg, live)) {
        chosen = reg;
        break;
      }
    }
    if (!chosen) {
      chosen = bank.lowestFree(live);
    }
    if (*chosen >= bank.limit) {
      return func.emitError("needs more than ")
             << bank.limit << (bank.ref ? " ref" : " primitive")
             << " registers; split the function";
    }
    bank.place(*chosen, live);
    registers[value] = bank.encode(*chosen);
    return success();
  };

  // Entry arguments sit where the caller put them.
  uint32_t primArgs = 0, refArgs = 0;
  for (BlockArgument arg : body.front().getArguments()) {
    Bank &bank = bankOf(arg);
    uint32_t index = bank.ref ? refArgs++ : primArgs++;
    if (index >= bank.limit) {
      return func.emitError("has more arguments than VM registers");
    }
    bank.place(index, liveIntervals(arg));
    registers[arg] = bank.encode(index);
  }

  // The values a successor operand `value` flows into, and back.
  auto forwardedTo = [](OpOperand &use) -> std::optional<BlockArgument> {
    auto branch = dyn_cast<BranchOpInterface>(use.getOwner());
    if (!branch) {
      return std::nullopt;
    }
    return branch.getSuccessorBlockArgument(use.getOperandNumber());
  };

  for (Block &block : body) {
    if (!block.isEntryBlock()) {
      for (BlockArgument arg : block.getArguments()) {
        SmallVector<Value> hints;
        for (Block *pred : block.getPredecessors()) {
          auto branch = dyn_cast<BranchOpInterface>(pred->getTerminator());
          if (!branch) {
            continue;
          }
          for (unsigned i = 0, e = pred->getNumSuccessors(); i < e; ++i) {
            if (pred->getSuccessor(i) != &block) {
              continue;
            }
            SuccessorOperands operands = branch.getSuccessorOperands(i);
            if (arg.getArgNumber() < operands.size() &&
                !operands.isOperandProduced(arg.getArgNumber())) {
              hints.push_back(operands[arg.getArgNumber()]);
            }
          }
        }
        if (failed(assign(arg, hints))) {
          return failure();
        }
      }
    }
    for (Operation &op : block) {
      for (Value result : op.getResults()) {
        SmallVector<Value> hints;
        for (OpOperand &use : result.getUses()) {
          if (std::optional<BlockArgument> arg = forwardedTo(use)) {
            hints.push_back(*arg);
          }
        }
        // Reusing a dying operand's register keeps the frame small.
        for (Value operand : op.getOperands()) {
          if (liveness.isDeadAfter(operand, &op)) {
            hints.push_back(operand);
          }
        }
        if (failed(assign(result, hints))) {
          return failure();
        }
      }
    }
  }
  primCount = static_cast<uint16_t>(prims.occupied.size());
  refCount = static_cast<uint16_t>(refs.occupied.size());
  return success();
}

uint16_t RegisterAllocation::getRegister(Value value) const {
  auto it = registers.find(value);
  assert(it != registers.end() && "value without a register");
  return it->second;
}

bool RegisterAllocation::isLastUse(OpOperand &operand) const {
  Operation *owner = operand.getOwner();
  Value value = operand.get();
  if (!liveness.isDeadAfter(value, owner)) {
    return false;
  }
  for (unsigned i = operand.getOperandNumber() + 1,
                e = owner->getNumOperands();
       i < e; ++i) {
    if (owner->getOperand(i) == value) {
      return false;
    }
  }
  return true;
}

bool RegisterAllocation::isLiveIn(Value value, Block *block) const {
  return liveness.getLiveIn(block).contains(value);
}

FailureOr<uint16_t> RegisterAllocation::getScratchRegister(bool ref) {
  int32_t &scratch = ref ? refScratch : primScratch;
  uint16_t &count = ref ? refCount : primCount;
  if (scratch < 0) {
    uint32_t limit = ref ? STRATA_MAX_REF_REGISTERS : STRATA_MAX_PRIM_REGISTERS;
    if (count >= limit) {
      return failure();
    }
    scratch = count++;
  }
  return static_cast<uint16_t>(ref ? STRATA_REGISTER_REF_BIT | scratch
                                   : scratch);
}
