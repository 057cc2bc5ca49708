// ShapeOps.cpp - ONNX's data movement and shape op types (Constant, Shape,
// Reshape, Transpose, Concat, Split, Slice, Gather, Expand, Tile, Pad,
// ...): host reshapes, slices and transposes, gathers as linalg.generic,
// all folded when their inputs are constants (shape subgraphs).

#include "Lowering.h"

#include "mlir/IR/Matchers.h"

using namespace mlir;
using namespace mlir::strata;
using namespace mlir::strata::onnx;

namespace {

Value indexValue(OpBuilder &b, Location loc, Value value) {
  if (value.getType().isIndex()) {
    return value;
  }
  return arith::IndexCastOp::create(b, loc, b.getIndexType(), value);
}

/// A linalg.generic of `type` whose element at each index is `source` at
/// the index `indexOf` computes from the output index (tensor.extract).
Value gatherGeneric(OpBuilder &b, Location loc, Value source,
                    ValueRange inputs, ArrayRef<AffineMap> inputMaps,
                    RankedTensorType type,
                    function_ref<SmallVector<Value>(OpBuilder &, Location,
                                                    ValueRange outIndex,
                                                    ValueRange inputs)>
                        indexOf) {
  return generic(
      b, loc, inputs, inputMaps, type,
      [&](OpBuilder &nb, Location l, ValueRange args) -> Value {
        SmallVector<Value> outIndex;
        for (int64_t d = 0; d < type.getRank(); ++d) {
          outIndex.push_back(linalg::IndexOp::create(nb, l, d));
        }
        SmallVector<Value> at = indexOf(nb, l, outIndex, args);
        return tensor::ExtractOp::create(nb, l, source, at);
      });
}

LogicalResult lowerReshapeTo(Node &n, ArrayRef<int64_t> shape) {
  return n.replace(reshape(n.b, n.loc, n.in(0), shape), {n.isUnsigned(0)});
}

/// Reshape to a shape with run-time elements or of an input with dynamic
/// dimensions: each result dimension computed on the host with ONNX's rules
/// (0 copies the input's unless allowzero, one -1 is inferred), and the
/// element counts compared at run time.
LogicalResult lowerDynamicReshape(Node &n, ArrayRef<OpFoldResult> requested,
                                  bool allowZero) {
  OpBuilder &b = n.b;
  Location loc = n.loc;
  SmallVector<OpFoldResult> in = n.dims(0);
  OpFoldResult count = productOf(b, loc, in);
  Value zero = arith::ConstantIndexOp::create(b, loc, 0);
  SmallVector<OpFoldResult> shape;
  std::optional<size_t> inferred;
  SmallVector<size_t> runtime;
  for (auto [i, element] : llvm::enumerate(requested)) {
    if (std::optional<int64_t> dim = getConstantIntValue(element)) {
      if (*dim == -1) {
        if (inferred) {
          return n.fail("the shape has more than one -1");
        }
        inferred = i;
        shape.push_back(b.getIndexAttr(1));
        continue;
      }
      if (*dim == 0 && !allowZero) {
        if (i >= in.size()) {
          return n.fail("shape copies dimension " + llvm::Twine(i) +
                        " of a rank-" + llvm::Twine(in.size()) + " input");
        }
        shape.push_back(in[i]);
        continue;
      }
      if (*dim < 0) {
        return n.fail("the shape has a negative dimension " +
                      llvm::Twine(*dim));
      }
      shape.push_back(element);
      continue;
    }
    Value dim = cast<Value>(element);
    if (dimIndexOf(dim, n.in(0)) == static_cast<int64_t>(i)) {
      // The input's own dimension i (Gather of its Shape): kept as it is.
      shape.push_back(in[i]);
      continue;
    }
    if (!allowZero && i < in.size()) {
      Value isZero =
          arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, dim, zero);
      dim = arith::SelectOp::create(b, loc, isZero, indexValueOf(b, loc, in[i]),
                                    dim);
    }
    runtime.push_back(i);
    shape.push_back(dim);
  }
  // Run-time elements: each at least -1; without a constant -1, one of them
  // may be -1 and is inferred from the others.
  Value minusOne = arith::ConstantIndexOp::create(b, loc, -1);
  for (size_t i : runtime) {
    Value dim = cast<Value>(shape[i]);
    n.check(arith::CmpIOp::create(b, loc, arith::CmpIPredicate::sge, dim,
                                  inferred ? zero : minusOne),
            "element " + llvm::Twine(i) + " of the shape is " +
                (inferred ? "negative" : "below -1") + " at run time" +
                (inferred ? " (the shape has a constant -1 already)" : ""));
  }
  if (!inferred && !runtime.empty()) {
    Value one = arith::ConstantIndexOp::create(b, loc, 1);
    Value minusOnes = zero;
    SmallVector<Value> isMinusOne(shape.size());
    SmallVector<OpFoldResult> factors;
    for (auto [i, size] : llvm::enumerate(shape)) {
      auto value = dyn_cast<Value>(size);
      if (!value || !llvm::is_contained(runtime, i)) {
        factors.push_back(size);
        continue;
      }
      isMinusOne[i] = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq,
                                            value, minusOne);
      minusOnes = arith::AddIOp::create(
          b, loc, minusOnes,
          arith::SelectOp::create(b, loc, isMinusOne[i], one, zero));
      factors.push_back(
          arith::SelectOp::create(b, loc, isMinusOne[i], one, value)
              .getResult());
    }
    n.check(arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ule, minusOnes,
                                  one),
            "the shape has more than one -1 at run time");
    Value product = indexValueOf(b, loc, productOf(b, loc, factors));
    Value isZero =
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, product, zero);
    Value divisor = arith::SelectOp::create(b, loc, isZero, one, product);
    Value quotient =
        arith::DivUIOp::create(b, loc, indexValueOf(b, loc, count), divisor);
    for (size_t i : runtime) {
      shape[i] = arith::SelectOp::create(b, loc, isMinusOne[i], quotient,
                                         cast<Value>(shape[i]))
                     .getResult();
    }
  }
  OpFoldResult known = productOf(b, loc, shape);
  if (inferred) {
    // The input's dimensions that reappear in the shape cancel, so the
    // inferred one is static whenever the rest is ([S, 4, 64] -> [S, -1]).
    SmallVector<bool> used(in.size(), false);
    SmallVector<OpFoldResult> uncancelled;
    for (auto [i, size] : llvm::enumerate(shape)) {
      if (i == *inferred) {
        continue;
      }
      std::optional<int64_t> match;
      if (auto value = dyn_cast<Value>(size)) {
        match = dimIndexOf(value, n.in(0));
      } else {
        std::optional<int64_t> c = getConstantIntValue(size);
        for (auto [j, dim] : llvm::enumerate(n.shape(0))) {
          if (!used[j] && c && dim == *c) {
            match = j;
            break;
          }
        }
      }
      if (match && *match < static_cast<int64_t>(in.size()) && !used[*match]) {
        used[*match] = true;
        continue;
      }
      uncancelled.push_back(size);
    }
    SmallVector<OpFoldResult> others;
    for (auto [j, dim] : llvm::enumerate(in)) {
      if (!used[j]) {
        others.push_back(dim);
      }
    }
    if (uncancelled.empty()) {
      shape[*inferred] = productOf(b, loc, others);
      if (failed(n.checkShape(staticShapeOf(shape), n.elem(0), "the result"))) {
        return failure();
      }
      return n.replace(reshapeTo(b, loc, n.in(0), shape), {n.isUnsigned(0)});
    }
    Value knownValue = indexValueOf(b, loc, known);
    Value countValue = indexValueOf(b, loc, count);
    Value isZero = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq,
                                         knownValue, zero);
    Value one = arith::ConstantIndexOp::create(b, loc, 1);
    Value divisor = arith::SelectOp::create(b, loc, isZero, one, knownValue);
    Value rest = arith::RemUIOp::create(b, loc, countValue, divisor);
    n.check(arith::AndIOp::create(
                b, loc,
                arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ne,
                                      knownValue, zero),
                arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, rest,
                                      zero)),
            "cannot infer the -1 dimension: the input's element count is "
            "not a multiple of the other dimensions' product");
    OpFoldResult quotient =
        arith::DivUIOp::create(b, loc, countValue, divisor).getResult();
    if (Attribute folded = foldHostScalar(cast<Value>(quotient))) {
      quotient = folded;
    }
    shape[*inferred] = quotient;
  } else {
    n.check(arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq,
                                  indexValueOf(b, loc, known),
                                  indexValueOf(b, loc, count)),
            "the shape's element count differs from the input's at run "
            "time");
  }
  if (failed(n.checkShape(staticShapeOf(shape), n.elem(0), "the result"))) {
    return failure();
  }
  return n.replace(reshapeTo(b, loc, n.in(0), shape), {n.isUnsigned(0)});
}

LogicalResult lowerReshape(Node &n) {
  SmallVector<int64_t> requested;
  bool allowZero = n.intAttr("allowzero", 0) != 0;
  if (n.opset() < 5) {
    requested = n.intsAttr("shape").value_or(SmallVector<int64_t>{});
  } else {
    FailureOr<SmallVector<OpFoldResult>> shape = n.hostInts(1, "shape");
    if (failed(shape)) {
      return failure();
    }
    bool known = llvm::all_of(
        *shape, [](OpFoldResult element) { return isa<Attribute>(element); });
    if (!known || !n.type(0).hasStaticShape()) {
      return lowerDynamicReshape(n, *shape, allowZero);
    }
    for (OpFoldResult element : *shape) {
      requested.push_back(*getConstantIntValue(element));
    }
  }
  if (!n.type(0).hasStaticShape()) {
    SmallVector<OpFoldResult> shape;
    for (int64_t dim : requested) {
      shape.push_back(n.b.getIndexAttr(dim));
    }
    return lowerDynamicReshape(n, shape, allowZero);
  }
  ArrayRef<int64_t> in = n.shape(0);
  int64_t count = n.type(0).getNumElements();
  int64_t known = 1;
  int64_t inferred = -1;
  SmallVector<int64_t> shape;
  for (auto [i, dim] : llvm::enumerate(requested)) {
    if (dim == 0 && !allowZero) {
      if (i >= in.size()) {
        return n.fail("shape copies dimension " + llvm::Twine(i) +
                      " of a rank-" + llvm::Twine(in.size()) + " input");
      }
      dim = in[i];
    }
    if (dim == -1) {
      if (inferred >= 0) {
        return n.fail("the shape has more than one -1");
      }
      inferred = i;
      shape.push_back(1);
      continue;
    }
    if (dim < 0) {
      return n.fail("the shape has a negative dimension " + llvm::Twine(dim));
    }
    if (__builtin_mul_overflow(known, dim, &known)) {
      return n.fail("the shape's element count overflows a 64-bit integer");
    }
    shape.push_back(dim);
  }
  if (inferred >= 0) {
    if (known == 0 || count % known != 0) {
      return n.fail("cannot infer the -1 dimension");
    }
    shape[inferred] = count / known;
    known *= shape[inferred];
  }
  if (known != count) {
    return n.fail("the shape holds " + llvm::Twine(known) +
                  " elements, the input " + llvm::Twine(count));
  }
  return lowerReshapeTo(n, shape);
}

FailureOr<SmallVector<int64_t>> axesInput(Node &n, unsigned input,
                                          int64_t rank) {
  SmallVector<int64_t> axes;
  if (n.opset() >= 13) {
    if (n.has(input)) {
      FailureOr<SmallVector<int64_t>> values = n.constInts(input, "axes");
      if (failed(values)) {
        return failure();
      }
      axes = *values;
    }
  } else {
    axes = n.intsAttr("axes").value_or(SmallVector<int64_t>{});
  }
  if (failed(n.normalizeAxes(axes, rank))) {
    return failure();
  }
  return axes;
}

