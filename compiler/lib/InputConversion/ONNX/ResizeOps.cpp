// ResizeOps.cpp - ONNX's Resize (and Upsample) as a linalg.generic that
// computes each output element from its source coordinates: nearest,
// linear and cubic interpolation, every coordinate transformation mode.

#include "Lowering.h"

using namespace mlir;
using namespace mlir::strata;
using namespace mlir::strata::onnx;

namespace {

Value f32(OpBuilder &b, Location loc, double v) {
  return arith::ConstantOp::create(b, loc, b.getF32FloatAttr(v));
}

/// A number of one axis's coordinate transformation: known at compile time
/// (a constant where the kernel uses it), or an f32 the host computes from
/// run-time scales, sizes or roi (the kernel reads it as a push constant).
struct Coefficient {
  double known = 0;
  Value value;

  Value get(OpBuilder &b, Location loc) const {
    return value ? value : f32(b, loc, known);
  }
};

Coefficient knownCoefficient(double value) {
  Coefficient c;
  c.known = value;
  return c;
}

/// How one axis maps an output index x to a source coordinate (f32):
/// `fixed` for every x, else (x + 0.5 if `half`) * factor (+ offset).
struct AxisMap {
  bool half = false;
  Coefficient factor;
  std::optional<Coefficient> offset, fixed;
  /// Known to map x to x over an input and output of the same length.
  bool identity = false;
};

struct ResizeSpec {
  StringRef mode;        // nearest, linear, cubic
  StringRef coordinates; // half_pixel, asymmetric, ...
  StringRef nearestMode; // round_prefer_floor, ...
  double cubicA = -0.75;
  bool excludeOutside = false;
  double extrapolation = 0.0;
  SmallVector<OpFoldResult> out; // per dim (index sizes)
  SmallVector<AxisMap> axes;     // per dim
  SmallVector<double> scales;    // per dim, when known at compile time
};

/// One interpolation tap along an axis: the source index and its weight.
struct Tap {
  Value index; // index type
  Value weight; // f32
};

/// The map of an axis of length `in` to `out` at `scale` whose numbers are
/// known at compile time (roi `start`..`end` for tf_crop_and_resize).
AxisMap knownAxisMap(int64_t in, int64_t out, double scale, double start,
                     double end, StringRef mode) {
  AxisMap m;
  m.identity = in == out && scale == 1.0 && mode != "tf_crop_and_resize";
  if (mode == "asymmetric") {
    m.factor = knownCoefficient(1.0 / scale);
  } else if (mode == "align_corners") {
    // ONNX divides by in * scale - 1, the unrounded output length.
    double length = double(in) * scale;
    if (out == 1 || length <= 1.0) {
      m.fixed = knownCoefficient(0.0);
    } else {
      m.factor = knownCoefficient(double(in - 1) / (length - 1.0));
    }
  } else if (mode == "tf_half_pixel_for_nn") {
    m.half = true;
    m.factor = knownCoefficient(1.0 / scale);
  } else if (mode == "tf_crop_and_resize") {
    if (out == 1) {
      m.fixed = knownCoefficient(0.5 * (start + end) * (in - 1));
    } else {
      m.offset = knownCoefficient(start * (in - 1));
      m.factor = knownCoefficient((end - start) * (in - 1) / double(out - 1));
    }
  } else if (mode == "pytorch_half_pixel" && out == 1) {
    m.fixed = knownCoefficient(0.0);
  } else if (mode == "half_pixel_symmetric") {
    // Opset 19: half_pixel shifted to keep the centre where the rounded
    // size differs from in * scale.
    double adjustment = double(out) / (double(in) * scale);
    double shift = 0.5 * double(in) * (1.0 - adjustment);
    m.half = true;
    m.factor = knownCoefficient(1.0 / scale);
    m.offset = knownCoefficient(shift - 0.5);
  } else {
    // half_pixel (and pytorch_half_pixel for out > 1).
    m.half = true;
    m.factor = knownCoefficient(1.0 / scale);
    m.offset = knownCoefficient(-0.5);
  }
  return m;
}

/// The map of an axis of length `in` to `out` (an index value) at `scale`
/// (f64) computed on the host, in f64 as the known form is, each number
/// rounded to f32 last. Where the known form picks a formula by `out`,
/// selects pick the numbers (0 * x + c is c).
AxisMap runtimeAxisMap(OpBuilder &b, Location loc, int64_t in, Value out,
                       Value scale, Value start, Value end, StringRef mode) {
  auto number = [&](double v) -> Value {
    return arith::ConstantOp::create(b, loc, b.getF64FloatAttr(v));
  };
  auto narrow = [&](Value v) {
    Coefficient c;
    c.value = arith::TruncFOp::create(b, loc, b.getF32Type(), v);
    return c;
  };
  auto mul = [&](Value x, Value y) -> Value {
    return arith::MulFOp::create(b, loc, x, y);
  };
  auto sub = [&](Value x, Value y) -> Value {
    return arith::SubFOp::create(b, loc, x, y);
  };
  auto div = [&](Value x, Value y) -> Value {
    return arith::DivFOp::create(b, loc, x, y);
  };
  auto select = [&](Value c, Value x, Value y) -> Value {
    return arith::SelectOp::create(b, loc, c, x, y);
  };
  Value single =
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, out,
                            arith::ConstantIndexOp::create(b, loc, 1));
  Value inverse = div(number(1.0), scale);
  AxisMap m;
  if (mode == "asymmetric") {
    m.factor = narrow(inverse);
  } else if (mode == "align_corners") {
    Value length = mul(number(double(in)), scale);
    Value degenerate = arith::OrIOp::create(
        b, loc, single,
        arith::CmpFOp::create(b, loc, arith::CmpFPredicate::ULE, length,
                              number(1.0)));
    m.factor =
        narrow(select(degenerate, number(0.0),
                      div(number(double(in - 1)), sub(length, number(1.0)))));
  } else if (mode == "tf_half_pixel_for_nn") {
    m.half = true;
    m.factor = narrow(inverse);
  } else if (mode == "tf_crop_and_resize") {
    Value span = number(double(in - 1));
    Value outF = convertScalar(
        b, loc, arith::IndexCastOp::create(b, loc, b.getI64Type(), out),
        b.getF64Type());
    Value center =
        mul(mul(number(0.5), arith::AddFOp::create(b, loc, start, end)), span);
    m.offset = narrow(select(single, center, mul(start, span)));
    m.factor =
        narrow(select(single, number(0.0),
                      div(mul(sub(end, start), span), sub(outF, number(1.0)))));
  } else if (mode == "half_pixel_symmetric") {
    Value outF = convertScalar(
        b, loc, arith::IndexCastOp::create(b, loc, b.getI64Type(), out),
        b.getF64Type());
    Value adjustment = div(outF, mul(number(double(in)), scale));
    Value shift = mul(number(0.5 * double(in)), sub(number(1.0), adjustment));
    m.half = true;
    m.factor = narrow(inverse);
    m.offset = narrow(sub(shift, number(0.5)));
  } else {
    m.half = true;
    if (mode == "pytorch_half_pixel") {
      m.factor = narrow(select(single, number(0.0), inverse));
      m.offset = narrow(select(single, number(0.0), number(-0.5)));
    } else {
      m.factor = narrow(inverse);
      m.offset = knownCoefficient(-0.5);
    }
  }
  return m;
}

