// InsertShapeChecks.cpp - --strata-insert-shape-checks: run-time sizes and
// indices checked on the host, before any kernel sees them (Passes.td).
//
// A kernel trusts its shapes: two `?` dimensions a linalg op indexes with
// one loop are read with one bound, a slice's offset is added to the base
// pointer as given. When such values come from the caller (a tensor's
// dynamic size, an index read back from data), they are checked here, on
// the host, with a cf.assert that becomes a FAILED_PRECONDITION naming the
// op, operand and dimension (util.assert_eq for two sizes that must be
// equal: the message also gives both). The checks compare index values (a few
// instructions per call, not per element), and checks of constants fold.

#include "Strata/InputConversion/Passes.h"

#include "Strata/Dialect/Util/IR/UtilOps.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/Matchers.h"

namespace mlir::strata::input {
#define GEN_PASS_DEF_INSERTSHAPECHECKSPASS
#include "Strata/InputConversion/Passes.h.inc"
} // namespace mlir::strata::input

using namespace mlir;

namespace {

// Ops inside a linalg body run in a kernel; the target guards those.
bool onHost(Operation *op) { return !op->getParentOfType<linalg::LinalgOp>(); }

// Asserts `ok` unless it folded to true.
void assertTrue(OpBuilder &builder, Location loc, Value ok,
                const Twine &message) {
  if (matchPattern(ok, m_One())) {
    return;
  }
  cf::AssertOp::create(builder, loc, ok, builder.getStringAttr(message));
}

Value dimOf(OpBuilder &builder, Location loc, Value tensor, int64_t dim) {
  return builder.createOrFold<tensor::DimOp>(loc, tensor, dim);
}

Value compare(OpBuilder &builder, Location loc, arith::CmpIPredicate predicate,
              Value lhs, Value rhs) {
  return builder.createOrFold<arith::CmpIOp>(loc, predicate, lhs, rhs);
}

// Dimensions of a linalg op's operands that one loop indexes directly must
// be equal; with a dynamic one among them, the sizes are compared at run time.
void checkLoopSizes(OpBuilder &builder, linalg::LinalgOp op) {
  if (!op.hasPureTensorSemantics()) {
    return;
  }
  Location loc = op.getLoc();
  llvm::DenseMap<unsigned, std::pair<OpOperand *, unsigned>> first;
  for (OpOperand &operand : op->getOpOperands()) {
    auto type = dyn_cast<RankedTensorType>(operand.get().getType());
    if (!type) {
      continue;
    }
    AffineMap map = op.getMatchingIndexingMap(&operand);
    for (auto [dim, expr] : llvm::enumerate(map.getResults())) {
      auto loop = dyn_cast<AffineDimExpr>(expr);
      if (!loop) {
        continue;
      }
      auto [it, inserted] =
          first.try_emplace(loop.getPosition(), &operand, dim);
      if (inserted) {
        continue;
      }
      auto [reference, referenceDim] = it->second;
      auto referenceType = cast<RankedTensorType>(reference->get().getType());
      if (!referenceType.isDynamicDim(referenceDim) &&
          !type.isDynamicDim(dim)) {
        continue;
      }
      if (reference->get() == operand.get() && referenceDim == dim) {
        continue; // one size
      }
      builder.setInsertionPoint(op);
      Value first = dimOf(builder, loc, reference->get(), referenceDim);
      Value second = dimOf(builder, loc, operand.get(), dim);
      // The two sizes go into the message ({0}, {1}) when they differ.
      strata::util::AssertEqOp::create(
          builder, loc, first, second,
          builder.getStringAttr(
              "'" + op->getName().getStringRef() + "': dimension " +
              Twine(referenceDim) + " of operand " +
              Twine(reference->getOperandNumber()) + " and dimension " +
              Twine(dim) + " of operand " + Twine(operand.getOperandNumber()) +
              " must be equal (both are the size of loop " +
              Twine(loop.getPosition()) + "; they are {0} and {1})"));
    }
  }
}

// A slice of `tensor` (a source or a destination) stays within it in every
// dimension: offset <= size of the dimension and, for a non-empty slice,
// every element offset + i * stride (i < size) within [0, that size),
// computed without overflow. The stride may be dynamic, zero or negative.
void checkSliceBounds(OpBuilder &builder, Operation *op, Value tensor,
                      ArrayRef<OpFoldResult> offsets,
                      ArrayRef<OpFoldResult> sizes,
                      ArrayRef<OpFoldResult> strides, StringRef what) {
  Location loc = op->getLoc();
  builder.setInsertionPoint(op);
  for (unsigned dim = 0; dim < offsets.size(); ++dim) {
    std::optional<int64_t> stride = getConstantIntValue(strides[dim]);
    Value offset = getValueOrCreateConstantIndexOp(builder, loc, offsets[dim]);
    Value size = getValueOrCreateConstantIndexOp(builder, loc, sizes[dim]);
    Value extent = dimOf(builder, loc, tensor, dim);
    Value zero = arith::ConstantIndexOp::create(builder, loc, 0);
    Value one = arith::ConstantIndexOp::create(builder, loc, 1);
    Value offsetFits =
        compare(builder, loc, arith::CmpIPredicate::ule, offset, extent);
    Value room = builder.createOrFold<arith::SubIOp>(loc, extent, offset);
    Value ok;
    if (stride && *stride == 1) {
      ok = builder.createOrFold<arith::AndIOp>(
          loc, offsetFits,
          compare(builder, loc, arith::CmpIPredicate::ule, size, room));
    } else {
      // Non-empty: offset < extent, and the last element is in range:
      //   stride > 0: (size - 1) * stride <= room - 1,
      //               i.e. size - 1 <= (room - 1) / stride;
      //   stride < 0: (size - 1) * -stride <= offset,
      //               i.e. size - 1 <= offset / -stride;
      //   stride = 0: every element is the first (any size >= 0).
      // (unsigned division by |stride|, or by 1 for 0, never overflows;
      // -INT64_MIN is 2^63 unsigned).
      Value reach;
      Value anySize;
      if (stride && *stride > 1) {
        Value strideValue =
            arith::ConstantIndexOp::create(builder, loc, *stride);
        reach = builder.createOrFold<arith::DivUIOp>(
            loc, builder.createOrFold<arith::SubIOp>(loc, room, one),
            strideValue);
      } else {
        Value s = getValueOrCreateConstantIndexOp(builder, loc, strides[dim]);
        Value negative =
            compare(builder, loc, arith::CmpIPredicate::slt, s, zero);
        Value isZero = compare(builder, loc, arith::CmpIPredicate::eq, s, zero);
        Value magnitude = builder.createOrFold<arith::SelectOp>(
            loc, negative, builder.createOrFold<arith::SubIOp>(loc, zero, s),
            s);
        Value divisor =
            builder.createOrFold<arith::SelectOp>(loc, isZero, one, magnitude);
        Value limit = builder.createOrFold<arith::SelectOp>(
            loc, negative, offset,
            builder.createOrFold<arith::SubIOp>(loc, room, one));
        reach = builder.createOrFold<arith::DivUIOp>(loc, limit, divisor);
        // A zero stride takes any size that is not negative.
        anySize = builder.createOrFold<arith::AndIOp>(
            loc, isZero,
            compare(builder, loc, arith::CmpIPredicate::sge, size, zero));
      }
      Value lastFits =
          compare(builder, loc, arith::CmpIPredicate::ule,
                  builder.createOrFold<arith::SubIOp>(loc, size, one), reach);
      if (anySize) {
        lastFits = builder.createOrFold<arith::OrIOp>(loc, anySize, lastFits);
      }
      Value nonEmptyOk = builder.createOrFold<arith::AndIOp>(
          loc, compare(builder, loc, arith::CmpIPredicate::ult, offset, extent),
          lastFits);
      Value empty = compare(builder, loc, arith::CmpIPredicate::eq, size, zero);
      ok = builder.createOrFold<arith::SelectOp>(loc, empty, offsetFits,
                                                 nonEmptyOk);
    }
    assertTrue(builder, loc, ok,
               "'" + op->getName().getStringRef() + "': the offset, size " +
                   "and stride of dimension " + Twine(dim) +
                   " are out of bounds of the " + what);
  }
}

// Each index of a host tensor.extract / tensor.insert is below its
// dimension (unsigned: a negative index fails too).
void checkIndices(OpBuilder &builder, Operation *op, Value tensor,
                  ValueRange indices) {
  Location loc = op->getLoc();
  builder.setInsertionPoint(op);
  for (auto [dim, index] : llvm::enumerate(indices)) {
    Value inRange = compare(builder, loc, arith::CmpIPredicate::ult, index,
                            dimOf(builder, loc, tensor, dim));
    assertTrue(builder, loc, inRange,
               "'" + op->getName().getStringRef() + "': index " + Twine(dim) +
                   " is out of range of dimension " + Twine(dim));
  }
}

/// Bytes of a tensor or memref type with all its dynamic dimensions as 1,
/// or nothing when the product overflows uint64.
std::optional<uint64_t> staticByteSize(ShapedType type) {
  Type element = type.getElementType();
  if (!element.isIntOrIndexOrFloat()) {
    return uint64_t(0);
  }
  uint64_t bytes =
      element.isIndex()
          ? 8
          : std::max<uint64_t>(1, (element.getIntOrFloatBitWidth() + 7) / 8);
  for (int64_t size : type.getShape()) {
    if (ShapedType::isDynamic(size)) {
      continue;
    }
    if (__builtin_mul_overflow(bytes, static_cast<uint64_t>(size), &bytes)) {
      return std::nullopt;
    }
  }
  return bytes;
}

struct InsertShapeChecksPass
    : mlir::strata::input::impl::InsertShapeChecksPassBase<
          InsertShapeChecksPass> {
  void runOnOperation() override {
    if (failed(strata::input::checkTensorByteSizes(getOperation()))) {
      return signalPassFailure();
    }
    OpBuilder builder(&getContext());
    SmallVector<Operation *> ops;
    getOperation().walk([&](Operation *op) {
      if (isa<linalg::LinalgOp, tensor::ExtractSliceOp, tensor::InsertSliceOp,
              tensor::ExtractOp, tensor::InsertOp>(op) &&
          onHost(op)) {
        ops.push_back(op);
      }
    });
    for (Operation *op : ops) {
      if (auto linalgOp = dyn_cast<linalg::LinalgOp>(op)) {
        checkLoopSizes(builder, linalgOp);
      } else if (auto slice = dyn_cast<tensor::ExtractSliceOp>(op)) {
        checkSliceBounds(builder, op, slice.getSource(),
                         slice.getMixedOffsets(), slice.getMixedSizes(),
                         slice.getMixedStrides(), "source");
      } else if (auto slice = dyn_cast<tensor::InsertSliceOp>(op)) {
        checkSliceBounds(builder, op, slice.getDest(), slice.getMixedOffsets(),
                         slice.getMixedSizes(), slice.getMixedStrides(),
                         "destination");
      } else if (auto extract = dyn_cast<tensor::ExtractOp>(op)) {
        checkIndices(builder, op, extract.getTensor(), extract.getIndices());
      } else if (auto insert = dyn_cast<tensor::InsertOp>(op)) {
        checkIndices(builder, op, insert.getDest(), insert.getIndices());
      }
    }
  }
};

} // namespace