/// Squeeze with run-time axes: the result's rank is the input's less the
/// number of axes; each listed dimension is checked to be 1 at run time,
/// and each result dimension is the next one not listed, chosen on the
/// host.
LogicalResult lowerRuntimeSqueeze(Node &n) {
  OpBuilder &b = n.b;
  Location loc = n.loc;
  int64_t rank = n.rank(0);
  FailureOr<SmallVector<OpFoldResult>> axes = n.hostAxes(1, rank, "axes");
  if (failed(axes)) {
    return failure();
  }
  int64_t count = axes->size();
  if (count > rank) {
    return n.fail("axes lists " + llvm::Twine(count) + " axes of a rank-" +
                  llvm::Twine(rank) + " input");
  }
  Value one = arith::ConstantIndexOp::create(b, loc, 1);
  Value trueValue = arith::ConstantIntOp::create(b, loc, 1, 1);
  // kept[d]: how many dimensions before d stay.
  SmallVector<Value> listed;
  SmallVector<OpFoldResult> kept;
  OpFoldResult keptSoFar = b.getIndexAttr(0);
  for (int64_t d = 0; d < rank; ++d) {
    listed.push_back(isListedAxis(b, loc, *axes, d));
    kept.push_back(keptSoFar);
    keptSoFar = addSizes(
        b, loc, keptSoFar,
        selectSize(b, loc, listed[d], b.getIndexAttr(0), b.getIndexAttr(1)));
    if (n.shape(0)[d] == 1) {
      continue;
    }
    Value isOne = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq,
                                        indexValueOf(b, loc, n.dim(0, d)), one);
    Value notListed = arith::XOrIOp::create(b, loc, listed[d], trueValue);
    n.check(arith::OrIOp::create(b, loc, notListed, isOne),
            "cannot squeeze dimension " + llvm::Twine(d) +
                ", which is not 1, at run time");
  }
  SmallVector<OpFoldResult> shape;
  for (int64_t o = 0; o < rank - count; ++o) {
    // Result dimension o is input dimension d in [o, o + count]: the one
    // not listed with o kept before it.
    OpFoldResult size = b.getIndexAttr(1);
    for (int64_t d = std::min(o + count, rank - 1); d >= o; --d) {
      Value here = arith::AndIOp::create(
          b, loc, arith::XOrIOp::create(b, loc, listed[d], trueValue),
          compareSizes(b, loc, arith::CmpIPredicate::eq, kept[d],
                       b.getIndexAttr(o)));
      size = selectSize(b, loc, here, n.dim(0, d), size);
    }
    shape.push_back(size);
  }
  return n.replace(reshapeTo(b, loc, n.in(0), shape), {n.isUnsigned(0)});
}

LogicalResult lowerSqueeze(Node &n) {
  if (n.opset() >= 13 && n.has(1) && !n.constant(1)) {
    return lowerRuntimeSqueeze(n);
  }
  FailureOr<SmallVector<int64_t>> axes = axesInput(n, 1, n.rank(0));
  if (failed(axes)) {
    return failure();
  }
  SmallVector<OpFoldResult> shape;
  for (auto [d, dim] : llvm::enumerate(n.shape(0))) {
    bool listed = llvm::is_contained(*axes, static_cast<int64_t>(d));
    if (listed && ShapedType::isDynamic(dim)) {
      // A listed dynamic dimension must be 1 when the call runs.
      Value size = indexValueOf(n.b, n.loc, n.dim(0, d));
      Value one = arith::ConstantIndexOp::create(n.b, n.loc, 1);
      n.check(arith::CmpIOp::create(n.b, n.loc, arith::CmpIPredicate::eq, size,
                                    one),
              "cannot squeeze dimension " + llvm::Twine(d) +
                  ", which is not 1 at run time");
      continue;
    }
    if (listed && dim != 1) {
      return n.fail("cannot squeeze dimension " + llvm::Twine(d) +
                    " of size " + llvm::Twine(dim));
    }
    // Without axes, a dynamic dimension stays (its size is not known to be
    // 1 here).
    if (listed || (axes->empty() && dim == 1)) {
      continue;
    }
    shape.push_back(n.dim(0, d));
  }
  return n.replace(reshapeTo(n.b, n.loc, n.in(0), shape), {n.isUnsigned(0)});
}

/// Unsqueeze with run-time axes: the result's rank is the input's plus the
/// number of axes; each result dimension is 1 where an axis lists it, else
/// the next input dimension, chosen on the host.
LogicalResult lowerRuntimeUnsqueeze(Node &n) {
  OpBuilder &b = n.b;
  Location loc = n.loc;
  RankedTensorType axesType = n.type(1);
  if (!axesType.hasStaticShape()) {
    return n.fail("input 1 (axes) must have a static length; it is " +
                  typeText(axesType));
  }
  int64_t count = axesType.getNumElements();
  int64_t rank = n.rank(0) + count;
  FailureOr<SmallVector<OpFoldResult>> axes = n.hostAxes(1, rank, "axes");
  if (failed(axes)) {
    return failure();
  }
  SmallVector<OpFoldResult> shape;
  for (int64_t d = 0; d < rank; ++d) {
    // Input dimension d - (the axes below d), when d is not listed.
    OpFoldResult below = b.getIndexAttr(0);
    for (OpFoldResult axis : *axes) {
      below =
          addSizes(b, loc, below,
                   selectSize(b, loc,
                              compareSizes(b, loc, arith::CmpIPredicate::slt,
                                           axis, b.getIndexAttr(d)),
                              b.getIndexAttr(1), b.getIndexAttr(0)));
    }
    OpFoldResult source = subSizes(b, loc, b.getIndexAttr(d), below);
    OpFoldResult size = b.getIndexAttr(1);
    for (int64_t k = std::max<int64_t>(0, d - count);
         k <= std::min<int64_t>(d, n.rank(0) - 1); ++k) {
      size = selectSize(b, loc,
                        compareSizes(b, loc, arith::CmpIPredicate::eq, source,
                                     b.getIndexAttr(k)),
                        n.dim(0, k), size);
    }
    shape.push_back(selectSize(b, loc, isListedAxis(b, loc, *axes, d),
                               b.getIndexAttr(1), size));
  }
  return n.replace(reshapeTo(b, loc, n.in(0), shape), {n.isUnsigned(0)});
}

LogicalResult lowerUnsqueeze(Node &n) {
  if (n.opset() >= 13 && !n.constant(1)) {
    return lowerRuntimeUnsqueeze(n);
  }
  SmallVector<int64_t> axes;
  if (n.opset() >= 13) {
    FailureOr<SmallVector<int64_t>> values = n.constInts(1, "axes");
    if (failed(values)) {
      return failure();
    }
    axes = *values;
  } else {
    axes = n.intsAttr("axes").value_or(SmallVector<int64_t>{});
  }
  // Each axis adds one dimension: a repeated axis would read past the
  // input's shape.
  int64_t rank = n.rank(0) + axes.size();
  if (failed(n.normalizeAxes(axes, rank))) {
    return failure();
  }
  SmallVector<OpFoldResult> shape;
  int64_t next = 0;
  for (int64_t d = 0; d < rank; ++d) {
    if (llvm::is_contained(axes, d)) {
      shape.push_back(n.b.getIndexAttr(1));
    } else {
      shape.push_back(n.dim(0, next++));
    }
  }
  return n.replace(reshapeTo(n.b, n.loc, n.in(0), shape), {n.isUnsigned(0)});
}

LogicalResult lowerFlatten(Node &n) {
  // Flatten's axis ranges over [-rank, rank].
  int64_t axisValue = n.intAttr("axis", 1);
  FailureOr<int64_t> axis =
      n.axis(axisValue < 0 ? axisValue + n.rank(0) : axisValue, n.rank(0) + 1);
  if (failed(axis)) {
    return failure();
  }
  SmallVector<OpFoldResult> dims = n.dims(0);
  OpFoldResult outer =
      productOf(n.b, n.loc, ArrayRef<OpFoldResult>(dims).take_front(*axis));
  OpFoldResult inner =
      productOf(n.b, n.loc, ArrayRef<OpFoldResult>(dims).drop_front(*axis));
  return n.replace(reshapeTo(n.b, n.loc, n.in(0), {outer, inner}),
                   {n.isUnsigned(0)});
}

LogicalResult lowerTranspose(Node &n) {
  SmallVector<int64_t> perm;
  if (std::optional<SmallVector<int64_t>> attr = n.intsAttr("perm")) {
    perm = *attr;
  } else {
    for (int64_t d = n.rank(0) - 1; d >= 0; --d) {
      perm.push_back(d);
    }
  }
  if (static_cast<int64_t>(perm.size()) != n.rank(0)) {
    return n.fail("perm has " + llvm::Twine(perm.size()) +
                  " entries for rank " + llvm::Twine(n.rank(0)));
  }
  SmallVector<bool> seen(perm.size(), false);
  for (int64_t p : perm) {
    if (p < 0 || p >= n.rank(0) || seen[p]) {
      return n.fail("perm is not a permutation of the " +
                    llvm::Twine(n.rank(0)) + " axes");
    }
    seen[p] = true;
  }
  return n.replace(transpose(n.b, n.loc, n.in(0), perm), {n.isUnsigned(0)});
}

LogicalResult lowerConcat(Node &n) {
  FailureOr<int64_t> axis = n.axis(n.intAttr("axis", 0), n.rank(0));
  if (failed(axis)) {
    return failure();
  }
  SmallVector<Value> inputs;
  for (unsigned i = 0; i < n.numInputs(); ++i) {
    if (!n.has(i)) {
      continue;
    }
    if (n.rank(i) != n.rank(0)) {
      return n.fail("the inputs have different ranks");
    }
    // Only the axis may differ: the fold of constant inputs reads each
    // by the result's index. A dynamic size is compared at run time.
    for (int64_t d = 0; d < n.rank(0); ++d) {
      if (d == *axis) {
        continue;
      }
      if (ShapedType::isDynamic(n.shape(i)[d]) ||
          ShapedType::isDynamic(n.shape(0)[d])) {
        n.check(arith::CmpIOp::create(n.b, n.loc, arith::CmpIPredicate::eq,
                                      indexValueOf(n.b, n.loc, n.dim(i, d)),
                                      indexValueOf(n.b, n.loc, n.dim(0, d))),
                "input " + llvm::Twine(i) +
                    " differs from input 0 in "
                    "dimension " +
                    llvm::Twine(d) +
                    " at run time; only the axis "
                    "may differ");
        continue;
      }
      if (n.shape(i)[d] != n.shape(0)[d]) {
        return n.fail("input " + llvm::Twine(i) + " has size " +
                      llvm::Twine(n.shape(i)[d]) + " in dimension " +
                      llvm::Twine(d) + ", input 0 " +
                      llvm::Twine(n.shape(0)[d]) +
                      "; only the axis may differ");
      }
    }
    // Empty inputs add nothing.
    if (n.type(i).hasStaticShape() && n.type(i).getNumElements() == 0 &&
        n.numInputs() > 1) {
      continue;
    }
    inputs.push_back(n.in(i));
  }
  if (inputs.empty()) {
    inputs.push_back(n.in(0));
  }
  return n.replace(concat(n.b, n.loc, inputs, *axis), {n.isUnsigned(0)});
}

/// `values` (constants) as index sizes.
SmallVector<OpFoldResult> indexSizes(OpBuilder &b, ArrayRef<int64_t> values) {
  SmallVector<OpFoldResult> sizes;
  for (int64_t v : values) {
    sizes.push_back(b.getIndexAttr(v));
  }
  return sizes;
}