/// The source coordinate (f32) of output index `x` along one axis.
Value sourceCoordinate(OpBuilder &b, Location loc, Value x, const AxisMap &m) {
  if (m.fixed) {
    return m.fixed->get(b, loc);
  }
  Value xf = arith::UIToFPOp::create(
      b, loc, b.getF32Type(),
      arith::IndexCastUIOp::create(b, loc, b.getI32Type(), x));
  if (m.half) {
    xf = arith::AddFOp::create(b, loc, xf, f32(b, loc, 0.5));
  }
  Value c = arith::MulFOp::create(b, loc, xf, m.factor.get(b, loc));
  if (m.offset) {
    c = arith::AddFOp::create(b, loc, c, m.offset->get(b, loc));
  }
  return c;
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
                      const AxisMap &map, const ResizeSpec &s) {
  Value c = sourceCoordinate(b, loc, x, map);
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
  SmallVector<int64_t> outShape = staticShapeOf(s.out);
  if (failed(n.checkShape(outShape, element, "the result"))) {
    return failure();
  }
  auto type = RankedTensorType::get(outShape, element);
  if (type.hasStaticShape() && type.getNumElements() == 0) {
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
          const AxisMap &map = s.axes[d];
          if (map.identity) {
            axes.push_back({{x, f32(b, loc, 1.0)}});
            continue;
          }
          axes.push_back(taps(b, loc, x, in[d], map, s));
          if (s.coordinates == "tf_crop_and_resize") {
            Value c = sourceCoordinate(b, loc, x, map);
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
      },
      type.hasStaticShape() ? ArrayRef<OpFoldResult>{}
                            : ArrayRef<OpFoldResult>(s.out));
  return n.replace(result, {n.isUnsigned(0)});
}

