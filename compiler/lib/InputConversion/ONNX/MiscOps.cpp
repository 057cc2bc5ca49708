// MiscOps.cpp - ONNX op types that build on the others: OneHot, Compress,
// Einsum, LRN, MeanVarianceNormalization, ReverseSequence, the scatters,
// the window functions, DFT, and the training optimizers (Adagrad, Momentum,
// Adam) of the ai.onnx.preview.training domain.

#include "Lowering.h"

#include "llvm/ADT/StringExtras.h"

#include <cmath>

using namespace mlir;
using namespace mlir::strata;
using namespace mlir::strata::onnx;

namespace {

Value addOf(OpBuilder &b, Location loc, Value x, Value y) {
  if (isFloat(x.getType())) {
    return arith::AddFOp::create(b, loc, x, y);
  }
  return arith::AddIOp::create(b, loc, x, y);
}

Value mulOf(OpBuilder &b, Location loc, Value x, Value y) {
  if (isFloat(x.getType())) {
    return arith::MulFOp::create(b, loc, x, y);
  }
  return arith::MulIOp::create(b, loc, x, y);
}

/// The one-hot generic of `type` (its dynamic dimensions `sizes`): at each
/// index, values[1] where the index along `axis` is the input's class
/// (negative classes count back from `depth`, an i64), else values[0].
Value oneHotOf(Node &n, int64_t axis, Value depth, RankedTensorType type,
               ArrayRef<OpFoldResult> sizes) {
  int64_t rank = type.getRank();
  Value values = n.in(2);
  Value off = slice(n.b, n.loc, values, {0}, {1}, {1});
  Value on = slice(n.b, n.loc, values, {1}, {1}, {1});
  off = reshape(n.b, n.loc, off, {});
  on = reshape(n.b, n.loc, on, {});
  SmallVector<AffineExpr> exprs;
  for (int64_t d = 0; d < rank; ++d) {
    if (d != axis) {
      exprs.push_back(n.b.getAffineDimExpr(d));
    }
  }
  AffineMap indexMap = AffineMap::get(rank, 0, exprs, n.b.getContext());
  AffineMap scalarMap = AffineMap::get(rank, 0, {}, n.b.getContext());
  Type indexElement = n.elem(0);
  bool indexFloat = isFloat(indexElement);
  return generic(
      n.b, n.loc, {n.in(0), off, on}, {indexMap, scalarMap, scalarMap}, type,
      [&](OpBuilder &b, Location loc, ValueRange a) -> Value {
        Type i64 = b.getI64Type();
        Value index =
            indexFloat ? arith::FPToSIOp::create(b, loc, i64, a[0]).getResult()
                       : convertScalar(b, loc, a[0], i64);
        // Negative indices count from the end.
        Value negative = arith::CmpIOp::create(
            b, loc, arith::CmpIPredicate::slt, index, scalar(b, loc, i64, 0));
        Value depthValue = depth;
        if (!depthValue) {
          depthValue =
              scalar(b, loc, i64, static_cast<double>(type.getDimSize(axis)));
        }
        index = arith::SelectOp::create(
            b, loc, negative, arith::AddIOp::create(b, loc, index, depthValue),
            index);
        Value position = arith::IndexCastOp::create(
            b, loc, i64, linalg::IndexOp::create(b, loc, axis));
        Value hit = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq,
                                          index, position);
        return arith::SelectOp::create(b, loc, hit, a[2], a[1]);
      },
      sizes);
}

/// OneHot with a run-time depth or of a dynamic input: the depth read on
/// the host, checked at run time to be from 1 to 2^40, and the class
/// dimension sized by it.
LogicalResult lowerDynamicOneHot(Node &n) {
  OpBuilder &b = n.b;
  Location loc = n.loc;
  if (!n.type(1).hasStaticShape() || n.type(1).getNumElements() != 1) {
    return n.fail("input 1 (depth) must hold one value");
  }
  if (!n.type(2).hasStaticShape() || n.type(2).getNumElements() != 2) {
    return n.fail("input 2 (values) has " +
                  llvm::Twine(n.type(2).getNumElements()) +
                  " values; it takes two: [off, on]");
  }
  int64_t rank = n.rank(0) + 1;
  FailureOr<int64_t> axis = n.axis(n.intAttr("axis", -1), rank);
  if (failed(axis)) {
    return failure();
  }
  Value raw = n.hostScalarIn(1);
  Type i64 = b.getI64Type();
  double limit = double(int64_t(1) << 40);
  Value depth;
  if (isFloat(raw.getType())) {
    // Compared as a double first: a cast of a value out of range (or of a
    // NaN) to an integer is undefined.
    Value wide = convertScalar(b, loc, raw, b.getF64Type());
    n.check(arith::AndIOp::create(
                b, loc,
                arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OGE, wide,
                                      scalar(b, loc, b.getF64Type(), 1)),
                arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OLE, wide,
                                      scalar(b, loc, b.getF64Type(), limit))),
            "depth is not a number of classes from 1 to 2^40 at run time");
    depth = arith::FPToSIOp::create(b, loc, i64, wide);
  } else {
    depth = convertScalar(b, loc, raw, i64, n.isUnsigned(1));
    n.check(arith::AndIOp::create(
                b, loc,
                arith::CmpIOp::create(b, loc, arith::CmpIPredicate::sge, depth,
                                      scalar(b, loc, i64, 1)),
                arith::CmpIOp::create(b, loc, arith::CmpIPredicate::sle, depth,
                                      scalar(b, loc, i64, limit))),
            "depth is not a number of classes from 1 to 2^40 at run time");
  }
  SmallVector<OpFoldResult> sizes = n.dims(0);
  sizes.insert(sizes.begin() + *axis,
               simplifyHostScalar(arith::IndexCastOp::create(
                   b, loc, b.getIndexType(), depth)));
  Type element = n.elem(2);
  auto type = RankedTensorType::get(staticShapeOf(sizes), element);
  return n.replace(oneHotOf(n, *axis, depth, type, sizes), {n.isUnsigned(2)});
}

LogicalResult lowerOneHot(Node &n) {
  // indices, depth (scalar), values ([off, on]); attr axis (-1).
  if (!n.constant(1) || !n.type(0).hasStaticShape()) {
    return lowerDynamicOneHot(n);
  }
  FailureOr<double> depthValue = n.constFloat(1, "depth");
  if (failed(depthValue)) {
    return failure();
  }
  // Compared as a double first: a cast of a value out of range (or of a
  // NaN) to an integer is undefined.
  if (!(*depthValue >= 1 && *depthValue <= double(int64_t(1) << 40))) {
    std::string text;
    llvm::raw_string_ostream(text) << "depth " << *depthValue;
    return n.fail(text + " is not a number of classes from 1 to 2^40");
  }
  int64_t depth = static_cast<int64_t>(*depthValue);
  int64_t rank = n.rank(0) + 1;
  FailureOr<int64_t> axis = n.axis(n.intAttr("axis", -1), rank);
  if (failed(axis)) {
    return failure();
  }
  SmallVector<int64_t> shape(n.shape(0));
  shape.insert(shape.begin() + *axis, depth);
  Type element = n.elem(2);
  if (failed(n.checkShape(shape, element, "the result"))) {
    return failure();
  }
  if (n.type(2).getNumElements() != 2) {
    return n.fail("input 2 (values) has " +
                  llvm::Twine(n.type(2).getNumElements()) +
                  " values; it takes two: [off, on]");
  }
  Value result =
      oneHotOf(n, *axis, Value(), RankedTensorType::get(shape, element), {});
  return n.replace(result, {n.isUnsigned(2)});
}

