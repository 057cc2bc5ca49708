// RotateLoops.cpp - --strata-vm-rotate-loops: copies small loop headers into
// the blocks that branch to them, so loops test at the bottom (Passes.td).

#include "Strata/Dialect/VM/Transforms/Passes.h"

#include "mlir/IR/Dominance.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

namespace mlir::strata::vm {
#define GEN_PASS_DEF_VMROTATELOOPSPASS
#include "Strata/Dialect/VM/Transforms/Passes.h.inc"
} // namespace mlir::strata::vm

using namespace mlir;
using namespace mlir::strata::vm;

namespace {

/// Whether `header` may be copied: a few pure ops whose results stay inside
/// it, then a two-way branch to two other blocks that only it reaches.
bool isCopyable(Block *header, unsigned maxOps) {
  if (header->isEntryBlock() || header->getOperations().size() > maxOps) {
    return false;
  }
  auto branch = dyn_cast<BranchOpInterface>(header->getTerminator());
  if (!branch || header->getNumSuccessors() != 2 ||
      !isa<CondBrOp, CondBrLtSI64Op, CondBrLtSI64ImmOp>(header->getTerminator())) {
    return false;
  }
  for (Block *successor : header->getSuccessors()) {
    if (successor == header || !successor->getSinglePredecessor()) {
      return false;
    }
  }
  if (header->getSuccessor(0) == header->getSuccessor(1)) {
    return false;
  }
  for (Operation &op : header->without_terminator()) {
    if (!isMemoryEffectFree(&op) || op.getNumRegions() != 0) {
      return false;
    }
    for (Operation *user : op.getUsers()) {
      if (user->getBlock() != header) {
        return false;
      }
    }
  }
  return llvm::any_of(header->getPredecessors(), [](Block *pred) {
    return isa<BrOp>(pred->getTerminator());
  });
}

/// Makes every use of `header`'s arguments outside it go through new block
/// arguments of its successors. Fails, changing nothing, when a use lies
/// where neither successor dominates it.
LogicalResult passArgumentsToSuccessors(Block *header,
                                        DominanceInfo &dominance) {
  Block *successors[2] = {header->getSuccessor(0), header->getSuccessor(1)};
  // (argument, successor index) pairs that need a new block argument.
  SmallVector<std::pair<BlockArgument, unsigned>> needed;
  for (BlockArgument arg : header->getArguments()) {
    bool needs[2] = {false, false};
    for (Operation *user : arg.getUsers()) {
      Block *block = user->getBlock();
      if (block == header) {
        continue;
      }
      if (dominance.dominates(successors[0], block)) {
        needs[0] = true;
      } else if (dominance.dominates(successors[1], block)) {
        needs[1] = true;
      } else {
        return failure();
      }
    }
    for (unsigned i = 0; i < 2; ++i) {
      if (needs[i]) {
        needed.push_back({arg, i});
      }
    }
  }
  auto branch = cast<BranchOpInterface>(header->getTerminator());
  for (auto [arg, index] : needed) {
    Block *successor = successors[index];
    BlockArgument replacement =
        successor->addArgument(arg.getType(), arg.getLoc());
    arg.replaceUsesWithIf(replacement, [&](OpOperand &use) {
      Block *block = use.getOwner()->getBlock();
      return block != header && dominance.dominates(successor, block);
    });
    branch.getSuccessorOperands(index).append(arg);
  }
  return success();
}

struct VMRotateLoopsPass
    : mlir::strata::vm::impl::VMRotateLoopsPassBase<VMRotateLoopsPass> {
  using VMRotateLoopsPassBase::VMRotateLoopsPassBase;

  void runOnOperation() override {
    FuncOp func = getOperation();
    if (func.isExternal()) {
      return;
    }
    SmallVector<Block *> headers;
    for (Block &block : func.getBody()) {
      if (isCopyable(&block, maxHeaderOps)) {
        headers.push_back(&block);
      }
    }
    for (Block *header : headers) {
      // Dominance changes with every rotation.
      DominanceInfo dominance(func);
      if (failed(passArgumentsToSuccessors(header, dominance))) {
        continue;
      }
      SmallVector<Block *> preds;
      for (Block *pred : header->getPredecessors()) {
        if (isa<BrOp>(pred->getTerminator()) && !llvm::is_contained(preds, pred)) {
          preds.push_back(pred);
        }
      }
      for (Block *pred : preds) {
        auto br = cast<BrOp>(pred->getTerminator());
        IRMapping mapping;
        mapping.map(header->getArguments(), br.getDestOperands());
        OpBuilder builder(br);
        for (Operation &op : *header) {
          builder.clone(op, mapping);
        }
        br.erase();
      }
      if (header->hasNoPredecessors()) {
        header->dropAllDefinedValueUses();
        header->erase();
      }
    }
  }
};

} // namespace