/// Elements an antialiasing filter's matrix (output length x input
/// length of one axis) may have: it is a constant.
constexpr int64_t kAntialiasMatrixLimit = int64_t(1) << 22;

/// The weights of the 1-D antialiasing filter (opset 18) of one output
/// index: the linear (triangle) or cubic (Keys) kernel stretched by 1 /
/// scale when downsampling, normalized to sum to 1, at the taps nearest the
/// source coordinate; taps past the edges read the edge element (or, with
/// exclude_outside, weigh nothing and the rest are renormalized). Adds the
/// weights of output `x` into `row` (one per input element).
void antialiasRow(const ResizeSpec &s, int64_t d, int64_t in, int64_t x,
                  MutableArrayRef<double> row) {
  const AxisMap &map = s.axes[d];
  double c = map.fixed
                 ? map.fixed->known
                 : (double(x) + (map.half ? 0.5 : 0.0)) * map.factor.known +
                       (map.offset ? map.offset->known : 0.0);
  // The taps left of c are preferred: an integral c is the right end of
  // its interval (the fraction is 1, not 0).
  double base = std::ceil(c) - 1;
  double ratio = c - base;
  double scale = std::min(s.scales[d], 1.0);
  SmallVector<double> weights;
  int64_t start;
  if (s.mode == "linear") {
    start = static_cast<int64_t>(std::floor(-1.0 / scale)) + 1;
    for (int64_t i = start; i < 2 - start; ++i) {
      weights.push_back(
          std::clamp(1.0 - std::abs((double(i) - ratio) * scale), 0.0, 1.0));
    }
  } else {
    double a = s.cubicA;
    start = static_cast<int64_t>(std::floor(-2.0 / scale)) + 1;
    for (int64_t i = start; i < 2 - start; ++i) {
      double t = std::abs(scale * (double(i) - ratio));
      double t2 = t * t, t3 = t2 * t;
      weights.push_back(t <= 1  ? (a + 2) * t3 - (a + 3) * t2 + 1
                        : t < 2 ? a * t3 - 5 * a * t2 + 8 * a * t - 4 * a
                                : 0.0);
    }
  }
  double total = 0;
  for (double w : weights) {
    total += w;
  }
  for (double &w : weights) {
    w /= total;
  }
  // The taps are the weights' count nearest c among the input extended by
  // ceil(count / 2) edge copies on each side: a window moved inside that
  // range where it would leave it.
  int64_t count = weights.size();
  int64_t pad = (count + 1) / 2;
  int64_t first = static_cast<int64_t>(base) + start;
  first = std::clamp(first, -pad, in - 1 + pad - count + 1);
  if (s.excludeOutside) {
    double kept = 0;
    for (int64_t k = 0; k < count; ++k) {
      int64_t i = first + k;
      if (i < 0 || i >= in) {
        weights[k] = 0;
      }
      kept += weights[k];
    }
    for (double &w : weights) {
      w /= kept;
    }
  }
  for (int64_t k = 0; k < count; ++k) {
    row[std::clamp<int64_t>(first + k, 0, in - 1)] += weights[k];
  }
}