LogicalResult lowerCompress(Node &n) {
  if (failed(n.checkReadable(1, "condition"))) {
    return failure();
  }
  DenseElementsAttr condition = n.constant(1);
  if (!condition || !n.allStatic()) {
    return lowerCompressAtRunTime(n);
  }
  SmallVector<int64_t> kept;
  int64_t i = 0;
  for (bool c : condition.getValues<bool>()) {
    if (c) {
      kept.push_back(i);
    }
    ++i;
  }
  Value x = n.in(0);
  int64_t axis = 0;
  std::optional<int64_t> axisAttr = n.intAttr("axis");
  if (axisAttr) {
    FailureOr<int64_t> a = n.axis(*axisAttr, n.rank(0));
    if (failed(a)) {
      return failure();
    }
    axis = *a;
  } else {
    x = reshape(n.b, n.loc, x, {n.type(0).getNumElements()});
  }
  auto type = cast<RankedTensorType>(x.getType());
  int64_t dim = type.getDimSize(axis);
  llvm::erase_if(kept, [&](int64_t k) { return k >= dim; });
  SmallVector<int64_t> shape(type.getShape());
  shape[axis] = kept.size();
  if (kept.empty()) {
    // Nothing kept: an empty result, which no kernel writes.
    return n.replace(
        tensor::EmptyOp::create(n.b, n.loc, shape, type.getElementType())
            .getResult(),
        {n.isUnsigned(0)});
  }
  // A gather of the kept indices along the axis.
  SmallVector<int64_t> indices(kept);
  Value indexTensor = constant(
      n.b, n.loc,
      DenseElementsAttr::get(
          RankedTensorType::get({static_cast<int64_t>(indices.size())},
                                n.b.getI64Type()),
          ArrayRef<int64_t>(indices)));
  AffineMap indexMap = AffineMap::get(shape.size(), 0,
                                      {n.b.getAffineDimExpr(axis)},
                                      n.b.getContext());
  auto resultType = RankedTensorType::get(shape, type.getElementType());
  Value result = generic(
      n.b, n.loc, indexTensor, indexMap, resultType,
      [&](OpBuilder &b, Location loc, ValueRange a) -> Value {
        SmallVector<Value> at;
        for (int64_t d = 0; d < resultType.getRank(); ++d) {
          at.push_back(d == axis ? arith::IndexCastOp::create(
                                       b, loc, b.getIndexType(), a[0])
                                       .getResult()
                                 : linalg::IndexOp::create(b, loc, d)
                                       .getResult());
        }
        return tensor::ExtractOp::create(b, loc, x, at);
      });
  return n.replace(result, {n.isUnsigned(0)});
}

/// The larger (isMax) or smaller of acc and x: IEEE maximum/minimum for
/// floats (NaN wins), unsigned or signed order for integers. The max and
/// min reductions of ScatterElements and ScatterND (opset 18).
Value extremeOf(OpBuilder &b, Location l, Value acc, Value x, bool isMax,
                bool isUnsigned) {
  if (isFloat(acc.getType())) {
    return isMax ? arith::MaximumFOp::create(b, l, acc, x).getResult()
                 : arith::MinimumFOp::create(b, l, acc, x).getResult();
  }
  if (isUnsigned) {
    return isMax ? arith::MaxUIOp::create(b, l, acc, x).getResult()
                 : arith::MinUIOp::create(b, l, acc, x).getResult();
  }
  return isMax ? arith::MaxSIOp::create(b, l, acc, x).getResult()
               : arith::MinSIOp::create(b, l, acc, x).getResult();
}

/// Rewrites each "..." of an Einsum equation as letters the equation does
/// not use: an operand's ellipsis covers the dimensions its letters do not
/// (right-aligned across operands, numpy's broadcast), the output's all of
/// them; an implicit output gets them first, then its letters used once in
/// alphabetical order (numpy's rule).
LogicalResult expandEllipses(Node &n, std::string &text) {
  StringRef equation(text);
  auto [lhs, rhs] = equation.split("->");
  bool explicitOutput = equation.contains("->");
  SmallVector<StringRef> terms;
  lhs.split(terms, ',');
  if (terms.size() != n.numInputs()) {
    return n.fail("the equation names " + llvm::Twine(terms.size()) +
                  " operands for " + llvm::Twine(n.numInputs()) + " inputs");
  }
  std::string fresh;
  for (char c :
       StringRef("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz")) {
    if (!equation.contains(c)) {
      fresh.push_back(c);
    }
  }
  SmallVector<int64_t> spans;
  int64_t widest = 0;
  for (auto [i, term] : llvm::enumerate(terms)) {
    size_t at = term.find("...");
    if (at == StringRef::npos) {
      spans.push_back(-1);
      continue;
    }
    if (term.find("...", at + 3) != StringRef::npos || !n.has(i)) {
      return n.fail("term '" + term +
                    "' has more than one ellipsis or no "
                    "input");
    }
    int64_t letters = int64_t(term.size()) - 3;
    int64_t span = n.rank(i) - letters;
    if (span < 0) {
      return n.fail("term '" + term + "' names more dimensions than input " +
                    llvm::Twine(i) + " has");
    }
    spans.push_back(span);
    widest = std::max(widest, span);
  }
  if (widest > int64_t(fresh.size())) {
    return n.fail("the ellipses cover more dimensions than the equation has "
                  "unused letters");
  }
  std::string all = fresh.substr(0, widest);
  std::string result;
  std::string counted;
  for (auto [i, term] : llvm::enumerate(terms)) {
    if (i) {
      result.push_back(',');
    }
    if (spans[i] < 0) {
      result += term.str();
      counted += term.str();
      continue;
    }
    size_t at = term.find("...");
    std::string letters = term.substr(0, at).str() + term.substr(at + 3).str();
    counted += letters;
    result += term.substr(0, at).str() + all.substr(widest - spans[i]) +
              term.substr(at + 3).str();
  }
  result += "->";
  if (explicitOutput) {
    size_t at = rhs.find("...");
    result += at == StringRef::npos
                  ? rhs.str()
                  : rhs.substr(0, at).str() + all + rhs.substr(at + 3).str();
  } else {
    std::map<char, int> counts;
    for (char c : counted) {
      counts[c]++;
    }
    result += all;
    for (auto [c, count] : counts) {
      if (count == 1) {
        result.push_back(c);
      }
    }
  }
  text = result;
  return success();
}

