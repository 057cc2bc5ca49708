// ResizeOps.cpp - ONNX's Resize (and Upsample) as a linalg.generic that
// computes each output element from its source coordinates: nearest,
// linear and cubic interpolation, every coordinate transformation mode.

#include "Lowering.h"

using namespace mlir;
using namespace mlir::strata;
using namespace mlir::strata::onnx;

namespace {

struct ResizeSpec {
  StringRef mode;        // nearest, linear, cubic
  StringRef coordinates; // half_pixel, asymmetric, ...
  StringRef nearestMode; // round_prefer_floor, ...
  double cubicA = -0.75;
  bool excludeOutside = false;
  double extrapolation = 0.0;
  SmallVector<double> scales;         // per dim
  SmallVector<int64_t> out;           // per dim
  SmallVector<double> roiStart, roiEnd;
};

/// One interpolation tap along an axis: the source index and its weight.
struct Tap {
  Value index; // index type
  Value weight; // f32
};

Value f32(OpBuilder &b, Location loc, double v) {
  return arith::ConstantOp::create(b, loc, b.getF32FloatAttr(v));
}

/// The source coordinate (f32) of output index `x` along one axis.
Value sourceCoordinate(OpBuilder &b, Location loc, Value x, int64_t in,
                       int64_t out, double scale, const ResizeSpec &s,
                       double roiStart, double roiEnd) {
  Value xf = arith::UIToFPOp::create(
      b, loc, b.getF32Type(),
      arith::IndexCastUIOp::create(b, loc, b.getI32Type(), x));
  auto add = [&](Value a, Value c) -> Value {
    return arith::AddFOp::create(b, loc, a, c);
  };
  auto mul = [&](Value a, Value c) -> Value {
    return arith::MulFOp::create(b, loc, a, c);
  };
  StringRef mode = s.coordinates;
  if (mode == "asymmetric") {
    return mul(xf, f32(b, loc, 1.0 / scale));
  }
  if (mode == "align_corners") {
    // ONNX divides by in * scale - 1, the unrounded output length.
    double length = double(in) * scale;
    if (out == 1 || length <= 1.0) {
      return f32(b, loc, 0.0);
    }
    return mul(xf, f32(b, loc, double(in - 1) / (length - 1.0)));
  }
  if (mode == "tf_half_pixel_for_nn") {
    return mul(add(xf, f32(b, loc, 0.5)), f32(b, loc, 1.0 / scale));
  }
  if (mode == "tf_crop_and_resize") {
    if (out == 1) {
      return f32(b, loc, 0.5 * (roiStart + roiEnd) * (in - 1));
    }
    return add(f32(b, loc, roiStart * (in - 1)),
               mul(xf, f32(b, loc, (roiEnd - roiStart) * (in - 1) /
                                       double(out - 1))));
  }
  if (mode == "pytorch_half_pixel" && out == 1) {
    return f32(b, loc, 0.0);
  }
  // half_pixel (and pytorch_half_pixel for out > 1).
  return add(mul(add(xf, f32(b, loc, 0.5)), f32(b, loc, 1.0 / scale)),
             f32(b, loc, -0.5));
}

Value clampIndex(OpBuilder &b, Location loc, Value i, int64_t in) {
  Value zero = arith::ConstantIndexOp::create(b, loc, 0);
  Value last = arith::ConstantIndexOp::create(b, loc, in - 1);
  return arith::MinSIOp::create(b, loc,
                                arith::MaxSIOp::create(b, loc, i, zero), last);
}

/// The four Keys cubic weights for taps -1, 0, 1, 2 at fraction t.
SmallVector<Value> cubicWeights(OpBuilder &b, Location loc, Value t, double a) {
  auto mul = [&](Value p, Value q) -> Value {
    return arith::MulFOp::create(b, loc, p, q);
  };
  auto add = [&](Value p, double q) -> Value {
    return arith::AddFOp::create(b, loc, p, f32(b, loc, q));
  };
  auto poly = [&](Value d, bool inner) -> Value {
    if (inner) {
      return add(mul(add(mul(f32(b, loc, a + 2), d), -(a + 3)), mul(d, d)),
                 1.0);
    }
    return add(mul(add(mul(add(mul(f32(b, loc, a), d), -5 * a), d), 8 * a), d),
               -4 * a);
  };
  Value one = f32(b, loc, 1.0), two = f32(b, loc, 2.0);
  return {poly(arith::AddFOp::create(b, loc, t, one), false), poly(t, true),
          poly(arith::SubFOp::create(b, loc, one, t), true),
          poly(arith::SubFOp::create(b, loc, two, t), false)};
}

/// An f32 holding an integral value as an index.
Value floorIndexOf(OpBuilder &b, Location loc, Value integral) {
  return arith::IndexCastOp::create(
      b, loc, b.getIndexType(),
      arith::FPToSIOp::create(b, loc, b.getI64Type(), integral));
}

Value floorIndex(OpBuilder &b, Location loc, Value v) {
  Value f = math::FloorOp::create(b, loc, v);
  return arith::IndexCastOp::create(
      b, loc, b.getIndexType(),
      arith::FPToSIOp::create(b, loc, b.getI64Type(), f));
}

/// The taps of one axis for output index `x`.
SmallVector<Tap> taps(OpBuilder &b, Location loc, Value x, int64_t in,
                      int64_t out, double scale, const ResizeSpec &s,
                      double roiStart, double roiEnd) {
  Value c = sourceCoordinate(b, loc, x, in, out, scale, s, roiStart, roiEnd);
  if (s.mode == "nearest") {
    Value r;
    StringRef m = s.nearestMode;
    if (m == "floor") {
      r = math::FloorOp::create(b, loc, c);
    } else if (m == "ceil") {
      r = math::CeilOp::create(b, loc, c);
    } else if (m == "round_prefer_ceil") {
      r = math::FloorOp::create(
          b, loc, arith::AddFOp::create(b, loc, c, f32(b, loc, 0.5)));
    } else {
      r = math::CeilOp::create(
          b, loc, arith::SubFOp::create(b, loc, c, f32(b, loc, 0.5)));
    }
    Value i = arith::IndexCastOp::create(
        b, loc, b.getIndexType(),
        arith::FPToSIOp::create(b, loc, b.getI64Type(), r));
    return {{clampIndex(b, loc, i, in), f32(b, loc, 1.0)}};
  }
  Value i0 = floorIndex(b, loc, c);
  Value t = arith::SubFOp::create(b, loc, c, math::FloorOp::create(b, loc, c));
  auto at = [&](int64_t offset) {
    return arith::AddIOp::create(b, loc, i0,
                                 arith::ConstantIndexOp::create(b, loc, offset))
        .getResult();
  };
  SmallVector<Tap> result;
  if (s.mode == "linear") {
    Value one = f32(b, loc, 1.0);
    result.push_back({clampIndex(b, loc, i0, in),
                      arith::SubFOp::create(b, loc, one, t)});
    result.push_back({clampIndex(b, loc, at(1), in), t});
    return result;
  }
  // Cubic (Keys), A = cubic_coeff_a.
  auto poly = [&](Value d, bool inner) -> Value {
    // inner (|d| <= 1): ((A+2)d - (A+3))d^2 + 1;
    // outer (1 < |d| < 2): ((A d - 5A) d + 8A) d - 4A.
    double a = s.cubicA;
    auto mul = [&](Value p, Value q) -> Value {
      return arith::MulFOp::create(b, loc, p, q);
    };
    auto add = [&](Value p, double q) -> Value {
      return arith::AddFOp::create(b, loc, p, f32(b, loc, q));
    };
    if (inner) {
      return add(mul(add(mul(f32(b, loc, a + 2), d), -(a + 3)), mul(d, d)),
                 1.0);
    }
    return add(mul(add(mul(add(mul(f32(b, loc, a), d), -5 * a), d), 8 * a), d),
               -4 * a);
  };
  Value one = f32(b, loc, 1.0), two = f32(b, loc, 2.0);
  SmallVector<Value> weights = {
      poly(arith::AddFOp::create(b, loc, t, one), false),
      poly(t, true),
      poly(arith::SubFOp::create(b, loc, one, t), true),
      poly(arith::SubFOp::create(b, loc, two, t), false)};
  SmallVector<Value> indices = {at(-1), i0, at(1), at(2)};
  if (s.excludeOutside) {
    // Taps outside the input weigh nothing; the rest are renormalized.
    Value zero = arith::ConstantIndexOp::create(b, loc, 0);
    Value size = arith::ConstantIndexOp::create(b, loc, in);
    Value total = f32(b, loc, 0.0);
    for (int k = 0; k < 4; ++k) {
      Value inside = arith::AndIOp::create(
          b, loc,
          arith::CmpIOp::create(b, loc, arith::CmpIPredicate::sge, indices[k],
                                zero),
          arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt, indices[k],
                                size));
      weights[k] =
          arith::SelectOp::create(b, loc, inside, weights[k], f32(b, loc, 0));
      total = arith::AddFOp::create(b, loc, total, weights[k]);
    }
    for (int k = 0; k < 4; ++k) {
      weights[k] = arith::DivFOp::create(b, loc, weights[k], total);
    }
  }
  for (int k = 0; k < 4; ++k) {
    result.push_back({clampIndex(b, loc, indices[k], in), weights[k]});
  }
  return result;
}

