// QuantizationOps.cpp - ONNX's linear quantization op types
// (QuantizeLinear, DequantizeLinear, DynamicQuantizeLinear), the integer
// contractions (MatMulInteger, ConvInteger, QLinearMatMul, QLinearConv)
// and ONNX Runtime's com.microsoft QLinearAdd and QLinearGlobalAveragePool:
// integer math accumulated in i32, rescaled with ONNX's rounding:
// QuantizeLinear of f32 and QLinearAdd in f32 (as ONNX's reference and ONNX
// Runtime compute them), the node-by-node contractions' requantization in
// f64.

#include "Lowering.h"

using namespace mlir;
using namespace mlir::strata;
using namespace mlir::strata::onnx;

namespace {

/// A per-axis (1-D) parameter reshaped to broadcast along `axis` of a
/// rank-`rank` tensor; scalars and 1-element vectors stay scalars.
Value alongAxis(OpBuilder &b, Location loc, Value v, int64_t axis,
                int64_t rank) {
  auto type = cast<RankedTensorType>(v.getType());
  if (type.getRank() == 0 || type.getNumElements() == 1) {
    return reshape(b, loc, v, {});
  }
  SmallVector<int64_t> shape(rank - axis, 1);
  shape[0] = type.getNumElements();
  return reshape(b, loc, v, shape);
}

/// Clamps `v` (a float holding an integer: rounded, its zero point added)
/// into the range of a `width`-bit integer and converts it to `storage`
/// (the integer type itself, or its i8 storage for 4 bits).
Value clampToInteger(OpBuilder &b, Location loc, Value v, unsigned width,
                     bool isUnsigned, Type storage) {
  double lo = isUnsigned ? 0.0 : -std::ldexp(1.0, width - 1);
  double hi =
      isUnsigned ? std::ldexp(1.0, width) - 1 : std::ldexp(1.0, width - 1) - 1;
  Value r =
      arith::MaximumFOp::create(b, loc, v, scalar(b, loc, v.getType(), lo));
  r = arith::MinimumFOp::create(b, loc, r, scalar(b, loc, v.getType(), hi));
  return convertScalar(b, loc, r, storage, false, isUnsigned);
}

/// clampToInteger into `element` (an 8- to 32-bit integer type).
Value clampTo(OpBuilder &b, Location loc, Value v, Type element,
              bool isUnsigned) {
  return clampToInteger(b, loc, v, element.getIntOrFloatBitWidth(), isUnsigned,
                        element);
}

/// How a QuantizeLinear's or DequantizeLinear's scale (input 1) and zero
/// point (input 2) apply to input 0: along `axis` (0 for a per-tensor
/// scale, where the axis attribute does not matter), each value over
/// `block` indices of it for opset 21's blocked quantization (0: per
/// tensor or per axis).
struct Granularity {
  int64_t axis = 0;
  int64_t block = 0;
};

FailureOr<Granularity> granularityOf(Node &n) {
  int64_t block = n.intAttr("block_size", 0);
  if (block < 0) {
    return n.fail("block_size is " + llvm::Twine(block) +
                  "; it must be positive (or 0: no blocks)");
  }
  if (block > 0) {
    // Blocked: the scale has input 0's shape but along the axis, where it
    // holds one value per `block` indices (the last block may be short).
    FailureOr<int64_t> axis = n.axis(n.intAttr("axis", 1), n.rank(0));
    if (failed(axis)) {
      return failure();
    }
    ArrayRef<int64_t> x = n.shape(0);
    for (unsigned i : {1u, 2u}) {
      if (!n.has(i)) {
        continue;
      }
      ArrayRef<int64_t> p = n.shape(i);
      bool fits = p.size() == x.size();
      for (size_t d = 0; fits && d < x.size(); ++d) {
        fits = static_cast<int64_t>(d) == *axis ? p[d] >= 1 : p[d] == x[d];
      }
      int64_t blocks = fits ? p[*axis] : 0;
      if (!fits || blocks * block < x[*axis] ||
          (blocks - 1) * block >= x[*axis]) {
        std::string shapeText;
        for (int64_t d : p) {
          shapeText += (shapeText.empty() ? "" : "x") + std::to_string(d);
        }
        return n.fail("input " + llvm::Twine(i) + " has the shape [" +
                      shapeText + "]; with block_size " + llvm::Twine(block) +
                      " along axis " + llvm::Twine(*axis) +
                      " it takes input 0's shape but ceil(" +
                      llvm::Twine(x[*axis]) + " / " + llvm::Twine(block) +
                      ") values along that axis");
      }
    }
    return Granularity{*axis, block};
  }
  if (n.type(1).getNumElements() <= 1) {
    if (n.has(2) && n.type(2).getNumElements() != 1) {
      return n.fail("input 2 (the zero point) has " +
                    llvm::Twine(n.type(2).getNumElements()) +
                    " values for a per-tensor scale");
    }
    return Granularity{};
  }
  FailureOr<int64_t> axis = n.axis(n.intAttr("axis", 1), n.rank(0));
  if (failed(axis)) {
    return failure();
  }
  // A per-axis scale (and zero point) holds one value per index of the
  // axis: alongAxis reshapes it to broadcast there.
  int64_t dim = n.shape(0)[*axis];
  for (unsigned i : {1u, 2u}) {
    if (n.has(i) && (n.rank(i) != 1 || n.shape(i)[0] != dim)) {
      return n.fail("input " + llvm::Twine(i) + " has " +
                    llvm::Twine(n.type(i).getNumElements()) +
                    " values in rank " + llvm::Twine(n.rank(i)) +
                    "; a per-axis parameter is 1-D with one value per "
                    "index of axis " +
                    llvm::Twine(*axis) + " (" + llvm::Twine(dim) + ")");
    }
  }
  return Granularity{*axis, 0};
}

/// Input `i` (a scale or zero point) shaped to broadcast against input 0:
/// per tensor or per axis by alongAxis; blocked, each value repeated
/// `block` times along the axis and cut to input 0's length there.
Value parameter(Node &n, unsigned i, Granularity g) {
  OpBuilder &b = n.b;
  Location loc = n.loc;
  if (g.block == 0) {
    return alongAxis(b, loc, n.in(i), g.axis, n.rank(0));
  }
  SmallVector<int64_t> shape(n.shape(i));
  SmallVector<int64_t> expanded(shape);
  expanded.insert(expanded.begin() + g.axis + 1, 1);
  Value v = reshape(b, loc, n.in(i), expanded);
  expanded[g.axis + 1] = g.block;
  v = broadcastTo(b, loc, v, expanded);
  SmallVector<int64_t> repeated(shape);
  repeated[g.axis] *= g.block;
  v = reshape(b, loc, v, repeated);
  if (repeated[g.axis] == n.shape(0)[g.axis]) {
    return v;
  }
  return slice(b, loc, v, SmallVector<int64_t>(shape.size(), 0), n.shape(0),
               SmallVector<int64_t>(shape.size(), 1));
}

LogicalResult lowerQuantizeLinear(Node &n) {
  FailureOr<Granularity> g = granularityOf(n);
  if (failed(g)) {
    return failure();
  }
  OpBuilder &b = n.b;
  Location loc = n.loc;
  Type f64 = b.getF64Type();
  Type f32 = b.getF32Type();
  // The result's type: the zero point's, else opset 21's output_dtype,
  // else uint8.
  Type element = IntegerType::get(b.getContext(), 8, IntegerType::Unsigned);
  int64_t dtype = n.intAttr("output_dtype", 0);
  if (dtype != 0) {
    Type named = onnxDataType(b.getContext(), dtype);
    bool quantized =
        named &&
        (isNarrowElement(named) ||
         (isa<IntegerType>(named) && (named.getIntOrFloatBitWidth() == 8 ||
                                      named.getIntOrFloatBitWidth() == 16)));
    if (!quantized) {
      return n.fail("output_dtype " + llvm::Twine(dtype) +
                    " is not a quantized type (uint8, int8, uint16, int16, "
                    "the float8 types, uint4, int4)");
    }
    if (n.has(2) && named != n.onnxElem(2)) {
      std::string text;
      llvm::raw_string_ostream(text) << n.onnxElem(2);
      return n.fail("output_dtype " + llvm::Twine(dtype) +
                    " differs from the zero point's type " + text);
    }
    element = named;
  }
  if (n.has(2)) {
    element = n.onnxElem(2);
  }
  Type xType = n.onnxElem(0);
  bool xUnsigned = xType.isUnsignedInteger();
  SmallVector<Value> inputs = {n.in(0), parameter(n, 1, *g)};
  Value y;
  if (isFloat8(element)) {
    // x / scale in f32, rounded to the float8 type (the zero point, 0 in
    // practice, is not added: ONNX's reference does not add it either).
    bool saturate = n.intAttr("saturate", 1) != 0;
    auto f8 = cast<FloatType>(element);
    y = elementwise(b, loc, inputs, n.shape(0), b.getIntegerType(8),
                    [&](OpBuilder &nb, Location l, ValueRange a) -> Value {
                      Value x = convertScalar(nb, l, a[0], f32, xUnsigned);
                      Value scale = convertScalar(nb, l, a[1], f32);
                      return f32ToFloat8(nb, l,
                                         arith::DivFOp::create(nb, l, x, scale),
                                         f8, saturate);
                    });
  } else {
    if (n.has(2)) {
      inputs.push_back(parameter(n, 2, *g));
    }
    bool isUnsigned = element.isUnsignedInteger();
    unsigned width = element.getIntOrFloatBitWidth();
    Type storage = storageElement(element);
    // x / scale in x's type when both are f32, as ONNX's reference divides
    // (and ONNX Runtime): the quotient rounds to f32 before it is rounded
    // to an integer, and an f64 quotient can round the other way at a tie.
    // The rounded quotient plus a zero point of up to 16 bits, and the
    // saturation, are exact in f32. Other inputs (integers, f16, bf16)
    // divide in f64. (f64 took half the lanes and its division: the
    // requantizing residual adds of an int8 resnet18 ran 3x ONNX
    // Runtime's time.)
    Type compute = xType.isF32() && n.onnxElem(1).isF32() ? f32 : f64;
    y = elementwise(
        b, loc, inputs, n.shape(0), storage,
        [&](OpBuilder &nb, Location l, ValueRange a) -> Value {
          Value x = convertScalar(nb, l, a[0], compute, xUnsigned);
          Value scale = convertScalar(nb, l, a[1], compute);
          Value q = math::RoundEvenOp::create(
              nb, l, arith::DivFOp::create(nb, l, x, scale));
          if (a.size() > 2) {
            q = arith::AddFOp::create(
                nb, l, q, convertScalar(nb, l, a[2], compute, isUnsigned));
          }
          return clampToInteger(nb, l, q, width, isUnsigned, storage);
        });
  }
  n.narrowElem = isNarrowElement(element) ? element : Type();
  return n.replace(y,
                   {element.isUnsignedInteger() || isNarrowElement(element)});
}

LogicalResult lowerDequantizeLinear(Node &n) {
  FailureOr<Granularity> g = granularityOf(n);
  if (failed(g)) {
    return failure();
  }
  OpBuilder &b = n.b;
  Location loc = n.loc;
  Type out = n.elem(1);
  Type xType = n.onnxElem(0);
  if (n.has(2) && n.onnxElem(2) != xType) {
    std::string x, zp;
    llvm::raw_string_ostream(x) << xType;
    llvm::raw_string_ostream(zp) << n.onnxElem(2);
    return n.fail("input 2 (the zero point) has element type " + zp +
                  "; it takes input 0's type " + x);
  }
  SmallVector<Value> inputs = {n.in(0), parameter(n, 1, *g)};
  if (n.has(2)) {
    inputs.push_back(parameter(n, 2, *g));
  }
  Value y;
  if (isFloat8(xType)) {
    auto f8 = cast<FloatType>(xType);
    y = elementwise(b, loc, inputs, n.shape(0), out,
                    [&](OpBuilder &nb, Location l, ValueRange a) -> Value {
                      Value x = float8ToF32(nb, l, a[0], f8);
                      if (a.size() > 2) {
                        x = arith::SubFOp::create(nb, l, x,
                                                  float8ToF32(nb, l, a[2], f8));
                      }
                      return arith::MulFOp::create(
                          nb, l, convertScalar(nb, l, x, out), a[1]);
                    });
    return n.replace(y);
  }
  bool isUnsigned = xType.isUnsignedInteger();
  y = elementwise(
      b, loc, inputs, n.shape(0), out,
      [&](OpBuilder &nb, Location l, ValueRange a) -> Value {
        Type i32 = nb.getI32Type();
        Value x = convertScalar(nb, l, a[0], i32, isUnsigned);
        if (a.size() > 2) {
          x = arith::SubIOp::create(
              nb, l, x, convertScalar(nb, l, a[2], i32, isUnsigned));
        }
        return arith::MulFOp::create(
            nb, l, convertScalar(nb, l, x, out), a[1]);
      });
  return n.replace(y);
}

LogicalResult lowerDynamicQuantizeLinear(Node &n) {
  OpBuilder &b = n.b;
  Location loc = n.loc;
  Type f32 = b.getF32Type();
  Type u8 = b.getIntegerType(8);
  Value x = n.in(0);
  // Range including 0; scale = (max - min) / 255; zero point from min. The
  // extremes are taken over x as one row, both in one op (one pass over x),
  // which the flow phase splits into partial extremes computed in parallel
  // (SplitReductions.cpp).
  Value row = reshapeTo(b, loc, x, {productOf(b, loc, n.dims(0))});
  Value zero = filledTo(b, loc, {}, scalar(b, loc, f32, 0.0));
  MLIRContext *context = b.getContext();
  AffineMap whole = AffineMap::get(1, 0, {}, context);
  auto range = linalg::GenericOp::create(
      b, loc, TypeRange{zero.getType(), zero.getType()}, ValueRange{row},
      ValueRange{zero, zero},
      ArrayRef<AffineMap>{b.getMultiDimIdentityMap(1), whole, whole},
      ArrayRef<utils::IteratorType>{utils::IteratorType::reduction},
      [](OpBuilder &nb, Location l, ValueRange a) {
        linalg::YieldOp::create(
            nb, l,
            ValueRange{arith::MinimumFOp::create(nb, l, a[1], a[0]),
                       arith::MaximumFOp::create(nb, l, a[2], a[0])});
      });
  Value min = range->getResult(0), max = range->getResult(1);
  Value scale = elementwise(b, loc, {min, max}, {}, f32,
                            [](OpBuilder &nb, Location l, ValueRange a) -> Value {
                              return arith::DivFOp::create(
                                  nb, l, arith::SubFOp::create(nb, l, a[1], a[0]),
                                  scalar(nb, l, a[0].getType(), 255.0));
                            });
  Value zeroPoint = elementwise(
      b, loc, {min, scale}, {}, u8,
      [&](OpBuilder &nb, Location l, ValueRange a) -> Value {
        Value zp = arith::NegFOp::create(
            nb, l, arith::DivFOp::create(nb, l, a[0], a[1]));
        return clampTo(nb, l, math::RoundEvenOp::create(nb, l, zp), u8, true);
      });
  // In f32, as exact as in f64: the range covers x, so x / scale lies in
  // about [-255, 255], its rounding is an integer there, and adding the
  // zero point (0 to 255) is exact. (f64 took half the lanes and a
  // conversion each way: quantizing the activations was 29% of
  // mobilenet_v2_dyn's dispatch time at batch 8.)
  Value y = elementwise(b, loc, {x, scale, zeroPoint}, n.shape(0), u8,
                        [&](OpBuilder &nb, Location l, ValueRange a) -> Value {
                          Value q = math::RoundEvenOp::create(
                              nb, l, arith::DivFOp::create(nb, l, a[0], a[1]));
                          q = arith::AddFOp::create(
                              nb, l, q, convertScalar(nb, l, a[2], f32, true));
                          return clampTo(nb, l, q, u8, true);
                        });
  return n.replace({y, scale, zeroPoint}, {true, false, true});
}

/// Succeeds when input `i` (a scale, zero point or bias), if present, is
/// one value or, when `dim` is not 0, 1-D with one value per index of a
/// dimension of `dim` (what alongAxis and reshape to a scalar assume).
LogicalResult checkParameter(Node &n, unsigned i, int64_t dim) {
  if (!n.has(i) || n.type(i).getNumElements() == 1) {
    return success();
  }
  if (dim != 0 && n.rank(i) == 1 && n.shape(i)[0] == dim) {
    return success();
  }
  return n.fail("input " + llvm::Twine(i) + " has " +
                llvm::Twine(n.type(i).getNumElements()) + " values in rank " +
                llvm::Twine(n.rank(i)) +
                (dim != 0 ? "; it takes one value, or one per index of a "
                            "dimension of " +
                                llvm::Twine(dim)
                          : llvm::Twine("; it takes one value")));
}

/// x - zero point, widened to i32 (the zero point broadcast per `axis`
/// when it is a vector).
Value centered(Node &n, unsigned x, unsigned zp, int64_t axis) {
  OpBuilder &b = n.b;
  Location loc = n.loc;
  Type i32 = b.getI32Type();
  bool xu = n.isUnsigned(x);
  if (!n.has(zp)) {
    return convertTensor(b, loc, n.in(x), i32, xu);
  }
  bool zu = n.isUnsigned(zp);
  Value point = alongAxis(b, loc, n.in(zp), axis, n.rank(x));
  return elementwise(b, loc, {n.in(x), point}, n.shape(x), i32,
                     [&](OpBuilder &nb, Location l, ValueRange a) -> Value {
                       return arith::SubIOp::create(
                           nb, l, convertScalar(nb, l, a[0], i32, xu),
                           convertScalar(nb, l, a[1], i32, zu));
                     });
}

/// A product of matrices (or batches of them): input `lhs`'s columns
/// against input `rhs`'s rows, the batch dimensions broadcast, as the
/// matmul builder assumes.
LogicalResult checkMatMulShapes(Node &n, unsigned lhs, unsigned rhs) {
  ArrayRef<int64_t> lhsShape = n.shape(lhs), rhsShape = n.shape(rhs);
  int64_t columns = lhsShape.back(), rows = rhsShape[rhsShape.size() - 2];
  if (columns != rows) {
    return n.fail("the inner dimensions differ: input " + llvm::Twine(lhs) +
                  " has " + llvm::Twine(columns) + " columns, input " +
                  llvm::Twine(rhs) + " has " + llvm::Twine(rows) + " rows");
  }
  if (failed(broadcastShapes({lhsShape.drop_back(2), rhsShape.drop_back(2)}))) {
    return n.fail("the batch dimensions do not broadcast");
  }
  return success();
}

/// The (offset - a_zp) * colsum(W') term of int8MatMul / int8Conv added to
/// an i32 product whose last dimension is the columns: a_zp the scalar
/// input `zp` of `n` (when present), offset 128 for u8 A.
Value addZeroPointTerm(Node &n, Value acc, ArrayRef<int32_t> colsum,
                       int64_t offset, unsigned zp) {
  if (offset == 0 && !n.has(zp)) {
    return acc;
  }
  OpBuilder &b = n.b;
  Location loc = n.loc;
  Type i32 = b.getI32Type();
  Value sums = constant(
      b, loc,
      DenseElementsAttr::get(
          RankedTensorType::get({static_cast<int64_t>(colsum.size())}, i32),
          colsum));
  SmallVector<Value> inputs = {acc, sums};
  if (n.has(zp)) {
    inputs.push_back(reshape(b, loc, n.in(zp), {}));
  }
  bool zu = n.has(zp) && n.isUnsigned(zp);
  return elementwise(
      b, loc, inputs, cast<RankedTensorType>(acc.getType()).getShape(), i32,
      [&](OpBuilder &nb, Location l, ValueRange v) -> Value {
        Value factor = scalar(nb, l, i32, double(offset));
        if (v.size() == 3) {
          factor = arith::SubIOp::create(nb, l, factor,
                                         convertScalar(nb, l, v[2], i32, zu));
        }
        return arith::AddIOp::create(
            nb, l, v[0], arith::MulIOp::create(nb, l, factor, v[1]));
      });
}

/// The weight's zero point (input 3) as `count` values (one repeated, or
/// one per output channel; 0 when absent), or nullopt when it is not a
/// constant.
std::optional<SmallVector<int64_t>> weightZeroPoints(Node &n, int64_t count) {
  SmallVector<int64_t> zero(count, 0);
  if (!n.has(3)) {
    return zero;
  }
  DenseElementsAttr attr = constantOf(n.in(3));
  if (!attr) {
    return std::nullopt;
  }
  SmallVector<int64_t> points = intsOf(attr, n.isUnsigned(3));
  for (int64_t i = 0; i < count; ++i) {
    zero[i] = points[points.size() == 1 ? 0 : i];
  }
  return zero;
}

/// MatMulInteger with a constant matrix B (a dynamically quantized model's
/// weight; A's zero point one value, B's one or one per column) as an i8 x
/// i8 -> i32 matmul, which the int8 microkernel computes. With A' = A - 128
/// for u8 A (its top bit flipped), A itself for i8, and W' = B - b_zp
/// (computed here; it must fit in i8):
///
///   (A - a_zp) (B - b_zp) = A' W' + (offset - a_zp) colsum(W')
///
/// (offset 128 or 0): one i32 term per column, times a run-time scalar
/// when a_zp is an input, added to the product (in the matmul's dispatch).
/// The batches of a 3-D A are rows of one matmul. Null when it does not
/// apply (the caller computes in i32).
Value int8MatMul(Node &n) {
  DenseElementsAttr bAttr = constantOf(n.in(1));
  if (n.rank(1) != 2 || !bAttr ||
      (n.has(2) && n.type(2).getNumElements() != 1)) {
    return {};
  }
  int64_t depth = n.shape(1)[0], columns = n.shape(1)[1];
  std::optional<SmallVector<int64_t>> bZero = weightZeroPoints(n, columns);
  if (!bZero) {
    return {};
  }
  SmallVector<int64_t> values = intsOf(bAttr, n.isUnsigned(1));
  SmallVector<int8_t> weight(depth * columns);
  SmallVector<int32_t> colsum(columns, 0);
  for (int64_t index = 0; index < depth * columns; ++index) {
    int64_t column = index % columns;
    int64_t w = values[index] - (*bZero)[column];
    if (w < -128 || w > 127) {
      return {};
    }
    weight[index] = int8_t(w);
    colsum[column] += int32_t(w);
  }
  OpBuilder &b = n.b;
  Location loc = n.loc;
  Type i8 = b.getIntegerType(8), i32 = b.getI32Type();
  bool au = n.isUnsigned(0);
  Value a = n.in(0);
  if (au) {
    a = elementwise(b, loc, {a}, n.shape(0), i8,
                    [](OpBuilder &nb, Location l, ValueRange v) -> Value {
                      return flipTopBit(nb, l, v[0], true);
                    });
  }
  SmallVector<OpFoldResult> sizes = n.dims(0);
  OpFoldResult rows =
      productOf(b, loc, ArrayRef<OpFoldResult>(sizes).drop_back());
  a = reshapeTo(b, loc, a, {rows, sizes.back()});
  Value w = constant(
      b, loc,
      DenseElementsAttr::get(RankedTensorType::get({depth, columns}, i8),
                             ArrayRef<int8_t>(weight)));
  Value init =
      filledTo(b, loc, {rows, b.getIndexAttr(columns)}, scalar(b, loc, i32, 0));
  Value acc = linalg::MatmulOp::create(b, loc, TypeRange{init.getType()},
                                       ValueRange{a, w}, ValueRange{init})
                  ->getResult(0);
  acc = addZeroPointTerm(n, acc, colsum, au ? 128 : 0, 2);
  SmallVector<OpFoldResult> resultSizes(
      ArrayRef<OpFoldResult>(sizes).drop_back());
  resultSizes.push_back(b.getIndexAttr(columns));
  return reshapeTo(b, loc, acc, resultSizes);
}

/// Matrices or batches of them (a dynamically quantized transformer's
/// projections take its 3-D activations); A's zero point one value or one
/// per row, B's one value or one per column.
LogicalResult lowerMatMulInteger(Node &n) {
  if (n.rank(0) < 2 || n.rank(1) < 2) {
    return n.fail("operands must have rank 2 or more");
  }
  if (failed(checkMatMulShapes(n, 0, 1))) {
    return failure();
  }
  if (failed(checkParameter(n, 2, n.shape(0)[n.rank(0) - 2])) ||
      failed(checkParameter(n, 3, n.shape(1).back()))) {
    return failure();
  }
  if (Value product = int8MatMul(n)) {
    return n.replace(product);
  }
  Value a = centered(n, 0, 2, n.rank(0) - 2);
  Value bm = centered(n, 1, 3, n.rank(1) - 1);
  return n.replace(matmulValues(n.b, n.loc, a, bm));
}

/// ConvInteger (2-D; group 1, or one filter per channel) with a constant
/// weight (a dynamically quantized CNN) as int8MatMul computes
/// MatMulInteger: the input in NHWC, padded with its zero point (a run-time
/// value: the padding is selected by a constant mask, so a padded tap adds
/// (x_zp - x_zp) * w' = 0), its top bit flipped for u8, then gathered into
/// windows (im2col) for an i8 x i8 -> i32 matmul against W' = w - w_zp
/// (rows of depth ky, kx, c), or convolved depthwise (i8 into i32, W' as
/// ky, kx, c), the zero-point term per channel, back to NCHW. Null when it
/// does not apply; failure (reported) when the window's attributes are
/// invalid.
FailureOr<Value> int8Conv(Node &n) {
  DenseElementsAttr wAttr = constantOf(n.in(1));
  if (!wAttr || !n.allStatic() || n.rank(0) != 4 || n.rank(1) != 4 ||
      (n.has(2) && n.type(2).getNumElements() != 1)) {
    return Value();
  }
  ArrayRef<int64_t> xs = n.shape(0), ws = n.shape(1);
  int64_t batch = xs[0], channels = xs[1], height = xs[2], width = xs[3];
  int64_t filters = ws[0], kh = ws[2], kw = ws[3];
  int64_t group = n.intAttr("group", 1);
  bool depthwise =
      group > 1 && group == channels && filters == channels && ws[1] == 1;
  if (!depthwise && (group != 1 || ws[1] != channels)) {
    return Value();
  }
  FailureOr<ConvWindow> win = convWindow2D(n, {height, width}, {kh, kw});
  if (failed(win)) {
    return failure();
  }
  std::optional<SmallVector<int64_t>> wZero = weightZeroPoints(n, filters);
  if (!wZero) {
    return Value();
  }
  // W' as rows (ky, kx, c) x columns f, from the weight's (f, c, ky, kx);
  // depthwise as (ky, kx, f).
  SmallVector<int64_t> w = intsOf(wAttr, n.isUnsigned(1));
  int64_t depth = kh * kw * ws[1];
  SmallVector<int8_t> weight(depth * filters);
  SmallVector<int32_t> colsum(filters, 0);
  for (int64_t f = 0; f < filters; ++f) {
    for (int64_t c = 0; c < ws[1]; ++c) {
      for (int64_t y = 0; y < kh; ++y) {
        for (int64_t x = 0; x < kw; ++x) {
          int64_t v = w[((f * ws[1] + c) * kh + y) * kw + x] - (*wZero)[f];
          if (v < -128 || v > 127) {
            return Value();
          }
          weight[((y * kw + x) * ws[1] + c) * filters + f] = int8_t(v);
          colsum[f] += int32_t(v);
        }
      }
    }
  }
  OpBuilder &b = n.b;
  Location loc = n.loc;
  MLIRContext *context = b.getContext();
  Type i8 = b.getIntegerType(8), i32 = b.getI32Type();
  bool xu = n.isUnsigned(0);
  Value nhwc = transpose(b, loc, n.in(0), {0, 2, 3, 1});
  bool padded = false;
  for (int i = 0; i < 2; ++i) {
    padded |= win->padBegin[i] != 0 || win->padEnd[i] != 0;
  }
  int64_t hp = height + win->padBegin[0] + win->padEnd[0];
  int64_t wp = width + win->padBegin[1] + win->padEnd[1];
  SmallVector<int64_t> paddedShape = {batch, hp, wp, channels};
  // A' = x - 128 for u8 (the top bit flipped), x for i8; the padding x_zp.
  if (padded) {
    nhwc = tensor::PadOp::create(
        b, loc, RankedTensorType::get(paddedShape, i8), nhwc,
        getAsIndexOpFoldResult(context,
                               {0, win->padBegin[0], win->padBegin[1], 0}),
        getAsIndexOpFoldResult(context, {0, win->padEnd[0], win->padEnd[1], 0}),
        scalar(b, loc, i8, 0));
    SmallVector<int8_t> inside(hp * wp, 0);
    for (int64_t y = 0; y < height; ++y) {
      for (int64_t x = 0; x < width; ++x) {
        inside[(y + win->padBegin[0]) * wp + x + win->padBegin[1]] = 1;
      }
    }
    Value mask = constant(
        b, loc,
        DenseElementsAttr::get(RankedTensorType::get({1, hp, wp, 1}, i8),
                               ArrayRef<int8_t>(inside)));
    Value zp =
        n.has(2)
            ? reshape(b, loc, n.in(2), {})
            : constant(b, loc,
                       DenseElementsAttr::get(RankedTensorType::get({}, i8),
                                              ArrayRef<int8_t>{0}));
    nhwc = elementwise(
        b, loc, {nhwc, mask, zp}, paddedShape, i8,
        [&](OpBuilder &nb, Location l, ValueRange v) -> Value {
          Value in = arith::CmpIOp::create(nb, l, arith::CmpIPredicate::ne,
                                           v[1], scalar(nb, l, i8, 0));
          return flipTopBit(nb, l,
                            arith::SelectOp::create(nb, l, in, v[0], v[2]), xu);
        });
  } else if (xu) {
    nhwc = elementwise(b, loc, {nhwc}, paddedShape, i8,
                       [&](OpBuilder &nb, Location l, ValueRange v) -> Value {
                         return flipTopBit(nb, l, v[0], xu);
                       });
  }
  int64_t oh = win->out[0], ow = win->out[1];
  if (depthwise) {
    Value filter = constant(
        b, loc,
        DenseElementsAttr::get(RankedTensorType::get({kh, kw, channels}, i8),
                               ArrayRef<int8_t>(weight)));
    Value init =
        filled(b, loc, {batch, oh, ow, channels}, scalar(b, loc, i32, 0));
    auto pair = [&](ArrayRef<int64_t> values) {
      return DenseIntElementsAttr::get(
          RankedTensorType::get({2}, b.getI64Type()), values);
    };
    Value acc = linalg::DepthwiseConv2DNhwcHwcOp::create(
                    b, loc, TypeRange{init.getType()}, ValueRange{nhwc, filter},
                    ValueRange{init}, pair(win->strides), pair(win->dilations))
                    ->getResult(0);
    acc = addZeroPointTerm(n, acc, colsum, xu ? 128 : 0, 2);
    return transpose(b, loc, acc, {0, 3, 1, 2});
  }
  int64_t rows = batch * oh * ow;
  // Flipped already (before the padding).
  Value a = windowRows(b, loc, nhwc, *win, kh, kw, /*isUnsigned=*/false);
  Value wm = constant(
      b, loc,
      DenseElementsAttr::get(RankedTensorType::get({depth, filters}, i8),
                             ArrayRef<int8_t>(weight)));
  Value init = filled(b, loc, {rows, filters}, scalar(b, loc, i32, 0));
  Value acc = linalg::MatmulOp::create(b, loc, TypeRange{init.getType()},
                                       ValueRange{a, wm}, ValueRange{init})
                  ->getResult(0);
  acc = addZeroPointTerm(n, acc, colsum, xu ? 128 : 0, 2);
  acc = reshape(b, loc, acc, {batch, oh, ow, filters});
  return transpose(b, loc, acc, {0, 3, 1, 2});
}

LogicalResult lowerConvInteger(Node &n) {
  if (failed(checkParameter(n, 2, 0)) ||
      failed(checkParameter(n, 3, n.shape(1)[0]))) {
    return failure();
  }
  FailureOr<Value> product = int8Conv(n);
  if (failed(product)) {
    return failure();
  }
  if (*product) {
    return n.replace(*product);
  }
  Value x = centered(n, 0, 2, 0);
  Value w = centered(n, 1, 3, 0);
  FailureOr<Value> y = convolveNCHW(n, x, w);
  if (failed(y)) {
    return failure();
  }
  return n.replace(*y);
}

/// Requantizes an i32 accumulator: round(acc * scale) + zero point,
/// saturated to the zero point's type.
LogicalResult requantize(Node &n, Value acc, Value scale, unsigned zp) {
  OpBuilder &b = n.b;
  Location loc = n.loc;
  Type element = n.elem(zp);
  bool isUnsigned = n.isUnsigned(zp);
  auto type = cast<RankedTensorType>(acc.getType());
  Value y = elementwise(
      b, loc, {acc, scale, reshape(b, loc, n.in(zp), {})}, type.getShape(),
      element, [&](OpBuilder &nb, Location l, ValueRange a) -> Value {
        Type f64 = nb.getF64Type();
        Value v = arith::MulFOp::create(
            nb, l, convertScalar(nb, l, a[0], f64),
            convertScalar(nb, l, a[1], f64));
        v = math::RoundEvenOp::create(nb, l, v);
        v = arith::AddFOp::create(nb, l, v,
                                  convertScalar(nb, l, a[2], f64, isUnsigned));
        return clampTo(nb, l, v, element, isUnsigned);
      });
  return n.replace(y, {isUnsigned});
}

/// The combined scale a_scale * b_scale / y_scale (b_scale per column or
/// per output channel along `axis` of a rank-`rank` result).
Value combinedScale(Node &n, unsigned aScale, unsigned bScale,
                    unsigned yScale, int64_t axis, int64_t rank) {
  OpBuilder &b = n.b;
  Location loc = n.loc;
  Value bs = alongAxis(b, loc, n.in(bScale), axis, rank);
  auto bsType = cast<RankedTensorType>(bs.getType());
  return elementwise(
      b, loc, {reshape(b, loc, n.in(aScale), {}), bs,
               reshape(b, loc, n.in(yScale), {})},
      bsType.getShape(), b.getF64Type(),
      [](OpBuilder &nb, Location l, ValueRange a) -> Value {
        Type f64 = nb.getF64Type();
        Value s = arith::MulFOp::create(nb, l, convertScalar(nb, l, a[0], f64),
                                        convertScalar(nb, l, a[1], f64));
        return arith::DivFOp::create(nb, l, s,
                                     convertScalar(nb, l, a[2], f64));
      });
}

LogicalResult lowerQLinearMatMul(Node &n) {
  // a, a_scale, a_zp, b, b_scale, b_zp, y_scale, y_zp
  if (n.rank(0) < 2 || n.rank(3) < 2) {
    return n.fail("operands must have rank 2 or more");
  }
  if (failed(checkMatMulShapes(n, 0, 3))) {
    return failure();
  }
  int64_t rows = n.shape(0)[n.rank(0) - 2], columns = n.shape(3).back();
  if (failed(checkParameter(n, 1, 0)) || failed(checkParameter(n, 2, rows)) ||
      failed(checkParameter(n, 4, columns)) ||
      failed(checkParameter(n, 5, columns)) ||
      failed(checkParameter(n, 6, 0)) || failed(checkParameter(n, 7, 0))) {
    return failure();
  }
  Value a = centered(n, 0, 2, n.rank(0) - 2);
  Value bm = centered(n, 3, 5, n.rank(3) - 1);
  Value acc = matmulValues(n.b, n.loc, a, bm);
  int64_t rank = cast<RankedTensorType>(acc.getType()).getRank();
  Value scale = combinedScale(n, 1, 4, 6, rank - 1, rank);
  return requantize(n, acc, scale, 7);
}

LogicalResult lowerQLinearConv(Node &n) {
  // x, x_scale, x_zp, w, w_scale, w_zp, y_scale, y_zp, bias
  int64_t filters = n.shape(3)[0];
  if (failed(checkParameter(n, 1, 0)) || failed(checkParameter(n, 2, 0)) ||
      failed(checkParameter(n, 4, filters)) ||
      failed(checkParameter(n, 5, filters)) ||
      failed(checkParameter(n, 6, 0)) || failed(checkParameter(n, 7, 0)) ||
      failed(checkParameter(n, 8, filters))) {
    return failure();
  }
  Value x = centered(n, 0, 2, 0);
  Value w = centered(n, 3, 5, 0);
  FailureOr<Value> acc = convolveNCHW(n, x, w);
  if (failed(acc)) {
    return failure();
  }
  auto type = cast<RankedTensorType>(acc->getType());
  if (n.has(8)) {
    Value bias = alongAxis(n.b, n.loc, n.in(8), 1, type.getRank());
    acc = elementwise(n.b, n.loc, {*acc, bias}, type.getShape(),
                      n.b.getI32Type(),
                      [](OpBuilder &nb, Location l, ValueRange a) -> Value {
                        return arith::AddIOp::create(nb, l, a[0], a[1]);
                      });
  }
  Value scale = combinedScale(n, 1, 4, 6, 1, type.getRank());
  return requantize(n, *acc, scale, 7);
}

/// Fails unless inputs `indices` exist and hold one value each (a
/// per-tensor scale or zero point); `optional` ones may be absent.
LogicalResult checkScalars(Node &n, ArrayRef<unsigned> indices,
                           ArrayRef<unsigned> optional, unsigned inputs) {
  if (n.numInputs() > inputs) {
    return n.fail("takes at most " + llvm::Twine(inputs) + " inputs");
  }
  for (unsigned i : indices) {
    bool isOptional = llvm::is_contained(optional, i);
    if (!n.has(i)) {
      if (isOptional) {
        continue;
      }
      return n.fail("input " + llvm::Twine(i) + " is missing");
    }
    if (n.type(i).getNumElements() != 1) {
      return n.fail("input " + llvm::Twine(i) + " has " +
                    llvm::Twine(n.type(i).getNumElements()) +
                    " values; only a per-tensor scale or zero point (one "
                    "value) is supported");
    }
  }
  return success();
}

/// The value of zero point `v`, node input `i` (its signedness), as float
/// type `to`: 0 when the input is absent (`v` null).
Value zeroPointAs(OpBuilder &nb, Location l, Node &n, unsigned i, Value v,
                  Type to) {
  if (!v) {
    return scalar(nb, l, to, 0.0);
  }
  return convertScalar(nb, l, v, to, n.isUnsigned(i));
}

/// com.microsoft QLinearAdd (A, A_scale, A_zp, B, B_scale, B_zp, C_scale,
/// C_zp; numpy broadcasting): C = saturate(round_even((A - A_zp) * (A_scale
/// / C_scale) + (B - B_zp) * (B_scale / C_scale)) + C_zp), in f32.
LogicalResult lowerQLinearAdd(Node &n) {
  if (failed(checkScalars(n, {1, 2, 4, 5, 6, 7}, {2, 5, 7}, 8))) {
    return failure();
  }
  if (!n.has(0) || !n.has(3)) {
    return n.fail("inputs 0 and 3 (A and B) are required");
  }
  if (n.elem(0) != n.elem(3) || !n.elem(0).isInteger(8) ||
      n.isUnsigned(0) != n.isUnsigned(3) ||
      (n.has(7) && n.isUnsigned(7) != n.isUnsigned(0))) {
    return n.fail("A, B and C_zp must all be uint8 or all int8");
  }
  FailureOr<SmallVector<int64_t>> shape =
      broadcastShapes({n.shape(0), n.shape(3)});
  if (failed(shape)) {
    return n.fail("the shapes of A and B do not broadcast");
  }
  OpBuilder &b = n.b;
  Location loc = n.loc;
  Type element = n.elem(0);
  bool isUnsigned = n.isUnsigned(0);
  SmallVector<Value> inputs = {n.in(0), n.in(3)};
  for (unsigned i : {1u, 2u, 4u, 5u, 6u, 7u}) {
    if (n.has(i)) {
      inputs.push_back(reshape(b, loc, n.in(i), {}));
    }
  }
  // In f32, as ONNX Runtime computes it in floats (its vector kernel in
  // fixed point): each term (x - zp) * (scale / C_scale), the ratio an f32
  // quotient (of constants in practice, folded), the differences of 8-bit
  // values exact; their sum rounded to even. Within a rounding of the f64
  // value (it differs only where that is within an ulp of a tie); f64 took
  // half the lanes and conversions each way, the QOperator resnet18's
  // residual adds 2.5x ONNX Runtime's time.
  Value y = elementwise(
      b, loc, inputs, *shape, element,
      [&](OpBuilder &nb, Location l, ValueRange a) -> Value {
        Type f32 = nb.getF32Type();
        unsigned next = 2;
        auto take = [&](unsigned i) -> Value {
          return n.has(i) ? a[next++] : Value();
        };
        Value aScale = take(1), aZp = take(2), bScale = take(4), bZp = take(5),
              cScale = take(6), cZp = take(7);
        auto term = [&](Value x, Value scale, Value zp, unsigned zpIndex) {
          Value v = arith::SubFOp::create(
              nb, l, convertScalar(nb, l, x, f32, isUnsigned),
              zeroPointAs(nb, l, n, zpIndex, zp, f32));
          Value ratio =
              arith::DivFOp::create(nb, l, convertScalar(nb, l, scale, f32),
                                    convertScalar(nb, l, cScale, f32));
          return arith::MulFOp::create(nb, l, v, ratio).getResult();
        };
        Value v = arith::AddFOp::create(nb, l, term(a[0], aScale, aZp, 2),
                                        term(a[1], bScale, bZp, 5));
        v = math::RoundEvenOp::create(nb, l, v);
        v = arith::AddFOp::create(nb, l, v, zeroPointAs(nb, l, n, 7, cZp, f32));
        return clampTo(nb, l, v, element, isUnsigned);
      });
  return n.replace(y, {isUnsigned});
}

/// com.microsoft QLinearGlobalAveragePool (X, x_scale, x_zp, y_scale, y_zp;
/// NCHW, channels_last = 0): Y = saturate(round_even(sum(X - x_zp) *
/// x_scale / (y_scale * count)) + y_zp) over each image's spatial
/// positions, shaped N x C x 1 x 1.
LogicalResult lowerQLinearGlobalAveragePool(Node &n) {
  if (failed(checkScalars(n, {1, 2, 3, 4}, {2, 4}, 5))) {
    return failure();
  }
  if (!n.has(0) || n.rank(0) < 3 || !n.elem(0).isInteger(8)) {
    return n.fail("input 0 (X) must be a uint8 or int8 tensor of rank 3 or "
                  "more");
  }
  if (n.intAttr("channels_last", 0) != 0) {
    return n.fail("channels_last = 1 is not supported");
  }
  if (n.has(4) && n.isUnsigned(4) != n.isUnsigned(0)) {
    return n.fail("X and y_zp must both be uint8 or both int8");
  }
  OpBuilder &b = n.b;
  Location loc = n.loc;
  Type i32 = b.getI32Type();
  Type element = n.elem(0);
  bool isUnsigned = n.isUnsigned(0);
  ArrayRef<int64_t> shape = n.shape(0);
  SmallVector<int64_t> axes, outShape = {shape[0], shape[1]};
  int64_t count = 1;
  for (int64_t d = 2; d < n.rank(0); ++d) {
    axes.push_back(d);
    count *= shape[d];
    outShape.push_back(1);
  }
  Value sum =
      reduce(b, loc, n.in(0), axes, scalar(b, loc, i32, 0),
             [&](OpBuilder &nb, Location l, ValueRange a) -> Value {
               return arith::AddIOp::create(
                   nb, l, a[1], convertScalar(nb, l, a[0], i32, isUnsigned));
             });
  SmallVector<Value> inputs = {sum};
  for (unsigned i : {1u, 2u, 3u, 4u}) {
    if (n.has(i)) {
      inputs.push_back(reshape(b, loc, n.in(i), {}));
    }
  }
  Value y = elementwise(
      b, loc, inputs, cast<RankedTensorType>(sum.getType()).getShape(), element,
      [&](OpBuilder &nb, Location l, ValueRange a) -> Value {
        Type f64 = nb.getF64Type();
        unsigned next = 1;
        auto take = [&](unsigned i) -> Value {
          return n.has(i) ? a[next++] : Value();
        };
        Value xScale = take(1), xZp = take(2), yScale = take(3), yZp = take(4);
        Value total = arith::SubFOp::create(
            nb, l, convertScalar(nb, l, a[0], f64),
            arith::MulFOp::create(nb, l, zeroPointAs(nb, l, n, 2, xZp, f64),
                                  scalar(nb, l, f64, double(count))));
        Value ratio = arith::DivFOp::create(
            nb, l, convertScalar(nb, l, xScale, f64),
            arith::MulFOp::create(nb, l, convertScalar(nb, l, yScale, f64),
                                  scalar(nb, l, f64, double(count))));
        Value v = math::RoundEvenOp::create(
            nb, l, arith::MulFOp::create(nb, l, total, ratio));
        v = arith::AddFOp::create(nb, l, v, zeroPointAs(nb, l, n, 4, yZp, f64));
        return clampTo(nb, l, v, element, isUnsigned);
      });
  return n.replace(reshape(b, loc, y, outShape), {isUnsigned});
}

} // namespace

void mlir::strata::onnx::addQuantizationLowerings(LoweringTable &table) {
  table["QuantizeLinear"] = lowerQuantizeLinear;
  table["DequantizeLinear"] = lowerDequantizeLinear;
  table["DynamicQuantizeLinear"] = lowerDynamicQuantizeLinear;
  table["MatMulInteger"] = lowerMatMulInteger;
  table["ConvInteger"] = lowerConvInteger;
  table["QLinearMatMul"] = lowerQLinearMatMul;
  table["QLinearConv"] = lowerQLinearConv;
  table["com.microsoft.QLinearAdd"] = lowerQLinearAdd;
  table["com.microsoft.QLinearGlobalAveragePool"] =
      lowerQLinearGlobalAveragePool;
}