/// Einsum as one linalg.generic: every letter a loop, those missing from
/// the output reductions.
LogicalResult lowerEinsum(Node &n) {
  std::optional<StringRef> equation = n.stringAttr("equation");
  if (!equation) {
    return n.fail("has no equation");
  }
  std::string text;
  for (char c : *equation) {
    if (c != ' ') {
      text.push_back(c);
    }
  }
  if (StringRef(text).contains("...") && failed(expandEllipses(n, text))) {
    return failure();
  }
  auto [lhs, rhs] = StringRef(text).split("->");
  SmallVector<StringRef> terms;
  lhs.split(terms, ',');
  if (terms.size() != n.numInputs()) {
    return n.fail("the equation names " + llvm::Twine(terms.size()) +
                  " operands for " + llvm::Twine(n.numInputs()) + " inputs");
  }
  std::string output;
  if (text.find("->") != std::string::npos) {
    output = rhs.str();
  } else {
    // Implicit output: the letters used once, in alphabetical order.
    std::map<char, int> counts;
    for (StringRef term : terms) {
      for (char c : term) {
        counts[c]++;
      }
    }
    for (auto [c, count] : counts) {
      if (count == 1) {
        output.push_back(c);
      }
    }
  }
  // Every letter of the output is one of the inputs', once.
  for (auto [i, c] : llvm::enumerate(output)) {
    if (!llvm::isAlpha(c) || output.find(c) != i ||
        llvm::none_of(terms, [&](StringRef t) { return t.contains(c); })) {
      return n.fail("the equation's output '" + output +
                    "' has a letter that no input term names once");
    }
  }
  // Loop order: output letters, then the reduced ones.
  std::string loops = output;
  std::map<char, int64_t> sizes;
  for (auto [i, term] : llvm::enumerate(terms)) {
    if (!n.has(i)) {
      return n.fail("input " + llvm::Twine(i) + " is missing");
    }
    if (!llvm::all_of(term, llvm::isAlpha)) {
      return n.fail("term '" + term + "' is not made of letters");
    }
    if (static_cast<int64_t>(term.size()) != n.rank(i)) {
      return n.fail("term '" + term + "' does not match the rank of input " +
                    llvm::Twine(i));
    }
    for (auto [d, c] : llvm::enumerate(term)) {
      sizes[c] = std::max(sizes[c], n.shape(i)[d]);
      if (loops.find(c) == std::string::npos) {
        loops.push_back(c);
      }
    }
  }
  MLIRContext *ctx = n.b.getContext();
  SmallVector<AffineMap> maps;
  SmallVector<Value> inputs;
  for (auto [i, term] : llvm::enumerate(terms)) {
    SmallVector<AffineExpr> exprs;
    for (auto [d, c] : llvm::enumerate(term)) {
      // A broadcast operand dimension of 1 reads index 0.
      exprs.push_back(n.shape(i)[d] == 1 && sizes[c] != 1
                          ? getAffineConstantExpr(0, ctx)
                          : getAffineDimExpr(loops.find(c), ctx));
    }
    maps.push_back(AffineMap::get(loops.size(), 0, exprs, ctx));
    inputs.push_back(n.in(i));
  }
  SmallVector<int64_t> shape;
  SmallVector<AffineExpr> outExprs;
  for (char c : output) {
    shape.push_back(sizes[c]);
    outExprs.push_back(getAffineDimExpr(loops.find(c), ctx));
  }
  maps.push_back(AffineMap::get(loops.size(), 0, outExprs, ctx));
  SmallVector<utils::IteratorType> iterators;
  for (size_t l = 0; l < loops.size(); ++l) {
    iterators.push_back(l < output.size() ? utils::IteratorType::parallel
                                          : utils::IteratorType::reduction);
  }
  Type element = n.elem(0);
  Value init = filled(n.b, n.loc, shape, scalar(n.b, n.loc, element, 0));
  auto op = linalg::GenericOp::create(
      n.b, n.loc, TypeRange{init.getType()}, inputs, ValueRange{init}, maps,
      iterators, [&](OpBuilder &b, Location loc, ValueRange a) {
        Value product = a[0];
        for (size_t i = 1; i + 1 < a.size(); ++i) {
          product = mulOf(b, loc, product, a[i]);
        }
        linalg::YieldOp::create(b, loc, addOf(b, loc, a.back(), product));
      });
  return n.replace(op->getResult(0));
}

LogicalResult lowerLRN(Node &n) {
  // y = x / (bias + alpha / size * sum of squares over the channel window)^beta
  int64_t size = n.intAttr("size", 0);
  if (size <= 0 || n.rank(0) < 3) {
    return n.fail("needs a positive size and an NC... input");
  }
  double alpha = n.floatAttr("alpha", 1e-4), beta = n.floatAttr("beta", 0.75),
         bias = n.floatAttr("bias", 1.0);
  OpBuilder &b = n.b;
  Location loc = n.loc;
  Type element = n.elem(0);
  int64_t rank = n.rank(0);
  int64_t channels = n.shape(0)[1];
  Value x = n.in(0);
  int64_t before = (size - 1) / 2;
  // Taps further than channels - 1 from a channel read nothing: the loop
  // below builds no more than 2 * channels of them, whatever the size.
  int64_t firstTap = std::max(-before, 1 - channels);
  int64_t endTap = std::min(size - before, channels);
  Value squares = generic(
      b, loc, {}, {}, n.type(0),
      [&](OpBuilder &nb, Location l, ValueRange) -> Value {
        SmallVector<Value> at;
        for (int64_t d = 0; d < rank; ++d) {
          at.push_back(linalg::IndexOp::create(nb, l, d));
        }
        Value sum = scalar(nb, l, element, 0.0);
        for (int64_t k = firstTap; k < endTap; ++k) {
          Value c = arith::AddIOp::create(
              nb, l, at[1], arith::ConstantIndexOp::create(nb, l, k));
          Value inside = arith::AndIOp::create(
              nb, l,
              arith::CmpIOp::create(nb, l, arith::CmpIPredicate::sge, c,
                                    arith::ConstantIndexOp::create(nb, l, 0)),
              arith::CmpIOp::create(
                  nb, l, arith::CmpIPredicate::slt, c,
                  arith::ConstantIndexOp::create(nb, l, channels)));
          Value clamped = arith::MinSIOp::create(
              nb, l,
              arith::MaxSIOp::create(nb, l, c,
                                     arith::ConstantIndexOp::create(nb, l, 0)),
              arith::ConstantIndexOp::create(nb, l, channels - 1));
          SmallVector<Value> where(at);
          where[1] = clamped;
          Value v = tensor::ExtractOp::create(nb, l, x, where);
          Value sq = arith::MulFOp::create(nb, l, v, v);
          sum = arith::AddFOp::create(
              nb, l, sum,
              arith::SelectOp::create(nb, l, inside, sq,
                                      scalar(nb, l, element, 0.0)));
        }
        return sum;
      });
  Value y = elementwise(
      b, loc, {x, squares}, n.shape(0), element,
      [&](OpBuilder &nb, Location l, ValueRange a) -> Value {
        Value base = arith::AddFOp::create(
            nb, l, scalar(nb, l, element, bias),
            arith::MulFOp::create(nb, l, scalar(nb, l, element, alpha / size),
                                  a[1]));
        Value p = viaF32(nb, l, base, [&](Value v) -> Value {
          return math::PowFOp::create(nb, l, v,
                                      scalar(nb, l, v.getType(), beta));
        });
        return arith::DivFOp::create(nb, l, a[0], p);
      });
  return n.replace(y);
}