/// Split with run-time sizes or of a dynamic dimension: each part's offset
/// and size computed on the host, the sizes checked at run time to be
/// non-negative and to add up to the dimension.
LogicalResult lowerDynamicSplit(Node &n, int64_t axis) {
  OpBuilder &b = n.b;
  Location loc = n.loc;
  OpFoldResult dim = n.dim(0, axis);
  SmallVector<OpFoldResult> sizes;
  bool given = false;
  if (n.opset() >= 13 && n.has(1)) {
    FailureOr<SmallVector<OpFoldResult>> values = n.hostInts(1, "split");
    if (failed(values)) {
      return failure();
    }
    sizes = *values;
    given = true;
  } else if (std::optional<SmallVector<int64_t>> attr = n.intsAttr("split");
             attr && n.opset() < 13) {
    sizes = indexSizes(b, *attr);
    given = true;
  } else {
    int64_t parts = n.intAttr("num_outputs", n.numOutputs());
    if (parts < 1 || parts != n.numOutputs()) {
      return n.fail("num_outputs " + llvm::Twine(parts) + " is not the " +
                    llvm::Twine(n.numOutputs()) + " outputs");
    }
    // ceil(dim / parts) each, the last ones what is left (none below 0).
    OpFoldResult part = simplifyHostScalar(arith::CeilDivUIOp::create(
        b, loc, indexValueOf(b, loc, dim),
        arith::ConstantIndexOp::create(b, loc, parts)));
    for (int64_t i = 0; i < parts; ++i) {
      OpFoldResult rest =
          subSizes(b, loc, dim, mulSizes(b, loc, part, b.getIndexAttr(i)));
      sizes.push_back(
          maxSizes(b, loc, b.getIndexAttr(0), minSizes(b, loc, part, rest)));
    }
  }
  if (sizes.size() != n.numOutputs()) {
    return n.fail("split has " + llvm::Twine(sizes.size()) + " sizes for " +
                  llvm::Twine(n.numOutputs()) + " outputs");
  }
  if (given) {
    // Checked before any slice is made of them: a negative size or a sum
    // other than the dimension would read outside the input.
    OpFoldResult total = b.getIndexAttr(0);
    for (auto [i, size] : llvm::enumerate(sizes)) {
      n.check(compareSizes(b, loc, arith::CmpIPredicate::sge, size,
                           b.getIndexAttr(0)),
              "split size " + llvm::Twine(i) + " is negative at run time");
      total = addSizes(b, loc, total, size);
    }
    n.check(compareSizes(b, loc, arith::CmpIPredicate::eq, total, dim),
            "the split sizes do not add up to dimension " + llvm::Twine(axis) +
                " at run time");
  }
  SmallVector<Value> results;
  OpFoldResult offset = b.getIndexAttr(0);
  int64_t rank = n.rank(0);
  SmallVector<OpFoldResult> offsets(rank, b.getIndexAttr(0));
  SmallVector<OpFoldResult> strides(rank, b.getIndexAttr(1));
  // A static 0 in the input's shape: every part is empty (the checks above
  // hold its sizes to 0 along the axis), and a slice of it at offset 0
  // would be out of bounds.
  bool empty = llvm::is_contained(n.shape(0), 0);
  for (OpFoldResult size : sizes) {
    SmallVector<OpFoldResult> shape = n.dims(0);
    shape[axis] = n.shape(0)[axis] == 0 ? b.getIndexAttr(0) : size;
    if (empty) {
      results.push_back(emptyTensor(b, loc, shape, n.elem(0)));
      continue;
    }
    offsets[axis] = offset;
    auto type = RankedTensorType::get(staticShapeOf(shape), n.elem(0));
    results.push_back(tensor::ExtractSliceOp::create(b, loc, type, n.in(0),
                                                     offsets, shape, strides));
    offset = addSizes(b, loc, offset, size);
  }
  return n.replace(results, SmallVector<bool>(results.size(), n.isUnsigned(0)));
}

LogicalResult lowerSplit(Node &n) {
  FailureOr<int64_t> axis = n.axis(n.intAttr("axis", 0), n.rank(0));
  if (failed(axis)) {
    return failure();
  }
  if (!n.type(0).hasStaticShape() ||
      (n.opset() >= 13 && n.has(1) && !n.constant(1))) {
    return lowerDynamicSplit(n, *axis);
  }
  int64_t dim = n.shape(0)[*axis];
  SmallVector<int64_t> sizes;
  if (n.opset() >= 13 && n.has(1)) {
    FailureOr<SmallVector<int64_t>> values = n.constInts(1, "split");
    if (failed(values)) {
      return failure();
    }
    sizes = *values;
  } else if (std::optional<SmallVector<int64_t>> attr = n.intsAttr("split");
             attr && n.opset() < 13) {
    sizes = *attr;
  } else {
    int64_t parts = n.intAttr("num_outputs", n.numOutputs());
    // A count of 0 divided by zero below; one beyond the outputs built
    // sizes until memory ran out.
    if (parts < 1 || parts != n.numOutputs()) {
      return n.fail("num_outputs " + llvm::Twine(parts) + " is not the " +
                    llvm::Twine(n.numOutputs()) + " outputs");
    }
    int64_t size = (dim + parts - 1) / parts;
    for (int64_t i = 0; i < parts; ++i) {
      sizes.push_back(std::max<int64_t>(0, std::min(size, dim - i * size)));
    }
  }
  if (sizes.size() != n.numOutputs()) {
    return n.fail("split has " + llvm::Twine(sizes.size()) + " sizes for " +
                  llvm::Twine(n.numOutputs()) + " outputs");
  }
  // Checked before any slice is made of them (a negative size made a
  // type with a negative dimension).
  int64_t total = 0;
  for (int64_t size : sizes) {
    if (size < 0 || __builtin_add_overflow(total, size, &total)) {
      return n.fail("the split sizes are negative or overflow");
    }
  }
  if (total != dim) {
    return n.fail("the split sizes add up to " + llvm::Twine(total) +
                  ", the dimension is " + llvm::Twine(dim));
  }
  SmallVector<Value> results;
  int64_t offset = 0;
  SmallVector<int64_t> offsets(n.rank(0), 0), strides(n.rank(0), 1);
  for (int64_t size : sizes) {
    SmallVector<int64_t> shape(n.shape(0));
    shape[*axis] = size;
    offsets[*axis] = offset;
    results.push_back(slice(n.b, n.loc, n.in(0), offsets, shape, strides));
    offset += size;
  }
  return n.replace(results,
                   SmallVector<bool>(results.size(), n.isUnsigned(0)));
}

/// A slice with run-time starts, ends, axes or steps, or of dynamic
/// dimensions: each dimension's start, end and step is the entry whose
/// (normalized) axis is that dimension, else the full range, chosen on the
/// host; each offset and size is computed there with ONNX's clamping. The
/// axes are normalized and distinct (Node::hostAxes). Positive constant
/// steps make a tensor.extract_slice; others (run-time or negative) a
/// gather reading in[start + i * step].
LogicalResult lowerDynamicSlice(Node &n, ArrayRef<OpFoldResult> starts,
                                ArrayRef<OpFoldResult> ends,
                                ArrayRef<OpFoldResult> axes,
                                ArrayRef<OpFoldResult> steps) {
  OpBuilder &b = n.b;
  Location loc = n.loc;
  int64_t rank = n.rank(0);
  // A host vector (a shape) sliced by constants keeps its elements.
  if (std::optional<SmallVector<OpFoldResult>> elements = hostElements(n.in(0));
      elements && rank == 1 && axes.size() == 1) {
    std::optional<int64_t> start = getConstantIntValue(starts[0]);
    std::optional<int64_t> end = getConstantIntValue(ends[0]);
    std::optional<int64_t> stepValue = getConstantIntValue(steps[0]);
    int64_t dim = elements->size();
    if (start && end && stepValue && *stepValue != 0) {
      int64_t step = *stepValue;
      int64_t s0 = *start < 0 ? *start + dim : *start;
      int64_t e0 = *end < 0 && *end > std::numeric_limits<int64_t>::min() / 2
                       ? *end + dim
                       : *end;
      SmallVector<OpFoldResult> picked;
      if (step > 0) {
        s0 = std::clamp<int64_t>(s0, 0, dim);
        e0 = std::clamp<int64_t>(e0, 0, dim);
        for (int64_t i = s0; i < e0; i += step) {
          picked.push_back((*elements)[i]);
        }
      } else {
        s0 = std::clamp<int64_t>(s0, 0, dim - 1);
        e0 = std::clamp<int64_t>(e0, -1, dim - 1);
        for (int64_t i = s0; i > e0; i += step) {
          picked.push_back((*elements)[i]);
        }
      }
      return n.replace(
          hostVector(b, loc,
                     RankedTensorType::get(
                         {static_cast<int64_t>(picked.size())}, n.elem(0)),
                     picked),
          {n.isUnsigned(0)});
    }
  }
  for (auto [j, step] : llvm::enumerate(steps)) {
    std::optional<int64_t> known = getConstantIntValue(step);
    if (known && *known == 0) {
      return n.fail("a step is 0");
    }
    if (!known) {
      n.check(compareSizes(b, loc, arith::CmpIPredicate::ne, step,
                           b.getIndexAttr(0)),
              "step " + llvm::Twine(j) + " is 0 at run time");
    }
  }
  SmallVector<OpFoldResult> offsets, sizes, strides;
  OpFoldResult zero = b.getIndexAttr(0);
  auto clamp = [&](OpFoldResult v, OpFoldResult lo, OpFoldResult hi) {
    return minSizes(b, loc, maxSizes(b, loc, v, lo), hi);
  };
  auto wrap = [&](OpFoldResult v, OpFoldResult dim) {
    return selectSize(b, loc,
                      compareSizes(b, loc, arith::CmpIPredicate::slt, v, zero),
                      addSizes(b, loc, v, dim), v);
  };
  bool gather = false;
  for (int64_t d = 0; d < rank; ++d) {
    OpFoldResult dim = n.dim(0, d);
    OpFoldResult start = valueForAxis(b, loc, axes, starts, d, zero);
    // Ends such as INT64_MAX saturate at the dimension; only negative
    // values are wrapped, so nothing overflows.
    OpFoldResult end = valueForAxis(b, loc, axes, ends, d, dim);
    OpFoldResult step = valueForAxis(b, loc, axes, steps, d, b.getIndexAttr(1));
    start = wrap(start, dim);
    end = wrap(end, dim);
    Value negative =
        compareSizes(b, loc, arith::CmpIPredicate::slt, step, zero);
    // A positive step clamps into [0, dim], a negative one into [0, dim -
    // 1] (start) and [-1, dim - 1] (end).
    OpFoldResult last = subSizes(b, loc, dim, b.getIndexAttr(1));
    start = selectSize(b, loc, negative, clamp(start, zero, last),
                       clamp(start, zero, dim));
    end = selectSize(b, loc, negative, clamp(end, b.getIndexAttr(-1), last),
                     clamp(end, zero, dim));
    OpFoldResult length =
        maxSizes(b, loc,
                 selectSize(b, loc, negative, subSizes(b, loc, start, end),
                            subSizes(b, loc, end, start)),
                 zero);
    // -step as unsigned: INT64_MIN's magnitude is 2^63.
    OpFoldResult magnitude =
        selectSize(b, loc, negative, subSizes(b, loc, zero, step), step);
    OpFoldResult size;
    std::optional<int64_t> l = getConstantIntValue(length);
    std::optional<int64_t> m = getConstantIntValue(magnitude);
    if (l && m) {
      size = b.getIndexAttr(static_cast<int64_t>(
          (static_cast<uint64_t>(*l) + static_cast<uint64_t>(*m) - 1) /
          static_cast<uint64_t>(*m)));
      if (*l == 0) {
        size = zero;
      }
    } else {
      size = simplifyHostScalar(
          arith::CeilDivUIOp::create(b, loc, indexValueOf(b, loc, length),
                                     indexValueOf(b, loc, magnitude)));
    }
    std::optional<int64_t> knownStep = getConstantIntValue(step);
    gather |= !knownStep || *knownStep < 0;
    offsets.push_back(start);
    sizes.push_back(size);
    strides.push_back(step);
  }
  SmallVector<int64_t> shape = staticShapeOf(sizes);
  if (failed(n.checkShape(shape, n.elem(0), "the result"))) {
    return failure();
  }
  auto resultType = RankedTensorType::get(shape, n.elem(0));
  if (!gather) {
    Value result = tensor::ExtractSliceOp::create(b, loc, resultType, n.in(0),
                                                  offsets, sizes, strides);
    return n.replace(result, {n.isUnsigned(0)});
  }
  SmallVector<Value> offsetValues, strideValues;
  for (int64_t d = 0; d < rank; ++d) {
    offsetValues.push_back(indexValueOf(b, loc, offsets[d]));
    strideValues.push_back(indexValueOf(b, loc, strides[d]));
  }
  Value result = generic(
      b, loc, {}, {}, resultType,
      [&](OpBuilder &nb, Location l, ValueRange) -> Value {
        SmallVector<Value> at;
        for (int64_t d = 0; d < rank; ++d) {
          Value i = linalg::IndexOp::create(nb, l, d);
          at.push_back(arith::AddIOp::create(
              nb, l, offsetValues[d],
              arith::MulIOp::create(nb, l, i, strideValues[d])));
        }
        return tensor::ExtractOp::create(nb, l, n.in(0), at);
      },
      sizes);
  return n.replace(result, {n.isUnsigned(0)});
}