/// Resize with antialias = 1 (linear or cubic, geometry known at compile
/// time): the filter is separable, so each resized axis is one contraction
/// of the tensor with that axis's constant (output x input) weight matrix,
/// in f32; integer results are rounded to nearest even.
LogicalResult lowerResizeAntialias(Node &n, ResizeSpec &s) {
  ArrayRef<int64_t> in = n.shape(0);
  int64_t rank = in.size();
  Type element = n.elem(0);
  OpBuilder &b = n.b;
  Location loc = n.loc;
  if (n.type(0).getNumElements() == 0) {
    return n.fail("the input is empty: there is nothing to resize");
  }
  Value t = convertTensor(b, loc, n.in(0), b.getF32Type(), n.isUnsigned(0));
  SmallVector<int64_t> shape(in);
  for (int64_t d = 0; d < rank; ++d) {
    if (s.axes[d].identity) {
      continue;
    }
    int64_t out = *getConstantIntValue(s.out[d]);
    if (out <= 0) {
      return n.fail("the result is empty");
    }
    if (out > kAntialiasMatrixLimit / in[d]) {
      return n.fail("axis " + Twine(d) + " resizes " + Twine(in[d]) + " to " +
                    Twine(out) +
                    " elements: its antialiasing filter would be a matrix "
                    "of more than 2^22 weights");
    }
    std::vector<double> weights(out * in[d], 0.0);
    for (int64_t x = 0; x < out; ++x) {
      antialiasRow(s, d, in[d], x,
                   MutableArrayRef<double>(weights).slice(x * in[d], in[d]));
    }
    SmallVector<float> narrow(weights.begin(), weights.end());
    Value matrix =
        constant(b, loc,
                 DenseElementsAttr::get(
                     RankedTensorType::get({out, in[d]}, b.getF32Type()),
                     ArrayRef<float>(narrow)));
    // y[..., o, ...] = sum_r t[..., r, ...] * matrix[o, r]: loops are the
    // result's dims then r.
    shape[d] = out;
    MLIRContext *context = b.getContext();
    SmallVector<AffineExpr> tExprs, outExprs;
    for (int64_t k = 0; k < rank; ++k) {
      tExprs.push_back(getAffineDimExpr(k == d ? rank : k, context));
      outExprs.push_back(getAffineDimExpr(k, context));
    }
    SmallVector<AffineMap> maps = {
        AffineMap::get(rank + 1, 0, tExprs, context),
        AffineMap::get(
            rank + 1, 0,
            {getAffineDimExpr(d, context), getAffineDimExpr(rank, context)},
            context),
        AffineMap::get(rank + 1, 0, outExprs, context)};
    SmallVector<utils::IteratorType> iterators(rank,
                                               utils::IteratorType::parallel);
    iterators.push_back(utils::IteratorType::reduction);
    Value init = filled(b, loc, shape, scalar(b, loc, b.getF32Type(), 0.0));
    t = linalg::GenericOp::create(b, loc, init.getType(), ValueRange{t, matrix},
                                  ValueRange{init}, maps, iterators,
                                  yieldFloatMulAdd)
            .getResult(0);
  }
  if (!isFloat(element)) {
    t = elementwise(b, loc, t, shape, b.getF32Type(),
                    [](OpBuilder &nb, Location l, ValueRange a) -> Value {
                      return math::RoundEvenOp::create(nb, l, a[0]);
                    });
  }
  t = convertTensor(b, loc, t, element, false, n.isUnsigned(0));
  return n.replace(t, {n.isUnsigned(0)});
}

/// Whether every element of `values` is known at compile time.
bool allKnown(ArrayRef<OpFoldResult> values) {
  return llvm::all_of(values, [](OpFoldResult v) { return isa<Attribute>(v); });
}

double knownNumber(OpFoldResult value) {
  return cast<FloatAttr>(cast<Attribute>(value)).getValueAsDouble();
}

/// The resize's output sizes and axis maps from scales, sizes and roi
/// known at compile time. `listed` gives each input dimension's position
/// in scales/sizes/roi (-1: the dimension is left as it is).
LogicalResult knownGeometry(Node &n, ResizeSpec &s, ArrayRef<int64_t> listed,
                            std::optional<SmallVector<OpFoldResult>> &scales,
                            std::optional<SmallVector<OpFoldResult>> &sizes,
                            ArrayRef<OpFoldResult> roi, StringRef policy) {
  ArrayRef<int64_t> in = n.shape(0);
  int64_t rank = in.size();
  int64_t count = scales ? scales->size() : sizes->size();
  SmallVector<double> scale(rank, 1.0);
  SmallVector<int64_t> out(in);
  if (sizes) {
    double common = policy == "not_larger" ? INFINITY : 0.0;
    for (int64_t d = 0; d < rank; ++d) {
      if (listed[d] < 0) {
        continue;
      }
      out[d] = *getConstantIntValue((*sizes)[listed[d]]);
      scale[d] = double(out[d]) / double(in[d]);
      common = policy == "not_larger" ? std::min(common, scale[d])
                                      : std::max(common, scale[d]);
    }
    if (policy != "stretch") {
      // One scale keeps the aspect ratio; sizes round half up.
      for (int64_t d = 0; d < rank; ++d) {
        if (listed[d] >= 0) {
          scale[d] = common;
          out[d] = static_cast<int64_t>(std::floor(common * in[d] + 0.5));
        }
      }
    }
  } else {
    for (int64_t d = 0; d < rank; ++d) {
      if (listed[d] < 0) {
        continue;
      }
      // ONNX truncates in * scale (the scale is a float32). Compared as a
      // double first: the cast of a NaN, an infinity or a size beyond
      // 2^62 is undefined.
      float value = static_cast<float>(knownNumber((*scales)[listed[d]]));
      double size = double(in[d]) * double(value);
      if (!(value > 0) || !(size < double(int64_t(1) << 62))) {
        std::string text;
        llvm::raw_string_ostream(text) << value;
        return n.fail("scale " + text + " of axis " + llvm::Twine(d) +
                      " is not a positive number that makes a size "
                      "below 2^62");
      }
      out[d] = static_cast<int64_t>(size);
      scale[d] = value;
    }
  }
  for (int64_t d = 0; d < rank; ++d) {
    double start = 0, end = 1;
    if (listed[d] >= 0 && !roi.empty()) {
      start = knownNumber(roi[listed[d]]);
      end = knownNumber(roi[count + listed[d]]);
    }
    s.out.push_back(n.b.getIndexAttr(out[d]));
    s.scales.push_back(scale[d]);
    s.axes.push_back(
        knownAxisMap(in[d], out[d], scale[d], start, end, s.coordinates));
  }
  return success();
}