LogicalResult lowerResizeWith(Node &n, ResizeSpec &s) {
  ArrayRef<int64_t> in = n.shape(0);
  int64_t rank = in.size();
  if (s.mode != "nearest" && s.mode != "linear" && s.mode != "cubic") {
    return n.fail("mode '" + s.mode + "' is not supported");
  }
  Type element = n.elem(0);
  if (failed(n.checkShape(s.out, element, "the result"))) {
    return failure();
  }
  auto type = RankedTensorType::get(s.out, element);
  if (type.getNumElements() == 0) {
    return n.fail("the result is empty");
  }
  if (n.type(0).getNumElements() == 0) {
    return n.fail("the input is empty: there is nothing to resize");
  }
  Value input = n.in(0);
  Value result = generic(
      n.b, n.loc, {}, {}, type,
      [&](OpBuilder &b, Location loc, ValueRange) -> Value {
        SmallVector<SmallVector<Tap>> axes;
        Value outside;
        for (int64_t d = 0; d < rank; ++d) {
          Value x = linalg::IndexOp::create(b, loc, d);
          bool identity = in[d] == s.out[d] && s.scales[d] == 1.0 &&
                          s.coordinates != "tf_crop_and_resize";
          if (identity) {
            axes.push_back({{x, f32(b, loc, 1.0)}});
            continue;
          }
          double start = d < (int64_t)s.roiStart.size() ? s.roiStart[d] : 0;
          double end = d < (int64_t)s.roiEnd.size() ? s.roiEnd[d] : 1;
          axes.push_back(
              taps(b, loc, x, in[d], s.out[d], s.scales[d], s, start, end));
          if (s.coordinates == "tf_crop_and_resize") {
            Value c = sourceCoordinate(b, loc, x, in[d], s.out[d],
                                       s.scales[d], s, start, end);
            Value off = arith::OrIOp::create(
                b, loc,
                arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OLT, c,
                                      f32(b, loc, 0.0)),
                arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OGT, c,
                                      f32(b, loc, in[d] - 1)));
            outside = outside ? arith::OrIOp::create(b, loc, outside, off)
                                    .getResult()
                              : off;
          }
        }
        // Sum over every combination of taps.
        Value sum = f32(b, loc, 0.0);
        SmallVector<size_t> pick(rank, 0);
        while (true) {
          SmallVector<Value> at;
          Value weight = f32(b, loc, 1.0);
          for (int64_t d = 0; d < rank; ++d) {
            at.push_back(axes[d][pick[d]].index);
            if (axes[d].size() > 1 || s.mode != "nearest") {
              weight = arith::MulFOp::create(b, loc, weight,
                                             axes[d][pick[d]].weight);
            }
          }
          Value v = tensor::ExtractOp::create(b, loc, input, at);
          v = convertScalar(b, loc, v, b.getF32Type(), n.isUnsigned(0));
          sum = arith::AddFOp::create(b, loc, sum,
                                      arith::MulFOp::create(b, loc, v, weight));
          int64_t d = rank - 1;
          for (; d >= 0; --d) {
            if (++pick[d] < axes[d].size()) {
              break;
            }
            pick[d] = 0;
          }
          if (d < 0) {
            break;
          }
        }
        if (outside) {
          sum = arith::SelectOp::create(b, loc, outside,
                                        f32(b, loc, s.extrapolation), sum);
        }
        if (!isFloat(element)) {
          sum = math::RoundEvenOp::create(b, loc, sum);
        }
        return convertScalar(b, loc, sum, element, false, n.isUnsigned(0));
      });
  return n.replace(result, {n.isUnsigned(0)});
}