LogicalResult lowerSlice(Node &n) {
  int64_t rank = n.rank(0);
  SmallVector<int64_t> starts, ends, axes, steps;
  if (n.opset() >= 10 &&
      (!n.type(0).hasStaticShape() || !n.constant(1) || !n.constant(2) ||
       (n.has(3) && !n.constant(3)) || (n.has(4) && !n.constant(4)))) {
    FailureOr<SmallVector<OpFoldResult>> s = n.hostInts(1, "starts");
    if (failed(s)) {
      return failure();
    }
    FailureOr<SmallVector<OpFoldResult>> e = n.hostInts(2, "ends");
    if (failed(e)) {
      return failure();
    }
    SmallVector<OpFoldResult> a, st;
    if (n.has(3)) {
      FailureOr<SmallVector<OpFoldResult>> values = n.hostAxes(3, rank, "axes");
      if (failed(values)) {
        return failure();
      }
      a = *values;
    } else {
      for (size_t i = 0; i < s->size(); ++i) {
        a.push_back(n.b.getIndexAttr(i));
      }
    }
    if (n.has(4)) {
      FailureOr<SmallVector<OpFoldResult>> values = n.hostInts(4, "steps");
      if (failed(values)) {
        return failure();
      }
      st = *values;
    } else {
      st.assign(s->size(), n.b.getIndexAttr(1));
    }
    if (e->size() != s->size() || a.size() != s->size() ||
        st.size() != s->size()) {
      return n.fail("starts, ends, axes and steps differ in length");
    }
    return lowerDynamicSlice(n, *s, *e, a, st);
  }
  if (n.opset() < 10 && !n.type(0).hasStaticShape()) {
    SmallVector<int64_t> s =
        n.intsAttr("starts").value_or(SmallVector<int64_t>{});
    SmallVector<int64_t> e =
        n.intsAttr("ends").value_or(SmallVector<int64_t>{});
    axes = n.intsAttr("axes").value_or(SmallVector<int64_t>{});
    if (axes.empty()) {
      for (size_t i = 0; i < s.size(); ++i) {
        axes.push_back(i);
      }
    }
    if (e.size() != s.size() || axes.size() != s.size()) {
      return n.fail("starts, ends and axes differ in length");
    }
    if (failed(n.normalizeAxes(axes, rank))) {
      return failure();
    }
    return lowerDynamicSlice(
        n, indexSizes(n.b, s), indexSizes(n.b, e), indexSizes(n.b, axes),
        SmallVector<OpFoldResult>(s.size(), n.b.getIndexAttr(1)));
  }
  if (n.opset() < 10) {
    starts = n.intsAttr("starts").value_or(SmallVector<int64_t>{});
    ends = n.intsAttr("ends").value_or(SmallVector<int64_t>{});
    axes = n.intsAttr("axes").value_or(SmallVector<int64_t>{});
  } else {
    FailureOr<SmallVector<int64_t>> s = n.constInts(1, "starts");
    if (failed(s)) {
      return failure();
    }
    FailureOr<SmallVector<int64_t>> e = n.constInts(2, "ends");
    if (failed(e)) {
      return failure();
    }
    starts = *s;
    ends = *e;
    if (n.has(3)) {
      FailureOr<SmallVector<int64_t>> a = n.constInts(3, "axes");
      if (failed(a)) {
        return failure();
      }
      axes = *a;
    }
    if (n.has(4)) {
      FailureOr<SmallVector<int64_t>> st = n.constInts(4, "steps");
      if (failed(st)) {
        return failure();
      }
      steps = *st;
    }
  }
  if (axes.empty()) {
    for (size_t i = 0; i < starts.size(); ++i) {
      axes.push_back(i);
    }
  }
  if (steps.empty()) {
    steps.assign(starts.size(), 1);
  }
  if (ends.size() != starts.size() || axes.size() != starts.size() ||
      steps.size() != starts.size()) {
    return n.fail("starts, ends, axes and steps differ in length");
  }
  SmallVector<int64_t> offsets(rank, 0), sizes(n.shape(0)),
      strides(rank, 1);
  for (size_t i = 0; i < starts.size(); ++i) {
    FailureOr<int64_t> axis = n.axis(axes[i], rank);
    if (failed(axis)) {
      return failure();
    }
    int64_t dim = n.shape(0)[*axis];
    int64_t step = steps[i];
    if (step == 0) {
      return n.fail("a step is 0");
    }
    int64_t start = starts[i], end = ends[i];
    if (start < 0) {
      start += dim;
    }
    if (end < 0 && end > std::numeric_limits<int64_t>::min() / 2) {
      end += dim;
    }
    // The count of steps, rounded up, without overflow for any step
    // (end - start + step - 1 overflowed for a step near 2^63).
    int64_t size;
    if (step > 0) {
      start = std::clamp<int64_t>(start, 0, dim);
      end = std::clamp<int64_t>(end, 0, dim);
      size = end > start ? 1 + (end - start - 1) / step : 0;
    } else {
      start = std::clamp<int64_t>(start, 0, dim - 1);
      end = std::clamp<int64_t>(end, -1, dim - 1);
      uint64_t magnitude = -static_cast<uint64_t>(step);
      size = start > end
                 ? static_cast<int64_t>(
                       1 + static_cast<uint64_t>(start - end - 1) / magnitude)
                 : 0;
    }
    offsets[*axis] = start;
    sizes[*axis] = size;
    strides[*axis] = step;
  }
  if (llvm::is_contained(sizes, 0)) {
    return n.replace(tensor::EmptyOp::create(n.b, n.loc, sizes, n.elem(0))
                         .getResult(),
                     {n.isUnsigned(0)});
  }
  bool negative = llvm::any_of(strides, [](int64_t s) { return s < 0; });
  if (!negative || n.constant(0)) {
    if (!negative) {
      return n.replace(slice(n.b, n.loc, n.in(0), offsets, sizes, strides),
                       {n.isUnsigned(0)});
    }
  }
  // Negative steps: a generic reading in[offset + i * step] (an affine
  // map with a negative coefficient; constants fold).
  SmallVector<AffineExpr> exprs;
  for (int64_t d = 0; d < rank; ++d) {
    exprs.push_back(n.b.getAffineDimExpr(d) * strides[d] + offsets[d]);
  }
  auto type = RankedTensorType::get(sizes, n.elem(0));
  if (type.getNumElements() == 0) {
    return n.replace(tensor::EmptyOp::create(n.b, n.loc, sizes, n.elem(0))
                         .getResult(),
                     {n.isUnsigned(0)});
  }
  AffineMap map = AffineMap::get(rank, 0, exprs, n.b.getContext());
  Value result = generic(n.b, n.loc, n.in(0), map, type,
                         [](OpBuilder &, Location, ValueRange args) {
                           return args[0];
                         });
  return n.replace(result, {n.isUnsigned(0)});
}

/// Index `value` (of the indices tensor) normalized for a dimension of
/// `dim`: negative indices count from the end.
Value normalizeIndex(OpBuilder &b, Location loc, Value value, int64_t dim) {
  Value index = indexValue(b, loc, value);
  Value zero = arith::ConstantIndexOp::create(b, loc, 0);
  Value size = arith::ConstantIndexOp::create(b, loc, dim);
  Value negative = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt,
                                         index, zero);
  Value wrapped = arith::AddIOp::create(b, loc, index, size);
  return arith::SelectOp::create(b, loc, negative, wrapped, index);
}

/// Gather's constant indices (input 1) normalized for an axis of `dim`
/// (negative ones count from the end); fails naming one out of range.
FailureOr<SmallVector<int64_t>> constantIndices(Node &n, int64_t dim) {
  SmallVector<int64_t> values;
  for (const APInt &v : n.constant(1).getValues<APInt>()) {
    int64_t index = v.getSExtValue();
    if (index < 0) {
      index += dim;
    }
    if (index < 0 || index >= dim) {
      return n.fail("index " + llvm::Twine(v.getSExtValue()) +
                    " is out of range for a dimension of " + llvm::Twine(dim));
    }
    values.push_back(index);
  }
  return values;
}

/// Gather of dynamic data or indices: a generic sized by both, its indices
/// normalized against the axis's size, a push constant when dynamic.
LogicalResult lowerDynamicGather(Node &n, int64_t axis) {
  OpBuilder &b = n.b;
  Location loc = n.loc;
  int64_t rank = n.rank(0);
  ArrayRef<int64_t> data = n.shape(0), indices = n.shape(1);
  int64_t indexRank = indices.size();
  SmallVector<int64_t> shape(data.begin(), data.begin() + axis);
  shape.append(indices.begin(), indices.end());
  shape.append(data.begin() + axis + 1, data.end());
  if (failed(n.checkShape(shape, n.elem(0), "the result"))) {
    return failure();
  }
  SmallVector<OpFoldResult> sizes;
  for (int64_t d = 0; d < axis; ++d) {
    sizes.push_back(n.dim(0, d));
  }
  for (int64_t d = 0; d < indexRank; ++d) {
    sizes.push_back(n.dim(1, d));
  }
  for (int64_t d = axis + 1; d < rank; ++d) {
    sizes.push_back(n.dim(0, d));
  }
  Value dim = indexValueOf(b, loc, n.dim(0, axis));
  SmallVector<AffineExpr> indexExprs;
  for (int64_t j = 0; j < indexRank; ++j) {
    indexExprs.push_back(b.getAffineDimExpr(axis + j));
  }
  AffineMap indexMap =
      AffineMap::get(shape.size(), 0, indexExprs, b.getContext());
  Value source = n.in(0);
  auto type = RankedTensorType::get(shape, n.elem(0));
  Value result = generic(
      b, loc, n.in(1), indexMap, type,
      [&](OpBuilder &nb, Location l, ValueRange args) -> Value {
        SmallVector<Value> at;
        for (int64_t d = 0; d < rank; ++d) {
          if (d < axis) {
            at.push_back(linalg::IndexOp::create(nb, l, d));
          } else if (d == axis) {
            Value index = indexValue(nb, l, args[0]);
            Value zero = arith::ConstantIndexOp::create(nb, l, 0);
            Value negative = arith::CmpIOp::create(
                nb, l, arith::CmpIPredicate::slt, index, zero);
            Value wrapped = arith::AddIOp::create(nb, l, index, dim);
            at.push_back(
                arith::SelectOp::create(nb, l, negative, wrapped, index));
          } else {
            at.push_back(linalg::IndexOp::create(nb, l, d + indexRank - 1));
          }
        }
        return tensor::ExtractOp::create(nb, l, source, at);
      },
      sizes);
  return n.replace(result, {n.isUnsigned(0)});
}

LogicalResult lowerGather(Node &n) {
  int64_t rank = n.rank(0);
  FailureOr<int64_t> axis = n.axis(n.intAttr("axis", 0), rank);
  if (failed(axis)) {
    return failure();
  }
  // A host vector (a shape) gathered by constant indices keeps its
  // elements: Gather(Shape(x), 0) is x's first dimension.
  if (rank == 1 && n.constant(1) && isComputedHostVector(n.in(0))) {
    SmallVector<OpFoldResult> elements = *hostElements(n.in(0));
    FailureOr<SmallVector<int64_t>> indices =
        constantIndices(n, elements.size());
    if (failed(indices)) {
      return failure();
    }
    SmallVector<OpFoldResult> picked;
    for (int64_t index : *indices) {
      picked.push_back(elements[index]);
    }
    return n.replace(hostVector(n.b, n.loc,
                                RankedTensorType::get(n.shape(1), n.elem(0)),
                                picked),
                     {n.isUnsigned(0)});
  }
  if (!n.allStatic()) {
    return lowerDynamicGather(n, *axis);
  }
  ArrayRef<int64_t> data = n.shape(0), indices = n.shape(1);
  int64_t dim = data[*axis];
  SmallVector<int64_t> shape(data.begin(), data.begin() + *axis);
  shape.append(indices.begin(), indices.end());
  shape.append(data.begin() + *axis + 1, data.end());
  if (failed(n.checkShape(shape, n.elem(0), "the result"))) {
    return failure();
  }
  auto type = RankedTensorType::get(shape, n.elem(0));
  int64_t indexRank = indices.size();
  if (n.constant(1)) {
    FailureOr<SmallVector<int64_t>> normalized = constantIndices(n, dim);
    if (failed(normalized)) {
      return failure();
    }
    SmallVector<int64_t> values = *normalized;
    DenseElementsAttr source = n.constant(0);
    if (source && type.getNumElements() <= kFoldLimit) {
      SmallVector<int64_t> strides = stridesOf(data);
      SmallVector<int64_t> indexStrides = stridesOf(indices);
      return n.replace(
          constant(n.b, n.loc,
                   gatherConstant(source, type, [&](ArrayRef<int64_t> out) {
                     int64_t linear = 0, at = 0;
                     for (int64_t j = 0; j < indexRank; ++j) {
                       at += out[*axis + j] * indexStrides[j];
                     }
                     for (int64_t d = 0; d < rank; ++d) {
                       int64_t i = d < *axis    ? out[d]
                                   : d == *axis ? values[at]
                                                : out[d + indexRank - 1];
                       linear += i * strides[d];
                     }
                     return linear;
                   })),
          {n.isUnsigned(0)});
    }
    if (values.size() == 1) {
      // One index: a slice and a reshape.
      SmallVector<int64_t> offsets(rank, 0), sizes(data), strides(rank, 1);
      offsets[*axis] = values[0];
      sizes[*axis] = 1;
      Value sliced = slice(n.b, n.loc, n.in(0), offsets, sizes, strides);
      return n.replace(reshape(n.b, n.loc, sliced, shape), {n.isUnsigned(0)});
    }
  }
  Value source = n.in(0);
  SmallVector<AffineExpr> indexExprs;
  for (int64_t j = 0; j < indexRank; ++j) {
    indexExprs.push_back(n.b.getAffineDimExpr(*axis + j));
  }
  AffineMap indexMap =
      AffineMap::get(shape.size(), 0, indexExprs, n.b.getContext());
  int64_t axisValue = *axis;
  Value result = gatherGeneric(
      n.b, n.loc, source, n.in(1), indexMap, type,
      [&](OpBuilder &b, Location loc, ValueRange out, ValueRange args) {
        SmallVector<Value> at;
        for (int64_t d = 0; d < rank; ++d) {
          if (d < axisValue) {
            at.push_back(out[d]);
          } else if (d == axisValue) {
            at.push_back(normalizeIndex(b, loc, args[0], dim));
          } else {
            at.push_back(out[d + indexRank - 1]);
          }
        }
        return at;
      });
  return n.replace(result, {n.isUnsigned(0)});
}