LogicalResult mlir::strata::input::checkTensorByteSizes(Operation *root) {
  auto check = [](Operation *op, Type type) -> LogicalResult {
    auto shaped = dyn_cast<ShapedType>(type);
    if (!shaped || !shaped.hasRank()) {
      return success();
    }
    std::optional<uint64_t> bytes = staticByteSize(shaped);
    if (bytes && *bytes < kMaxTensorBytes) {
      return success();
    }
    InFlightDiagnostic diag = op->emitError() << type << " is too large: ";
    if (bytes) {
      diag << *bytes << " bytes";
    } else {
      diag << "its size in bytes overflows a 64-bit integer";
    }
    return diag << " (a tensor must be smaller than 2^62 bytes)";
  };
  WalkResult result = root->walk([&](Operation *op) {
    for (Type type : op->getResultTypes()) {
      if (failed(check(op, type))) {
        return WalkResult::interrupt();
      }
    }
    for (Region &region : op->getRegions()) {
      for (Block &block : region) {
        for (Type type : block.getArgumentTypes()) {
          if (failed(check(op, type))) {
            return WalkResult::interrupt();
          }
        }
      }
    }
    if (auto function = dyn_cast<FunctionOpInterface>(op)) {
      for (Type type : llvm::concat<const Type>(function.getArgumentTypes(),
                                                function.getResultTypes())) {
        if (failed(check(op, type))) {
          return WalkResult::interrupt();
        }
      }
    }
    return WalkResult::advance();
  });
  return failure(result.wasInterrupted());
}