LogicalResult lowerMVN(Node &n) {
  SmallVector<int64_t> axes =
      n.intsAttr("axes").value_or(SmallVector<int64_t>{0, 2, 3});
  int64_t rank = n.rank(0);
  OpBuilder &b = n.b;
  Location loc = n.loc;
  Type element = n.elem(0);
  int64_t count = 1;
  SmallVector<int64_t> keptShape;
  if (failed(n.normalizeAxes(axes, rank))) {
    return failure();
  }
  for (int64_t d = 0; d < rank; ++d) {
    if (llvm::is_contained(axes, d)) {
      count *= n.shape(0)[d];
      keptShape.push_back(1);
    } else {
      keptShape.push_back(n.shape(0)[d]);
    }
  }
  auto meanOf = [&](Value v) {
    Value sum = reduce(b, loc, v, axes, scalar(b, loc, element, 0.0),
                       [](OpBuilder &nb, Location l, ValueRange a) -> Value {
                         return arith::AddFOp::create(nb, l, a[1], a[0]);
                       });
    sum = reshape(b, loc, sum, keptShape);
    return elementwise(b, loc, sum, keptShape, element,
                       [&](OpBuilder &nb, Location l, ValueRange a) -> Value {
                         return arith::DivFOp::create(
                             nb, l, a[0], scalar(nb, l, element, count));
                       });
  };
  Value x = n.in(0);
  Value mean = meanOf(x);
  Value centeredValue =
      elementwise(b, loc, {x, mean}, n.shape(0), element,
                  [](OpBuilder &nb, Location l, ValueRange a) -> Value {
                    return arith::SubFOp::create(nb, l, a[0], a[1]);
                  });
  Value squares =
      elementwise(b, loc, centeredValue, n.shape(0), element,
                  [](OpBuilder &nb, Location l, ValueRange a) -> Value {
                    return arith::MulFOp::create(nb, l, a[0], a[0]);
                  });
  Value var = meanOf(squares);
  Value y = elementwise(
      b, loc, {centeredValue, var}, n.shape(0), element,
      [&](OpBuilder &nb, Location l, ValueRange a) -> Value {
        Value s = arith::AddFOp::create(nb, l, math::SqrtOp::create(nb, l, a[1]),
                                        scalar(nb, l, element, 1e-9));
        return arith::DivFOp::create(nb, l, a[0], s);
      });
  return n.replace(y);
}

LogicalResult lowerReverseSequence(Node &n) {
  int64_t batchAxis = n.intAttr("batch_axis", 1);
  int64_t timeAxis = n.intAttr("time_axis", 0);
  Value x = n.in(0);
  Value lengths = n.in(1);
  int64_t rank = n.rank(0);
  // ONNX's axes are 0 and 1, one each; the lengths one per batch entry.
  if (batchAxis < 0 || batchAxis > 1 || timeAxis < 0 || timeAxis > 1 ||
      batchAxis == timeAxis) {
    return n.fail("batch_axis " + llvm::Twine(batchAxis) + " and time_axis " +
                  llvm::Twine(timeAxis) + " are not 0 and 1 in some order");
  }
  if (n.shape(1)[0] != n.shape(0)[batchAxis]) {
    return n.fail("input 1 (sequence_lens) has " + llvm::Twine(n.shape(1)[0]) +
                  " values for a batch of " +
                  llvm::Twine(n.shape(0)[batchAxis]));
  }
  Value result = generic(
      n.b, n.loc, {}, {}, n.type(0),
      [&](OpBuilder &b, Location loc, ValueRange) -> Value {
        SmallVector<Value> at;
        for (int64_t d = 0; d < rank; ++d) {
          at.push_back(linalg::IndexOp::create(b, loc, d));
        }
        Value len = arith::IndexCastOp::create(
            b, loc, b.getIndexType(),
            tensor::ExtractOp::create(b, loc, lengths,
                                      ValueRange{at[batchAxis]}));
        Value t = at[timeAxis];
        Value inside = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt,
                                             t, len);
        Value reversed = arith::SubIOp::create(
            b, loc,
            arith::SubIOp::create(b, loc, len,
                                  arith::ConstantIndexOp::create(b, loc, 1)),
            t);
        SmallVector<Value> from(at);
        from[timeAxis] = arith::SelectOp::create(b, loc, inside, reversed, t);
        return tensor::ExtractOp::create(b, loc, x, from);
      });
  return n.replace(result, {n.isUnsigned(0)});
}

/// ScatterElements (and Scatter): each output element is the data element,
/// or the last update whose index along `axis` points at it (combined by
/// `reduction`).
LogicalResult lowerScatterElements(Node &n) {
  int64_t rank = n.rank(0);
  FailureOr<int64_t> axis = n.axis(n.intAttr("axis", 0), rank);
  if (failed(axis)) {
    return failure();
  }
  StringRef reduction = n.stringAttr("reduction").value_or("none");
  if (reduction != "none" && reduction != "add" && reduction != "mul" &&
      reduction != "max" && reduction != "min") {
    return n.fail("reduction '" + reduction + "' is not supported");
  }
  ArrayRef<int64_t> updatesShape = n.shape(1);
  if (n.rank(1) != rank || n.rank(2) != rank) {
    return n.fail("indices and updates must have the data's rank");
  }
  if (n.shape(2) != n.shape(1)) {
    return n.fail("indices and updates have different shapes");
  }
  OpBuilder &b = n.b;
  Location loc = n.loc;
  int64_t dim = n.shape(0)[*axis];
  // Loops: the output's dims, then the updates' dims (reductions).
  int64_t loops = 2 * rank;
  MLIRContext *ctx = b.getContext();
  SmallVector<AffineExpr> dataExprs, updateExprs;
  for (int64_t d = 0; d < rank; ++d) {
    dataExprs.push_back(getAffineDimExpr(d, ctx));
    updateExprs.push_back(getAffineDimExpr(rank + d, ctx));
  }
  AffineMap outMap = AffineMap::get(loops, 0, dataExprs, ctx);
  AffineMap updateMap = AffineMap::get(loops, 0, updateExprs, ctx);
  SmallVector<utils::IteratorType> iterators(rank,
                                             utils::IteratorType::parallel);
  iterators.append(rank, utils::IteratorType::reduction);
  // The output starts as the data.
  Value init = generic(b, loc, n.in(0), b.getMultiDimIdentityMap(rank),
                       n.type(0), [](OpBuilder &, Location, ValueRange a) {
                         return a[0];
                       });
  (void)updatesShape;
  int64_t axisValue = *axis;
  bool isUnsigned = n.isUnsigned(0);
  auto op = linalg::GenericOp::create(
      b, loc, TypeRange{init.getType()}, ValueRange{n.in(1), n.in(2)},
      ValueRange{init}, {updateMap, updateMap, outMap}, iterators,
      [&](OpBuilder &nb, Location l, ValueRange a) {
        // The update lands here when its index along the axis is this
        // element's, and its other indices equal this element's.
        Type i64 = nb.getI64Type();
        Value index = convertScalar(nb, l, a[0], i64);
        Value negative = arith::CmpIOp::create(
            nb, l, arith::CmpIPredicate::slt, index, scalar(nb, l, i64, 0));
        index = arith::SelectOp::create(
            nb, l, negative,
            arith::AddIOp::create(nb, l, index, scalar(nb, l, i64, dim)),
            index);
        Value hit = arith::CmpIOp::create(
            nb, l, arith::CmpIPredicate::eq, index,
            arith::IndexCastOp::create(
                nb, l, i64, linalg::IndexOp::create(nb, l, axisValue)));
        for (int64_t d = 0; d < rank; ++d) {
          if (d == axisValue) {
            continue;
          }
          Value same = arith::CmpIOp::create(
              nb, l, arith::CmpIPredicate::eq,
              linalg::IndexOp::create(nb, l, d),
              linalg::IndexOp::create(nb, l, rank + d));
          hit = arith::AndIOp::create(nb, l, hit, same);
        }
        Value combined = a[1];
        Value acc = a[2];
        if (reduction == "add") {
          combined = addOf(nb, l, acc, a[1]);
        } else if (reduction == "mul") {
          combined = mulOf(nb, l, acc, a[1]);
        } else if (reduction == "max" || reduction == "min") {
          combined =
              extremeOf(nb, l, acc, a[1], reduction == "max", isUnsigned);
        }
        linalg::YieldOp::create(
            nb, l, ValueRange{arith::SelectOp::create(nb, l, hit, combined, acc)});
      });
  return n.replace(op->getResult(0), {isUnsigned});
}