LogicalResult lowerGatherElements(Node &n) {
  int64_t rank = n.rank(0);
  FailureOr<int64_t> axis = n.axis(n.intAttr("axis", 0), rank);
  if (failed(axis)) {
    return failure();
  }
  if (n.rank(1) != rank) {
    return n.fail("indices and data have different ranks");
  }
  int64_t dim = n.shape(0)[*axis];
  auto type = RankedTensorType::get(n.shape(1), n.elem(0));
  int64_t axisValue = *axis;
  Value result = gatherGeneric(
      n.b, n.loc, n.in(0), n.in(1), n.b.getMultiDimIdentityMap(rank), type,
      [&](OpBuilder &b, Location loc, ValueRange out, ValueRange args) {
        SmallVector<Value> at(out);
        at[axisValue] = normalizeIndex(b, loc, args[0], dim);
        return at;
      });
  return n.replace(result, {n.isUnsigned(0)});
}

/// GatherND: each index tuple (the indices' last dimension, k long) picks
/// a slice of the data; with batch_dims b the first b dimensions are
/// shared, each batch gathering from its own data slice.
LogicalResult lowerGatherND(Node &n) {
  int64_t batch = n.intAttr("batch_dims", 0);
  ArrayRef<int64_t> data = n.shape(0), indices = n.shape(1);
  int64_t q = indices.size();
  int64_t k = indices.back();
  int64_t r = data.size();
  // The first batch_dims dimensions of data and indices are shared: each
  // batch gathers from its own slice of the data.
  if (batch < 0 || batch >= q || batch >= r) {
    return n.fail("batch_dims " + llvm::Twine(batch) +
                  " is not from 0 to below both ranks (data " + llvm::Twine(r) +
                  ", indices " + llvm::Twine(q) + ")");
  }
  for (int64_t d = 0; d < batch; ++d) {
    if (data[d] != indices[d]) {
      return n.fail("batch dimension " + llvm::Twine(d) + " is " +
                    llvm::Twine(data[d]) + " in the data and " +
                    llvm::Twine(indices[d]) + " in the indices");
    }
  }
  if (k > r - batch) {
    if (batch == 0) {
      return n.fail("the indices' last dimension is " + llvm::Twine(k) +
                    ", more than the data's rank " + llvm::Twine(r));
    }
    return n.fail("the indices' last dimension is " + llvm::Twine(k) +
                  ", more than the data's rank less batch_dims (" +
                  llvm::Twine(r - batch) + ")");
  }
  SmallVector<int64_t> shape(indices.begin(), indices.end() - 1);
  shape.append(data.begin() + batch + k, data.end());
  auto type = RankedTensorType::get(shape, n.elem(0));
  Value indicesValue = n.in(1);
  Value result = gatherGeneric(
      n.b, n.loc, n.in(0), {}, {}, type,
      [&](OpBuilder &b, Location loc, ValueRange out, ValueRange) {
        SmallVector<Value> at(out.take_front(batch));
        SmallVector<Value> prefix(out.take_front(q - 1));
        for (int64_t j = 0; j < k; ++j) {
          SmallVector<Value> idx(prefix);
          idx.push_back(arith::ConstantIndexOp::create(b, loc, j));
          Value v = tensor::ExtractOp::create(b, loc, indicesValue, idx);
          at.push_back(normalizeIndex(b, loc, v, data[batch + j]));
        }
        for (int64_t d = batch + k; d < r; ++d) {
          at.push_back(out[q - 1 + d - batch - k]);
        }
        return at;
      });
  return n.replace(result, {n.isUnsigned(0)});
}

/// Expand with a run-time shape or a dynamic input: each result dimension
/// is the input's, or the shape's where the input has a static 1; a
/// dimension where both are run-time values takes the input's, with the
/// shape's checked to be 1 or the same.
LogicalResult lowerDynamicExpand(Node &n, ArrayRef<OpFoldResult> requested) {
  OpBuilder &b = n.b;
  Location loc = n.loc;
  int64_t rank = std::max<int64_t>(n.rank(0), requested.size());
  SmallVector<OpFoldResult> sizes;
  Value one = arith::ConstantIndexOp::create(b, loc, 1);
  for (int64_t d = 0; d < rank; ++d) {
    int64_t i = d - (rank - n.rank(0));
    int64_t r = d - (rank - static_cast<int64_t>(requested.size()));
    OpFoldResult want = r >= 0 ? requested[r] : b.getIndexAttr(1);
    if (i < 0) {
      sizes.push_back(want);
      continue;
    }
    int64_t in = n.shape(0)[i];
    std::optional<int64_t> wanted = getConstantIntValue(want);
    if (in == 1) {
      sizes.push_back(want);
      continue;
    }
    if (wanted && *wanted == 1) {
      sizes.push_back(n.dim(0, i));
      continue;
    }
    if (!ShapedType::isDynamic(in) && wanted) {
      if (*wanted != in) {
        return n.fail("the shape's dimension " + llvm::Twine(r) + " (" +
                      llvm::Twine(*wanted) +
                      ") does not broadcast with the "
                      "input's " +
                      llvm::Twine(in));
      }
      sizes.push_back(b.getIndexAttr(in));
      continue;
    }
    // The input's size (static or not) against the shape's: equal, or the
    // shape's is 1.
    Value have = indexValueOf(b, loc, n.dim(0, i));
    Value other = indexValueOf(b, loc, want);
    n.check(arith::OrIOp::create(
                b, loc,
                arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, have,
                                      other),
                arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, other,
                                      one)),
            "the shape's dimension " + llvm::Twine(r) +
                " does not broadcast with the input's at run time (a "
                "dynamic input dimension of 1 is not broadcast)");
    sizes.push_back(wanted ? want : n.dim(0, i));
  }
  if (failed(n.checkShape(staticShapeOf(sizes), n.elem(0), "the result"))) {
    return failure();
  }
  return n.replace(broadcastToSizes(b, loc, n.in(0), sizes), {n.isUnsigned(0)});
}

LogicalResult lowerExpand(Node &n) {
  FailureOr<SmallVector<OpFoldResult>> sizes = n.hostInts(1, "shape");
  if (failed(sizes)) {
    return failure();
  }
  SmallVector<int64_t> knownShape = staticShapeOf(*sizes);
  if (llvm::is_contained(knownShape, ShapedType::kDynamic) ||
      !n.type(0).hasStaticShape()) {
    return lowerDynamicExpand(n, *sizes);
  }
  FailureOr<SmallVector<int64_t>> requested = knownShape;
  FailureOr<SmallVector<int64_t>> shape =
      broadcastShapes({n.shape(0), *requested});
  if (failed(shape)) {
    return n.fail("the shape does not broadcast with the input");
  }
  if (failed(n.checkShape(*shape, n.elem(0), "the result"))) {
    return failure();
  }
  return n.replace(broadcastTo(n.b, n.loc, n.in(0), *shape),
                   {n.isUnsigned(0)});
}

/// Tile with run-time repeats or of a dynamic input: each result dimension
/// is the input's times its repeat (checked at run time to be non-negative
/// and not to overflow), each element read at the result's index modulo
/// the input's dimensions.
LogicalResult lowerDynamicTile(Node &n) {
  OpBuilder &b = n.b;
  Location loc = n.loc;
  FailureOr<SmallVector<OpFoldResult>> repeats = n.hostInts(1, "repeats");
  if (failed(repeats)) {
    return failure();
  }
  int64_t rank = n.rank(0);
  if (static_cast<int64_t>(repeats->size()) != rank) {
    return n.fail("repeats has the wrong length");
  }
  SmallVector<OpFoldResult> sizes;
  SmallVector<Value> dims;
  for (int64_t d = 0; d < rank; ++d) {
    OpFoldResult dim = n.dim(0, d);
    OpFoldResult repeat = (*repeats)[d];
    // At most 2^62 elements along the axis: repeat <= 2^62 / max(dim, 1).
    OpFoldResult bound = simplifyHostScalar(arith::DivUIOp::create(
        b, loc, arith::ConstantIndexOp::create(b, loc, int64_t(1) << 62),
        indexValueOf(b, loc, maxSizes(b, loc, dim, b.getIndexAttr(1)))));
    Value ok = arith::AndIOp::create(
        b, loc,
        compareSizes(b, loc, arith::CmpIPredicate::sge, repeat,
                     b.getIndexAttr(0)),
        compareSizes(b, loc, arith::CmpIPredicate::sle, repeat, bound));
    if (matchPattern(ok, m_Zero())) {
      return n.fail("repeats " + llvm::Twine(*getConstantIntValue(repeat)) +
                    " of axis " + llvm::Twine(d) + " is negative or too large");
    }
    n.check(ok, "repeats of axis " + llvm::Twine(d) +
                    " is negative or too large at run time");
    sizes.push_back(mulSizes(b, loc, dim, repeat));
    dims.push_back(indexValueOf(b, loc, dim));
  }
  SmallVector<int64_t> shape = staticShapeOf(sizes);
  if (failed(n.checkShape(shape, n.elem(0), "the result"))) {
    return failure();
  }
  auto type = RankedTensorType::get(shape, n.elem(0));
  Value input = n.in(0);
  Value result = generic(
      b, loc, {}, {}, type,
      [&](OpBuilder &nb, Location l, ValueRange) -> Value {
        SmallVector<Value> at;
        for (int64_t d = 0; d < rank; ++d) {
          // The loop runs only when the result has elements, so the input
          // has some along each axis.
          at.push_back(arith::RemUIOp::create(
              nb, l, linalg::IndexOp::create(nb, l, d), dims[d]));
        }
        return tensor::ExtractOp::create(nb, l, input, at);
      },
      sizes);
  return n.replace(result, {n.isUnsigned(0)});
}