LogicalResult lowerResize(Node &n) {
  ResizeSpec s;
  int64_t rank = n.rank(0);
  ArrayRef<int64_t> in = n.shape(0);
  s.mode = n.stringAttr("mode").value_or("nearest");
  bool isUpsample = n.opType() == "Upsample";
  if (isUpsample || n.opset() < 11) {
    s.coordinates = "asymmetric";
    s.nearestMode = "floor";
  } else {
    s.coordinates =
        n.stringAttr("coordinate_transformation_mode").value_or("half_pixel");
    s.nearestMode = n.stringAttr("nearest_mode").value_or("round_prefer_floor");
  }
  s.cubicA = n.floatAttr("cubic_coeff_a", -0.75);
  s.excludeOutside = n.intAttr("exclude_outside", 0) != 0;
  s.extrapolation = n.floatAttr("extrapolation_value", 0.0);
  if (s.mode == "bilinear") {
    s.mode = "linear";
  }
  // Scales and sizes: Upsample-7 has a scales attribute; Upsample-9 and
  // Resize-10 take scales as input 1; later Resize takes roi, scales and
  // sizes as inputs 1..3.
  std::optional<SmallVector<double>> scales;
  std::optional<SmallVector<int64_t>> sizes;
  if (isUpsample && n.opset() < 9) {
    scales = n.floatsAttr("scales");
  } else if (isUpsample || n.opset() < 11) {
    FailureOr<SmallVector<double>> v = n.constFloats(1, "scales");
    if (failed(v)) {
      return failure();
    }
    scales = *v;
  } else {
    if (n.has(3) && n.type(3).getNumElements() > 0) {
      FailureOr<SmallVector<int64_t>> v = n.constInts(3, "sizes");
      if (failed(v)) {
        return failure();
      }
      sizes = *v;
    } else if (n.has(2) && n.type(2).getNumElements() > 0) {
      FailureOr<SmallVector<double>> v = n.constFloats(2, "scales");
      if (failed(v)) {
        return failure();
      }
      scales = *v;
    }
    if (s.coordinates == "tf_crop_and_resize") {
      if (!n.has(1)) {
        return n.fail("tf_crop_and_resize needs roi");
      }
      FailureOr<SmallVector<double>> roi = n.constFloats(1, "roi");
      if (failed(roi)) {
        return failure();
      }
      if (static_cast<int64_t>(roi->size()) != 2 * rank) {
        return n.fail("roi must hold 2 * rank values");
      }
      s.roiStart.assign(roi->begin(), roi->begin() + rank);
      s.roiEnd.assign(roi->begin() + rank, roi->end());
    }
  }
  if (sizes) {
    if (static_cast<int64_t>(sizes->size()) != rank) {
      return n.fail("sizes must hold one value per dimension");
    }
    s.out = *sizes;
    for (int64_t d = 0; d < rank; ++d) {
      s.scales.push_back(double(s.out[d]) / double(in[d]));
    }
  } else if (scales) {
    if (static_cast<int64_t>(scales->size()) != rank) {
      return n.fail("scales must hold one value per dimension");
    }
    s.scales = *scales;
    for (int64_t d = 0; d < rank; ++d) {
      // ONNX truncates in * scale (the scale is a float32). Compared as a
      // double first: the cast of a NaN, an infinity or a size beyond
      // 2^62 is undefined.
      float scale = static_cast<float>(s.scales[d]);
      double size = double(in[d]) * double(scale);
      if (!(scale > 0) || !(size < double(int64_t(1) << 62))) {
        std::string text;
        llvm::raw_string_ostream(text) << s.scales[d];
        return n.fail("scale " + text + " of axis " + llvm::Twine(d) +
                      " is not a positive number that makes a size "
                      "below 2^62");
      }
      s.out.push_back(static_cast<int64_t>(size));
      s.scales[d] = scale;
    }
  } else {
    return n.fail("needs scales or sizes");
  }
  return lowerResizeWith(n, s);
}

} // namespace