/// ScatterND: updates (q-1 index dims + the slice dims) written at the
/// k-tuples of `indices`.
LogicalResult lowerScatterND(Node &n) {
  ArrayRef<int64_t> data = n.shape(0), indices = n.shape(1);
  int64_t r = data.size(), q = indices.size(), k = indices.back();
  if (k < 1 || k > r) {
    return n.fail("the indices' last dimension is " + llvm::Twine(k) +
                  "; it takes 1 to the data's rank " + llvm::Twine(r));
  }
  SmallVector<int64_t> updates(indices.drop_back());
  updates.append(data.begin() + k, data.end());
  if (n.shape(2) != ArrayRef<int64_t>(updates)) {
    std::string dims;
    for (int64_t dim : updates) {
      dims += (dims.empty() ? "" : "x") + std::to_string(dim);
    }
    return n.fail("input 2 (updates) must have the shape [" + dims +
                  "]: the indices' but the last, then the data's from "
                  "dimension " +
                  llvm::Twine(k));
  }
  StringRef reduction = n.stringAttr("reduction").value_or("none");
  if (reduction != "none" && reduction != "add" && reduction != "mul" &&
      reduction != "max" && reduction != "min") {
    return n.fail("reduction '" + reduction + "' is not supported");
  }
  bool isUnsigned = n.isUnsigned(0);
  OpBuilder &b = n.b;
  Location loc = n.loc;
  MLIRContext *ctx = b.getContext();
  // Loops: data dims (parallel), then the update positions (q - 1 dims,
  // reductions); the slice dims of an update are the data's last r - k.
  int64_t loops = r + q - 1;
  SmallVector<AffineExpr> outExprs, updateExprs;
  for (int64_t d = 0; d < r; ++d) {
    outExprs.push_back(getAffineDimExpr(d, ctx));
  }
  for (int64_t j = 0; j < q - 1; ++j) {
    updateExprs.push_back(getAffineDimExpr(r + j, ctx));
  }
  for (int64_t d = k; d < r; ++d) {
    updateExprs.push_back(getAffineDimExpr(d, ctx));
  }
  SmallVector<utils::IteratorType> iterators(r, utils::IteratorType::parallel);
  iterators.append(q - 1, utils::IteratorType::reduction);
  Value init = generic(b, loc, n.in(0), b.getMultiDimIdentityMap(r), n.type(0),
                       [](OpBuilder &, Location, ValueRange a) { return a[0]; });
  Value indicesValue = n.in(1);
  auto op = linalg::GenericOp::create(
      b, loc, TypeRange{init.getType()}, ValueRange{n.in(2)}, ValueRange{init},
      {AffineMap::get(loops, 0, updateExprs, ctx),
       AffineMap::get(loops, 0, outExprs, ctx)},
      iterators, [&](OpBuilder &nb, Location l, ValueRange a) {
        Value hit;
        for (int64_t j = 0; j < k; ++j) {
          SmallVector<Value> at;
          for (int64_t p = 0; p < q - 1; ++p) {
            at.push_back(linalg::IndexOp::create(nb, l, r + p));
          }
          at.push_back(arith::ConstantIndexOp::create(nb, l, j));
          Value index = arith::IndexCastOp::create(
              nb, l, nb.getIndexType(),
              tensor::ExtractOp::create(nb, l, indicesValue, at));
          Value negative = arith::CmpIOp::create(
              nb, l, arith::CmpIPredicate::slt, index,
              arith::ConstantIndexOp::create(nb, l, 0));
          index = arith::SelectOp::create(
              nb, l, negative,
              arith::AddIOp::create(nb, l, index,
                                    arith::ConstantIndexOp::create(nb, l, data[j])),
              index);
          Value same = arith::CmpIOp::create(nb, l, arith::CmpIPredicate::eq,
                                             index,
                                             linalg::IndexOp::create(nb, l, j));
          hit = hit ? arith::AndIOp::create(nb, l, hit, same).getResult()
                    : same;
        }
        Value combined = a[0];
        if (reduction == "add") {
          combined = addOf(nb, l, a[1], a[0]);
        } else if (reduction == "mul") {
          combined = mulOf(nb, l, a[1], a[0]);
        } else if (reduction == "max" || reduction == "min") {
          combined =
              extremeOf(nb, l, a[1], a[0], reduction == "max", isUnsigned);
        }
        linalg::YieldOp::create(
            nb, l, ValueRange{arith::SelectOp::create(nb, l, hit, combined, a[1])});
      });
  return n.replace(op->getResult(0), {n.isUnsigned(0)});
}