LogicalResult lowerTile(Node &n) {
  if (!n.type(0).hasStaticShape() || !n.constant(1)) {
    return lowerDynamicTile(n);
  }
  FailureOr<SmallVector<int64_t>> repeats = n.constInts(1, "repeats");
  if (failed(repeats)) {
    return failure();
  }
  if (static_cast<int64_t>(repeats->size()) != n.rank(0)) {
    return n.fail("repeats has the wrong length");
  }
  SmallVector<int64_t> shape;
  SmallVector<AffineExpr> exprs;
  for (auto [d, dim] : llvm::enumerate(n.shape(0))) {
    int64_t tiled = 0;
    if ((*repeats)[d] < 0 ||
        __builtin_mul_overflow(dim, (*repeats)[d], &tiled)) {
      return n.fail("repeats " + llvm::Twine((*repeats)[d]) + " of axis " +
                    llvm::Twine(d) + " is negative or too large");
    }
    shape.push_back(tiled);
    exprs.push_back(dim == 1 ? n.b.getAffineConstantExpr(0)
                             : n.b.getAffineDimExpr(d) % dim);
  }
  if (failed(n.checkShape(shape, n.elem(0), "the result"))) {
    return failure();
  }
  auto type = RankedTensorType::get(shape, n.elem(0));
  if (type.getNumElements() == 0) {
    return n.replace(tensor::EmptyOp::create(n.b, n.loc, shape, n.elem(0))
                         .getResult(),
                     {n.isUnsigned(0)});
  }
  AffineMap map = AffineMap::get(shape.size(), 0, exprs, n.b.getContext());
  Value result = generic(n.b, n.loc, n.in(0), map, type,
                         [](OpBuilder &, Location, ValueRange args) {
                           return args[0];
                         });
  return n.replace(result, {n.isUnsigned(0)});
}

/// Pad with run-time pads or axes, or of a dynamic input: each axis' pads
/// chosen on the host (the entry whose axis it is, else none), checked at
/// run time as the constant form checks them at compile time; negative
/// pads crop first.
LogicalResult lowerDynamicPad(Node &n) {
  OpBuilder &b = n.b;
  Location loc = n.loc;
  int64_t rank = n.rank(0);
  SmallVector<OpFoldResult> pads;
  double value = 0;
  Value valueTensor;
  if (n.opset() < 11) {
    pads = indexSizes(
        b, n.intsAttr("pads").value_or(
               n.intsAttr("paddings").value_or(SmallVector<int64_t>{})));
    value = n.floatAttr("value", 0.0);
  } else {
    FailureOr<SmallVector<OpFoldResult>> p = n.hostInts(1, "pads");
    if (failed(p)) {
      return failure();
    }
    pads = *p;
    if (n.has(2)) {
      valueTensor = n.in(2);
    }
  }
  SmallVector<OpFoldResult> axes;
  if (n.has(3)) {
    FailureOr<SmallVector<OpFoldResult>> a = n.hostAxes(3, rank, "axes");
    if (failed(a)) {
      return failure();
    }
    axes = *a;
  } else {
    for (int64_t d = 0; d < rank; ++d) {
      axes.push_back(b.getIndexAttr(d));
    }
  }
  if (pads.size() != 2 * axes.size()) {
    return n.fail("pads has " + llvm::Twine(pads.size()) + " values for " +
                  llvm::Twine(axes.size()) + " axes");
  }
  ArrayRef<OpFoldResult> begins =
      ArrayRef<OpFoldResult>(pads).take_front(axes.size());
  ArrayRef<OpFoldResult> ends =
      ArrayRef<OpFoldResult>(pads).drop_front(axes.size());
  OpFoldResult zero = b.getIndexAttr(0);
  constexpr int64_t kMaxPad = int64_t(1) << 40;
  SmallVector<OpFoldResult> offsets, sizes, low, shape;
  bool crop = false;
  for (int64_t d = 0; d < rank; ++d) {
    OpFoldResult begin = valueForAxis(b, loc, axes, begins, d, zero);
    OpFoldResult end = valueForAxis(b, loc, axes, ends, d, zero);
    // Pads beyond +-2^40 make no tensor: refused before any arithmetic on
    // them can overflow.
    Value inRange = arith::ConstantIntOp::create(b, loc, 1, 1);
    for (OpFoldResult pad : {begin, end}) {
      inRange = arith::AndIOp::create(
          b, loc, inRange,
          arith::AndIOp::create(b, loc,
                                compareSizes(b, loc, arith::CmpIPredicate::sge,
                                             pad, b.getIndexAttr(-kMaxPad)),
                                compareSizes(b, loc, arith::CmpIPredicate::sle,
                                             pad, b.getIndexAttr(kMaxPad))));
    }
    n.check(inRange, "the pads of axis " + llvm::Twine(d) +
                         " are out of range at run time");
    OpFoldResult dim = n.dim(0, d);
    OpFoldResult size = addSizes(b, loc, dim,
                                 addSizes(b, loc, minSizes(b, loc, begin, zero),
                                          minSizes(b, loc, end, zero)));
    n.check(compareSizes(b, loc, arith::CmpIPredicate::sge, size, zero),
            "the negative pads of axis " + llvm::Twine(d) +
                " remove more than its elements at run time");
    OpFoldResult offset = maxSizes(b, loc, subSizes(b, loc, zero, begin), zero);
    crop |= getConstantIntValue(offset) != 0 ||
            !isEqualConstantIntOrValue(size, dim);
    OpFoldResult lowPad = maxSizes(b, loc, begin, zero);
    OpFoldResult highPad = maxSizes(b, loc, end, zero);
    offsets.push_back(offset);
    sizes.push_back(size);
    low.push_back(lowPad);
    shape.push_back(addSizes(b, loc, addSizes(b, loc, size, lowPad), highPad));
  }
  if (failed(n.checkShape(staticShapeOf(shape), n.elem(0), "the result"))) {
    return failure();
  }
  Value input = n.in(0);
  SmallVector<OpFoldResult> ones(rank, b.getIndexAttr(1));
  if (crop) {
    input = tensor::ExtractSliceOp::create(
        b, loc, RankedTensorType::get(staticShapeOf(sizes), n.elem(0)), input,
        offsets, sizes, ones);
  }
  auto type = RankedTensorType::get(staticShapeOf(shape), n.elem(0));
  StringRef mode = n.stringAttr("mode").value_or("constant");
  if (mode != "constant" && mode != "reflect" && mode != "edge" &&
      mode != "wrap") {
    return n.fail("mode '" + mode + "' is not supported");
  }
  // The host values each element's index needs: the low pad, the cropped
  // size and, for reflect, the period 2 * (size - 1) (at least 1).
  SmallVector<Value> lowValues, sizeValues, periods;
  for (int64_t d = 0; d < rank; ++d) {
    lowValues.push_back(indexValueOf(b, loc, low[d]));
    sizeValues.push_back(indexValueOf(b, loc, sizes[d]));
    periods.push_back(indexValueOf(
        b, loc,
        maxSizes(b, loc,
                 mulSizes(b, loc, b.getIndexAttr(2),
                          subSizes(b, loc, sizes[d], b.getIndexAttr(1))),
                 b.getIndexAttr(1))));
    // An axis padded from no elements has nothing to repeat (nor, in
    // constant mode, an element the kernel may read while it picks the
    // value: its index is clamped into the input).
    n.check(arith::OrIOp::create(
                b, loc,
                compareSizes(b, loc, arith::CmpIPredicate::sgt, sizes[d], zero),
                compareSizes(b, loc, arith::CmpIPredicate::eq, shape[d], zero)),
            "axis " + llvm::Twine(d) + " has no elements to pad from in " +
                mode + " mode at run time (with run-time pads)");
  }
  // A remainder in [0, m).
  auto modulo = [](OpBuilder &nb, Location l, Value x, Value m) -> Value {
    Value r = arith::RemSIOp::create(nb, l, x, m);
    Value negative =
        arith::CmpIOp::create(nb, l, arith::CmpIPredicate::slt, r,
                              arith::ConstantIndexOp::create(nb, l, 0));
    return arith::SelectOp::create(nb, l, negative,
                                   arith::AddIOp::create(nb, l, r, m), r);
  };
  // Constant mode is one generic too (a fill and an insert of dynamic
  // sizes made a kernel allocate): the value where the index is outside
  // the input.
  Value fillValue;
  if (mode == "constant") {
    if (valueTensor) {
      fillValue = tensor::ExtractOp::create(
          b, loc, reshape(b, loc, valueTensor, {}), ValueRange{});
    } else {
      fillValue = scalar(b, loc, n.elem(0), value);
    }
  }
  Value result = generic(
      b, loc, {}, {}, type,
      [&](OpBuilder &nb, Location l, ValueRange) -> Value {
        SmallVector<Value> at;
        Value inside;
        for (int64_t d = 0; d < rank; ++d) {
          // i = out - low, mapped into [0, size).
          Value i = arith::SubIOp::create(
              nb, l, linalg::IndexOp::create(nb, l, d), lowValues[d]);
          Value last = arith::SubIOp::create(
              nb, l, sizeValues[d], arith::ConstantIndexOp::create(nb, l, 1));
          if (mode == "constant") {
            Value in = arith::CmpIOp::create(nb, l, arith::CmpIPredicate::ult,
                                             i, sizeValues[d]);
            inside = inside
                         ? arith::AndIOp::create(nb, l, inside, in).getResult()
                         : in;
            i = arith::MaxSIOp::create(
                nb, l, i, arith::ConstantIndexOp::create(nb, l, 0));
            i = arith::MinSIOp::create(nb, l, i, last);
          } else if (mode == "edge") {
            i = arith::MaxSIOp::create(
                nb, l, i, arith::ConstantIndexOp::create(nb, l, 0));
            i = arith::MinSIOp::create(nb, l, i, last);
          } else if (mode == "wrap") {
            i = modulo(nb, l, i, sizeValues[d]);
          } else {
            // Reflect without repeating the edge.
            Value m = modulo(nb, l, i, periods[d]);
            Value mirrored = arith::SubIOp::create(nb, l, periods[d], m);
            Value beyond = arith::CmpIOp::create(
                nb, l, arith::CmpIPredicate::sgt, m, last);
            i = arith::SelectOp::create(nb, l, beyond, mirrored, m);
          }
          at.push_back(i);
        }
        Value element = tensor::ExtractOp::create(nb, l, input, at);
        if (!inside) {
          return element;
        }
        return arith::SelectOp::create(nb, l, inside, element, fillValue);
      },
      shape);
  return n.replace(result, {n.isUnsigned(0)});
}

