//===- IndexBounds.cpp - constant bounds of tile sizes --------------------===//
#include "IndexBounds.h"

#include "Strata/Codegen/LLVMCPU/Codegen.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/Interfaces/ValueBoundsOpInterface.h"

namespace mlir::strata::llvmcpu {

namespace {

// The constant range [lo, hi] of an index value, or failure.
struct IndexRange {
  int64_t lo, hi;
};
FailureOr<IndexRange> indexRange(Value value, unsigned depth = 0);

// The value bounds analysis's constant bound of a variable (closed).
FailureOr<int64_t>
analysisBound(presburger::BoundType type,
              const ValueBoundsConstraintSet::Variable &var) {
  return ValueBoundsConstraintSet::computeConstantBound(
      type, var, /*stopCondition=*/nullptr, /*closedUB=*/true);
}

// The range of an affine expression of operands in `ranges`: sums and
// multiples by constants (what tiling's bounds are made of).
FailureOr<IndexRange> exprRange(AffineExpr expr, ArrayRef<IndexRange> ranges,
                                unsigned numDims) {
  if (auto constant = dyn_cast<AffineConstantExpr>(expr)) {
    return IndexRange{constant.getValue(), constant.getValue()};
  }
  if (auto dim = dyn_cast<AffineDimExpr>(expr)) {
    return ranges[dim.getPosition()];
  }
  if (auto symbol = dyn_cast<AffineSymbolExpr>(expr)) {
    return ranges[numDims + symbol.getPosition()];
  }
  auto binary = dyn_cast<AffineBinaryOpExpr>(expr);
  if (!binary) {
    return failure();
  }
  FailureOr<IndexRange> lhs = exprRange(binary.getLHS(), ranges, numDims);
  FailureOr<IndexRange> rhs = exprRange(binary.getRHS(), ranges, numDims);
  if (failed(lhs) || failed(rhs)) {
    return failure();
  }
  if (expr.getKind() == AffineExprKind::Add) {
    return IndexRange{lhs->lo + rhs->lo, lhs->hi + rhs->hi};
  }
  if (expr.getKind() == AffineExprKind::Mul && rhs->lo == rhs->hi) {
    int64_t c = rhs->lo;
    return c >= 0 ? IndexRange{lhs->lo * c, lhs->hi * c}
                  : IndexRange{lhs->hi * c, lhs->lo * c};
  }
  return failure();
}

// The value bounds analysis knows an affine.max only from below (it is at
// least each of its expressions), so a size such as a band of a padded
// window, 2 * max(0, min(rows left, rows wanted)) + 5, has no upper bound
// for it. Ranges are carried here through affine.apply, min and max, integer
// adds, subtractions, multiplies, maxima and minima, unsigned remainders
// and quotients by positive divisors, constants and workgroup ids; failure
// for anything else.
FailureOr<IndexRange> composedRange(Value value, unsigned depth) {
  Operation *def = value.getDefiningOp();
  if (depth < 16 && isa_and_nonnull<affine::AffineApplyOp, affine::AffineMinOp,
                                    affine::AffineMaxOp>(def)) {
    AffineMap map;
    ValueRange operands;
    if (auto apply = dyn_cast<affine::AffineApplyOp>(def)) {
      map = apply.getAffineMap();
      operands = apply.getMapOperands();
    } else if (auto min = dyn_cast<affine::AffineMinOp>(def)) {
      map = min.getAffineMap();
      operands = min.getMapOperands();
    } else {
      auto max = cast<affine::AffineMaxOp>(def);
      map = max.getAffineMap();
      operands = max.getMapOperands();
    }
    SmallVector<IndexRange> ranges;
    for (Value operand : operands) {
      FailureOr<IndexRange> range = indexRange(operand, depth + 1);
      if (failed(range)) {
        return failure();
      }
      ranges.push_back(*range);
    }
    std::optional<IndexRange> result;
    for (AffineExpr expr : map.getResults()) {
      FailureOr<IndexRange> range = exprRange(expr, ranges, map.getNumDims());
      if (failed(range)) {
        return failure();
      }
      if (!result) {
        result = *range;
      } else if (isa<affine::AffineMinOp>(def)) {
        result = IndexRange{std::min(result->lo, range->lo),
                            std::min(result->hi, range->hi)};
      } else {
        result = IndexRange{std::max(result->lo, range->lo),
                            std::max(result->hi, range->hi)};
      }
    }
    if (!result) {
      return failure();
    }
    return *result;
  }
  if (auto constant = getConstantIntValue(value)) {
    return IndexRange{*constant, *constant};
  }
  if (depth < 16 && isa_and_nonnull<arith::AddIOp, arith::MulIOp>(def)) {
    FailureOr<IndexRange> lhs = indexRange(def->getOperand(0), depth + 1);
    FailureOr<IndexRange> rhs = indexRange(def->getOperand(1), depth + 1);
    if (failed(lhs) || failed(rhs)) {
      return failure();
    }
    if (isa<arith::AddIOp>(def)) {
      return IndexRange{lhs->lo + rhs->lo, lhs->hi + rhs->hi};
    }
    int64_t products[] = {lhs->lo * rhs->lo, lhs->lo * rhs->hi,
                          lhs->hi * rhs->lo, lhs->hi * rhs->hi};
    return IndexRange{*llvm::min_element(products),
                      *llvm::max_element(products)};
  }
  // What a distribution loop over a dynamic count of workgroups is made of
  // (bindWorkgroupIds: its tile's indices are a linear index's remainder
  // and quotient by the static counts, from subtractions, maxima and
  // divisions of constants).
  if (depth < 16 &&
      isa_and_nonnull<arith::SubIOp, arith::MaxSIOp, arith::MinSIOp,
                      arith::RemUIOp, arith::DivUIOp, arith::CeilDivSIOp>(
          def)) {
    FailureOr<IndexRange> rhs = indexRange(def->getOperand(1), depth + 1);
    // An unsigned remainder is below its divisor whatever it divides (the
    // linear index of a distribution loop has no bound of its own).
    if (isa<arith::RemUIOp>(def) && succeeded(rhs) && rhs->lo > 0) {
      return IndexRange{0, rhs->hi - 1};
    }
    FailureOr<IndexRange> lhs = indexRange(def->getOperand(0), depth + 1);
    if (failed(lhs) || failed(rhs)) {
      return failure();
    }
    if (isa<arith::SubIOp>(def)) {
      return IndexRange{lhs->lo - rhs->hi, lhs->hi - rhs->lo};
    }
    if (isa<arith::MaxSIOp>(def)) {
      return IndexRange{std::max(lhs->lo, rhs->lo), std::max(lhs->hi, rhs->hi)};
    }
    if (isa<arith::MinSIOp>(def)) {
      return IndexRange{std::min(lhs->lo, rhs->lo), std::min(lhs->hi, rhs->hi)};
    }
    // A quotient by a positive divisor of a value that is never negative.
    if (lhs->lo < 0 || rhs->lo <= 0) {
      return failure();
    }
    if (isa<arith::CeilDivSIOp>(def)) {
      return IndexRange{(lhs->lo + rhs->hi - 1) / rhs->hi,
                        (lhs->hi + rhs->lo - 1) / rhs->lo};
    }
    return IndexRange{lhs->lo / rhs->hi, lhs->hi / rhs->lo};
  }
  // A workgroup id (bindWorkgroupIds: x, then y, after the inputs), below
  // its count.
  if (auto arg = dyn_cast<BlockArgument>(value)) {
    auto func = dyn_cast<func::FuncOp>(arg.getOwner()->getParentOp());
    auto inputs =
        func ? func->getAttrOfType<IntegerAttr>(kInputCountAttr) : nullptr;
    auto counts =
        func ? func->getAttrOfType<DenseI64ArrayAttr>(kWorkgroupCountAttr)
             : nullptr;
    if (inputs && counts && arg.getOwner()->isEntryBlock() &&
        arg.getArgNumber() >= inputs.getInt() &&
        arg.getArgNumber() < inputs.getInt() + 2) {
      int64_t count = counts[arg.getArgNumber() - inputs.getInt()];
      if (count >= 1) {
        return IndexRange{0, count - 1};
      }
    }
  }
  return failure();
}

// The range composedRange carries, or else the analysis's (an induction
// variable).
FailureOr<IndexRange> indexRange(Value value, unsigned depth) {
  FailureOr<IndexRange> range = composedRange(value, depth);
  if (succeeded(range)) {
    return range;
  }
  ValueBoundsConstraintSet::Variable var(value);
  FailureOr<int64_t> lo = analysisBound(presburger::BoundType::LB, var);
  FailureOr<int64_t> hi = analysisBound(presburger::BoundType::UB, var);
  if (failed(lo) || failed(hi)) {
    return failure();
  }
  return IndexRange{*lo, *hi};
}

} // namespace

FailureOr<int64_t> indexUpperBound(Value size) {
  FailureOr<int64_t> bound = analysisBound(
      presburger::BoundType::UB, ValueBoundsConstraintSet::Variable(size));
  if (succeeded(bound)) {
    return bound;
  }
  FailureOr<IndexRange> range = composedRange(size, /*depth=*/0);
  if (failed(range)) {
    return failure();
  }
  return range->hi;
}

FailureOr<int64_t> dimUpperBound(Value memref, int64_t dim) {
  auto type = cast<MemRefType>(memref.getType());
  if (!type.isDynamicDim(dim)) {
    return type.getDimSize(dim);
  }
  FailureOr<int64_t> bound =
      analysisBound(presburger::BoundType::UB,
                    ValueBoundsConstraintSet::Variable(memref, dim));
  if (succeeded(bound)) {
    return bound;
  }
  // The size an alloc was given.
  if (auto alloc = memref.getDefiningOp<memref::AllocOp>()) {
    return indexUpperBound(
        alloc.getDynamicSizes()[type.getDynamicDimIndex(dim)]);
  }
  return failure();
}

} // namespace mlir::strata::llvmcpu
