//===- GuardDataIndices.cpp - loads at indices computed from data ---------===//
//
// A gather (a tensor.extract inside a linalg body, a memref.load of a
// captured buffer once bufferized) reads at an index the kernel computed
// from tensor data; a scatter (memref.store) writes at one. Nothing bounds
// such an index, so each one is checked against its dimension where it is
// used: out of range, the access reads a zero (or writes nothing) instead of
// touching memory outside the buffer, and the kernel returns
// kIndexOutOfRangeCode, which fails the dispatch with an error naming it
// (docs/security.md). The kernel keeps the outcome in a one-word alloca that
// LLVM promotes to a register in each loop, so the guard is a compare, a
// select and an or per access.
//
//===----------------------------------------------------------------------===//
#include "Strata/Codegen/LLVMCPU/Codegen.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/Matchers.h"

namespace mlir::strata::llvmcpu {
namespace {

// The memref an access reads or writes is captured by the linalg op's body
// (not one of its operands' elements, which the op's loops bound).
bool isDataIndexedAccess(Operation *op, Value memref) {
  auto linalgOp = op->getParentOfType<linalg::LinalgOp>();
  if (!linalgOp) {
    return false;
  }
  return !linalgOp->getRegion(0).isAncestor(memref.getParentRegion());
}

// True when every dimension of `type` is static and not zero: index 0 is
// then always in bounds, and a clamped access needs no branch.
bool hasNonEmptyStaticShape(MemRefType type) {
  return type.hasStaticShape() &&
         llvm::all_of(type.getShape(), [](int64_t size) { return size > 0; });
}

// All indices of an access to `memref` within its dimensions (unsigned:
// negative indices are out of range too).
Value inBounds(OpBuilder &builder, Location loc, Value memref,
               ValueRange indices) {
  Value ok;
  for (auto [dim, index] : llvm::enumerate(indices)) {
    Value size = builder.createOrFold<memref::DimOp>(loc, memref, dim);
    Value inRange = builder.createOrFold<arith::CmpIOp>(
        loc, arith::CmpIPredicate::ult, index, size);
    ok = ok ? builder.createOrFold<arith::AndIOp>(loc, ok, inRange) : inRange;
  }
  return ok;
}

// status = ok ? status : kIndexOutOfRangeCode.
void recordOutcome(OpBuilder &builder, Location loc, Value status, Value ok) {
  Value previous = memref::LoadOp::create(builder, loc, status);
  Value code =
      arith::ConstantIntOp::create(builder, loc, kIndexOutOfRangeCode, 32);
  Value next = arith::SelectOp::create(builder, loc, ok, previous, code);
  memref::StoreOp::create(builder, loc, next, status);
}

void guardLoad(OpBuilder &builder, memref::LoadOp load, Value status) {
  Location loc = load.getLoc();
  builder.setInsertionPoint(load);
  Value ok = inBounds(builder, loc, load.getMemRef(), load.getIndices());
  if (!ok || matchPattern(ok, m_One())) {
    return;
  }
  recordOutcome(builder, loc, status, ok);
  if (hasNonEmptyStaticShape(load.getMemRefType())) {
    // Read element 0 instead: no branch, so loops stay vectorizable.
    Value zero = arith::ConstantIndexOp::create(builder, loc, 0);
    SmallVector<Value> clamped;
    for (Value index : load.getIndices()) {
      clamped.push_back(arith::SelectOp::create(builder, loc, ok, index, zero));
    }
    load.getIndicesMutable().assign(clamped);
    return;
  }
  // A dimension may be 0: no element may be read at all.
  Type type = load.getType();
  auto guarded = scf::IfOp::create(builder, loc, TypeRange{type}, ok,
                                   /*withElseRegion=*/true);
  load->replaceAllUsesWith(guarded.getResults());
  load->moveBefore(guarded.thenBlock(), guarded.thenBlock()->end());
  builder.setInsertionPointToEnd(guarded.thenBlock());
  scf::YieldOp::create(builder, loc, load.getResult());
  builder.setInsertionPointToEnd(guarded.elseBlock());
  Value zero =
      arith::ConstantOp::create(builder, loc, type, builder.getZeroAttr(type));
  scf::YieldOp::create(builder, loc, zero);
}

void guardStore(OpBuilder &builder, memref::StoreOp store, Value status) {
  Location loc = store.getLoc();
  builder.setInsertionPoint(store);
  Value ok = inBounds(builder, loc, store.getMemRef(), store.getIndices());
  if (!ok || matchPattern(ok, m_One())) {
    return;
  }
  recordOutcome(builder, loc, status, ok);
  auto guarded = scf::IfOp::create(builder, loc, TypeRange{}, ok,
                                   /*withElseRegion=*/false);
  store->moveBefore(guarded.thenBlock(), guarded.thenBlock()->begin());
}

} // namespace

void guardDataIndices(ModuleOp module) {
  for (auto func : module.getOps<func::FuncOp>()) {
    if (func.isExternal() || !func.isPublic() ||
        func.getFunctionType().getNumResults() != 0) {
      continue;
    }
    SmallVector<Operation *> accesses;
    func.walk([&](Operation *op) {
      if (auto load = dyn_cast<memref::LoadOp>(op)) {
        if (isDataIndexedAccess(op, load.getMemRef())) {
          accesses.push_back(op);
        }
      } else if (auto store = dyn_cast<memref::StoreOp>(op)) {
        if (isDataIndexedAccess(op, store.getMemRef())) {
          accesses.push_back(op);
        }
      }
    });
    if (accesses.empty()) {
      continue;
    }
    OpBuilder builder(func.getContext());
    Location loc = func.getLoc();
    builder.setInsertionPointToStart(&func.getBody().front());
    auto statusType = MemRefType::get({}, builder.getI32Type());
    Value status = memref::AllocaOp::create(builder, loc, statusType);
    memref::StoreOp::create(builder, loc,
                            arith::ConstantIntOp::create(builder, loc, 0, 32),
                            status);
    for (Operation *op : accesses) {
      if (auto load = dyn_cast<memref::LoadOp>(op)) {
        guardLoad(builder, load, status);
      } else {
        guardStore(builder, cast<memref::StoreOp>(op), status);
      }
    }
    // The kernel returns the outcome (LibraryEmitter.cpp returns it from the
    // dispatch function).
    func.walk([&](func::ReturnOp ret) {
      builder.setInsertionPoint(ret);
      Value code = memref::LoadOp::create(builder, ret.getLoc(), status);
      ret.getOperandsMutable().assign(code);
    });
    func.setFunctionType(builder.getFunctionType(
        func.getFunctionType().getInputs(), {builder.getI32Type()}));
  }
}

} // namespace mlir::strata::llvmcpu