void mlir::strata::onnx::addResizeLowerings(LoweringTable &table) {
  table["Resize"] = lowerResize;
  table["Upsample"] = lowerResize;
}

namespace {

/// x reflected into [lo, hi] (GridSample's reflection padding).
Value reflectInto(OpBuilder &b, Location loc, Value x, double lo, double hi) {
  Value low = f32(b, loc, lo), high = f32(b, loc, hi);
  double span = hi - lo;
  if (span <= 0) {
    return low;
  }
  auto reflectFrom = [&](Value dx, Value nearEdge, Value farEdge,
                         bool towardHigh) -> Value {
    // n = floor(dx / span), r = dx - n * span; even n: near +- r.
    Value q = math::FloorOp::create(
        b, loc, arith::DivFOp::create(b, loc, dx, f32(b, loc, span)));
    Value r = arith::SubFOp::create(
        b, loc, dx, arith::MulFOp::create(b, loc, q, f32(b, loc, span)));
    Value odd = arith::CmpIOp::create(
        b, loc, arith::CmpIPredicate::ne,
        arith::AndIOp::create(
            b, loc, arith::FPToSIOp::create(b, loc, b.getI64Type(), q),
            scalar(b, loc, b.getI64Type(), 1)),
        scalar(b, loc, b.getI64Type(), 0));
    Value even = towardHigh ? arith::AddFOp::create(b, loc, nearEdge, r)
                                  .getResult()
                            : arith::SubFOp::create(b, loc, nearEdge, r)
                                  .getResult();
    Value oddValue = towardHigh ? arith::SubFOp::create(b, loc, farEdge, r)
                                      .getResult()
                                : arith::AddFOp::create(b, loc, farEdge, r)
                                      .getResult();
    return arith::SelectOp::create(b, loc, odd, oddValue, even);
  };
  Value below = arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OLT, x,
                                      low);
  Value above = arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OGT, x,
                                      high);
  Value fromLow = reflectFrom(arith::SubFOp::create(b, loc, low, x), low, high,
                              /*towardHigh=*/true);
  Value fromHigh = reflectFrom(arith::SubFOp::create(b, loc, x, high), high,
                               low, /*towardHigh=*/false);
  return arith::SelectOp::create(
      b, loc, below, fromLow,
      arith::SelectOp::create(b, loc, above, fromHigh, x));
}