LogicalResult lowerPad(Node &n) {
  if (!n.type(0).hasStaticShape() || (n.opset() >= 11 && !n.constant(1)) ||
      (n.has(3) && !n.constant(3))) {
    return lowerDynamicPad(n);
  }
  int64_t rank = n.rank(0);
  SmallVector<int64_t> pads;
  double value = 0;
  Value valueTensor;
  if (n.opset() < 11) {
    pads = n.intsAttr("pads").value_or(n.intsAttr("paddings").value_or(
        SmallVector<int64_t>{}));
    value = n.floatAttr("value", 0.0);
  } else {
    FailureOr<SmallVector<int64_t>> p = n.constInts(1, "pads");
    if (failed(p)) {
      return failure();
    }
    pads = *p;
    if (n.has(2)) {
      valueTensor = n.in(2);
    }
  }
  SmallVector<int64_t> axes;
  if (n.has(3)) {
    FailureOr<SmallVector<int64_t>> a = n.constInts(3, "axes");
    if (failed(a)) {
      return failure();
    }
    for (int64_t ax : *a) {
      FailureOr<int64_t> normalized = n.axis(ax, rank);
      if (failed(normalized)) {
        return failure();
      }
      axes.push_back(*normalized);
    }
  } else {
    for (int64_t d = 0; d < rank; ++d) {
      axes.push_back(d);
    }
  }
  if (pads.size() != 2 * axes.size()) {
    return n.fail("pads has " + llvm::Twine(pads.size()) + " values for " +
                  llvm::Twine(axes.size()) + " axes");
  }
  SmallVector<int64_t> low(rank, 0), high(rank, 0);
  for (auto [i, ax] : llvm::enumerate(axes)) {
    low[ax] = pads[i];
    high[ax] = pads[i + axes.size()];
  }
  // Negative pads crop first.
  Value input = n.in(0);
  SmallVector<int64_t> offsets(rank, 0), sizes(n.shape(0)), ones(rank, 1);
  bool crop = false;
  for (int64_t d = 0; d < rank; ++d) {
    // Pads beyond +-2^40 make no tensor: refused before any arithmetic
    // on them can overflow.
    constexpr int64_t kMaxPad = int64_t(1) << 40;
    if (low[d] < -kMaxPad || low[d] > kMaxPad || high[d] < -kMaxPad ||
        high[d] > kMaxPad) {
      return n.fail("the pads of axis " + llvm::Twine(d) + " (" +
                    llvm::Twine(low[d]) + ", " + llvm::Twine(high[d]) +
                    ") are out of range");
    }
    if (low[d] < 0) {
      offsets[d] = -low[d];
      sizes[d] += low[d];
      low[d] = 0;
      crop = true;
    }
    if (high[d] < 0) {
      sizes[d] += high[d];
      high[d] = 0;
      crop = true;
    }
    if (sizes[d] < 0) {
      return n.fail("the negative pads of axis " + llvm::Twine(d) +
                    " remove more than its " + llvm::Twine(n.shape(0)[d]) +
                    " elements");
    }
  }
  if (crop) {
    input = slice(n.b, n.loc, input, offsets, sizes, ones);
  }
  SmallVector<int64_t> shape;
  for (int64_t d = 0; d < rank; ++d) {
    shape.push_back(sizes[d] + low[d] + high[d]);
  }
  if (failed(n.checkShape(shape, n.elem(0), "the result"))) {
    return failure();
  }
  auto type = RankedTensorType::get(shape, n.elem(0));
  StringRef mode = n.stringAttr("mode").value_or("constant");
  if (mode == "constant") {
    Value fillValue;
    if (valueTensor) {
      fillValue = tensor::ExtractOp::create(
          n.b, n.loc, reshape(n.b, n.loc, valueTensor, {}), ValueRange{});
    } else {
      fillValue = scalar(n.b, n.loc, n.elem(0), value);
    }
    Value padded = filled(n.b, n.loc, shape, fillValue);
    Value result = tensor::InsertSliceOp::create(
        n.b, n.loc, input, padded, getAsIndexOpFoldResult(n.b.getContext(), low),
        getAsIndexOpFoldResult(n.b.getContext(), sizes),
        getAsIndexOpFoldResult(n.b.getContext(), ones));
    return n.replace(result, {n.isUnsigned(0)});
  }
  if (mode != "reflect" && mode != "edge" && mode != "wrap") {
    return n.fail("mode '" + mode + "' is not supported");
  }
  Value result = gatherGeneric(
      n.b, n.loc, input, {}, {}, type,
      [&](OpBuilder &b, Location loc, ValueRange out, ValueRange) {
        SmallVector<Value> at;
        for (int64_t d = 0; d < rank; ++d) {
          // i = out - low, mapped into [0, size).
          Value i = arith::SubIOp::create(
              b, loc, out[d], arith::ConstantIndexOp::create(b, loc, low[d]));
          Value zero = arith::ConstantIndexOp::create(b, loc, 0);
          Value last = arith::ConstantIndexOp::create(b, loc, sizes[d] - 1);
          if (mode == "edge") {
            i = arith::MaxSIOp::create(b, loc, i, zero);
            i = arith::MinSIOp::create(b, loc, i, last);
          } else if (mode == "wrap") {
            Value size = arith::ConstantIndexOp::create(b, loc, sizes[d]);
            i = arith::RemSIOp::create(
                b, loc, arith::AddIOp::create(
                            b, loc, i,
                            arith::ConstantIndexOp::create(
                                b, loc, sizes[d] * (1 + low[d] / std::max<int64_t>(sizes[d], 1)))),
                size);
          } else {
            // Reflect without repeating the edge: period 2 * (size - 1).
            int64_t period = std::max<int64_t>(2 * (sizes[d] - 1), 1);
            Value p = arith::ConstantIndexOp::create(b, loc, period);
            Value shifted = arith::AddIOp::create(
                b, loc, i,
                arith::ConstantIndexOp::create(
                    b, loc, period * (1 + low[d] / period)));
            Value m = arith::RemSIOp::create(b, loc, shifted, p);
            Value mirrored = arith::SubIOp::create(b, loc, p, m);
            Value beyond = arith::CmpIOp::create(
                b, loc, arith::CmpIPredicate::sgt, m, last);
            i = arith::SelectOp::create(b, loc, beyond, mirrored, m);
          }
          at.push_back(i);
        }
        return at;
      });
  return n.replace(result, {n.isUnsigned(0)});
}

/// CenterCropPad (opset 18): each listed axis is cropped or zero-padded
/// to its target size about its center. A crop starts at
/// floor((in - target) / 2) (the window leans left when the difference is
/// odd); a pad puts floor((target - in) / 2) zeros before the data and
/// the rest (one more when odd) after it. `shape` must be a constant.
LogicalResult lowerCenterCropPad(Node &n) {
  int64_t rank = n.rank(0);
  FailureOr<SmallVector<int64_t>> target = n.constInts(1, "shape");
  if (failed(target)) {
    return failure();
  }
  SmallVector<int64_t> axes;
  if (std::optional<SmallVector<int64_t>> listed = n.intsAttr("axes")) {
    axes = *listed;
    if (failed(n.normalizeAxes(axes, rank))) {
      return failure();
    }
  } else {
    for (int64_t d = 0; d < rank; ++d) {
      axes.push_back(d);
    }
  }
  if (target->size() != axes.size()) {
    return n.fail("shape has " + llvm::Twine(target->size()) + " values for " +
                  llvm::Twine(axes.size()) + " axes");
  }
  SmallVector<int64_t> shape(n.shape(0));
  for (auto [ax, size] : llvm::zip(axes, *target)) {
    if (size < 0) {
      return n.fail("shape holds the negative size " + llvm::Twine(size) +
                    " for axis " + llvm::Twine(ax));
    }
    shape[ax] = size;
  }
  if (failed(n.checkShape(shape, n.elem(0), "the result"))) {
    return failure();
  }
  // Crop the axes that shrink, then pad the ones that grow.
  SmallVector<int64_t> offsets(rank, 0), sizes(n.shape(0)), ones(rank, 1),
      low(rank, 0);
  bool crop = false, pad = false;
  for (int64_t d = 0; d < rank; ++d) {
    int64_t in = n.shape(0)[d];
    if (in > shape[d]) {
      offsets[d] = (in - shape[d]) / 2;
      sizes[d] = shape[d];
      crop = true;
    } else if (in < shape[d]) {
      low[d] = (shape[d] - in) / 2;
      pad = true;
    }
  }
  Value result = n.in(0);
  if (crop) {
    result = slice(n.b, n.loc, result, offsets, sizes, ones);
  }
  if (pad) {
    Value zeros = filled(n.b, n.loc, shape, scalar(n.b, n.loc, n.elem(0), 0));
    MLIRContext *context = n.b.getContext();
    result = tensor::InsertSliceOp::create(
        n.b, n.loc, result, zeros, getAsIndexOpFoldResult(context, low),
        getAsIndexOpFoldResult(context, sizes),
        getAsIndexOpFoldResult(context, ones));
  }
  return n.replace(result, {n.isUnsigned(0)});
}

LogicalResult lowerConstantOfShape(Node &n) {
  FailureOr<SmallVector<OpFoldResult>> sizes = n.hostInts(0, "shape");
  if (failed(sizes)) {
    return failure();
  }
  SmallVector<int64_t> known = staticShapeOf(*sizes);
  std::optional<SmallVector<int64_t>> shape;
  if (!llvm::is_contained(known, ShapedType::kDynamic)) {
    shape = known;
  }
  Attribute element;
  Type type = n.b.getF32Type();
  bool isUnsigned = false;
  if (DenseElementsAttr value = n.tensorAttr("value")) {
    if (value.getNumElements() != 1) {
      return n.fail("attribute value must hold one value; it holds " +
                    llvm::Twine(value.getNumElements()));
    }
    type = value.getElementType();
    element = value.getValues<Attribute>()[0];
    if (type.isUnsignedInteger()) {
      isUnsigned = true;
      Type signless = n.b.getIntegerType(type.getIntOrFloatBitWidth());
      element = n.b.getIntegerAttr(
          signless, cast<IntegerAttr>(element).getValue());
      type = signless;
    }
  } else {
    element = n.b.getF32FloatAttr(0);
  }
  if (!shape) {
    // Run-time sizes: a fill, each size checked not negative.
    Value zero = arith::ConstantIndexOp::create(n.b, n.loc, 0);
    for (auto [d, size] : llvm::enumerate(*sizes)) {
      if (auto value = dyn_cast<Value>(size)) {
        n.check(arith::CmpIOp::create(n.b, n.loc, arith::CmpIPredicate::sge,
                                      value, zero),
                "dimension " + llvm::Twine(d) +
                    " of the shape is negative at run time");
      }
    }
    if (failed(n.checkShape(known, type, "the result"))) {
      return failure();
    }
    Value fillValue =
        arith::ConstantOp::create(n.b, n.loc, cast<TypedAttr>(element));
    return n.replace(filledTo(n.b, n.loc, *sizes, fillValue), {isUnsigned});
  }
  if (failed(n.checkShape(*shape, type, "the result"))) {
    return failure();
  }
  auto tensorType = RankedTensorType::get(*shape, type);
  return n.replace(
      constant(n.b, n.loc, DenseElementsAttr::get(tensorType, element)),
      {isUnsigned});
}

/// The node's value attribute (value, value_float(s), value_int(s)).
LogicalResult lowerConstant(Node &n) {
  Builder &b = n.b;
  if (DenseElementsAttr value = n.tensorAttr("value")) {
    Type type = value.getElementType();
    if (isNarrowElement(type)) {
      // float8 bits and 4-bit integers (extended) as i8 storage.
      Type i8 = b.getIntegerType(8);
      bool isUnsigned = type.isUnsignedInteger();
      DenseElementsAttr stored =
          isFloat8(type) ? value.bitcast(i8)
                         : value.mapValues(i8, [&](const APInt &v) {
                             return isUnsigned ? v.zext(8) : v.sext(8);
                           });
      n.narrowElem = type;
      return n.replace(constant(n.b, n.loc, stored), {true});
    }
    if (type.isUnsignedInteger()) {
      auto signless = value.getType().clone(
          b.getIntegerType(type.getIntOrFloatBitWidth()));
      DenseElementsAttr converted =
          value.isSplat()
              ? DenseElementsAttr::get(
                    signless,
                    b.getIntegerAttr(signless.getElementType(),
                                     value.getSplatValue<APInt>()))
              : DenseElementsAttr::getFromRawBuffer(signless,
                                                    value.getRawData());
      return n.replace(constant(n.b, n.loc, converted), {true});
    }
    return n.replace(constant(n.b, n.loc, value));
  }
  if (std::optional<double> v = n.floatAttr("value_float");
      v && n.op.getAttrs().get("value_float")) {
    return n.replace(splat(n.b, n.loc, {}, b.getF32Type(), *v));
  }
  if (std::optional<int64_t> v = n.intAttr("value_int")) {
    return n.replace(splat(n.b, n.loc, {}, b.getI64Type(), *v));
  }
  if (std::optional<SmallVector<double>> v = n.floatsAttr("value_floats")) {
    SmallVector<float> values(v->begin(), v->end());
    return n.replace(constant(
        n.b, n.loc,
        DenseElementsAttr::get(
            RankedTensorType::get({static_cast<int64_t>(values.size())},
                                  b.getF32Type()),
            ArrayRef<float>(values))));
  }
  if (std::optional<SmallVector<int64_t>> v = n.intsAttr("value_ints")) {
    return n.replace(constant(
        n.b, n.loc,
        DenseElementsAttr::get(
            RankedTensorType::get({static_cast<int64_t>(v->size())},
                                  b.getI64Type()),
            ArrayRef<int64_t>(*v))));
  }
  return n.fail("has no supported value attribute (sparse and string "
                "constants are not supported)");
}