/// The same from scales, sizes or roi read at run time: the sizes are
/// computed on the host and checked there (positive sizes, positive
/// scales that make a size below 2^62).
void runtimeGeometry(Node &n, ResizeSpec &s, ArrayRef<int64_t> listed,
                     std::optional<SmallVector<OpFoldResult>> &scales,
                     std::optional<SmallVector<OpFoldResult>> &sizes,
                     ArrayRef<OpFoldResult> roi, StringRef policy) {
  OpBuilder &b = n.b;
  Location loc = n.loc;
  ArrayRef<int64_t> in = n.shape(0);
  int64_t rank = in.size();
  int64_t count = scales ? scales->size() : sizes->size();
  Type f64 = b.getF64Type();
  Type i64 = b.getI64Type();
  auto number = [&](double v) -> Value {
    return arith::ConstantOp::create(b, loc, b.getF64FloatAttr(v));
  };
  auto hostNumber = [&](OpFoldResult v) -> Value {
    if (auto attr = dyn_cast<Attribute>(v)) {
      return number(cast<FloatAttr>(attr).getValueAsDouble());
    }
    return cast<Value>(v);
  };
  auto toF64 = [&](Value index) {
    return convertScalar(b, loc, arith::IndexCastOp::create(b, loc, i64, index),
                         f64);
  };
  auto toIndex = [&](Value number) -> Value {
    return arith::IndexCastOp::create(
        b, loc, b.getIndexType(), arith::FPToSIOp::create(b, loc, i64, number));
  };
  auto atLeastOne = [&](Value size, const llvm::Twine &message) {
    n.check(arith::CmpIOp::create(b, loc, arith::CmpIPredicate::sge, size,
                                  arith::ConstantIndexOp::create(b, loc, 1)),
            message);
  };
  SmallVector<Value> scale(rank), out(rank);
  if (sizes) {
    Value common;
    for (int64_t d = 0; d < rank; ++d) {
      if (listed[d] < 0) {
        continue;
      }
      out[d] = indexValueOf(b, loc, (*sizes)[listed[d]]);
      atLeastOne(out[d], "element " + llvm::Twine(listed[d]) +
                             " of sizes is below 1 at run time");
      scale[d] =
          arith::DivFOp::create(b, loc, toF64(out[d]), number(double(in[d])));
      if (!common) {
        common = scale[d];
      } else if (policy == "not_larger") {
        common = arith::MinimumFOp::create(b, loc, common, scale[d]);
      } else {
        common = arith::MaximumFOp::create(b, loc, common, scale[d]);
      }
    }
    if (policy != "stretch") {
      for (int64_t d = 0; d < rank; ++d) {
        if (listed[d] < 0) {
          continue;
        }
        scale[d] = common;
        out[d] = toIndex(math::FloorOp::create(
            b, loc,
            arith::AddFOp::create(
                b, loc,
                arith::MulFOp::create(b, loc, common, number(double(in[d]))),
                number(0.5))));
        atLeastOne(out[d], "the result's axis " + llvm::Twine(d) +
                               " is empty at run time");
      }
    }
  } else {
    for (int64_t d = 0; d < rank; ++d) {
      if (listed[d] < 0) {
        continue;
      }
      // A float32 scale, as the known form rounds it.
      Value value = arith::ExtFOp::create(
          b, loc, f64,
          arith::TruncFOp::create(b, loc, b.getF32Type(),
                                  hostNumber((*scales)[listed[d]]))
              .getResult());
      Value size = arith::MulFOp::create(b, loc, number(double(in[d])), value);
      n.check(arith::AndIOp::create(
                  b, loc,
                  arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OGT,
                                        value, number(0.0)),
                  arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OLT, size,
                                        number(double(int64_t(1) << 62)))),
              "element " + llvm::Twine(listed[d]) +
                  " of scales is not a positive number that makes a size "
                  "below 2^62 at run time");
      scale[d] = value;
      out[d] = toIndex(size);
      atLeastOne(out[d], "the result's axis " + llvm::Twine(d) +
                             " is empty at run time");
    }
  }
  for (int64_t d = 0; d < rank; ++d) {
    if (listed[d] < 0) {
      s.out.push_back(b.getIndexAttr(in[d]));
      s.axes.push_back(knownAxisMap(in[d], in[d], 1.0, 0, 1, s.coordinates));
      continue;
    }
    Value start = number(0), end = number(1);
    if (!roi.empty()) {
      start = hostNumber(roi[listed[d]]);
      end = hostNumber(roi[count + listed[d]]);
    }
    s.out.push_back(simplifyHostScalar(out[d]));
    s.axes.push_back(runtimeAxisMap(b, loc, in[d], out[d], scale[d], start, end,
                                    s.coordinates));
  }
}