/// A window of a run-time size (`coefficients` as lowerWindow's): the size
/// read on the host and checked at run time to be from 1 to 2^40, the
/// values computed in f64 by a kernel.
LogicalResult lowerDynamicWindow(Node &n, ArrayRef<double> coefficients,
                                 bool periodic, Type element) {
  OpBuilder &b = n.b;
  Location loc = n.loc;
  if (!n.type(0).hasStaticShape() || n.type(0).getNumElements() != 1 ||
      !isa<IntegerType>(n.elem(0))) {
    return n.fail("input 0 (size) must be one integer; it is " +
                  typeText(n.type(0)));
  }
  Type i64 = b.getI64Type();
  Value count = convertScalar(b, loc, n.hostScalarIn(0), i64, n.isUnsigned(0));
  n.check(
      arith::AndIOp::create(
          b, loc,
          arith::CmpIOp::create(b, loc, arith::CmpIPredicate::sge, count,
                                scalar(b, loc, i64, 1)),
          arith::CmpIOp::create(b, loc, arith::CmpIPredicate::sle, count,
                                scalar(b, loc, i64, double(int64_t(1) << 40)))),
      "size is not a window size from 1 to 2^40 at run time");
  Type f64 = b.getF64Type();
  Value denominator = arith::SIToFPOp::create(
      b, loc, f64,
      periodic ? count
               : arith::SubIOp::create(b, loc, count, scalar(b, loc, i64, 1))
                     .getResult());
  OpFoldResult size = simplifyHostScalar(
      arith::IndexCastOp::create(b, loc, b.getIndexType(), count));
  auto type = RankedTensorType::get(staticShapeOf({size}), element);
  Value result = generic(
      b, loc, {}, {}, type,
      [&](OpBuilder &nb, Location l, ValueRange) -> Value {
        Value i = arith::IndexCastOp::create(nb, l, i64,
                                             linalg::IndexOp::create(nb, l, 0));
        // 2 pi i / denominator, times k for each term.
        Value angle = arith::DivFOp::create(
            nb, l,
            arith::MulFOp::create(nb, l, scalar(nb, l, f64, 2.0 * M_PI),
                                  arith::SIToFPOp::create(nb, l, f64, i)),
            denominator);
        Value v = scalar(nb, l, f64, coefficients[0]);
        for (size_t k = 1; k < coefficients.size(); ++k) {
          Value term = arith::MulFOp::create(
              nb, l, scalar(nb, l, f64, coefficients[k]),
              math::CosOp::create(
                  nb, l,
                  arith::MulFOp::create(nb, l, scalar(nb, l, f64, k), angle)));
          v = (k % 2) ? arith::SubFOp::create(nb, l, v, term).getResult()
                      : arith::AddFOp::create(nb, l, v, term).getResult();
        }
        return convertScalar(nb, l, v, element);
      },
      {size});
  return n.replace(result);
}

/// Hann, Hamming and Blackman windows: each value the sum over k of
/// (-1)^k coefficients[k] cos(2 pi k i / N), N the size (less one unless
/// periodic).
LogicalResult lowerWindow(Node &n, ArrayRef<double> coefficients) {
  bool periodic = n.intAttr("periodic", 1) != 0;
  Type element = n.b.getF32Type();
  switch (n.intAttr("output_datatype", 1)) {
  case 1:
    break;
  case 11:
    element = n.b.getF64Type();
    break;
  case 10:
    element = n.b.getF16Type();
    break;
  default:
    return n.fail("output_datatype is not supported");
  }
  if (!n.constant(0)) {
    return lowerDynamicWindow(n, coefficients, periodic, element);
  }
  FailureOr<int64_t> size = n.constInt(0, "size");
  if (failed(size)) {
    return failure();
  }
  int64_t count = *size;
  // Its values are computed here, one by one.
  if (count < 1 || count > kFoldLimit) {
    return n.fail("size " + llvm::Twine(count) +
                  " is not a window size from 1 to " + llvm::Twine(kFoldLimit));
  }
  double denominator = periodic ? count : count - 1;
  SmallVector<Attribute> values;
  for (int64_t i = 0; i < count; ++i) {
    double v = 0;
    for (auto [k, c] : llvm::enumerate(coefficients)) {
      double term = c * std::cos(2.0 * M_PI * k * i / denominator);
      v += (k % 2) ? -term : term;
    }
    values.push_back(n.b.getFloatAttr(element, v));
  }
  return n.replace(constant(
      n.b, n.loc,
      DenseElementsAttr::get(RankedTensorType::get({count}, element), values)));
}

