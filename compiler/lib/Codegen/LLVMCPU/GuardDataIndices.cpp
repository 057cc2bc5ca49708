//===- GuardDataIndices.cpp - loads at indices computed from data ---------===//
//
// A gather (a tensor.extract inside a linalg body, a memref.load of a
// captured buffer once bufferized) reads at an index the kernel computed
// from tensor data; a scatter (memref.store) writes at one. Nothing bounds
// such an index, so each one is checked against its dimension where it is
// used: out of range, the access reads a zero (or writes nothing) instead of
// touching memory outside the buffer, and the kernel returns
// kIndexOutOfRangeCode, which fails the dispatch with an error naming it
// (docs/security.md), with the index and the size of its dimension
// (returned beside the code; LibraryEmitter.cpp writes them to the ABI's
// dispatch detail). The kernel keeps the outcome in allocas that LLVM
// promotes to registers in each loop, so the guard is a compare, an and and
// three selects per checked dimension of an access.
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

// The kernel's outcome: the code, and the last index found out of range
// with the size of its dimension (one-element allocas).
struct Outcome {
  Value status; // memref<i32>
  Value index;  // memref<i64>
  Value bound;  // memref<i64>
};

// slot = keep ? slot : value.
void selectInto(OpBuilder &builder, Location loc, Value slot, Value keep,
                Value value) {
  Value previous = memref::LoadOp::create(builder, loc, slot);
  Value next = arith::SelectOp::create(builder, loc, keep, previous, value);
  memref::StoreOp::create(builder, loc, next, slot);
}

Value toI64(OpBuilder &builder, Location loc, Value index) {
  return arith::IndexCastOp::create(builder, loc, builder.getI64Type(), index);
}

// Checks every index of an access to `memref` against its dimension
// (unsigned: negative indices are out of range too), records an index out
// of range in `outcome`, and returns whether all are in range (null when
// nothing needed checking).
Value checkIndices(OpBuilder &builder, Location loc, Value memref,
                   ValueRange indices, const Outcome &outcome) {
  Value ok;
  for (auto [dim, index] : llvm::enumerate(indices)) {
    Value size = builder.createOrFold<memref::DimOp>(loc, memref, dim);
    Value inRange = builder.createOrFold<arith::CmpIOp>(
        loc, arith::CmpIPredicate::ult, index, size);
    if (matchPattern(inRange, m_One())) {
      continue;
    }
    selectInto(builder, loc, outcome.index, inRange,
               toI64(builder, loc, index));
    selectInto(builder, loc, outcome.bound, inRange, toI64(builder, loc, size));
    ok = ok ? builder.createOrFold<arith::AndIOp>(loc, ok, inRange) : inRange;
  }
  if (ok) {
    Value code =
        arith::ConstantIntOp::create(builder, loc, kIndexOutOfRangeCode, 32);
    selectInto(builder, loc, outcome.status, ok, code);
  }
  return ok;
}

void guardLoad(OpBuilder &builder, memref::LoadOp load,
               const Outcome &outcome) {
  Location loc = load.getLoc();
  builder.setInsertionPoint(load);
  Value ok =
      checkIndices(builder, loc, load.getMemRef(), load.getIndices(), outcome);
  if (!ok) {
    return;
  }
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

void guardStore(OpBuilder &builder, memref::StoreOp store,
                const Outcome &outcome) {
  Location loc = store.getLoc();
  builder.setInsertionPoint(store);
  Value ok = checkIndices(builder, loc, store.getMemRef(), store.getIndices(),
                          outcome);
  if (!ok) {
    return;
  }
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
    auto slot = [&](Type type) {
      Value alloca =
          memref::AllocaOp::create(builder, loc, MemRefType::get({}, type));
      memref::StoreOp::create(
          builder, loc, arith::ConstantIntOp::create(builder, loc, type, 0),
          alloca);
      return alloca;
    };
    Outcome outcome{slot(builder.getI32Type()), slot(builder.getI64Type()),
                    slot(builder.getI64Type())};
    for (Operation *op : accesses) {
      if (auto load = dyn_cast<memref::LoadOp>(op)) {
        guardLoad(builder, load, outcome);
      } else {
        guardStore(builder, cast<memref::StoreOp>(op), outcome);
      }
    }
    // The kernel returns the outcome: (code, index, bound); LibraryEmitter.cpp
    // returns the code from the dispatch function and writes the rest to
    // the dispatch detail when the code is not 0.
    func.walk([&](func::ReturnOp ret) {
      builder.setInsertionPoint(ret);
      SmallVector<Value> results;
      for (Value slot : {outcome.status, outcome.index, outcome.bound}) {
        results.push_back(memref::LoadOp::create(builder, ret.getLoc(), slot));
      }
      ret.getOperandsMutable().assign(results);
    });
    func.setFunctionType(builder.getFunctionType(
        func.getFunctionType().getInputs(),
        {builder.getI32Type(), builder.getI64Type(), builder.getI64Type()}));
  }
}

} // namespace mlir::strata::llvmcpu
