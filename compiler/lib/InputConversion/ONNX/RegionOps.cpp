// RegionOps.cpp - ONNX op types that place or sample windows of feature
// maps at places their inputs compute: MaxUnpool (values put back where
// MaxPool's Indices say), RoiAlign (regions of interest sampled
// bilinearly and pooled) and DeformConv (a convolution whose taps are
// sampled at learned offsets).

#include "Lowering.h"

#include "mlir/Dialect/Utils/StaticValueUtils.h"

#include <cmath>
#include <tuple>

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
    if (strides[i] < 1 || strides[i] > (int64_t(1) << 30) || (*kernel)[i] < 1 ||
        (*kernel)[i] > (int64_t(1) << 30) || size < 1) {
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
            d < 2
                ? compareSizes(b, loc, arith::CmpIPredicate::eq, size,
                               b.getIndexAttr(in[d]))
                : arith::AndIOp::create(
                      b, loc,
                      arith::CmpIOp::create(
                          b, loc, arith::CmpIPredicate::sge, v,
                          arith::ConstantIndexOp::create(b, loc, inferred[d])),
                      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::sle,
                                            v,
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

/// The geometry of one region of RoiAlign in the feature map's pixels:
/// where it starts and the size of its bins, from rois[r] = (x1, y1, x2,
/// y2) times spatial_scale, less half a pixel with half_pixel (opset 16's
/// default); without it (output_half_pixel, opset 10) a region is at least
/// one pixel.
struct RoiGeometry {
  Value startH, startW, binH, binW;
};

RoiGeometry roiGeometry(OpBuilder &b, Location loc, Value rois, Value r,
                        Type f32, double scale, bool halfPixel, int64_t outH,
                        int64_t outW) {
  auto coordinate = [&](int64_t k) -> Value {
    Value v = tensor::ExtractOp::create(
        b, loc, rois, ValueRange{r, arith::ConstantIndexOp::create(b, loc, k)});
    v = convertScalar(b, loc, v, f32);
    return arith::SubFOp::create(
        b, loc, arith::MulFOp::create(b, loc, v, scalar(b, loc, f32, scale)),
        scalar(b, loc, f32, halfPixel ? 0.5 : 0.0));
  };
  Value x1 = coordinate(0), y1 = coordinate(1), x2 = coordinate(2),
        y2 = coordinate(3);
  Value h = arith::SubFOp::create(b, loc, y2, y1);
  Value w = arith::SubFOp::create(b, loc, x2, x1);
  if (!halfPixel) {
    h = arith::MaximumFOp::create(b, loc, h, scalar(b, loc, f32, 1.0));
    w = arith::MaximumFOp::create(b, loc, w, scalar(b, loc, f32, 1.0));
  }
  return {y1, x1,
          arith::DivFOp::create(b, loc, h, scalar(b, loc, f32, double(outH))),
          arith::DivFOp::create(b, loc, w, scalar(b, loc, f32, double(outW)))};
}

/// RoiAlign (opsets 10, 16): X [N, C, H, W], rois [R, 4] and
/// batch_indices [R] to Y [R, C, output_height, output_width]. Each output
/// bin averages (mode avg) or takes the largest of (mode max) a grid of
/// bilinear samples at the centers of the grid's cells; a sample more than
/// a pixel outside the map counts as 0. In max mode a sample is the largest
/// of its four weighted corners (as ONNX's reference and ONNX Runtime
/// compute it). The grid is sampling_ratio x sampling_ratio, or with
/// sampling_ratio 0 ceil(bin size) per axis per region: its largest extent
/// over the regions is computed by a kernel and read on the host, the loop
/// over it masking each region's excess samples. A batch index outside
/// [0, N) reads image 0's nearest (it is clamped).
LogicalResult lowerRoiAlign(Node &n) {
  OpBuilder &b = n.b;
  Location loc = n.loc;
  if (n.rank(0) != 4 || !isFloat(n.elem(0))) {
    return n.fail("input 0 (X) must be a float tensor [N, C, H, W]; it is " +
                  typeText(n.type(0)));
  }
  if (n.rank(1) != 2 || n.shape(1)[1] != 4 || !isFloat(n.elem(1))) {
    return n.fail("input 1 (rois) must be a float tensor [R, 4]; it is " +
                  typeText(n.type(1)));
  }
  int64_t regions = n.shape(1)[0];
  if (n.rank(2) != 1 || n.shape(2)[0] != regions ||
      !isa<IntegerType>(n.elem(2))) {
    return n.fail("input 2 (batch_indices) must be " + llvm::Twine(regions) +
                  " integers, one per region; it is " + typeText(n.type(2)));
  }
  StringRef mode = n.stringAttr("mode").value_or("avg");
  if (mode != "avg" && mode != "max") {
    return n.fail("mode '" + mode + "' is not avg or max");
  }
  StringRef transform =
      n.stringAttr("coordinate_transformation_mode")
          .value_or(n.opset() >= 16 ? "half_pixel" : "output_half_pixel");
  if (transform != "half_pixel" && transform != "output_half_pixel") {
    return n.fail("coordinate_transformation_mode '" + transform +
                  "' is not half_pixel or output_half_pixel");
  }
  bool halfPixel = transform == "half_pixel";
  int64_t outH = n.intAttr("output_height", 1);
  int64_t outW = n.intAttr("output_width", 1);
  int64_t ratio = n.intAttr("sampling_ratio", 0);
  double scale = n.floatAttr("spatial_scale", 1.0);
  if (outH < 1 || outW < 1 || outH > (int64_t(1) << 20) ||
      outW > (int64_t(1) << 20)) {
    return n.fail("output_height " + llvm::Twine(outH) + " and output_width " +
                  llvm::Twine(outW) + " are not sizes from 1 to 2^20");
  }
  if (ratio < 0 || ratio > 1024) {
    return n.fail("sampling_ratio " + llvm::Twine(ratio) +
                  " is not from 0 (adaptive) to 1024");
  }
  if (!std::isfinite(scale)) {
    return n.fail("spatial_scale is not a finite number");
  }
  ArrayRef<int64_t> xs = n.shape(0);
  int64_t batch = xs[0], channels = xs[1], height = xs[2], width = xs[3];
  if (batch < 1 || height < 1 || width < 1) {
    return n.fail("X " + typeText(n.type(0)) + " has no pixels to sample");
  }
  Type element = n.elem(0);
  Type f32 = b.getF32Type();
  Type compute = element.isF64() ? element : f32;
  Value x = n.in(0), rois = n.in(1), batchIndices = n.in(2);
  // The grid's extent per axis: static, or the largest adaptive one.
  OpFoldResult gridH = b.getIndexAttr(ratio), gridW = b.getIndexAttr(ratio);
  if (ratio == 0) {
    if (regions == 0) {
      gridH = gridW = b.getIndexAttr(1);
    } else {
      // ceil(bin size) per region and axis, then the largest of each.
      Type i64 = b.getI64Type();
      auto sizes = RankedTensorType::get({regions, 2}, i64);
      Value grids = generic(
          b, loc, {}, {}, sizes,
          [&](OpBuilder &nb, Location l, ValueRange) -> Value {
            Value r = linalg::IndexOp::create(nb, l, 0);
            Value axis = linalg::IndexOp::create(nb, l, 1);
            RoiGeometry g = roiGeometry(nb, l, rois, r, compute, scale,
                                        halfPixel, outH, outW);
            Value isH =
                arith::CmpIOp::create(nb, l, arith::CmpIPredicate::eq, axis,
                                      arith::ConstantIndexOp::create(nb, l, 0));
            Value bin = arith::SelectOp::create(nb, l, isH, g.binH, g.binW);
            // At least 1 and at most 1024 samples per axis (NaN: 1).
            Value cells = math::CeilOp::create(nb, l, bin);
            cells = arith::MaximumFOp::create(
                nb, l, scalar(nb, l, compute, 1.0),
                arith::MinimumFOp::create(nb, l, cells,
                                          scalar(nb, l, compute, 1024.0)));
            Value sure = arith::CmpFOp::create(nb, l, arith::CmpFPredicate::ORD,
                                               cells, cells);
            cells = arith::SelectOp::create(nb, l, sure, cells,
                                            scalar(nb, l, compute, 1.0));
            return arith::FPToSIOp::create(nb, l, i64, cells);
          });
      Value largest =
          reduce(b, loc, grids, {0}, i64Constant(b, loc, 1),
                 [](OpBuilder &nb, Location l, ValueRange a) -> Value {
                   return arith::MaxSIOp::create(nb, l, a[0], a[1]);
                 });
      auto read = [&](int64_t axis) -> OpFoldResult {
        Value v = tensor::ExtractOp::create(
            b, loc, largest,
            ValueRange{arith::ConstantIndexOp::create(b, loc, axis)});
        return arith::IndexCastOp::create(b, loc, b.getIndexType(), v)
            .getResult();
      };
      gridH = read(0);
      gridW = read(1);
    }
  }
  // The grid's cells (their row, a kernel's output when the extent is
  // read at run time: a kernel cannot allocate an empty tensor of a
  // run-time size).
  Value grid = generic(
      b, loc, {}, {},
      RankedTensorType::get(staticShapeOf({gridH, gridW}), compute),
      [&](OpBuilder &nb, Location l, ValueRange) -> Value {
        return arith::UIToFPOp::create(
            nb, l, compute,
            arith::IndexCastOp::create(nb, l, nb.getI64Type(),
                                       linalg::IndexOp::create(nb, l, 0)));
      },
      {gridH, gridW});
  Value init = filled(b, loc, {regions, channels, outH, outW},
                      mode == "avg" ? scalar(b, loc, compute, 0)
                                    : lowest(b, loc, compute));
  MLIRContext *context = b.getContext();
  auto dim = [&](int64_t d) { return b.getAffineDimExpr(d); };
  SmallVector<utils::IteratorType> iterators(4, utils::IteratorType::parallel);
  iterators.append(2, utils::IteratorType::reduction);
  Value pooled =
      linalg::GenericOp::create(
          b, loc, TypeRange{init.getType()}, ValueRange{grid}, ValueRange{init},
          {AffineMap::get(6, 0, {dim(4), dim(5)}, context),
           AffineMap::get(6, 0, {dim(0), dim(1), dim(2), dim(3)}, context)},
          iterators,
          [&](OpBuilder &nb, Location l, ValueRange args) {
            Value r = linalg::IndexOp::create(nb, l, 0);
            Value c = linalg::IndexOp::create(nb, l, 1);
            auto toF = [&](Value index) -> Value {
              return arith::UIToFPOp::create(
                  nb, l, compute,
                  arith::IndexCastOp::create(nb, l, nb.getI64Type(), index));
            };
            auto cf = [&](double v) { return scalar(nb, l, compute, v); };
            RoiGeometry g = roiGeometry(nb, l, rois, r, compute, scale,
                                        halfPixel, outH, outW);
            // This region's grid: static, or ceil(bin) (as above).
            Value cellsH, cellsW, masked;
            if (ratio > 0) {
              cellsH = cellsW = cf(double(ratio));
            } else {
              auto adaptive = [&](Value bin) -> Value {
                Value cells = arith::MaximumFOp::create(
                    nb, l, cf(1.0),
                    arith::MinimumFOp::create(
                        nb, l, math::CeilOp::create(nb, l, bin), cf(1024.0)));
                Value sure = arith::CmpFOp::create(
                    nb, l, arith::CmpFPredicate::ORD, cells, cells);
                return arith::SelectOp::create(nb, l, sure, cells, cf(1.0));
              };
              cellsH = adaptive(g.binH);
              cellsW = adaptive(g.binW);
            }
            Value iy = toF(linalg::IndexOp::create(nb, l, 4));
            Value ix = toF(linalg::IndexOp::create(nb, l, 5));
            if (ratio == 0) {
              masked = arith::OrIOp::create(
                  nb, l,
                  arith::CmpFOp::create(nb, l, arith::CmpFPredicate::OGE, iy,
                                        cellsH),
                  arith::CmpFOp::create(nb, l, arith::CmpFPredicate::OGE, ix,
                                        cellsW));
            }
            // The sample: start + p bin + (i + 0.5) bin / cells.
            auto at = [&](Value start, Value bin, Value p, Value i,
                          Value cells) -> Value {
              Value offset = arith::DivFOp::create(
                  nb, l,
                  arith::MulFOp::create(
                      nb, l, arith::AddFOp::create(nb, l, i, cf(0.5)), bin),
                  cells);
              return arith::AddFOp::create(
                  nb, l, start,
                  arith::AddFOp::create(
                      nb, l, arith::MulFOp::create(nb, l, toF(p), bin),
                      offset));
            };
            Value y = at(g.startH, g.binH, linalg::IndexOp::create(nb, l, 2),
                         iy, cellsH);
            Value xx = at(g.startW, g.binW, linalg::IndexOp::create(nb, l, 3),
                          ix, cellsW);
            // More than a pixel outside: no value (0).
            Value outside = arith::OrIOp::create(
                nb, l,
                arith::OrIOp::create(
                    nb, l,
                    arith::CmpFOp::create(nb, l, arith::CmpFPredicate::OLT, y,
                                          cf(-1.0)),
                    arith::CmpFOp::create(nb, l, arith::CmpFPredicate::OGT, y,
                                          cf(double(height)))),
                arith::OrIOp::create(
                    nb, l,
                    arith::CmpFOp::create(nb, l, arith::CmpFPredicate::OLT, xx,
                                          cf(-1.0)),
                    arith::CmpFOp::create(nb, l, arith::CmpFPredicate::OGT, xx,
                                          cf(double(width)))));
            // The corners: low = floor(max(v, 0)); at the last pixel or
            // beyond, both corners are the last pixel.
            Type i64 = nb.getI64Type();
            auto corners =
                [&](Value v, int64_t size) -> std::tuple<Value, Value, Value> {
              v = arith::MaximumFOp::create(nb, l, v, cf(0.0));
              Value last = cf(double(size - 1));
              Value beyond =
                  arith::CmpFOp::create(nb, l, arith::CmpFPredicate::OGE,
                                        math::FloorOp::create(nb, l, v), last);
              v = arith::SelectOp::create(nb, l, beyond, last, v);
              // NaN (a NaN region) reads pixel 0 of an outside sample.
              Value sure =
                  arith::CmpFOp::create(nb, l, arith::CmpFPredicate::ORD, v, v);
              v = arith::SelectOp::create(nb, l, sure, v, cf(0.0));
              Value low = math::FloorOp::create(nb, l, v);
              Value lowIndex = arith::FPToSIOp::create(nb, l, i64, low);
              Value highIndex = arith::MinSIOp::create(
                  nb, l,
                  arith::AddIOp::create(nb, l, lowIndex, i64Constant(nb, l, 1)),
                  i64Constant(nb, l, size - 1));
              Value fraction = arith::SubFOp::create(nb, l, v, low);
              auto toIndex = [&](Value i) -> Value {
                return arith::IndexCastOp::create(nb, l, nb.getIndexType(), i);
              };
              return {toIndex(lowIndex), toIndex(highIndex), fraction};
            };
            auto [yLow, yHigh, ly] = corners(y, height);
            auto [xLow, xHigh, lx] = corners(xx, width);
            Value hy = arith::SubFOp::create(nb, l, cf(1.0), ly);
            Value hx = arith::SubFOp::create(nb, l, cf(1.0), lx);
            Value image = arith::IndexCastOp::create(
                nb, l, nb.getIndexType(),
                arith::MinSIOp::create(
                    nb, l,
                    arith::MaxSIOp::create(
                        nb, l,
                        convertScalar(nb, l,
                                      tensor::ExtractOp::create(
                                          nb, l, batchIndices, ValueRange{r}),
                                      i64, n.isUnsigned(2)),
                        i64Constant(nb, l, 0)),
                    i64Constant(nb, l, batch - 1)));
            auto pixel = [&](Value py, Value px, Value weight) -> Value {
              Value v = tensor::ExtractOp::create(nb, l, x,
                                                  ValueRange{image, c, py, px});
              return arith::MulFOp::create(nb, l, weight,
                                           convertScalar(nb, l, v, compute));
            };
            Value v1 = pixel(yLow, xLow, arith::MulFOp::create(nb, l, hy, hx));
            Value v2 = pixel(yLow, xHigh, arith::MulFOp::create(nb, l, hy, lx));
            Value v3 = pixel(yHigh, xLow, arith::MulFOp::create(nb, l, ly, hx));
            Value v4 =
                pixel(yHigh, xHigh, arith::MulFOp::create(nb, l, ly, lx));
            Value sample;
            if (mode == "avg") {
              sample = arith::AddFOp::create(
                  nb, l, arith::AddFOp::create(nb, l, v1, v2),
                  arith::AddFOp::create(nb, l, v3, v4));
            } else {
              sample = arith::MaximumFOp::create(
                  nb, l, arith::MaximumFOp::create(nb, l, v1, v2),
                  arith::MaximumFOp::create(nb, l, v3, v4));
            }
            sample = arith::SelectOp::create(nb, l, outside, cf(0.0), sample);
            Value acc = args[1];
            Value next =
                mode == "avg"
                    ? arith::AddFOp::create(
                          nb, l, acc,
                          arith::DivFOp::create(
                              nb, l, sample,
                              arith::MulFOp::create(nb, l, cellsH, cellsW)))
                          .getResult()
                    : arith::MaximumFOp::create(nb, l, acc, sample).getResult();
            if (masked) {
              next = arith::SelectOp::create(nb, l, masked, acc, next);
            }
            linalg::YieldOp::create(nb, l, ValueRange{next});
          })
          ->getResult(0);
  return n.replace(convertTensor(b, loc, pooled, element));
}

/// DeformConv (opset 19), 2-D: a convolution whose taps are sampled at
/// learned offsets. First the sampled columns, cols[n, c, kh, kw, oh, ow] =
/// mask * X[n, c] at (oh stride - pad + kh dilation + offset_y, the same
/// for x), bilinear with each of the four corners outside the map counting
/// 0 (the offsets and mask of channel c's offset group, c / (C /
/// offset_group)); then the grouped contraction with W over (c, kh, kw),
/// and the bias. f16 and bf16 are computed in f32.
LogicalResult lowerDeformConv(Node &n) {
  OpBuilder &b = n.b;
  Location loc = n.loc;
  if (n.rank(0) != 4 || !isFloat(n.elem(0))) {
    return n.fail("input 0 (X) must be a float tensor [N, C, H, W] (2-D "
                  "deformable convolution); it is " +
                  typeText(n.type(0)));
  }
  Type element = n.elem(0);
  ArrayRef<int64_t> xs = n.shape(0), ws = n.shape(1), os = n.shape(2);
  if (n.rank(1) != 4 || n.elem(1) != element) {
    return n.fail("input 1 (W) must be [oC, C / group, kH, kW] of X's "
                  "element type; it is " +
                  typeText(n.type(1)));
  }
  int64_t batch = xs[0], channels = xs[1], height = xs[2], width = xs[3];
  int64_t outChannels = ws[0], kH = ws[2], kW = ws[3];
  int64_t group = n.intAttr("group", 1);
  int64_t offsetGroup = n.intAttr("offset_group", 1);
  if (group < 1 || channels % group != 0 || outChannels % group != 0 ||
      ws[1] * group != channels) {
    return n.fail("group " + llvm::Twine(group) + " does not divide X's " +
                  llvm::Twine(channels) + " channels and W's " +
                  llvm::Twine(outChannels) + " filters of " +
                  llvm::Twine(ws[1]) + " channels each");
  }
  if (offsetGroup < 1 || channels % offsetGroup != 0) {
    return n.fail("offset_group " + llvm::Twine(offsetGroup) +
                  " does not divide X's " + llvm::Twine(channels) +
                  " channels");
  }
  if (std::optional<SmallVector<int64_t>> kernel = n.intsAttr("kernel_shape");
      kernel &&
      (kernel->size() != 2 || (*kernel)[0] != kH || (*kernel)[1] != kW)) {
    return n.fail("kernel_shape differs from W's kernel " + llvm::Twine(kH) +
                  " x " + llvm::Twine(kW));
  }
  SmallVector<int64_t> strides =
      n.intsAttr("strides").value_or(SmallVector<int64_t>{1, 1});
  SmallVector<int64_t> dilations =
      n.intsAttr("dilations").value_or(SmallVector<int64_t>{1, 1});
  SmallVector<int64_t> pads =
      n.intsAttr("pads").value_or(SmallVector<int64_t>{0, 0, 0, 0});
  if (strides.size() != 2 || dilations.size() != 2 || pads.size() != 4) {
    return n.fail("strides, dilations or pads do not match the spatial rank 2");
  }
  SmallVector<int64_t> out;
  for (int64_t i = 0; i < 2; ++i) {
    int64_t size = i == 0 ? height : width;
    int64_t kernel = i == 0 ? kH : kW;
    if (strides[i] < 1 || strides[i] > (int64_t(1) << 30) || dilations[i] < 1 ||
        dilations[i] > (int64_t(1) << 30) || pads[i] < 0 ||
        pads[i] > (int64_t(1) << 30) || pads[i + 2] < 0 ||
        pads[i + 2] > (int64_t(1) << 30) || kernel < 1) {
      return n.fail("the kernel size, stride, dilation or pads of spatial "
                    "axis " +
                    llvm::Twine(i) +
                    " are out of range (sizes, strides and dilations 1 to "
                    "2^30, pads 0 to 2^30)");
    }
    int64_t span =
        size + pads[i] + pads[i + 2] - (kernel - 1) * dilations[i] - 1;
    if (span < 0) {
      return n.fail("the kernel is larger than the padded input");
    }
    out.push_back(span / strides[i] + 1);
  }
  int64_t taps = kH * kW;
  SmallVector<int64_t> offsetShape = {batch, offsetGroup * taps * 2, out[0],
                                      out[1]};
  if (n.rank(2) != 4 || os != ArrayRef<int64_t>(offsetShape) ||
      n.elem(2) != element) {
    return n.fail("input 2 (offset) must be " + llvm::Twine(batch) + " x " +
                  llvm::Twine(offsetShape[1]) + " x " + llvm::Twine(out[0]) +
                  " x " + llvm::Twine(out[1]) +
                  " (N, offset_group kH kW 2, the output's size) of X's "
                  "element type; it is " +
                  typeText(n.type(2)));
  }
  bool hasBias = n.has(3), hasMask = n.has(4);
  if (hasBias && (n.rank(3) != 1 || n.shape(3)[0] != outChannels ||
                  n.elem(3) != element)) {
    return n.fail("input 3 (B) must hold " + llvm::Twine(outChannels) +
                  " values of X's element type; it is " + typeText(n.type(3)));
  }
  SmallVector<int64_t> maskShape = {batch, offsetGroup * taps, out[0], out[1]};
  if (hasMask &&
      (n.rank(4) != 4 || n.shape(4) != ArrayRef<int64_t>(maskShape) ||
       n.elem(4) != element)) {
    return n.fail("input 4 (mask) must be " + llvm::Twine(batch) + " x " +
                  llvm::Twine(maskShape[1]) + " x " + llvm::Twine(out[0]) +
                  " x " + llvm::Twine(out[1]) + " of X's element type; it is " +
                  typeText(n.type(4)));
  }
  SmallVector<int64_t> colsShape = {batch, channels, kH, kW, out[0], out[1]};
  if (failed(n.checkShape(colsShape, element, "the sampled columns"))) {
    return failure();
  }
  Type compute = element.isF64() ? element : Type(b.getF32Type());
  Value x = n.in(0), offset = n.in(2), mask = hasMask ? n.in(4) : Value();
  int64_t perOffsetGroup = channels / offsetGroup;
  Value cols = generic(
      b, loc, {}, {}, RankedTensorType::get(colsShape, compute),
      [&](OpBuilder &nb, Location l, ValueRange) -> Value {
        SmallVector<Value> at;
        for (int64_t d = 0; d < 6; ++d) {
          at.push_back(linalg::IndexOp::create(nb, l, d));
        }
        auto ci = [&](int64_t v) -> Value {
          return arith::ConstantIndexOp::create(nb, l, v);
        };
        auto cf = [&](double v) { return scalar(nb, l, compute, v); };
        Value og = arith::DivUIOp::create(nb, l, at[1], ci(perOffsetGroup));
        Value tap = arith::AddIOp::create(
            nb, l, arith::MulIOp::create(nb, l, at[2], ci(kW)), at[3]);
        Value base = arith::AddIOp::create(
            nb, l, arith::MulIOp::create(nb, l, og, ci(taps)), tap);
        auto read = [&](Value tensor, Value channel) -> Value {
          return convertScalar(
              nb, l,
              tensor::ExtractOp::create(
                  nb, l, tensor, ValueRange{at[0], channel, at[4], at[5]}),
              compute);
        };
        Value pair = arith::MulIOp::create(nb, l, base, ci(2));
        Value offY = read(offset, pair);
        Value offX = read(offset, arith::AddIOp::create(nb, l, pair, ci(1)));
        auto toF = [&](Value index) -> Value {
          return arith::SIToFPOp::create(
              nb, l, compute,
              arith::IndexCastOp::create(nb, l, nb.getI64Type(), index));
        };
        // oh stride - pad + kh dilation + the offset.
        auto coordinate = [&](Value o, Value k, int64_t axis,
                              Value off) -> Value {
          Value grid = arith::AddIOp::create(
              nb, l, arith::MulIOp::create(nb, l, o, ci(strides[axis])),
              arith::MulIOp::create(nb, l, k, ci(dilations[axis])));
          return arith::AddFOp::create(
              nb, l,
              arith::SubFOp::create(nb, l, toF(grid), cf(double(pads[axis]))),
              off);
        };
        Value y = coordinate(at[4], at[2], 0, offY);
        Value xx = coordinate(at[5], at[3], 1, offX);
        Value y0 = math::FloorOp::create(nb, l, y);
        Value x0 = math::FloorOp::create(nb, l, xx);
        Value ly = arith::SubFOp::create(nb, l, y, y0);
        Value lx = arith::SubFOp::create(nb, l, xx, x0);
        // Corner (y0 + dy, x0 + dx) with its weight, 0 outside the map
        // (also for a NaN or huge coordinate: the comparisons fail first,
        // and the clamped position read is inside).
        auto corner = [&](int64_t dy, int64_t dx) -> Value {
          Value cy = arith::AddFOp::create(nb, l, y0, cf(double(dy)));
          Value cx = arith::AddFOp::create(nb, l, x0, cf(double(dx)));
          Value inside = arith::AndIOp::create(
              nb, l,
              arith::AndIOp::create(
                  nb, l,
                  arith::CmpFOp::create(nb, l, arith::CmpFPredicate::OGE, cy,
                                        cf(0.0)),
                  arith::CmpFOp::create(nb, l, arith::CmpFPredicate::OLE, cy,
                                        cf(double(height - 1)))),
              arith::AndIOp::create(
                  nb, l,
                  arith::CmpFOp::create(nb, l, arith::CmpFPredicate::OGE, cx,
                                        cf(0.0)),
                  arith::CmpFOp::create(nb, l, arith::CmpFPredicate::OLE, cx,
                                        cf(double(width - 1)))));
          auto clampIndex = [&](Value v, int64_t size) -> Value {
            Value safe = arith::SelectOp::create(nb, l, inside, v, cf(0.0));
            return arith::IndexCastOp::create(
                nb, l, nb.getIndexType(),
                arith::FPToSIOp::create(nb, l, nb.getI64Type(), safe));
          };
          Value v =
              convertScalar(nb, l,
                            tensor::ExtractOp::create(
                                nb, l, x,
                                ValueRange{at[0], at[1], clampIndex(cy, height),
                                           clampIndex(cx, width)}),
                            compute);
          Value wy = dy ? ly : arith::SubFOp::create(nb, l, cf(1.0), ly);
          Value wx = dx ? lx : arith::SubFOp::create(nb, l, cf(1.0), lx);
          Value term = arith::MulFOp::create(
              nb, l, arith::MulFOp::create(nb, l, wy, wx), v);
          return arith::SelectOp::create(nb, l, inside, term, cf(0.0));
        };
        Value sample = arith::AddFOp::create(
            nb, l, arith::AddFOp::create(nb, l, corner(0, 0), corner(0, 1)),
            arith::AddFOp::create(nb, l, corner(1, 0), corner(1, 1)));
        if (mask) {
          sample = arith::MulFOp::create(nb, l, sample, read(mask, base));
        }
        return sample;
      });
  // The grouped contraction: cols [N, g, C/g, kH, kW, oH, oW] with W
  // [g, oC/g, C/g, kH, kW] to [N, g, oC/g, oH, oW].
  int64_t perGroup = channels / group, outPerGroup = outChannels / group;
  cols =
      reshape(b, loc, cols, {batch, group, perGroup, kH, kW, out[0], out[1]});
  Value weight = reshape(b, loc, convertTensor(b, loc, n.in(1), compute),
                         {group, outPerGroup, perGroup, kH, kW});
  SmallVector<int64_t> groupedShape = {batch, group, outPerGroup, out[0],
                                       out[1]};
  Value init = filled(b, loc, groupedShape, scalar(b, loc, compute, 0));
  MLIRContext *context = b.getContext();
  auto dim = [&](int64_t d) { return b.getAffineDimExpr(d); };
  // Loops: n g o oh ow (parallel), i kh kw (reduced).
  SmallVector<utils::IteratorType> iterators(5, utils::IteratorType::parallel);
  iterators.append(3, utils::IteratorType::reduction);
  Value grouped =
      linalg::GenericOp::create(
          b, loc, TypeRange{init.getType()}, ValueRange{cols, weight},
          ValueRange{init},
          {AffineMap::get(
               8, 0, {dim(0), dim(1), dim(5), dim(6), dim(7), dim(3), dim(4)},
               context),
           AffineMap::get(8, 0, {dim(1), dim(2), dim(5), dim(6), dim(7)},
                          context),
           AffineMap::get(8, 0, {dim(0), dim(1), dim(2), dim(3), dim(4)},
                          context)},
          iterators, yieldFloatMulAdd)
          ->getResult(0);
  SmallVector<int64_t> shape = {batch, outChannels, out[0], out[1]};
  Value result = reshape(b, loc, grouped, shape);
  if (hasBias) {
    Value bias = reshape(b, loc, convertTensor(b, loc, n.in(3), compute),
                         {outChannels, 1, 1});
    result = elementwise(b, loc, {result, bias}, shape, compute,
                         [](OpBuilder &nb, Location l, ValueRange a) -> Value {
                           return arith::AddFOp::create(nb, l, a[0], a[1]);
                         });
  }
  return n.replace(convertTensor(b, loc, result, element));
}

} // namespace

void mlir::strata::onnx::addRegionLowerings(LoweringTable &table) {
  table["MaxUnpool"] = lowerMaxUnpool;
  table["RoiAlign"] = lowerRoiAlign;
  table["DeformConv"] = lowerDeformConv;
}