/// The training optimizers: inputs R (rate), T (step), then the groups of
/// tensors (X..., G..., V..., H...) of `groups` kinds; outputs the updated
/// kinds after X.
LogicalResult lowerOptimizer(Node &n, StringRef kind) {
  unsigned groups = kind == "Adam" ? 4 : 3;
  unsigned count = (n.numInputs() - 2) / groups;
  if (count == 0 || (n.numInputs() - 2) % groups != 0) {
    return n.fail("expects R, T and " + llvm::Twine(groups) +
                  " groups of tensors");
  }
  // R and T are scalars; each group's tensors have its X's shape and
  // floating-point type (the updates below broadcast them elementwise).
  for (unsigned i = 0; i < n.numInputs(); ++i) {
    if (!n.has(i)) {
      return n.fail("input " + llvm::Twine(i) + " is missing");
    }
  }
  if (n.rank(0) != 0 || n.rank(1) != 0 || !isFloat(n.elem(0)) ||
      !n.elem(1).isInteger()) {
    return n.fail("R must be a floating-point scalar and T an integer "
                  "scalar");
  }
  for (unsigned i = 0; i < count; ++i) {
    for (unsigned g = 0; g < groups; ++g) {
      unsigned j = 2 + g * count + i;
      if (n.shape(j) != n.shape(2 + i) || n.elem(j) != n.elem(2 + i) ||
          !isFloat(n.elem(j))) {
        return n.fail("input " + llvm::Twine(j) +
                      " does not have the "
                      "floating-point type and shape of input " +
                      llvm::Twine(2 + i));
      }
    }
  }
  OpBuilder &b = n.b;
  Location loc = n.loc;
  double norm = n.floatAttr("norm_coefficient", 0.0);
  SmallVector<Value> outs(n.numOutputs());
  for (unsigned i = 0; i < count; ++i) {
    unsigned xi = 2 + i, gi = 2 + count + i, vi = 2 + 2 * count + i,
             hi = 2 + 3 * count + i;
    Type element = n.elem(xi);
    ArrayRef<int64_t> shape = n.shape(xi);
    Value r = n.in(0), t = n.in(1);
    auto regularized = [&](OpBuilder &nb, Location l, Value x, Value g) {
      return arith::AddFOp::create(
          nb, l, arith::MulFOp::create(nb, l, scalar(nb, l, element, norm), x),
          g);
    };
    auto stepAsFloat = [&](OpBuilder &nb, Location l, Value tv) {
      return convertScalar(nb, l, tv, element);
    };
    if (kind == "Adagrad") {
      double decay = n.floatAttr("decay_factor", 0.0);
      double epsilon = n.floatAttr("epsilon", 0.0);
      Value hNew = elementwise(
          b, loc, {n.in(xi), n.in(gi), n.in(vi)}, shape, element,
          [&](OpBuilder &nb, Location l, ValueRange a) -> Value {
            Value g = regularized(nb, l, a[0], a[1]);
            return arith::AddFOp::create(nb, l, a[2],
                                         arith::MulFOp::create(nb, l, g, g));
          });
      Value xNew = elementwise(
          b, loc, {r, t, n.in(xi), n.in(gi), hNew}, shape, element,
          [&](OpBuilder &nb, Location l, ValueRange a) -> Value {
            Value rate = arith::DivFOp::create(
                nb, l, a[0],
                arith::AddFOp::create(
                    nb, l, scalar(nb, l, element, 1.0),
                    arith::MulFOp::create(nb, l, stepAsFloat(nb, l, a[1]),
                                          scalar(nb, l, element, decay))));
            Value g = regularized(nb, l, a[2], a[3]);
            Value adaptive = arith::AddFOp::create(
                nb, l, math::SqrtOp::create(nb, l, a[4]),
                scalar(nb, l, element, epsilon));
            return arith::SubFOp::create(
                nb, l, a[2],
                arith::MulFOp::create(nb, l, rate,
                                      arith::DivFOp::create(nb, l, g, adaptive)));
          });
      outs[i] = xNew;
      if (count + i < outs.size()) {
        outs[count + i] = hNew;
      }
      continue;
    }
    if (kind == "Momentum") {
      double alpha = n.floatAttr("alpha", 0.0), beta = n.floatAttr("beta", 0.0);
      bool nesterov = n.stringAttr("mode").value_or("standard") == "nesterov";
      Value vNew = elementwise(
          b, loc, {t, n.in(xi), n.in(gi), n.in(vi)}, shape, element,
          [&](OpBuilder &nb, Location l, ValueRange a) -> Value {
            Value g = regularized(nb, l, a[1], a[2]);
            Value first = arith::CmpIOp::create(
                nb, l, arith::CmpIPredicate::sgt, a[0],
                scalar(nb, l, a[0].getType(), 0));
            Value betaAdjusted = arith::SelectOp::create(
                nb, l, first, scalar(nb, l, element, beta),
                scalar(nb, l, element, 1.0));
            return arith::AddFOp::create(
                nb, l, arith::MulFOp::create(nb, l, scalar(nb, l, element, alpha),
                                             a[3]),
                arith::MulFOp::create(nb, l, betaAdjusted, g));
          });
      Value xNew = elementwise(
          b, loc, {r, n.in(xi), n.in(gi), vNew}, shape, element,
          [&](OpBuilder &nb, Location l, ValueRange a) -> Value {
            Value step = a[3];
            if (nesterov) {
              step = arith::AddFOp::create(
                  nb, l, regularized(nb, l, a[1], a[2]),
                  arith::MulFOp::create(nb, l, scalar(nb, l, element, alpha),
                                        a[3]));
            }
            return arith::SubFOp::create(nb, l, a[1],
                                         arith::MulFOp::create(nb, l, a[0], step));
          });
      outs[i] = xNew;
      if (count + i < outs.size()) {
        outs[count + i] = vNew;
      }
      continue;
    }
    // Adam.
    double alpha = n.floatAttr("alpha", 0.9), beta = n.floatAttr("beta", 0.999);
    double epsilon = n.floatAttr("epsilon", 1e-6);
    double post = n.floatAttr("norm_coefficient_post", 0.0);
    Value vNew = elementwise(
        b, loc, {n.in(xi), n.in(gi), n.in(vi)}, shape, element,
        [&](OpBuilder &nb, Location l, ValueRange a) -> Value {
          Value g = regularized(nb, l, a[0], a[1]);
          return arith::AddFOp::create(
              nb, l,
              arith::MulFOp::create(nb, l, scalar(nb, l, element, alpha), a[2]),
              arith::MulFOp::create(nb, l, scalar(nb, l, element, 1 - alpha),
                                    g));
        });
    Value hNew = elementwise(
        b, loc, {n.in(xi), n.in(gi), n.in(hi)}, shape, element,
        [&](OpBuilder &nb, Location l, ValueRange a) -> Value {
          Value g = regularized(nb, l, a[0], a[1]);
          return arith::AddFOp::create(
              nb, l,
              arith::MulFOp::create(nb, l, scalar(nb, l, element, beta), a[2]),
              arith::MulFOp::create(nb, l, scalar(nb, l, element, 1 - beta),
                                    arith::MulFOp::create(nb, l, g, g)));
        });
    Value xNew = elementwise(
        b, loc, {r, t, n.in(xi), vNew, hNew}, shape, element,
        [&](OpBuilder &nb, Location l, ValueRange a) -> Value {
          Value tf = stepAsFloat(nb, l, a[1]);
          auto powOf = [&](double base) {
            // base^T = exp(T log(base)).
            return expOf(nb, l,
                         arith::MulFOp::create(nb, l, tf,
                                               scalar(nb, l, element,
                                                      std::log(base))));
          };
          Value one = scalar(nb, l, element, 1.0);
          Value adjusted = arith::DivFOp::create(
              nb, l,
              arith::MulFOp::create(
                  nb, l, a[0],
                  math::SqrtOp::create(
                      nb, l, arith::SubFOp::create(nb, l, one, powOf(beta)))),
              arith::SubFOp::create(nb, l, one, powOf(alpha)));
          Value first = arith::CmpIOp::create(nb, l, arith::CmpIPredicate::sgt,
                                              a[1],
                                              scalar(nb, l, a[1].getType(), 0));
          Value rate = arith::SelectOp::create(nb, l, first, adjusted, a[0]);
          Value h = arith::AddFOp::create(nb, l,
                                          math::SqrtOp::create(nb, l, a[4]),
                                          scalar(nb, l, element, epsilon));
          Value x = arith::SubFOp::create(
              nb, l, a[2],
              arith::MulFOp::create(nb, l, rate,
                                    arith::DivFOp::create(nb, l, a[3], h)));
          return arith::MulFOp::create(nb, l, scalar(nb, l, element, 1 - post),
                                       x);
        });
    outs[i] = xNew;
    if (count + i < outs.size()) {
      outs[count + i] = vNew;
    }
    if (2 * count + i < outs.size()) {
      outs[2 * count + i] = hNew;
    }
  }
  return n.replace(outs);
}

