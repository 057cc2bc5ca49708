// RegionOps.cpp - ONNX op types that place or sample windows of feature
// maps at places their inputs compute: MaxUnpool (values put back where
// MaxPool's Indices say) and RoiAlign (regions of interest sampled
// bilinearly and pooled).

#include "Lowering.h"

#include "mlir/Dialect/Utils/StaticValueUtils.h"

using namespace mlir;
using namespace mlir::strata;
using namespace mlir::strata::onnx;

namespace {

Value i64Constant(OpBuilder &b, Location loc, int64_t value) {
  return arith::ConstantIntOp::create(b, loc, b.getI64Type(), value);
}

/// MaxUnpool: X and I [N, C, spatial...] (I as MaxPool's Indices: flat
/// indices into the NCHW output) to Y, zero but at Y.flat[I[p]] = X[p].
/// The indices index the inferred shape, whose spatial sizes are (in - 1)
/// stride + kernel - pads; an output_shape input (a constant or read on
/// the host) may make Y larger, zeros beyond the inferred extent (ONNX's
/// reference pads the end). Each output element
/// searches its own (n, c) plane of I for its flat index (the indices of a
/// MaxPool all lie in their plane; one outside it is dropped), the last
/// hit winning.
LogicalResult lowerMaxUnpool(Node &n) {
  OpBuilder &b = n.b;
  Location loc = n.loc;
  int64_t rank = n.rank(0);
  if (rank < 3 || rank > 5) {
    return n.fail("input 0 must have rank 3 to 5 (N, C and 1 to 3 spatial "
                  "dimensions); it is " +
                  typeText(n.type(0)));
  }
  if (n.type(1).getShape() != n.type(0).getShape() ||
      !isa<IntegerType>(n.elem(1))) {
    return n.fail("input 1 (I) must be integers of input 0's shape; it is " +
                  typeText(n.type(1)));
  }
  int64_t spatial = rank - 2;
  std::optional<SmallVector<int64_t>> kernel = n.intsAttr("kernel_shape");
  if (!kernel || int64_t(kernel->size()) != spatial) {
    return n.fail("kernel_shape must hold one size per spatial dimension (" +
                  llvm::Twine(spatial) + ")");
  }
  SmallVector<int64_t> strides =
      n.intsAttr("strides").value_or(SmallVector<int64_t>(spatial, 1));
  SmallVector<int64_t> pads =
      n.intsAttr("pads").value_or(SmallVector<int64_t>(2 * spatial, 0));
  if (int64_t(strides.size()) != spatial ||
      int64_t(pads.size()) != 2 * spatial) {
    return n.fail("strides or pads do not match the spatial rank " +
                  llvm::Twine(spatial));
  }
  ArrayRef<int64_t> in = n.shape(0);
  // The inferred shape, which the indices index; output_shape may be
  // larger, the rest zeros after the inferred extent.
  SmallVector<int64_t> inferred = {in[0], in[1]};
  for (int64_t i = 0; i < spatial; ++i) {
    int64_t size = (in[2 + i] - 1) * strides[i] + (*kernel)[i] - pads[i] -
                   pads[spatial + i];
    if (strides[i] < 1 || strides[i] > (int64_t(1) << 30) ||
        (*kernel)[i] < 1 || (*kernel)[i] > (int64_t(1) << 30) || size < 1) {
      return n.fail("kernel_shape, strides and pads make spatial "
                    "dimension " +
                    llvm::Twine(i) + " of the output " + llvm::Twine(size) +
                    " long");
    }
    inferred.push_back(size);
  }
  SmallVector<OpFoldResult> sizes = {b.getIndexAttr(in[0]),
                                     b.getIndexAttr(in[1])};
  if (n.has(2)) {
    FailureOr<SmallVector<OpFoldResult>> shape = n.hostInts(2, "output_shape");
    if (failed(shape)) {
      return failure();
    }
    if (int64_t(shape->size()) != rank) {
      return n.fail("output_shape holds " + llvm::Twine(shape->size()) +
                    " sizes for an output of rank " + llvm::Twine(rank));
    }
    Value ok = arith::ConstantIntOp::create(b, loc, 1, 1);
    for (int64_t d = 0; d < rank; ++d) {
      OpFoldResult size = (*shape)[d];
      std::optional<int64_t> value = getConstantIntValue(size);
      if (d < 2 && value && *value != in[d]) {
        return n.fail("output_shape's dimension " + llvm::Twine(d) + " is " +
                      llvm::Twine(*value) + "; the input's is " +
                      llvm::Twine(in[d]));
      }
      if (value && d >= 2 &&
          (*value < inferred[d] || *value > (int64_t(1) << 40))) {
        return n.fail("output_shape's dimension " + llvm::Twine(d) + " is " +
                      llvm::Twine(*value) + ", not a size from " +
                      llvm::Twine(inferred[d]) +
                      " (the unpooled size) to 2^40");
      }
      if (!value) {
        Value v = indexValueOf(b, loc, size);
        Value good =
            d < 2 ? compareSizes(b, loc, arith::CmpIPredicate::eq, size,
                                 b.getIndexAttr(in[d]))
                  : arith::AndIOp::create(
                        b, loc,
                        arith::CmpIOp::create(
                            b, loc, arith::CmpIPredicate::sge, v,
                            arith::ConstantIndexOp::create(b, loc,
                                                           inferred[d])),
                        arith::CmpIOp::create(
                            b, loc, arith::CmpIPredicate::sle, v,
                            arith::ConstantIndexOp::create(
                                b, loc, int64_t(1) << 40)))
                        .getResult();
        ok = arith::AndIOp::create(b, loc, ok, good);
      }
      if (d >= 2) {
        sizes.push_back(size);
      }
    }
    n.check(ok, "output_shape is not the input's N and C and spatial sizes "
                "from the unpooled ones to 2^40 at run time");
  } else {
    for (int64_t i = 0; i < spatial; ++i) {
      sizes.push_back(b.getIndexAttr(inferred[2 + i]));
    }
  }
  // Loops: the output's (parallel), then the input's spatial positions
  // (reduced): X and I are read at (n, c, p...).
  MLIRContext *context = b.getContext();
  int64_t loops = rank + spatial;
  auto dim = [&](int64_t d) { return b.getAffineDimExpr(d); };
  SmallVector<AffineExpr> inExprs = {dim(0), dim(1)}, outExprs;
  for (int64_t i = 0; i < spatial; ++i) {
    inExprs.push_back(dim(rank + i));
  }
  for (int64_t d = 0; d < rank; ++d) {
    outExprs.push_back(dim(d));
  }
  SmallVector<utils::IteratorType> iterators(rank,
                                             utils::IteratorType::parallel);
  iterators.append(spatial, utils::IteratorType::reduction);
  Type element = n.elem(0);
  Value init = filledTo(b, loc, sizes, scalar(b, loc, element, 0));
  Type i64 = b.getI64Type();
  Value result =
      linalg::GenericOp::create(
          b, loc, TypeRange{init.getType()}, ValueRange{n.in(0), n.in(1)},
          ValueRange{init},
          {AffineMap::get(loops, 0, inExprs, context),
           AffineMap::get(loops, 0, inExprs, context),
           AffineMap::get(loops, 0, outExprs, context)},
          iterators,
          [&](OpBuilder &nb, Location l, ValueRange args) {
            // The flat index in the inferred shape (the positions beyond
            // it have none).
            Value flat = i64Constant(nb, l, 0);
            Value hit = arith::ConstantIntOp::create(nb, l, 1, 1);
            for (int64_t d = 0; d < rank; ++d) {
              Value at = arith::IndexCastOp::create(
                  nb, l, i64, linalg::IndexOp::create(nb, l, d));
              Value extent = i64Constant(nb, l, inferred[d]);
              hit = arith::AndIOp::create(
                  nb, l, hit,
                  arith::CmpIOp::create(nb, l, arith::CmpIPredicate::slt, at,
                                        extent));
              flat = arith::AddIOp::create(
                  nb, l, arith::MulIOp::create(nb, l, flat, extent), at);
            }
            Value index = convertScalar(nb, l, args[1], i64, n.isUnsigned(1));
            hit = arith::AndIOp::create(
                nb, l, hit,
                arith::CmpIOp::create(nb, l, arith::CmpIPredicate::eq, index,
                                      flat));
            linalg::YieldOp::create(
                nb, l,
                ValueRange{arith::SelectOp::create(nb, l, hit, args[0], args[2])
                               .getResult()});
          })
          ->getResult(0);
  return n.replace(result, {n.isUnsigned(0)});
}

} // namespace

void mlir::strata::onnx::addRegionLowerings(LoweringTable &table) {
  table["MaxUnpool"] = lowerMaxUnpool;
}
