// SpectralOps.cpp - ONNX's short-time Fourier transform (STFT) and mel
// filterbank (MelWeightMatrix) of opset 17, the spectrogram ops that go
// with DFT (MiscOps.cpp).

#include "Lowering.h"

#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "llvm/Support/Format.h"

#include <cmath>

using namespace mlir;
using namespace mlir::strata;
using namespace mlir::strata::onnx;

namespace {

/// Input `i` (one integer) as an index size: an attribute when it is a
/// constant, else its value read on the host. Fails naming `what` when it
/// does not hold exactly one integer.
FailureOr<OpFoldResult> oneSize(Node &n, unsigned i, llvm::StringRef what) {
  if (!isa<IntegerType>(n.elem(i)) || !n.type(i).hasStaticShape() ||
      n.type(i).getNumElements() != 1) {
    return n.fail("input " + llvm::Twine(i) + " (" + what +
                  ") must hold one integer; it is " + typeText(n.type(i)));
  }
  FailureOr<SmallVector<OpFoldResult>> values = n.hostInts(i, what);
  if (failed(values)) {
    return failure();
  }
  return values->front();
}

/// `lhs` / `rhs` on non-negative sizes (an attribute when both are).
OpFoldResult divSizes(OpBuilder &b, Location loc, OpFoldResult lhs,
                      OpFoldResult rhs) {
  std::optional<int64_t> x = getConstantIntValue(lhs);
  std::optional<int64_t> y = getConstantIntValue(rhs);
  if (x && y && *y > 0) {
    return b.getIndexAttr(*x / *y);
  }
  return simplifyHostScalar(arith::DivUIOp::create(
      b, loc, indexValueOf(b, loc, lhs), indexValueOf(b, loc, rhs)));
}

/// The twiddle factors cos(2 pi m / n) and sin(2 pi m / n), m = k t mod n,
/// for k < `bins` and t < `length`, as two [bins, length] tensors of
/// `element`: constants computed here in doubles when both sizes are
/// known, else made by a kernel, exact at the quarter turns (where a real
/// signal's spectrum has its zeros, which the comparison's absolute
/// tolerance of 1e-7 holds to).
std::pair<Value, Value> twiddles(OpBuilder &b, Location loc, OpFoldResult bins,
                                 OpFoldResult length, Type element) {
  std::optional<int64_t> k = getConstantIntValue(bins);
  std::optional<int64_t> n = getConstantIntValue(length);
  if (k && n) {
    SmallVector<Attribute> cosines, sines;
    for (int64_t i = 0; i < *k; ++i) {
      for (int64_t t = 0; t < *n; ++t) {
        double angle = 2.0 * M_PI * double(i * t % *n) / double(*n);
        cosines.push_back(FloatAttr::get(element, std::cos(angle)));
        sines.push_back(FloatAttr::get(element, std::sin(angle)));
      }
    }
    auto type = RankedTensorType::get({*k, *n}, element);
    return {constant(b, loc, DenseElementsAttr::get(type, cosines)),
            constant(b, loc, DenseElementsAttr::get(type, sines))};
  }
  auto type = RankedTensorType::get(staticShapeOf({bins, length}), element);
  Value count = indexValueOf(b, loc, length);
  auto make = [&](bool sine) {
    return generic(
        b, loc, {}, {}, type,
        [&](OpBuilder &nb, Location l, ValueRange) -> Value {
          Type i64 = nb.getI64Type();
          Type f64 = nb.getF64Type();
          auto toI64 = [&](Value v) -> Value {
            return arith::IndexCastOp::create(nb, l, i64, v);
          };
          Value kk = toI64(linalg::IndexOp::create(nb, l, 0));
          Value tt = toI64(linalg::IndexOp::create(nb, l, 1));
          Value nn = toI64(count);
          Value m = arith::RemUIOp::create(
              nb, l, arith::MulIOp::create(nb, l, kk, tt), nn);
          Value angle = arith::DivFOp::create(
              nb, l,
              arith::MulFOp::create(nb, l, scalar(nb, l, f64, 2.0 * M_PI),
                                    arith::UIToFPOp::create(nb, l, f64, m)),
              arith::UIToFPOp::create(nb, l, f64, nn));
          Value v = sine ? math::SinOp::create(nb, l, angle).getResult()
                         : math::CosOp::create(nb, l, angle).getResult();
          // The quarter turns: 4 m = q n with q in 0..3.
          Value four = arith::MulIOp::create(nb, l, m, scalar(nb, l, i64, 4));
          auto at = [&](int64_t q) -> Value {
            return arith::CmpIOp::create(
                nb, l, arith::CmpIPredicate::eq, four,
                arith::MulIOp::create(nb, l, nn, scalar(nb, l, i64, q)));
          };
          static const double cosAt[4] = {1, 0, -1, 0};
          static const double sinAt[4] = {0, 1, 0, -1};
          for (int64_t q = 0; q < 4; ++q) {
            v = arith::SelectOp::create(
                nb, l, at(q), scalar(nb, l, f64, sine ? sinAt[q] : cosAt[q]),
                v);
          }
          return convertScalar(nb, l, v, element);
        },
        {bins, length});
  };
  return {make(false), make(true)};
}

/// STFT (opset 17): signal [batch, length, 1 or 2] (real or complex), a
/// frame_step, an optional window [frame_length] and an optional
/// frame_length (default: the window's size, else the signal's length).
/// Frame f is the signal from f * step, times the window; the result
/// [batch, frames, bins, 2] holds each frame's DFT, frames =
/// (length - frame_length) / step + 1, bins = frame_length / 2 + 1 when
/// onesided (the default) else frame_length. The step and frame_length may
/// be run-time values: they are read on the host and checked there, and
/// the twiddle factors are then made by a kernel.
LogicalResult lowerSTFT(Node &n) {
  OpBuilder &b = n.b;
  Location loc = n.loc;
  Type element = n.elem(0);
  int64_t parts = n.rank(0) == 3 ? n.shape(0)[2] : 0;
  if (n.rank(0) != 3 || (parts != 1 && parts != 2) || !isFloat(element)) {
    return n.fail("input 0 (signal) must be a float tensor [batch, length, "
                  "1 or 2]; it is " +
                  typeText(n.type(0)));
  }
  int64_t onesided = n.intAttr("onesided", 1);
  if (onesided != 0 && onesided != 1) {
    return n.fail("onesided must be 0 or 1; it is " + llvm::Twine(onesided));
  }
  int64_t batch = n.shape(0)[0], signalLength = n.shape(0)[1];
  FailureOr<OpFoldResult> step = oneSize(n, 1, "frame_step");
  if (failed(step)) {
    return failure();
  }
  bool hasWindow = n.has(2);
  if (hasWindow && (n.rank(2) != 1 || n.elem(2) != element)) {
    return n.fail("input 2 (window) must be a 1-D tensor of the signal's "
                  "element type; it is " +
                  typeText(n.type(2)));
  }
  OpFoldResult length = b.getIndexAttr(signalLength);
  if (hasWindow) {
    length = b.getIndexAttr(n.shape(2)[0]);
  }
  if (n.has(3)) {
    FailureOr<OpFoldResult> given = oneSize(n, 3, "frame_length");
    if (failed(given)) {
      return failure();
    }
    if (hasWindow) {
      // Both: they must agree (at run time when frame_length is a value).
      std::optional<int64_t> value = getConstantIntValue(*given);
      if (value && *value != n.shape(2)[0]) {
        return n.fail("frame_length " + llvm::Twine(*value) +
                      " differs from the window's size " +
                      llvm::Twine(n.shape(2)[0]));
      }
      if (!value) {
        n.check(compareSizes(b, loc, arith::CmpIPredicate::eq, *given, length),
                "frame_length differs from the window's size at run time");
      }
    } else {
      length = *given;
    }
  }
  // 1 <= frame_length <= signal length, step >= 1.
  std::optional<int64_t> staticLength = getConstantIntValue(length);
  std::optional<int64_t> staticStep = getConstantIntValue(*step);
  if (staticLength && (*staticLength < 1 || *staticLength > signalLength)) {
    return n.fail("frame_length " + llvm::Twine(*staticLength) +
                  " is outside [1, " + llvm::Twine(signalLength) +
                  "] (the signal's length)");
  }
  if (!staticLength) {
    Value one = arith::ConstantIndexOp::create(b, loc, 1);
    // As signed values: a negative frame_length fails here.
    Value value = indexValueOf(b, loc, length);
    n.check(arith::AndIOp::create(
                b, loc,
                arith::CmpIOp::create(b, loc, arith::CmpIPredicate::sge, value,
                                      one),
                compareSizes(b, loc, arith::CmpIPredicate::sle, length,
                             b.getIndexAttr(signalLength))),
            "frame_length is outside [1, " + llvm::Twine(signalLength) +
                "] (the signal's length) at run time");
  }
  if (staticStep && *staticStep < 1) {
    return n.fail("frame_step " + llvm::Twine(*staticStep) +
                  " is not positive");
  }
  if (!staticStep) {
    n.check(compareSizes(b, loc, arith::CmpIPredicate::sge, *step,
                         b.getIndexAttr(1)),
            "frame_step is not positive at run time");
  }
  OpFoldResult frames = addSizes(
      b, loc,
      divSizes(b, loc, subSizes(b, loc, b.getIndexAttr(signalLength), length),
               *step),
      b.getIndexAttr(1));
  OpFoldResult bins =
      onesided ? addSizes(b, loc, divSizes(b, loc, length, b.getIndexAttr(2)),
                          b.getIndexAttr(1))
               : length;
  if (std::optional<int64_t> k = getConstantIntValue(bins);
      k && staticLength && *k * *staticLength > kFoldLimit) {
    return n.fail("frame_length " + llvm::Twine(*staticLength) +
                  " needs more twiddle factors than this naive transform's "
                  "constant holds (" +
                  llvm::Twine(kFoldLimit) + ")");
  }
  auto [cosines, sines] = twiddles(b, loc, bins, length, element);
  // Loops (batch, frame, bin, part, t): t, the frame's sample, is reduced.
  // Sample t of frame f is signal[batch, f * step + t], read in the body.
  SmallVector<OpFoldResult> sizes = {b.getIndexAttr(batch), frames, bins,
                                     b.getIndexAttr(2)};
  Value init = filledTo(b, loc, sizes, scalar(b, loc, element, 0));
  MLIRContext *context = b.getContext();
  auto dim = [&](unsigned d) { return b.getAffineDimExpr(d); };
  // Without a window, the twiddle factors give t its extent.
  SmallVector<Value> inputs = {cosines, sines};
  SmallVector<AffineMap> maps = {
      AffineMap::get(5, 0, {dim(2), dim(4)}, context),
      AffineMap::get(5, 0, {dim(2), dim(4)}, context)};
  if (hasWindow) {
    inputs.push_back(n.in(2));
    maps.push_back(AffineMap::get(5, 0, {dim(4)}, context));
  }
  maps.push_back(
      AffineMap::get(5, 0, {dim(0), dim(1), dim(2), dim(3)}, context));
  SmallVector<utils::IteratorType> iterators(4, utils::IteratorType::parallel);
  iterators.push_back(utils::IteratorType::reduction);
  Value signal = n.in(0);
  Value stepValue = indexValueOf(b, loc, *step);
  Value result =
      linalg::GenericOp::create(
          b, loc, TypeRange{init.getType()}, inputs, ValueRange{init}, maps,
          iterators,
          [&](OpBuilder &nb, Location l, ValueRange args) {
            Value bi = linalg::IndexOp::create(nb, l, 0);
            Value f = linalg::IndexOp::create(nb, l, 1);
            Value part = linalg::IndexOp::create(nb, l, 3);
            Value t = linalg::IndexOp::create(nb, l, 4);
            Value at = arith::AddIOp::create(
                nb, l, arith::MulIOp::create(nb, l, f, stepValue), t);
            auto sample = [&](int64_t c) -> Value {
              Value v = tensor::ExtractOp::create(
                  nb, l, signal,
                  ValueRange{bi, at, arith::ConstantIndexOp::create(nb, l, c)});
              return hasWindow
                         ? arith::MulFOp::create(nb, l, v, args[2]).getResult()
                         : v;
            };
            Value re = sample(0);
            Value c = args[0], s = args[1];
            // X = sum (re + i im)(cos - i sin):
            // real re cos + im sin, imaginary im cos - re sin.
            Value real = arith::MulFOp::create(nb, l, re, c);
            Value imaginary = arith::NegFOp::create(
                nb, l, arith::MulFOp::create(nb, l, re, s));
            if (parts == 2) {
              Value im = sample(1);
              real = arith::AddFOp::create(nb, l, real,
                                           arith::MulFOp::create(nb, l, im, s));
              imaginary = arith::AddFOp::create(
                  nb, l, imaginary, arith::MulFOp::create(nb, l, im, c));
            }
            Value isReal =
                arith::CmpIOp::create(nb, l, arith::CmpIPredicate::eq, part,
                                      arith::ConstantIndexOp::create(nb, l, 0));
            Value term =
                arith::SelectOp::create(nb, l, isReal, real, imaginary);
            linalg::YieldOp::create(
                nb, l,
                ValueRange{arith::AddFOp::create(nb, l, args.back(), term)
                               .getResult()});
          })
          ->getResult(0);
  return n.replace(result);
}

/// The mel scale's band edges of MelWeightMatrix: spectrogram bin
/// floor((dft_length + 1) hz(i) / sample_rate) for i in 0..mels+1, hz(i)
/// equally spaced on the mel scale (mel(f) = 2595 log10(1 + f / 700)) from
/// the lower edge to the upper one in mels + 2 steps.
int64_t melEdge(int64_t i, int64_t mels, int64_t dftLength, double sampleRate,
                double lowerHz, double upperHz) {
  double low = 2595.0 * std::log10(1.0 + lowerHz / 700.0);
  double high = 2595.0 * std::log10(1.0 + upperHz / 700.0);
  double step = (high - low) / double(mels + 2);
  double hz = 700.0 * (std::pow(10.0, (double(i) * step + low) / 2595.0) - 1);
  return int64_t(std::floor(double(dftLength + 1) * hz / sampleRate));
}

/// The weight of spectrogram bin j in the triangular band with edges
/// (left, center, right): rising from 0 at left to 1 at center, falling to
/// 0 at right (1 at center when left == center).
double melWeight(int64_t j, int64_t left, int64_t center, int64_t right) {
  if (center > right || j < left || j > right) {
    return 0;
  }
  if (j >= center) {
    if (j == center) {
      return center >= left ? 1 : 0;
    }
    return double(right - j) / double(right - center);
  }
  return double(j - left) / double(center - left);
}

/// MelWeightMatrix (opset 17): the [dft_length / 2 + 1, num_mel_bins]
/// matrix of triangular mel bands, computed here from constant inputs.
/// Its inputs decide its shape; when they are run-time values the sizes
/// are read on the host and the weights computed by a kernel in doubles.
LogicalResult lowerMelWeightMatrix(Node &n) {
  OpBuilder &b = n.b;
  Location loc = n.loc;
  Type element;
  switch (n.intAttr("output_datatype", 1)) {
  case 1:
    element = b.getF32Type();
    break;
  case 10:
    element = b.getF16Type();
    break;
  case 11:
    element = b.getF64Type();
    break;
  case 16:
    element = b.getBF16Type();
    break;
  default:
    return n.fail("output_datatype " +
                  llvm::Twine(n.intAttr("output_datatype", 1)) +
                  " is not a float type (1, 10, 11 or 16)");
  }
  static const char *const names[] = {"num_mel_bins", "dft_length",
                                      "sample_rate", "lower_edge_hertz",
                                      "upper_edge_hertz"};
  for (unsigned i = 0; i < 5; ++i) {
    bool integer = i < 3;
    if (!n.type(i).hasStaticShape() || n.type(i).getNumElements() != 1 ||
        (integer ? !isa<IntegerType>(n.elem(i)) : !isFloat(n.elem(i)))) {
      return n.fail("input " + llvm::Twine(i) + " (" + names[i] +
                    ") must hold one " + (integer ? "integer" : "float") +
                    "; it is " + typeText(n.type(i)));
    }
  }
  bool allConstant = true;
  for (unsigned i = 0; i < 5; ++i) {
    allConstant = allConstant && n.constant(i);
  }
  if (allConstant) {
    int64_t mels = *n.constInt(0, names[0]);
    int64_t dftLength = *n.constInt(1, names[1]);
    int64_t sampleRate = *n.constInt(2, names[2]);
    double lower = *n.constFloat(3, names[3]);
    double upper = *n.constFloat(4, names[4]);
    if (mels < 1 || dftLength < 1 || sampleRate < 1) {
      return n.fail("num_mel_bins (" + llvm::Twine(mels) + "), dft_length (" +
                    llvm::Twine(dftLength) + ") and sample_rate (" +
                    llvm::Twine(sampleRate) + ") must be positive");
    }
    int64_t bins = dftLength / 2 + 1;
    if (mels > kFoldLimit || bins > kFoldLimit || mels * bins > kFoldLimit) {
      return n.fail("a " + llvm::Twine(bins) + " x " + llvm::Twine(mels) +
                    " mel weight matrix is more than the " +
                    llvm::Twine(kFoldLimit) +
                    " elements a constant made here holds");
    }
    if (!std::isfinite(lower) || !std::isfinite(upper) || lower < 0 ||
        upper < lower) {
      std::string text;
      llvm::raw_string_ostream(text)
          << "lower_edge_hertz " << llvm::format("%g", lower)
          << " and upper_edge_hertz " << llvm::format("%g", upper)
          << " are not edges 0 <= lower <= upper";
      return n.fail(text);
    }
    SmallVector<int64_t> edges;
    for (int64_t i = 0; i < mels + 2; ++i) {
      edges.push_back(
          melEdge(i, mels, dftLength, double(sampleRate), lower, upper));
    }
    SmallVector<Attribute> values;
    values.reserve(bins * mels);
    for (int64_t j = 0; j < bins; ++j) {
      for (int64_t i = 0; i < mels; ++i) {
        values.push_back(FloatAttr::get(
            element, melWeight(j, edges[i], edges[i + 1], edges[i + 2])));
      }
    }
    return n.replace(
        constant(b, loc,
                 DenseElementsAttr::get(
                     RankedTensorType::get({bins, mels}, element), values)));
  }
  // Run-time inputs: the sizes on the host, the weights by a kernel.
  Type i64 = b.getI64Type(), f64 = b.getF64Type();
  SmallVector<Value> ints;
  for (unsigned i = 0; i < 3; ++i) {
    ints.push_back(
        convertScalar(b, loc, n.hostScalarIn(i), i64, n.isUnsigned(i)));
  }
  Value lower = convertScalar(b, loc, n.hostScalarIn(3), f64);
  Value upper = convertScalar(b, loc, n.hostScalarIn(4), f64);
  Value limit = scalar(b, loc, i64, double(int64_t(1) << 40));
  Value ok = arith::ConstantIntOp::create(b, loc, 1, 1);
  for (Value v : ints) {
    ok = arith::AndIOp::create(
        b, loc, ok,
        arith::AndIOp::create(
            b, loc,
            arith::CmpIOp::create(b, loc, arith::CmpIPredicate::sge, v,
                                  scalar(b, loc, i64, 1)),
            arith::CmpIOp::create(b, loc, arith::CmpIPredicate::sle, v,
                                  limit)));
  }
  n.check(ok, "num_mel_bins, dft_length and sample_rate are not all from 1 "
              "to 2^40 at run time");
  n.check(arith::AndIOp::create(
              b, loc,
              arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OGE, lower,
                                    scalar(b, loc, f64, 0)),
              arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OLE, lower,
                                    upper)),
          "lower_edge_hertz and upper_edge_hertz are not edges 0 <= lower <= "
          "upper at run time");
  Value mels = ints[0], dftLength = ints[1], sampleRate = ints[2];
  Value binsCount = arith::AddIOp::create(
      b, loc, arith::DivSIOp::create(b, loc, dftLength, scalar(b, loc, i64, 2)),
      scalar(b, loc, i64, 1));
  auto toSize = [&](Value v) {
    return simplifyHostScalar(
        arith::IndexCastOp::create(b, loc, b.getIndexType(), v));
  };
  SmallVector<OpFoldResult> sizes = {toSize(binsCount), toSize(mels)};
  // The mel scale's ends and step, on the host.
  auto mel = [&](OpBuilder &nb, Location l, Value hz) -> Value {
    Value ratio = arith::AddFOp::create(
        nb, l, scalar(nb, l, f64, 1.0),
        arith::DivFOp::create(nb, l, hz, scalar(nb, l, f64, 700.0)));
    return arith::MulFOp::create(nb, l, scalar(nb, l, f64, 2595.0),
                                 math::Log10Op::create(nb, l, ratio));
  };
  auto type = RankedTensorType::get(staticShapeOf(sizes), element);
  Value result = generic(
      b, loc, {}, {}, type,
      [&](OpBuilder &nb, Location l, ValueRange) -> Value {
        Value low = mel(nb, l, lower);
        Value high = mel(nb, l, upper);
        Value melsF = arith::SIToFPOp::create(nb, l, f64, mels);
        Value step = arith::DivFOp::create(
            nb, l, arith::SubFOp::create(nb, l, high, low),
            arith::AddFOp::create(nb, l, melsF, scalar(nb, l, f64, 2.0)));
        Value scale = arith::DivFOp::create(
            nb, l,
            arith::SIToFPOp::create(
                nb, l, f64,
                arith::AddIOp::create(nb, l, dftLength, scalar(nb, l, i64, 1))),
            arith::SIToFPOp::create(nb, l, f64, sampleRate));
        Value j = arith::IndexCastOp::create(nb, l, i64,
                                             linalg::IndexOp::create(nb, l, 0));
        Value i = arith::IndexCastOp::create(nb, l, i64,
                                             linalg::IndexOp::create(nb, l, 1));
        // Edge i + e: floor(scale * 700 (10^((i + e) step + low) / 2595) - 1)).
        auto edge = [&](int64_t e) -> Value {
          Value at = arith::SIToFPOp::create(
              nb, l, f64,
              arith::AddIOp::create(nb, l, i, scalar(nb, l, i64, double(e))));
          Value m = arith::AddFOp::create(
              nb, l, arith::MulFOp::create(nb, l, at, step), low);
          // 10^(m / 2595) as exp(m ln(10) / 2595).
          Value power = math::ExpOp::create(
              nb, l,
              arith::MulFOp::create(
                  nb, l, m, scalar(nb, l, f64, std::log(10.0) / 2595.0)));
          Value hz = arith::MulFOp::create(
              nb, l, scalar(nb, l, f64, 700.0),
              arith::SubFOp::create(nb, l, power, scalar(nb, l, f64, 1.0)));
          return arith::FPToSIOp::create(
              nb, l, i64,
              math::FloorOp::create(nb, l,
                                    arith::MulFOp::create(nb, l, scale, hz)));
        };
        Value left = edge(0), center = edge(1), right = edge(2);
        auto cmp = [&](arith::CmpIPredicate p, Value x, Value y) -> Value {
          return arith::CmpIOp::create(nb, l, p, x, y);
        };
        auto toF = [&](Value v) -> Value {
          return arith::SIToFPOp::create(nb, l, f64, v);
        };
        using P = arith::CmpIPredicate;
        // As melWeight: falling above the center, rising below it.
        Value falling = arith::DivFOp::create(
            nb, l, toF(arith::SubIOp::create(nb, l, right, j)),
            toF(arith::SubIOp::create(nb, l, right, center)));
        Value rising = arith::DivFOp::create(
            nb, l, toF(arith::SubIOp::create(nb, l, j, left)),
            toF(arith::SubIOp::create(nb, l, center, left)));
        Value zero = scalar(nb, l, f64, 0), one = scalar(nb, l, f64, 1);
        Value atCenter = arith::SelectOp::create(
            nb, l, cmp(P::sge, center, left), one, zero);
        Value above = arith::SelectOp::create(nb, l, cmp(P::eq, j, center),
                                              atCenter, falling);
        Value w = arith::SelectOp::create(nb, l, cmp(P::sge, j, center), above,
                                          rising);
        Value outside = arith::OrIOp::create(
            nb, l, cmp(P::sgt, center, right),
            arith::OrIOp::create(nb, l, cmp(P::slt, j, left),
                                 cmp(P::sgt, j, right)));
        w = arith::SelectOp::create(nb, l, outside, zero, w);
        return convertScalar(nb, l, w, element);
      },
      sizes);
  return n.replace(result);
}

} // namespace

void mlir::strata::onnx::addSpectralLowerings(LoweringTable &table) {
  table["STFT"] = lowerSTFT;
  table["MelWeightMatrix"] = lowerMelWeightMatrix;
}