LogicalResult lowerGridSample(Node &n) {
  if (n.rank(0) != 4 || n.rank(1) != 4 || n.shape(1)[3] != 2 ||
      n.shape(1)[0] != n.shape(0)[0]) {
    return n.fail("expects an NCHW input and an N x H x W x 2 grid");
  }
  StringRef mode = n.stringAttr("mode").value_or("bilinear");
  StringRef padding = n.stringAttr("padding_mode").value_or("zeros");
  bool align = n.intAttr("align_corners", 0) != 0;
  if (mode != "bilinear" && mode != "nearest" && mode != "bicubic") {
    return n.fail("mode '" + mode + "' is not supported");
  }
  if (padding != "zeros" && padding != "border" && padding != "reflection") {
    return n.fail("padding_mode '" + padding + "' is not supported");
  }
  ArrayRef<int64_t> xs = n.shape(0), gs = n.shape(1);
  int64_t N = xs[0], C = xs[1], H = xs[2], W = xs[3];
  int64_t Ho = gs[1], Wo = gs[2];
  Type element = n.elem(0);
  auto type = RankedTensorType::get({N, C, Ho, Wo}, element);
  Value x = n.in(0), grid = n.in(1);
  Value result = generic(
      n.b, n.loc, {}, {}, type,
      [&](OpBuilder &b, Location loc, ValueRange) -> Value {
        Value in = linalg::IndexOp::create(b, loc, 0);
        Value ic = linalg::IndexOp::create(b, loc, 1);
        Value ih = linalg::IndexOp::create(b, loc, 2);
        Value iw = linalg::IndexOp::create(b, loc, 3);
        auto coordinate = [&](int64_t which, int64_t size) -> Value {
          Value g = tensor::ExtractOp::create(
              b, loc, grid,
              ValueRange{in, ih, iw,
                         arith::ConstantIndexOp::create(b, loc, which)});
          g = convertScalar(b, loc, g, b.getF32Type());
          Value one = f32(b, loc, 1.0);
          Value c;
          if (align) {
            c = arith::MulFOp::create(
                b, loc,
                arith::MulFOp::create(b, loc, arith::AddFOp::create(b, loc, g, one),
                                      f32(b, loc, 0.5)),
                f32(b, loc, size - 1));
          } else {
            c = arith::MulFOp::create(
                b, loc,
                arith::SubFOp::create(
                    b, loc,
                    arith::MulFOp::create(b, loc,
                                          arith::AddFOp::create(b, loc, g, one),
                                          f32(b, loc, size)),
                    one),
                f32(b, loc, 0.5));
          }
          if (padding == "border") {
            c = arith::MaximumFOp::create(b, loc, c, f32(b, loc, 0));
            c = arith::MinimumFOp::create(b, loc, c, f32(b, loc, size - 1));
          } else if (padding == "reflection" && mode != "bicubic") {
            c = align ? reflectInto(b, loc, c, 0, size - 1)
                      : reflectInto(b, loc, c, -0.5, size - 0.5);
            c = arith::MaximumFOp::create(b, loc, c, f32(b, loc, 0));
            c = arith::MinimumFOp::create(b, loc, c, f32(b, loc, size - 1));
          }
          return c;
        };
        Value cx = coordinate(0, W), cy = coordinate(1, H);
        // The value at integer (row, col): padded per padding_mode.
        auto at = [&](Value row, Value col) -> Value {
          auto fix = [&](Value i, int64_t size, Value &inside) -> Value {
            Value zero = arith::ConstantIndexOp::create(b, loc, 0);
            Value last = arith::ConstantIndexOp::create(b, loc, size - 1);
            Value ok = arith::AndIOp::create(
                b, loc,
                arith::CmpIOp::create(b, loc, arith::CmpIPredicate::sge, i, zero),
                arith::CmpIOp::create(b, loc, arith::CmpIPredicate::sle, i, last));
            inside = inside ? arith::AndIOp::create(b, loc, inside, ok).getResult()
                            : ok;
            if (padding == "reflection" && mode == "bicubic") {
              Value f = arith::SIToFPOp::create(
                  b, loc, b.getF32Type(),
                  arith::IndexCastOp::create(b, loc, b.getI64Type(), i));
              f = align ? reflectInto(b, loc, f, 0, size - 1)
                        : reflectInto(b, loc, f, -0.5, size - 0.5);
              i = floorIndexOf(b, loc, math::RoundEvenOp::create(b, loc, f));
            }
            return clampIndex(b, loc, i, size);
          };
          Value inside;
          Value r = fix(row, H, inside), c = fix(col, W, inside);
          Value v = tensor::ExtractOp::create(b, loc, x, ValueRange{in, ic, r, c});
          v = convertScalar(b, loc, v, b.getF32Type());
          if (padding == "zeros") {
            v = arith::SelectOp::create(b, loc, inside, v, f32(b, loc, 0));
          }
          return v;
        };
        Value out;
        if (mode == "nearest") {
          Value r = floorIndexOf(b, loc, math::RoundEvenOp::create(b, loc, cy));
          Value c = floorIndexOf(b, loc, math::RoundEvenOp::create(b, loc, cx));
          out = at(r, c);
        } else {
          Value fx = math::FloorOp::create(b, loc, cx);
          Value fy = math::FloorOp::create(b, loc, cy);
          Value tx = arith::SubFOp::create(b, loc, cx, fx);
          Value ty = arith::SubFOp::create(b, loc, cy, fy);
          Value x0 = floorIndexOf(b, loc, fx), y0 = floorIndexOf(b, loc, fy);
          auto offset = [&](Value i, int64_t k) -> Value {
            return arith::AddIOp::create(b, loc, i,
                                         arith::ConstantIndexOp::create(b, loc, k));
          };
          SmallVector<std::pair<int64_t, Value>> wx, wy;
          if (mode == "bilinear") {
            Value one = f32(b, loc, 1.0);
            wx = {{0, arith::SubFOp::create(b, loc, one, tx)}, {1, tx}};
            wy = {{0, arith::SubFOp::create(b, loc, one, ty)}, {1, ty}};
          } else {
            ResizeSpec cubic;
            cubic.mode = "cubic";
            cubic.cubicA = -0.75;
            auto weights = [&](Value t) {
              SmallVector<std::pair<int64_t, Value>> w;
              SmallVector<Value> k = cubicWeights(b, loc, t, cubic.cubicA);
              for (int i = 0; i < 4; ++i) {
                w.push_back({i - 1, k[i]});
              }
              return w;
            };
            wx = weights(tx);
            wy = weights(ty);
          }
          out = f32(b, loc, 0.0);
          for (auto [dy, wyv] : wy) {
            for (auto [dx, wxv] : wx) {
              Value v = at(offset(y0, dy), offset(x0, dx));
              out = arith::AddFOp::create(
                  b, loc, out,
                  arith::MulFOp::create(
                      b, loc, v, arith::MulFOp::create(b, loc, wyv, wxv)));
            }
          }
        }
        return convertScalar(b, loc, out, element);
      });
  (void)N;
  (void)C;
  return n.replace(result);
}

} // namespace

void mlir::strata::onnx::addGridSampleLowerings(LoweringTable &table) {
  table["GridSample"] = lowerGridSample;
}