/// DFT (opsets 17 and 20): the naive O(n^2) transform as one contraction
/// with twiddle factors made at compile time. The input (..., 1) is real,
/// (..., 2) complex; the axis (an attribute at 17, default 1; a constant
/// input at 20, default -2) and `dft_length` (default: the axis' size;
/// the signal is cut or zero-padded to it) must be constants. The result
/// is complex (..., 2): X[k] = sum_t x[t] e^(-+2 pi i k t / n), divided by
/// n when inverse, k < n (n / 2 + 1 when onesided).
LogicalResult lowerDFT(Node &n) {
  int64_t rank = n.rank(0);
  Type element = n.elem(0);
  if (!isFloat(element)) {
    return n.fail("the input must be a float tensor; it is " +
                  typeText(n.type(0)));
  }
  int64_t parts = n.shape(0)[rank - 1];
  if (rank < 2 || (parts != 1 && parts != 2)) {
    return n.fail("the input's last dimension must be 1 (real) or 2 "
                  "(complex); the input is " +
                  typeText(n.type(0)));
  }
  int64_t axis = 1;
  if (n.opset() >= 20) {
    axis = -2;
    if (n.has(2)) {
      FailureOr<int64_t> value = n.constInt(2, "axis");
      if (failed(value)) {
        return failure();
      }
      axis = *value;
    }
  } else {
    axis = n.intAttr("axis", 1);
  }
  int64_t normalized = axis < 0 ? axis + rank : axis;
  if (normalized < 0 || normalized > rank - 2) {
    return n.fail("axis " + llvm::Twine(axis) + " is outside [-" +
                  llvm::Twine(rank) + ", -2] and [0, " + llvm::Twine(rank - 2) +
                  "]");
  }
  axis = normalized;
  int64_t inverse = n.intAttr("inverse", 0);
  int64_t onesided = n.intAttr("onesided", 0);
  if ((inverse != 0 && inverse != 1) || (onesided != 0 && onesided != 1)) {
    return n.fail("inverse and onesided must be 0 or 1");
  }
  if (inverse && onesided) {
    return n.fail("onesided = 1 with inverse = 1 (a one-sided inverse "
                  "transform) is not supported");
  }
  int64_t length = n.shape(0)[axis];
  if (n.has(1)) {
    FailureOr<int64_t> value = n.constInt(1, "dft_length");
    if (failed(value)) {
      return failure();
    }
    if (*value < 1) {
      return n.fail("dft_length " + llvm::Twine(*value) + " is not positive");
    }
    length = *value;
  }
  if (length < 1) {
    return n.fail("the transform's length is 0 (an empty axis " +
                  llvm::Twine(axis) + " and no dft_length)");
  }
  int64_t bins = onesided ? length / 2 + 1 : length;
  if (length > kFoldLimit || bins * length * parts * 2 > kFoldLimit) {
    return n.fail("a transform of length " + llvm::Twine(length) +
                  " needs more twiddle factors than this naive DFT's "
                  "constant holds (" +
                  llvm::Twine(kFoldLimit) + ")");
  }
  OpBuilder &b = n.b;
  Location loc = n.loc;
  MLIRContext *context = b.getContext();
  // The signal cut or zero-padded to `length` along the axis.
  Value x = n.in(0);
  SmallVector<int64_t> inShape(n.shape(0));
  if (inShape[axis] > length) {
    SmallVector<int64_t> offsets(rank, 0), sizes(inShape), ones(rank, 1);
    sizes[axis] = length;
    x = slice(b, loc, x, offsets, sizes, ones);
    inShape[axis] = length;
  } else if (inShape[axis] < length) {
    SmallVector<int64_t> padded(inShape), zeros(rank, 0), ones(rank, 1);
    padded[axis] = length;
    x = tensor::InsertSliceOp::create(
        b, loc, x, filled(b, loc, padded, scalar(b, loc, element, 0)),
        getAsIndexOpFoldResult(context, zeros),
        getAsIndexOpFoldResult(context, inShape),
        getAsIndexOpFoldResult(context, ones));
    inShape[axis] = length;
  }
  SmallVector<int64_t> shape(inShape);
  shape[axis] = bins;
  shape[rank - 1] = 2;
  if (failed(n.checkShape(shape, element, "the result"))) {
    return failure();
  }
  // w[k, t, c, r]: what part c of x[t] adds to part r of X[k].
  double sign = inverse ? -1.0 : 1.0;
  double scale = inverse ? 1.0 / double(length) : 1.0;
  SmallVector<Attribute> values;
  values.reserve(bins * length * parts * 2);
  for (int64_t k = 0; k < bins; ++k) {
    for (int64_t t = 0; t < length; ++t) {
      // The angle from (k * t) mod n keeps it small and exact (k and t are
      // below 2^20 here).
      int64_t turn = k * t % length;
      double angle = 2.0 * M_PI * double(turn) / double(length);
      double c = std::cos(angle) * scale, s = std::sin(angle) * scale;
      // real: a cos + sign b sin; imaginary: b cos - sign a sin.
      values.push_back(FloatAttr::get(element, c));
      values.push_back(FloatAttr::get(element, -sign * s));
      if (parts == 2) {
        values.push_back(FloatAttr::get(element, sign * s));
        values.push_back(FloatAttr::get(element, c));
      }
    }
  }
  Value twiddles = constant(
      b, loc,
      DenseElementsAttr::get(
          RankedTensorType::get({bins, length, parts, 2}, element), values));
  // Loops: the result's dims (parallel), then t and c (reduced).
  unsigned loops = rank + 2;
  auto dim = [&](int64_t d) { return b.getAffineDimExpr(d); };
  SmallVector<AffineExpr> xExprs, outExprs;
  for (int64_t d = 0; d < rank; ++d) {
    outExprs.push_back(dim(d));
    xExprs.push_back(d == axis       ? dim(rank)
                     : d == rank - 1 ? dim(rank + 1)
                                     : dim(d));
  }
  SmallVector<AffineExpr> wExprs = {dim(axis), dim(rank), dim(rank + 1),
                                    dim(rank - 1)};
  SmallVector<utils::IteratorType> iterators(rank,
                                             utils::IteratorType::parallel);
  iterators.append(2, utils::IteratorType::reduction);
  Value init = filled(b, loc, shape, scalar(b, loc, element, 0));
  Value result =
      linalg::GenericOp::create(b, loc, TypeRange{init.getType()},
                                ValueRange{x, twiddles}, ValueRange{init},
                                {AffineMap::get(loops, 0, xExprs, context),
                                 AffineMap::get(loops, 0, wExprs, context),
                                 AffineMap::get(loops, 0, outExprs, context)},
                                iterators, yieldFloatMulAdd)
          ->getResult(0);
  return n.replace(result);
}

} // namespace

void mlir::strata::onnx::addMiscLowerings(LoweringTable &table) {
  table["OneHot"] = lowerOneHot;
  table["DFT"] = lowerDFT;
  table.allowDynamic({"OneHot", "Compress"});
  table["Compress"] = lowerCompress;
  table["Einsum"] = lowerEinsum;
  table["LRN"] = lowerLRN;
  table["MeanVarianceNormalization"] = lowerMVN;
  table["ReverseSequence"] = lowerReverseSequence;
  table["ScatterElements"] = lowerScatterElements;
  table["Scatter"] = lowerScatterElements;
  table["ScatterND"] = lowerScatterND;
  table["HannWindow"] = [](Node &n) { return lowerWindow(n, {0.5, 0.5}); };
  table["HammingWindow"] = [](Node &n) {
    return lowerWindow(n, {25.0 / 46.0, 21.0 / 46.0});
  };
  table["BlackmanWindow"] = [](Node &n) {
    return lowerWindow(n, {0.42, 0.5, 0.08});
  };
  for (StringRef kind : {"Adagrad", "Momentum", "Adam"}) {
    table[("ai.onnx.preview.training." + kind).str()] = [kind](Node &n) {
      return lowerOptimizer(n, kind);
    };
  }
}