LogicalResult lowerResize(Node &n) {
  ResizeSpec s;
  int64_t rank = n.rank(0);
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
  if (!llvm::is_contained({"half_pixel", "half_pixel_symmetric",
                           "pytorch_half_pixel", "align_corners", "asymmetric",
                           "tf_half_pixel_for_nn", "tf_crop_and_resize"},
                          s.coordinates)) {
    return n.fail("coordinate_transformation_mode '" + s.coordinates +
                  "' is not supported");
  }
  s.cubicA = n.floatAttr("cubic_coeff_a", -0.75);
  s.excludeOutside = n.intAttr("exclude_outside", 0) != 0;
  s.extrapolation = n.floatAttr("extrapolation_value", 0.0);
  if (s.mode == "bilinear") {
    s.mode = "linear";
  }
  // Opset 18: antialias filters linear and cubic downsampling (nearest
  // ignores it).
  bool antialias = n.intAttr("antialias", 0) != 0 && s.mode != "nearest";
  if (antialias && s.coordinates == "tf_crop_and_resize") {
    return n.fail("antialias = 1 with tf_crop_and_resize is not supported");
  }
  StringRef policy =
      n.stringAttr("keep_aspect_ratio_policy").value_or("stretch");
  if (policy != "stretch" && policy != "not_larger" &&
      policy != "not_smaller") {
    return n.fail("keep_aspect_ratio_policy '" + policy + "' is not supported");
  }
  // Opset 18's axes: scales, sizes and roi hold values for these axes
  // only; the others keep their length.
  SmallVector<int64_t> axes;
  if (std::optional<SmallVector<int64_t>> attr = n.intsAttr("axes")) {
    axes = *attr;
    if (failed(n.normalizeAxes(axes, rank))) {
      return failure();
    }
  } else {
    for (int64_t d = 0; d < rank; ++d) {
      axes.push_back(d);
    }
  }
  SmallVector<int64_t> listed(rank, -1);
  for (auto [i, d] : llvm::enumerate(axes)) {
    listed[d] = i;
  }
  int64_t count = axes.size();
  // Scales and sizes: Upsample-7 has a scales attribute; Upsample-9 and
  // Resize-10 take scales as input 1; later Resize takes roi, scales and
  // sizes as inputs 1..3.
  std::optional<SmallVector<OpFoldResult>> scales, sizes;
  SmallVector<OpFoldResult> roi;
  if (isUpsample && n.opset() < 9) {
    if (std::optional<SmallVector<double>> attr = n.floatsAttr("scales")) {
      scales.emplace();
      for (double v : *attr) {
        scales->push_back(n.b.getF64FloatAttr(v));
      }
    }
  } else if (isUpsample || n.opset() < 11) {
    FailureOr<SmallVector<OpFoldResult>> v = n.hostFloats(1, "scales");
    if (failed(v)) {
      return failure();
    }
    scales = *v;
  } else {
    if (n.has(3) && n.type(3).getNumElements() > 0) {
      FailureOr<SmallVector<OpFoldResult>> v = n.hostInts(3, "sizes");
      if (failed(v)) {
        return failure();
      }
      sizes = *v;
    } else if (n.has(2) && n.type(2).getNumElements() > 0) {
      FailureOr<SmallVector<OpFoldResult>> v = n.hostFloats(2, "scales");
      if (failed(v)) {
        return failure();
      }
      scales = *v;
    }
    if (s.coordinates == "tf_crop_and_resize") {
      if (!n.has(1)) {
        return n.fail("tf_crop_and_resize needs roi");
      }
      FailureOr<SmallVector<OpFoldResult>> v = n.hostFloats(1, "roi");
      if (failed(v)) {
        return failure();
      }
      if (static_cast<int64_t>(v->size()) != 2 * count) {
        return n.fail(count == rank
                          ? "roi must hold 2 * rank values"
                          : "roi must hold 2 values per axis of axes");
      }
      roi = *v;
    }
  }
  std::optional<SmallVector<OpFoldResult>> &given = sizes ? sizes : scales;
  if (!given) {
    return n.fail("needs scales or sizes");
  }
  if (static_cast<int64_t>(given->size()) != count) {
    return n.fail(Twine(sizes ? "sizes" : "scales") + " must hold one value " +
                  (count == rank ? "per dimension" : "per axis of axes"));
  }
  if (allKnown(*given) && allKnown(roi)) {
    if (failed(knownGeometry(n, s, listed, scales, sizes, roi, policy))) {
      return failure();
    }
  } else if (antialias) {
    return n.fail("antialias = 1 needs " + Twine(sizes ? "sizes" : "scales") +
                  " known at compile time (its filters are constants)");
  } else {
    runtimeGeometry(n, s, listed, scales, sizes, roi, policy);
  }
  if (antialias) {
    if (s.mode != "linear" && s.mode != "cubic") {
      return n.fail("mode '" + s.mode + "' is not supported");
    }
    return lowerResizeAntialias(n, s);
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

/// GridSample: 2-D (NCHW input, N x Ho x Wo x 2 grid) and, from opset 20,
/// 3-D (NCDHW, N x Do x Ho x Wo x 3); the grid's last dimension holds the
/// coordinates innermost axis first (x, y, z).
LogicalResult lowerGridSample(Node &n) {
  int64_t rank = n.rank(0);
  int64_t spatial = rank - 2;
  if ((rank != 4 && rank != 5) || n.rank(1) != rank ||
      n.shape(1)[rank - 1] != spatial || n.shape(1)[0] != n.shape(0)[0]) {
    return n.fail("expects an NCHW input and an N x H x W x 2 grid, or an "
                  "NCDHW input and an N x D x H x W x 3 grid");
  }
  StringRef mode =
      n.stringAttr("mode").value_or(n.opset() >= 20 ? "linear" : "bilinear");
  // Opset 20 names the modes by their N-D names.
  if (mode == "bilinear") {
    mode = "linear";
  } else if (mode == "bicubic") {
    mode = "cubic";
  }
  StringRef padding = n.stringAttr("padding_mode").value_or("zeros");
  bool align = n.intAttr("align_corners", 0) != 0;
  if (mode != "linear" && mode != "nearest" && mode != "cubic") {
    return n.fail("mode '" + mode + "' is not supported");
  }
  if (mode == "cubic" && spatial != 2) {
    return n.fail("mode 'cubic' takes a 2-D (NCHW) input only");
  }
  if (padding != "zeros" && padding != "border" && padding != "reflection") {
    return n.fail("padding_mode '" + padding + "' is not supported");
  }
  ArrayRef<int64_t> xs = n.shape(0), gs = n.shape(1);
  SmallVector<int64_t> outShape = {xs[0], xs[1]};
  outShape.append(gs.begin() + 1, gs.end() - 1);
  Type element = n.elem(0);
  auto type = RankedTensorType::get(outShape, element);
  Value x = n.in(0), grid = n.in(1);
  Value result = generic(
      n.b, n.loc, {}, {}, type,
      [&](OpBuilder &b, Location loc, ValueRange) -> Value {
        SmallVector<Value> ids;
        for (int64_t d = 0; d < rank; ++d) {
          ids.push_back(linalg::IndexOp::create(b, loc, d));
        }
        // The source coordinate along spatial dim d (size `size`), from
        // the grid's component spatial - 1 - d.
        auto coordinate = [&](int64_t d, int64_t size) -> Value {
          SmallVector<Value> at = {ids[0]};
          at.append(ids.begin() + 2, ids.end());
          at.push_back(arith::ConstantIndexOp::create(b, loc, spatial - 1 - d));
          Value g = tensor::ExtractOp::create(b, loc, grid, at);
          g = convertScalar(b, loc, g, b.getF32Type());
          Value one = f32(b, loc, 1.0);
          Value c;
          if (align) {
            c = arith::MulFOp::create(
                b, loc,
                arith::MulFOp::create(b, loc,
                                      arith::AddFOp::create(b, loc, g, one),
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
          } else if (padding == "reflection" && mode != "cubic") {
            c = align ? reflectInto(b, loc, c, 0, size - 1)
                      : reflectInto(b, loc, c, -0.5, size - 0.5);
            c = arith::MaximumFOp::create(b, loc, c, f32(b, loc, 0));
            c = arith::MinimumFOp::create(b, loc, c, f32(b, loc, size - 1));
          }
          return c;
        };
        SmallVector<Value> coords;
        for (int64_t d = 0; d < spatial; ++d) {
          coords.push_back(coordinate(d, xs[2 + d]));
        }
        // The value at integer spatial indices: padded per padding_mode.
        auto at = [&](ArrayRef<Value> indices) -> Value {
          Value inside;
          SmallVector<Value> fixed = {ids[0], ids[1]};
          for (int64_t d = 0; d < spatial; ++d) {
            int64_t size = xs[2 + d];
            Value i = indices[d];
            Value zero = arith::ConstantIndexOp::create(b, loc, 0);
            Value last = arith::ConstantIndexOp::create(b, loc, size - 1);
            Value ok = arith::AndIOp::create(
                b, loc,
                arith::CmpIOp::create(b, loc, arith::CmpIPredicate::sge, i,
                                      zero),
                arith::CmpIOp::create(b, loc, arith::CmpIPredicate::sle, i,
                                      last));
            inside = inside
                         ? arith::AndIOp::create(b, loc, inside, ok).getResult()
                         : ok;
            if (padding == "reflection" && mode == "cubic") {
              Value f = arith::SIToFPOp::create(
                  b, loc, b.getF32Type(),
                  arith::IndexCastOp::create(b, loc, b.getI64Type(), i));
              f = align ? reflectInto(b, loc, f, 0, size - 1)
                        : reflectInto(b, loc, f, -0.5, size - 0.5);
              i = floorIndexOf(b, loc, math::RoundEvenOp::create(b, loc, f));
            }
            fixed.push_back(clampIndex(b, loc, i, size));
          }
          Value v = tensor::ExtractOp::create(b, loc, x, fixed);
          v = convertScalar(b, loc, v, b.getF32Type());
          if (padding == "zeros") {
            v = arith::SelectOp::create(b, loc, inside, v, f32(b, loc, 0));
          }
          return v;
        };
        Value out;
        if (mode == "nearest") {
          SmallVector<Value> indices;
          for (Value c : coords) {
            indices.push_back(
                floorIndexOf(b, loc, math::RoundEvenOp::create(b, loc, c)));
          }
          out = at(indices);
        } else {
          // Per spatial dim: the taps (offsets from the floor) and weights.
          SmallVector<Value> base;
          SmallVector<SmallVector<std::pair<int64_t, Value>>> taps;
          for (Value c : coords) {
            Value floor = math::FloorOp::create(b, loc, c);
            Value t = arith::SubFOp::create(b, loc, c, floor);
            base.push_back(floorIndexOf(b, loc, floor));
            SmallVector<std::pair<int64_t, Value>> w;
            if (mode == "linear") {
              w = {{0, arith::SubFOp::create(b, loc, f32(b, loc, 1.0), t)},
                   {1, t}};
            } else {
              SmallVector<Value> k = cubicWeights(b, loc, t, -0.75);
              for (int i = 0; i < 4; ++i) {
                w.push_back({i - 1, k[i]});
              }
            }
            taps.push_back(w);
          }
          out = f32(b, loc, 0.0);
          SmallVector<size_t> pick(spatial, 0);
          while (true) {
            SmallVector<Value> indices;
            Value weight;
            for (int64_t d = 0; d < spatial; ++d) {
              auto [offset, w] = taps[d][pick[d]];
              indices.push_back(arith::AddIOp::create(
                  b, loc, base[d],
                  arith::ConstantIndexOp::create(b, loc, offset)));
              weight =
                  weight ? arith::MulFOp::create(b, loc, weight, w).getResult()
                         : w;
            }
            out = arith::AddFOp::create(
                b, loc, out,
                arith::MulFOp::create(b, loc, at(indices), weight));
            int64_t d = spatial - 1;
            for (; d >= 0; --d) {
              if (++pick[d] < taps[d].size()) {
                break;
              }
              pick[d] = 0;
            }
            if (d < 0) {
              break;
            }
          }
        }
        return convertScalar(b, loc, out, element);
      });
  return n.replace(result);
}

} // namespace

void mlir::strata::onnx::addGridSampleLowerings(LoweringTable &table) {
  table["GridSample"] = lowerGridSample;
}