/// Range with run-time start, limit or delta: its length computed on the
/// host (ceil((limit - start) / delta), at least 0), its values by a kernel.
LogicalResult lowerDynamicRange(Node &n) {
  OpBuilder &b = n.b;
  Location loc = n.loc;
  for (unsigned i = 0; i < 3; ++i) {
    if (n.type(i).getNumElements() != 1) {
      return n.fail("input " + llvm::Twine(i) + " must hold one value");
    }
  }
  Type type = n.elem(0);
  Value start = n.hostScalarIn(0);
  Value limit = n.hostScalarIn(1);
  Value delta = n.hostScalarIn(2);
  Value count;
  if (isFloat(type)) {
    Value zero = scalar(b, loc, type, 0);
    n.check(
        arith::CmpFOp::create(b, loc, arith::CmpFPredicate::UNE, delta, zero),
        "delta is 0 at run time");
    Value span = arith::SubFOp::create(b, loc, limit, start);
    Value steps = math::CeilOp::create(
        b, loc, arith::DivFOp::create(b, loc, span, delta));
    Value wide = convertScalar(b, loc, steps, b.getF64Type());
    Value limitSteps = scalar(b, loc, b.getF64Type(), double(kFoldLimit) * 64);
    n.check(arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OLE, wide,
                                  limitSteps),
            "start, limit and delta make too many values (or none that is a "
            "number) at run time");
    count = arith::FPToSIOp::create(b, loc, b.getI64Type(), wide);
  } else {
    Value zero = scalar(b, loc, type, 0);
    n.check(
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ne, delta, zero),
        "delta is 0 at run time");
    Value span = arith::SubIOp::create(b, loc, limit, start);
    count = arith::CeilDivSIOp::create(b, loc, span, delta);
    count = convertScalar(b, loc, count, b.getI64Type());
  }
  Value zero64 = scalar(b, loc, b.getI64Type(), 0);
  count = arith::MaxSIOp::create(b, loc, count, zero64);
  Value size = arith::IndexCastOp::create(b, loc, b.getIndexType(), count);
  auto resultType = RankedTensorType::get({ShapedType::kDynamic}, type);
  Value result = generic(
      b, loc, {}, {}, resultType,
      [&](OpBuilder &nb, Location l, ValueRange) -> Value {
        Value index = linalg::IndexOp::create(nb, l, 0);
        Value i64 = arith::IndexCastOp::create(nb, l, nb.getI64Type(), index);
        Value step = convertScalar(nb, l, i64, type);
        Value offset =
            isFloat(type)
                ? arith::MulFOp::create(nb, l, step, delta).getResult()
                : arith::MulIOp::create(nb, l, step, delta).getResult();
        return isFloat(type)
                   ? arith::AddFOp::create(nb, l, start, offset).getResult()
                   : arith::AddIOp::create(nb, l, start, offset).getResult();
      },
      {OpFoldResult(size)});
  return n.replace(result);
}

LogicalResult lowerRange(Node &n) {
  if (!n.constant(0) || !n.constant(1) || !n.constant(2)) {
    return lowerDynamicRange(n);
  }
  FailureOr<double> start = n.constFloat(0, "start");
  if (failed(start)) {
    return failure();
  }
  FailureOr<double> limit = n.constFloat(1, "limit");
  if (failed(limit)) {
    return failure();
  }
  FailureOr<double> delta = n.constFloat(2, "delta");
  if (failed(delta)) {
    return failure();
  }
  double s = *start, l = *limit, d = *delta;
  if (d == 0) {
    return n.fail("delta is 0");
  }
  // The values are computed here, one by one: at most kFoldLimit of them
  // (compared as a double: the cast of an infinity or a NaN is undefined;
  // an infinite start or limit on the far side makes -inf steps, none).
  double steps = std::ceil((l - s) / d);
  if (!(steps <= double(kFoldLimit))) {
    std::string text;
    llvm::raw_string_ostream(text)
        << "start " << s << ", limit " << l << " and delta " << d;
    return n.fail(text + " make more than " + llvm::Twine(kFoldLimit) +
                  " values (or none that is a number)");
  }
  int64_t count = steps > 0 ? static_cast<int64_t>(steps) : 0;
  Type type = n.elem(0);
  auto tensorType = RankedTensorType::get({count}, type);
  SmallVector<Attribute> values;
  for (int64_t i = 0; i < count; ++i) {
    double v = s + i * d;
    if (isFloat(type)) {
      values.push_back(n.b.getFloatAttr(type, v));
    } else {
      values.push_back(n.b.getIntegerAttr(type, static_cast<int64_t>(v)));
    }
  }
  return n.replace(constant(n.b, n.loc,
                            DenseElementsAttr::get(tensorType, values)));
}

LogicalResult lowerTrilu(Node &n) {
  bool upper = n.intAttr("upper", 1) != 0;
  // k (a run-time value is read on the host and compared in the kernel).
  OpFoldResult k = n.b.getIndexAttr(0);
  if (n.has(1)) {
    FailureOr<SmallVector<OpFoldResult>> value = n.hostInts(1, "k");
    if (failed(value)) {
      return failure();
    }
    if (value->size() != 1) {
      return n.fail("input 1 (k) holds " + llvm::Twine(value->size()) +
                    " values; it takes one");
    }
    k = value->front();
  }
  int64_t rank = n.rank(0);
  if (rank < 2) {
    return n.fail("expects a rank of at least 2");
  }
  Type element = n.elem(0);
  Value result = generic(
      n.b, n.loc, n.in(0), n.b.getMultiDimIdentityMap(rank), n.type(0),
      [&](OpBuilder &b, Location loc, ValueRange args) -> Value {
        Value i = linalg::IndexOp::create(b, loc, rank - 2);
        Value j = linalg::IndexOp::create(b, loc, rank - 1);
        Value diff = arith::SubIOp::create(b, loc, j, i);
        Value kv = indexValueOf(b, loc, k);
        Value keep = arith::CmpIOp::create(
            b, loc, upper ? arith::CmpIPredicate::sge : arith::CmpIPredicate::sle,
            diff, kv);
        return arith::SelectOp::create(b, loc, keep, args[0],
                                       scalar(b, loc, element, 0));
      });
  return n.replace(result, {n.isUnsigned(0)});
}

LogicalResult lowerEyeLike(Node &n) {
  int64_t k = n.intAttr("k", 0);
  Type element = n.elem(0);
  bool isUnsigned = n.isUnsigned(0);
  if (std::optional<int64_t> dtype = n.intAttr("dtype")) {
    static const std::pair<int64_t, Type> none{0, Type()};
    (void)none;
    MLIRContext *ctx = n.b.getContext();
    Builder b(ctx);
    switch (*dtype) {
    case 1: element = b.getF32Type(); isUnsigned = false; break;
    case 6: element = b.getI32Type(); isUnsigned = false; break;
    case 7: element = b.getI64Type(); isUnsigned = false; break;
    case 11: element = b.getF64Type(); isUnsigned = false; break;
    case 10: element = b.getF16Type(); isUnsigned = false; break;
    case 9: element = b.getI1Type(); isUnsigned = false; break;
    default:
      return n.fail("dtype " + llvm::Twine(*dtype) + " is not supported");
    }
  }
  ArrayRef<int64_t> shape = n.shape(0);
  auto type = RankedTensorType::get(shape, element);
  if (type.getNumElements() > kFoldLimit) {
    // Too large to compute here, element by element: a generic comparing
    // the column with the row + k.
    Value result =
        generic(n.b, n.loc, {}, {}, type,
                [&](OpBuilder &b, Location loc, ValueRange) -> Value {
                  Value i = linalg::IndexOp::create(b, loc, 0);
                  Value j = linalg::IndexOp::create(b, loc, 1);
                  Value diagonal = arith::CmpIOp::create(
                      b, loc, arith::CmpIPredicate::eq,
                      arith::SubIOp::create(b, loc, j, i),
                      arith::ConstantIndexOp::create(b, loc, k));
                  return arith::SelectOp::create(b, loc, diagonal,
                                                 scalar(b, loc, element, 1),
                                                 scalar(b, loc, element, 0));
                });
    return n.replace(result, {isUnsigned});
  }
  SmallVector<Attribute> values;
  for (int64_t i = 0; i < shape[0]; ++i) {
    for (int64_t j = 0; j < shape[1]; ++j) {
      double v = j - i == k ? 1 : 0;
      values.push_back(isFloat(element)
                           ? Attribute(n.b.getFloatAttr(element, v))
                           : Attribute(n.b.getIntegerAttr(
                                 element, static_cast<int64_t>(v))));
    }
  }
  return n.replace(constant(n.b, n.loc, DenseElementsAttr::get(type, values)),
                   {isUnsigned});
}

LogicalResult lowerDepthSpace(Node &n, bool toSpace) {
  if (n.rank(0) != 4) {
    return n.fail("expects a rank-4 input");
  }
  int64_t bs = n.intAttr("blocksize", 0);
  if (bs <= 0) {
    return n.fail("blocksize must be positive");
  }
  ArrayRef<int64_t> s = n.shape(0);
  int64_t N = s[0], C = s[1], H = s[2], W = s[3];
  Value x = n.in(0);
  Value result;
  if (toSpace) {
    int64_t square = 0;
    if (__builtin_mul_overflow(bs, bs, &square) || C % square != 0) {
      return n.fail("channels are not a multiple of blocksize^2");
    }
    int64_t c = C / square;
    bool crd = n.stringAttr("mode").value_or("DCR") == "CRD";
    if (crd) {
      x = reshape(n.b, n.loc, x, {N, c, bs, bs, H, W});
      x = transpose(n.b, n.loc, x, {0, 1, 4, 2, 5, 3});
    } else {
      x = reshape(n.b, n.loc, x, {N, bs, bs, c, H, W});
      x = transpose(n.b, n.loc, x, {0, 3, 4, 1, 5, 2});
    }
    result = reshape(n.b, n.loc, x, {N, c, H * bs, W * bs});
  } else {
    if (H % bs != 0 || W % bs != 0) {
      return n.fail("height or width is not a multiple of blocksize");
    }
    x = reshape(n.b, n.loc, x, {N, C, H / bs, bs, W / bs, bs});
    x = transpose(n.b, n.loc, x, {0, 3, 5, 1, 2, 4});
    result = reshape(n.b, n.loc, x, {N, C * bs * bs, H / bs, W / bs});
  }
  return n.replace(result, {n.isUnsigned(0)});
}

} // namespace

void mlir::strata::onnx::addShapeLowerings(LoweringTable &table) {
  table["Constant"] = lowerConstant;
  table["Identity"] = [](Node &n) {
    return n.replace(n.in(0), {n.isUnsigned(0)});
  };
  table["Dropout"] = [](Node &n) -> LogicalResult {
    // Inference: the input unchanged, and a mask of all true.
    Value mask;
    if (n.outputUsed(1)) {
      mask = splat(n.b, n.loc, n.shape(0), n.b.getI1Type(), 1);
    }
    if (n.numOutputs() == 1) {
      return n.replace(n.in(0), {n.isUnsigned(0)});
    }
    return n.replace({n.in(0), mask}, {n.isUnsigned(0), false});
  };
  table["Shape"] = [](Node &n) -> LogicalResult {
    int64_t rank = n.rank(0);
    int64_t start = n.intAttr("start", 0), end = n.intAttr("end", rank);
    if (start < 0) start += rank;
    if (end < 0) end += rank;
    start = std::clamp<int64_t>(start, 0, rank);
    end = std::clamp<int64_t>(end, start, rank);
    // A host vector: the dynamic dimensions read from the tensor.
    SmallVector<OpFoldResult> dims;
    for (int64_t d = start; d < end; ++d) {
      dims.push_back(n.dim(0, d));
    }
    return n.replace(
        hostVector(n.b, n.loc,
                   RankedTensorType::get({static_cast<int64_t>(dims.size())},
                                         n.b.getI64Type()),
                   dims));
  };
  table["Size"] = [](Node &n) -> LogicalResult {
    return n.replace(hostVector(n.b, n.loc,
                                RankedTensorType::get({}, n.b.getI64Type()),
                                {productOf(n.b, n.loc, n.dims(0))}));
  };
  table["Reshape"] = lowerReshape;
  table["Flatten"] = lowerFlatten;
  table["Squeeze"] = lowerSqueeze;
  table["Unsqueeze"] = lowerUnsqueeze;
  table["Transpose"] = lowerTranspose;
  table["Concat"] = lowerConcat;
  table["Split"] = lowerSplit;
  table["Slice"] = lowerSlice;
  table["Gather"] = lowerGather;
  table["GatherElements"] = lowerGatherElements;
  table["GatherND"] = lowerGatherND;
  table["Expand"] = lowerExpand;
  table["Tile"] = lowerTile;
  table["Pad"] = lowerPad;
  table["CenterCropPad"] = lowerCenterCropPad;
  table["ConstantOfShape"] = lowerConstantOfShape;
  table["Range"] = lowerRange;
  table["Trilu"] = lowerTrilu;
  table["EyeLike"] = lowerEyeLike;
  table.allowDynamic({"Constant", "Identity", "Shape", "Size", "Reshape",
                      "Flatten", "Squeeze", "Unsqueeze", "Transpose", "Concat",
                      "Split", "Slice", "Gather", "Expand", "Tile", "Pad",
                      "ConstantOfShape", "Range", "Trilu"});
  table["DepthToSpace"] = [](Node &n) { return lowerDepthSpace(n, true); };
  table["SpaceToDepth"] = [](Node &n) { return lowerDepthSpace(n, false); };
}
