// NNOps.cpp - ONNX's neural-network op types: MatMul and Gemm as
// linalg.matmul/batch_matmul, Conv and the pools on NHWC named linalg ops
// (weights transposed at compile time, one transpose in and out), and the
// normalizations.

#include "Lowering.h"

#include <limits>

using namespace mlir;
using namespace mlir::strata;
using namespace mlir::strata::onnx;

namespace {

/// Accumulation type of a contraction: f16/bf16 accumulate in f32.
Type contractionAccumulator(OpBuilder &b, Type element) {
  if (element.isF16() || element.isBF16()) {
    return b.getF32Type();
  }
  return element;
}

/// A(..., M, K) x B(..., K, N) with numpy batch broadcasting; A and B are
/// at least rank 2 here. Any dimension may be dynamic: the batch sizes are
/// the operands' (a static 1 broadcasts), and the contraction's own loops
/// compare the rest at run time.
Value matmul(OpBuilder &b, Location loc, Value lhs, Value rhs) {
  auto lhsType = cast<RankedTensorType>(lhs.getType());
  auto rhsType = cast<RankedTensorType>(rhs.getType());
  Type element = lhsType.getElementType();
  Type acc = contractionAccumulator(b, element);
  SmallVector<OpFoldResult> a = dimsOf(b, loc, lhs), c = dimsOf(b, loc, rhs);
  OpFoldResult m = a[a.size() - 2], k = a.back(), n = c.back();
  ArrayRef<int64_t> aBatch = lhsType.getShape().drop_back(2);
  ArrayRef<int64_t> bBatch = rhsType.getShape().drop_back(2);
  int64_t batchRank = std::max(aBatch.size(), bBatch.size());
  SmallVector<OpFoldResult> batch;
  for (int64_t d = 0; d < batchRank; ++d) {
    int64_t i = d - (batchRank - static_cast<int64_t>(aBatch.size()));
    int64_t j = d - (batchRank - static_cast<int64_t>(bBatch.size()));
    bool aOne = i < 0 || aBatch[i] == 1;
    bool bOne = j < 0 || bBatch[j] == 1;
    if (!aOne) {
      batch.push_back(a[i]);
    } else if (!bOne) {
      batch.push_back(c[j]);
    } else {
      batch.push_back(b.getIndexAttr(1));
    }
  }
  OpFoldResult batchCount = productOf(b, loc, batch);
  auto withTail = [&](OpFoldResult x, OpFoldResult y) {
    SmallVector<OpFoldResult> sizes(batch);
    sizes.push_back(x);
    sizes.push_back(y);
    return sizes;
  };
  Value zero = scalar(b, loc, acc, 0);
  Value result;
  bool rhsShared = llvm::all_of(bBatch, [](int64_t d) { return d == 1; });
  if (rhsShared) {
    // One B for every batch: rows of all batches in one matmul.
    Value lhs2 =
        reshapeTo(b, loc, broadcastToSizes(b, loc, lhs, withTail(m, k)),
                  {mulSizes(b, loc, batchCount, m), k});
    Value rhs2 = reshapeTo(b, loc, rhs, {c[c.size() - 2], n});
    Value init = filledTo(b, loc, {mulSizes(b, loc, batchCount, m), n}, zero);
    result = linalg::MatmulOp::create(
                 b, loc, TypeRange{init.getType()}, ValueRange{lhs2, rhs2},
                 ValueRange{init})
                 ->getResult(0);
  } else {
    Value lhs3 =
        reshapeTo(b, loc, broadcastToSizes(b, loc, lhs, withTail(m, k)),
                  {batchCount, m, k});
    Value rhs3 = reshapeTo(
        b, loc, broadcastToSizes(b, loc, rhs, withTail(c[c.size() - 2], n)),
        {batchCount, c[c.size() - 2], n});
    Value init = filledTo(b, loc, {batchCount, m, n}, zero);
    result = linalg::BatchMatmulOp::create(
                 b, loc, TypeRange{init.getType()}, ValueRange{lhs3, rhs3},
                 ValueRange{init})
                 ->getResult(0);
  }
  result = convertTensor(b, loc, result, element);
  return reshapeTo(b, loc, result, withTail(m, n));
}

LogicalResult lowerMatMul(Node &n) {
  if (n.elem(0) != n.elem(1)) {
    return n.fail("the inputs have different element types");
  }
  Value lhs = n.in(0), rhs = n.in(1);
  int64_t lhsRank = n.rank(0), rhsRank = n.rank(1);
  if (lhsRank == 0 || rhsRank == 0) {
    return n.fail("inputs must have rank 1 or more");
  }
  if (lhsRank == 1) {
    lhs = reshapeTo(n.b, n.loc, lhs, {n.b.getIndexAttr(1), n.dim(0, 0)});
  }
  if (rhsRank == 1) {
    rhs = reshapeTo(n.b, n.loc, rhs, {n.dim(1, 0), n.b.getIndexAttr(1)});
  }
  auto lt = cast<RankedTensorType>(lhs.getType());
  auto rt = cast<RankedTensorType>(rhs.getType());
  int64_t lk = lt.getShape().back(), rk = rt.getShape()[rt.getRank() - 2];
  if (!ShapedType::isDynamic(lk) && !ShapedType::isDynamic(rk) && lk != rk) {
    return n.fail("the inner dimensions differ");
  }
  SmallVector<int64_t> aBatch(lt.getShape().drop_back(2));
  SmallVector<int64_t> bBatch(rt.getShape().drop_back(2));
  if (failed(broadcastShapes({aBatch, bBatch}))) {
    return n.fail("the batch dimensions do not broadcast");
  }
  Value result = matmul(n.b, n.loc, lhs, rhs);
  SmallVector<OpFoldResult> shape = dimsOf(n.b, n.loc, result);
  if (rhsRank == 1) {
    shape.pop_back();
  }
  if (lhsRank == 1) {
    shape.erase(shape.end() - (rhsRank == 1 ? 1 : 2));
  }
  return n.replace(reshapeTo(n.b, n.loc, result, shape));
}

LogicalResult lowerGemm(Node &n) {
  Value a = n.in(0), bm = n.in(1);
  if (n.rank(0) != 2 || n.rank(1) != 2) {
    return n.fail("A and B must be matrices");
  }
  if (n.intAttr("transA", 0)) {
    a = transpose(n.b, n.loc, a, {1, 0});
  }
  if (n.intAttr("transB", 0)) {
    bm = transpose(n.b, n.loc, bm, {1, 0});
  }
  auto at = cast<RankedTensorType>(a.getType());
  auto bt = cast<RankedTensorType>(bm.getType());
  if (!at.isDynamicDim(1) && !bt.isDynamicDim(0) &&
      at.getDimSize(1) != bt.getDimSize(0)) {
    return n.fail("the inner dimensions differ");
  }
  double alpha = n.floatAttr("alpha", 1.0), beta = n.floatAttr("beta", 1.0);
  Value y = matmul(n.b, n.loc, a, bm);
  SmallVector<int64_t> shape = {at.getDimSize(0), bt.getDimSize(1)};
  Type element = n.elem(0);
  SmallVector<Value> inputs = {y};
  bool hasC = n.has(2) && beta != 0;
  if (hasC) {
    if (failed(broadcastShapes({shape, n.shape(2)}))) {
      return n.fail("C does not broadcast to the result");
    }
    inputs.push_back(n.in(2));
  }
  if (alpha != 1.0 || hasC) {
    y = elementwise(n.b, n.loc, inputs, shape, element,
                    [&](OpBuilder &b, Location loc, ValueRange args) -> Value {
                      Value v = args[0];
                      bool f = isFloat(element);
                      if (alpha != 1.0) {
                        Value s = scalar(b, loc, element, alpha);
                        v = f ? arith::MulFOp::create(b, loc, v, s).getResult()
                              : arith::MulIOp::create(b, loc, v, s).getResult();
                      }
                      if (args.size() > 1) {
                        Value c = args[1];
                        if (beta != 1.0) {
                          Value s = scalar(b, loc, element, beta);
                          c = f ? arith::MulFOp::create(b, loc, c, s).getResult()
                                : arith::MulIOp::create(b, loc, c, s).getResult();
                        }
                        v = f ? arith::AddFOp::create(b, loc, v, c).getResult()
                              : arith::AddIOp::create(b, loc, v, c).getResult();
                      }
                      return v;
                    });
  }
  return n.replace(y);
}

/// The spatial geometry of a Conv or pool over 2-D (1-D is lifted to it).
struct Window {
  SmallVector<int64_t> kernel, strides, dilations, padBegin, padEnd, out;
};

/// A window parameter from an attribute: from `least` to 2^30.
bool inWindowRange(int64_t value, int64_t least) {
  return value >= least && value <= (int64_t(1) << 30);
}

/// Reads kernel_shape, strides, dilations, pads and auto_pad for `spatial`
/// input dims `in`; `ceil` rounds the output size up (pools' ceil_mode).
FailureOr<Window> window(Node &n, ArrayRef<int64_t> in,
                         ArrayRef<int64_t> kernel, bool ceil) {
  size_t rank = in.size();
  Window w;
  w.kernel.assign(kernel.begin(), kernel.end());
  w.strides = n.intsAttr("strides").value_or(SmallVector<int64_t>(rank, 1));
  w.dilations =
      n.intsAttr("dilations").value_or(SmallVector<int64_t>(rank, 1));
  SmallVector<int64_t> pads =
      n.intsAttr("pads").value_or(SmallVector<int64_t>(2 * rank, 0));
  if (w.strides.size() != rank || w.dilations.size() != rank ||
      pads.size() != 2 * rank || w.kernel.size() != rank) {
    return n.fail("kernel_shape, strides, dilations or pads do not match "
                  "the spatial rank " + llvm::Twine(rank));
  }
  // Bounded so that the arithmetic below cannot overflow (a stride of 0
  // divided by zero).
  for (size_t i = 0; i < rank; ++i) {
    if (!inWindowRange(w.kernel[i], 1) || !inWindowRange(w.strides[i], 1) ||
        !inWindowRange(w.dilations[i], 1) || !inWindowRange(pads[i], 0) ||
        !inWindowRange(pads[i + rank], 0)) {
      return n.fail("the kernel size, stride, dilation or pads of spatial "
                    "axis " +
                    llvm::Twine(i) +
                    " are out of range (sizes, "
                    "strides and dilations 1 to 2^30, pads 0 to 2^30)");
    }
  }
  StringRef autoPad = n.stringAttr("auto_pad").value_or("NOTSET");
  for (size_t i = 0; i < rank; ++i) {
    int64_t extent = (w.kernel[i] - 1) * w.dilations[i] + 1;
    int64_t begin = pads[i], end = pads[i + rank];
    if (autoPad == "SAME_UPPER" || autoPad == "SAME_LOWER") {
      int64_t outSize = (in[i] + w.strides[i] - 1) / w.strides[i];
      int64_t total =
          std::max<int64_t>(0, (outSize - 1) * w.strides[i] + extent - in[i]);
      begin = autoPad == "SAME_UPPER" ? total / 2 : total - total / 2;
      end = total - begin;
    } else if (autoPad == "VALID") {
      begin = end = 0;
    } else if (autoPad != "NOTSET") {
      return n.fail("auto_pad '" + autoPad + "' is not supported");
    }
    int64_t span = in[i] + begin + end - extent;
    if (span < 0) {
      return n.fail("the kernel is larger than the padded input");
    }
    int64_t outSize = span / w.strides[i] + 1;
    if (ceil) {
      int64_t up = (span + w.strides[i] - 1) / w.strides[i] + 1;
      // The last window must start inside the input or its begin padding.
      if ((up - 1) * w.strides[i] >= in[i] + begin) {
        --up;
      }
      if (up > outSize) {
        end += (up - 1) * w.strides[i] + extent - (in[i] + begin + end);
        outSize = up;
      }
    }
    w.padBegin.push_back(begin);
    w.padEnd.push_back(end);
    w.out.push_back(outSize);
  }
  return w;
}

/// Fails unless only input 0's first dimension (the batch) is dynamic: the
/// windows' geometry is computed at compile time.
LogicalResult checkOnlyBatchDynamic(Node &n) {
  for (unsigned i = 0; i < n.numInputs(); ++i) {
    if (!n.has(i)) {
      continue;
    }
    ArrayRef<int64_t> shape = n.shape(i);
    for (auto [d, dim] : llvm::enumerate(shape)) {
      if (ShapedType::isDynamic(dim) && (i != 0 || d != 0)) {
        return n.fail("input " + llvm::Twine(i) + " has the type " +
                      typeText(n.type(i)) +
                      "; only the batch (dimension 0 of input 0) may be "
                      "dynamic here");
      }
    }
  }
  return success();
}

/// Pads an NHWC tensor spatially with `value` (a tensor.pad: the flow phase
/// computes it inside the dispatch of the convolution or pooling that reads
/// it, else as a fill and an insert).
Value padSpatial(OpBuilder &b, Location loc, Value x, const Window &w,
                 Value value) {
  auto type = cast<RankedTensorType>(x.getType());
  bool any = false;
  for (size_t i = 0; i < w.padBegin.size(); ++i) {
    any |= w.padBegin[i] != 0 || w.padEnd[i] != 0;
  }
  if (!any) {
    return x;
  }
  SmallVector<int64_t> shape(type.getShape());
  SmallVector<int64_t> low(shape.size(), 0), high(shape.size(), 0);
  for (size_t i = 0; i < w.padBegin.size(); ++i) {
    shape[i + 1] += w.padBegin[i] + w.padEnd[i];
    low[i + 1] = w.padBegin[i];
    high[i + 1] = w.padEnd[i];
  }
  auto paddedType = RankedTensorType::get(shape, type.getElementType());
  return tensor::PadOp::create(
      b, loc, paddedType, x, getAsIndexOpFoldResult(b.getContext(), low),
      getAsIndexOpFoldResult(b.getContext(), high), value);
}

DenseIntElementsAttr i64Vector(OpBuilder &b, ArrayRef<int64_t> values) {
  return DenseIntElementsAttr::get(
      RankedTensorType::get({static_cast<int64_t>(values.size())},
                            b.getI64Type()),
      values);
}

/// Channels-last permutation of an N C spatial... tensor, and back.
SmallVector<int64_t> toChannelsLast(int64_t rank) {
  SmallVector<int64_t> perm = {0};
  for (int64_t d = 2; d < rank; ++d) {
    perm.push_back(d);
  }
  perm.push_back(1);
  return perm;
}

SmallVector<int64_t> toChannelsFirst(int64_t rank) {
  SmallVector<int64_t> perm = {0, rank - 1};
  for (int64_t d = 1; d < rank - 1; ++d) {
    perm.push_back(d);
  }
  return perm;
}

/// Lifts a 1-D (N, C, L) operand to 2-D (N, C, 1, L).
Value liftTo2D(OpBuilder &b, Location loc, Value v) {
  auto type = cast<RankedTensorType>(v.getType());
  if (type.getRank() != 3) {
    return v;
  }
  return reshapeTo(b, loc, v,
                   {dimOf(b, loc, v, 0), dimOf(b, loc, v, 1), b.getIndexAttr(1),
                    dimOf(b, loc, v, 2)});
}

/// Lifts 1-D window attributes to 2-D: a unit leading spatial dim.
void liftWindow(Window &w) {
  if (w.kernel.size() != 1) {
    return;
  }
  w.kernel.insert(w.kernel.begin(), 1);
  w.strides.insert(w.strides.begin(), 1);
  w.dilations.insert(w.dilations.begin(), 1);
  w.padBegin.insert(w.padBegin.begin(), 0);
  w.padEnd.insert(w.padEnd.begin(), 0);
  w.out.insert(w.out.begin(), 1);
}

/// The convolution of an NHWC input, already padded, with an OIHW weight
/// (O = filters, I = channels / group): NHWC result of `outH` x `outW`.
Value convolveNHWC(OpBuilder &b, Location loc, Value nhwc, Value weight,
                   int64_t group, ArrayRef<int64_t> stridesValues,
                   ArrayRef<int64_t> dilationsValues, int64_t oh, int64_t ow) {
  auto xType = cast<RankedTensorType>(nhwc.getType());
  auto wType = cast<RankedTensorType>(weight.getType());
  Type element = xType.getElementType();
  // The batch may be dynamic (a size on the host); the rest is static.
  OpFoldResult batch = dimOf(b, loc, nhwc, 0);
  int64_t channels = xType.getDimSize(3);
  int64_t filters = wType.getDimSize(0);
  auto sizes = [&](ArrayRef<int64_t> rest) {
    SmallVector<OpFoldResult> result = {batch};
    for (int64_t size : rest) {
      result.push_back(b.getIndexAttr(size));
    }
    return result;
  };
  int64_t kh = wType.getDimSize(2), kw = wType.getDimSize(3);
  DenseIntElementsAttr strides = i64Vector(b, stridesValues);
  DenseIntElementsAttr dilations = i64Vector(b, dilationsValues);
  Value zero = scalar(b, loc, element, 0);
  int64_t perGroupIn = channels / group, perGroupOut = filters / group;
  if (group == 1) {
    // OIHW -> HWIO (folded for constant weights).
    Value hwcf = transpose(b, loc, weight, {2, 3, 1, 0});
    Value init = filledTo(b, loc, sizes({oh, ow, filters}), zero);
    return linalg::Conv2DNhwcHwcfOp::create(
               b, loc, TypeRange{init.getType()}, ValueRange{nhwc, hwcf},
               ValueRange{init}, strides, dilations)
        ->getResult(0);
  }
  if (group == channels) {
    // Depthwise: M = C * multiplier; (M, 1, kh, kw) -> (kh, kw, C, mult).
    int64_t mult = perGroupOut;
    Value w4 = reshape(b, loc, weight, {channels, mult, kh, kw});
    Value hwcm = transpose(b, loc, w4, {2, 3, 0, 1});
    if (mult == 1) {
      Value hwc = reshape(b, loc, hwcm, {kh, kw, channels});
      Value init = filledTo(b, loc, sizes({oh, ow, channels}), zero);
      return linalg::DepthwiseConv2DNhwcHwcOp::create(
                 b, loc, TypeRange{init.getType()}, ValueRange{nhwc, hwc},
                 ValueRange{init}, strides, dilations)
          ->getResult(0);
    }
    Value init = filledTo(b, loc, sizes({oh, ow, channels, mult}), zero);
    Value out = linalg::DepthwiseConv2DNhwcHwcmOp::create(
                    b, loc, TypeRange{init.getType()}, ValueRange{nhwc, hwcm},
                    ValueRange{init}, strides, dilations)
                    ->getResult(0);
    return reshapeTo(b, loc, out, sizes({oh, ow, filters}));
  }
  // Grouped: one convolution per group, concatenated by channel.
  SmallVector<Value> parts;
  for (int64_t g = 0; g < group; ++g) {
    Value xg = tensor::ExtractSliceOp::create(
        b, loc, nhwc,
        {b.getIndexAttr(0), b.getIndexAttr(0), b.getIndexAttr(0),
         b.getIndexAttr(g * perGroupIn)},
        sizes({xType.getDimSize(1), xType.getDimSize(2), perGroupIn}),
        {b.getIndexAttr(1), b.getIndexAttr(1), b.getIndexAttr(1),
         b.getIndexAttr(1)});
    Value wg = slice(b, loc, weight, {g * perGroupOut, 0, 0, 0},
                     {perGroupOut, perGroupIn, kh, kw}, {1, 1, 1, 1});
    Value hwcf = transpose(b, loc, wg, {2, 3, 1, 0});
    Value init = filledTo(b, loc, sizes({oh, ow, perGroupOut}), zero);
    parts.push_back(linalg::Conv2DNhwcHwcfOp::create(
                        b, loc, TypeRange{init.getType()},
                        ValueRange{xg, hwcf}, ValueRange{init}, strides,
                        dilations)
                        ->getResult(0));
  }
  return concat(b, loc, parts, 3);
}

/// Adds the per-filter bias (input 2, when present) to an NHWC result and
/// transposes it back to NCHW (NCL for a 1-D convolution).
LogicalResult finishConv(Node &n, Value out, int64_t rank) {
  OpBuilder &b = n.b;
  Location loc = n.loc;
  auto type = cast<RankedTensorType>(out.getType());
  if (n.has(2)) {
    // Channels last: NHWC, or NDHWC for a 3-D convolution.
    int64_t filters = type.getDimSize(type.getRank() - 1);
    if (n.rank(2) != 1 || n.shape(2)[0] != filters) {
      return n.fail("input 2 (B) has " +
                    llvm::Twine(n.type(2).getNumElements()) +
                    " values; it takes one per output channel (" +
                    llvm::Twine(filters) + ")");
    }
    out = elementwise(b, loc, {out, n.in(2)}, type.getShape(),
                      type.getElementType(),
                      [](OpBuilder &nb, Location l, ValueRange a) {
                        return arith::AddFOp::create(nb, l, a[0], a[1])
                            .getResult();
                      });
  }
  Value nchw = transpose(b, loc, out, toChannelsFirst(type.getRank()));
  if (rank == 3) {
    nchw = reshapeTo(b, loc, nchw,
                     {dimOf(b, loc, out, 0), b.getIndexAttr(type.getDimSize(3)),
                      b.getIndexAttr(type.getDimSize(2))});
  }
  return n.replace(nchw);
}

/// The convolution of the node's attributes on `x` (N, C, H, W or N, C, L)
/// and `weight` (M, C/group, kh, kw): NHWC, without bias.
FailureOr<Value> convolutionNHWC(Node &n, Value x, Value weight) {
  auto xType = cast<RankedTensorType>(x.getType());
  auto wType = cast<RankedTensorType>(weight.getType());
  int64_t rank = xType.getRank();
  if (rank < 3 || rank > 5) {
    return n.fail("only 1-D, 2-D and 3-D convolutions are supported");
  }
  ArrayRef<int64_t> xs = xType.getShape(), ws = wType.getShape();
  int64_t group = n.intAttr("group", 1);
  int64_t channels = xs[1], filters = ws[0];
  if (group <= 0 || channels % group != 0 || filters % group != 0 ||
      ws[1] * group != channels) {
    return n.fail("the weight shape does not match the input channels and "
                  "group " + llvm::Twine(group));
  }
  SmallVector<int64_t> kernel(ws.begin() + 2, ws.end());
  if (std::optional<SmallVector<int64_t>> k = n.intsAttr("kernel_shape");
      k && *k != kernel) {
    return n.fail("kernel_shape does not match the weight");
  }
  FailureOr<Window> w = window(n, xs.drop_front(2), kernel, false);
  if (failed(w)) {
    return failure();
  }
  OpBuilder &b = n.b;
  Location loc = n.loc;
  if (rank == 5) {
    Value ndhwc = transpose(b, loc, x, {0, 2, 3, 4, 1});
    ndhwc = padSpatial(b, loc, ndhwc, *w,
                       scalar(b, loc, xType.getElementType(), 0));
    // OIDHW -> DHWIO (folded for constant weights).
    Value dhwcf = transpose(b, loc, weight, {2, 3, 4, 1, 0});
    // Groups: one convolution per group on its channels and filters,
    // concatenated along the filters.
    int64_t perGroup = channels / group, filtersPerGroup = filters / group;
    auto paddedType = cast<RankedTensorType>(ndhwc.getType());
    SmallVector<Value> parts;
    for (int64_t g = 0; g < group; ++g) {
      Value xg = ndhwc, wg = dhwcf;
      if (group > 1) {
        SmallVector<OpFoldResult> offsets(5, b.getIndexAttr(0)),
            sizes = dimsOf(b, loc, ndhwc), ones(5, b.getIndexAttr(1));
        offsets[4] = b.getIndexAttr(g * perGroup);
        sizes[4] = b.getIndexAttr(perGroup);
        xg = tensor::ExtractSliceOp::create(
            b, loc,
            RankedTensorType::get(
                {paddedType.getDimSize(0), paddedType.getDimSize(1),
                 paddedType.getDimSize(2), paddedType.getDimSize(3), perGroup},
                paddedType.getElementType()),
            ndhwc, offsets, sizes, ones);
        wg = slice(b, loc, dhwcf, {0, 0, 0, 0, g * filtersPerGroup},
                   {kernel[0], kernel[1], kernel[2], perGroup, filtersPerGroup},
                   {1, 1, 1, 1, 1});
      }
      Value init =
          filledTo(b, loc,
                   {dimOf(b, loc, x, 0), b.getIndexAttr(w->out[0]),
                    b.getIndexAttr(w->out[1]), b.getIndexAttr(w->out[2]),
                    b.getIndexAttr(filtersPerGroup)},
                   scalar(b, loc, xType.getElementType(), 0));
      parts.push_back(linalg::Conv3DNdhwcDhwcfOp::create(
                          b, loc, TypeRange{init.getType()}, ValueRange{xg, wg},
                          ValueRange{init}, i64Vector(b, w->strides),
                          i64Vector(b, w->dilations))
                          ->getResult(0));
    }
    return parts.size() == 1 ? parts.front() : concat(b, loc, parts, 4);
  }
  x = liftTo2D(b, loc, x);
  weight = liftTo2D(b, loc, weight);
  liftWindow(*w);
  // NCHW -> NHWC, padded with zeros.
  Value nhwc = transpose(b, loc, x, {0, 2, 3, 1});
  nhwc = padSpatial(b, loc, nhwc, *w,
                    scalar(b, loc, xType.getElementType(), 0));
  return convolveNHWC(b, loc, nhwc, weight, group, w->strides, w->dilations,
                      w->out[0], w->out[1]);
}

LogicalResult lowerConv(Node &n) {
  if (!isFloat(n.elem(0))) {
    return n.fail("expects floating-point inputs");
  }
  if (failed(checkOnlyBatchDynamic(n))) {
    return failure();
  }
  FailureOr<Value> out = convolutionNHWC(n, n.in(0), n.in(1));
  if (failed(out)) {
    return failure();
  }
  return finishConv(n, *out, n.rank(0));
}

/// ConvTranspose's output size per spatial axis by ONNX's rules, with
/// `pads` (begins then ends) updated to the padding used: auto_pad
/// SAME_UPPER/SAME_LOWER or an `outputShape` (the spatial sizes asked for)
/// split the total padding, VALID drops it. Shared by the 1-D/2-D and the
/// 3-D lowerings.
FailureOr<SmallVector<int64_t>>
transposedConvSizes(Node &n, ArrayRef<int64_t> in, ArrayRef<int64_t> k,
                    ArrayRef<int64_t> strides, ArrayRef<int64_t> dilations,
                    ArrayRef<int64_t> outputPadding,
                    MutableArrayRef<int64_t> pads,
                    std::optional<ArrayRef<int64_t>> outputShape) {
  int64_t spatial = in.size();
  StringRef autoPad = n.stringAttr("auto_pad").value_or("NOTSET");
  SmallVector<int64_t> out(spatial);
  for (int64_t i = 0; i < spatial; ++i) {
    // Bounded so that the arithmetic below cannot overflow (strides[i] *
    // in[i], the largest term, is checked on its own).
    int64_t scaled = 0;
    if (!inWindowRange(k[i], 1) || !inWindowRange(strides[i], 1) ||
        !inWindowRange(dilations[i], 1) ||
        !inWindowRange(outputPadding[i], 0) || !inWindowRange(pads[i], 0) ||
        !inWindowRange(pads[i + spatial], 0) || in[i] < 1 ||
        __builtin_mul_overflow(strides[i], in[i], &scaled) ||
        scaled > (int64_t(1) << 62)) {
      return n.fail("the kernel size, stride, dilation, output_padding or "
                    "pads of spatial axis " +
                    llvm::Twine(i) +
                    " are out of range (sizes, strides and dilations 1 to "
                    "2^30, paddings 0 to 2^30)");
    }
    int64_t full = strides[i] * (in[i] - 1) + outputPadding[i] +
                   (k[i] - 1) * dilations[i] + 1;
    if (outputShape || autoPad == "SAME_UPPER" || autoPad == "SAME_LOWER") {
      int64_t target = in[i] * strides[i];
      if (outputShape) {
        target = (*outputShape)[i];
        // full - target below must not overflow.
        if (target < 1 || target > (int64_t(1) << 62)) {
          return n.fail("output_shape " + llvm::Twine(target) +
                        " of spatial axis " + llvm::Twine(i) +
                        " is not a size from 1 to 2^62");
        }
      }
      // ONNX's split of the total padding, with Python's floor division
      // (a negative total pads the end: a larger output_shape).
      int64_t total = full - target;
      int64_t half = total >= 0 ? total / 2 : -((-total + 1) / 2);
      bool upper = autoPad == "SAME_UPPER";
      pads[i] = upper ? half : total - half;
      pads[i + spatial] = total - pads[i];
    } else if (autoPad == "VALID") {
      pads[i] = pads[i + spatial] = 0;
    }
    out[i] = full - pads[i] - pads[i + spatial];
    if (out[i] <= 0) {
      return n.fail("the pads leave an empty result");
    }
  }
  return out;
}

/// 3-D ConvTranspose as a gather: output o of spatial axis i takes input
/// position (o + pad_i - k dilation_i) / stride_i where that divides and
/// lies inside the input. One kernel over [N, group, M/group, D, H, W]
/// reduces over the group's channels and the kernel taps (the weight,
/// [group, C/group, M/group, kd, kh, kw], gives them their extents). The
/// pads follow the 2-D lowering's rules (auto_pad, output_shape,
/// output_padding).
LogicalResult lowerConvTranspose3D(Node &n) {
  OpBuilder &b = n.b;
  Location loc = n.loc;
  Type element = n.elem(0);
  ArrayRef<int64_t> xs = n.shape(0), ws = n.shape(1);
  int64_t group = n.intAttr("group", 1);
  int64_t batch = xs[0], channels = xs[1], perGroupOut = ws[1];
  if (ShapedType::isDynamic(batch)) {
    return n.fail("a 3-D transposed convolution takes a static batch");
  }
  if (group <= 0 || channels % group != 0 || ws[0] != channels) {
    return n.fail("the weight shape does not match the input channels and "
                  "group " +
                  llvm::Twine(group));
  }
  int64_t spatial = 3, perGroup = channels / group;
  SmallVector<int64_t> in(xs.drop_front(2)), k(ws.drop_front(2));
  SmallVector<int64_t> strides =
      n.intsAttr("strides").value_or(SmallVector<int64_t>(3, 1));
  SmallVector<int64_t> dilations =
      n.intsAttr("dilations").value_or(SmallVector<int64_t>(3, 1));
  SmallVector<int64_t> outputPadding =
      n.intsAttr("output_padding").value_or(SmallVector<int64_t>(3, 0));
  SmallVector<int64_t> pads =
      n.intsAttr("pads").value_or(SmallVector<int64_t>(6, 0));
  if (strides.size() != 3 || dilations.size() != 3 ||
      outputPadding.size() != 3 || pads.size() != 6) {
    return n.fail("strides, dilations, output_padding or pads do not match "
                  "the spatial rank");
  }
  std::optional<SmallVector<int64_t>> outputShape = n.intsAttr("output_shape");
  if (outputShape && outputShape->size() != 3) {
    return n.fail("output_shape does not match the spatial rank");
  }
  FailureOr<SmallVector<int64_t>> sizes = transposedConvSizes(
      n, in, k, strides, dilations, outputPadding, pads,
      outputShape ? std::optional<ArrayRef<int64_t>>(*outputShape)
                  : std::nullopt);
  if (failed(sizes)) {
    return failure();
  }
  SmallVector<int64_t> out = *sizes;
  SmallVector<int64_t> shape = {batch,  group,  perGroupOut,
                                out[0], out[1], out[2]};
  if (failed(n.checkShape(shape, element, "the result"))) {
    return failure();
  }
  Value weight = reshape(b, loc, n.in(1),
                         {group, perGroup, perGroupOut, k[0], k[1], k[2]});
  Value init = filled(b, loc, shape, scalar(b, loc, element, 0));
  MLIRContext *context = b.getContext();
  auto dim = [&](int64_t d) { return b.getAffineDimExpr(d); };
  // Loops: n g m od oh ow (parallel), c kd kh kw (reduced).
  SmallVector<utils::IteratorType> iterators(6, utils::IteratorType::parallel);
  iterators.append(4, utils::IteratorType::reduction);
  Value x = n.in(0);
  Value result = linalg::GenericOp::create(
                     b, loc, TypeRange{init.getType()}, ValueRange{weight},
                     ValueRange{init},
                     {AffineMap::get(
                          10, 0,
                          {dim(1), dim(6), dim(2), dim(7), dim(8), dim(9)},
                          context),
                      AffineMap::get(
                          10, 0,
                          {dim(0), dim(1), dim(2), dim(3), dim(4), dim(5)},
                          context)},
                     iterators,
                     [&](OpBuilder &nb, Location l, ValueRange args) {
                       auto ci = [&](int64_t v) -> Value {
                         return arith::ConstantIndexOp::create(nb, l, v);
                       };
                       auto index = [&](int64_t d) -> Value {
                         return linalg::IndexOp::create(nb, l, d);
                       };
                       Value hit = arith::ConstantIntOp::create(nb, l, 1, 1);
                       SmallVector<Value> at = {
                           index(0), arith::AddIOp::create(
                                         nb, l,
                                         arith::MulIOp::create(nb, l, index(1),
                                                               ci(perGroup)),
                                         index(6))};
                       for (int64_t i = 0; i < spatial; ++i) {
                         // o + pad - k dilation, which the stride must divide.
                         Value t = arith::SubIOp::create(
                             nb, l,
                             arith::AddIOp::create(nb, l, index(3 + i),
                                                   ci(pads[i])),
                             arith::MulIOp::create(nb, l, index(7 + i),
                                                   ci(dilations[i])));
                         Value q = arith::FloorDivSIOp::create(nb, l, t,
                                                               ci(strides[i]));
                         Value exact = arith::CmpIOp::create(
                             nb, l, arith::CmpIPredicate::eq,
                             arith::MulIOp::create(nb, l, q, ci(strides[i])),
                             t);
                         Value inside = arith::AndIOp::create(
                             nb, l,
                             arith::CmpIOp::create(
                                 nb, l, arith::CmpIPredicate::sge, q, ci(0)),
                             arith::CmpIOp::create(nb, l,
                                                   arith::CmpIPredicate::slt, q,
                                                   ci(in[i])));
                         hit = arith::AndIOp::create(
                             nb, l, hit,
                             arith::AndIOp::create(nb, l, exact, inside));
                         at.push_back(arith::MinSIOp::create(
                             nb, l, arith::MaxSIOp::create(nb, l, q, ci(0)),
                             ci(in[i] - 1)));
                       }
                       Value v = tensor::ExtractOp::create(nb, l, x, at);
                       Value product = arith::MulFOp::create(nb, l, v, args[0]);
                       Value sum =
                           arith::AddFOp::create(nb, l, args[1], product);
                       linalg::YieldOp::create(
                           nb, l,
                           ValueRange{
                               arith::SelectOp::create(nb, l, hit, sum, args[1])
                                   .getResult()});
                     })
                     ->getResult(0);
  SmallVector<int64_t> nchw = {batch, group * perGroupOut, out[0], out[1],
                               out[2]};
  result = reshape(b, loc, result, nchw);
  if (n.has(2)) {
    if (n.rank(2) != 1 || n.shape(2)[0] != group * perGroupOut) {
      return n.fail("input 2 (B) has " +
                    llvm::Twine(n.type(2).getNumElements()) +
                    " values; it takes one per output channel (" +
                    llvm::Twine(group * perGroupOut) + ")");
    }
    Value bias = reshape(b, loc, n.in(2), {group * perGroupOut, 1, 1, 1});
    result = elementwise(b, loc, {result, bias}, nchw, element,
                         [](OpBuilder &nb, Location l, ValueRange a) -> Value {
                           return arith::AddFOp::create(nb, l, a[0], a[1]);
                         });
  }
  return n.replace(result);
}

/// ConvTranspose as a convolution: the input spread out by the strides
/// (zeros between its elements), padded by what the kernel overhangs, and
/// convolved with the spatially flipped kernel whose in and out channels
/// are swapped.
LogicalResult lowerConvTranspose(Node &n) {
  int64_t rank = n.rank(0);
  if (rank != 3 && rank != 4 && rank != 5) {
    return n.fail("only 1-D, 2-D and 3-D transposed convolutions are "
                  "supported");
  }
  if (!isFloat(n.elem(0))) {
    return n.fail("expects floating-point inputs");
  }
  if (rank == 5) {
    return lowerConvTranspose3D(n);
  }
  OpBuilder &b = n.b;
  Location loc = n.loc;
  Type element = n.elem(0);
  Value x = liftTo2D(b, loc, n.in(0));
  Value weight = liftTo2D(b, loc, n.in(1));
  auto xType = cast<RankedTensorType>(x.getType());
  auto wType = cast<RankedTensorType>(weight.getType());
  int64_t group = n.intAttr("group", 1);
  int64_t batch = xType.getDimSize(0), channels = xType.getDimSize(1);
  int64_t perGroupOut = wType.getDimSize(1);
  int64_t filters = perGroupOut * group;
  if (group <= 0 || channels % group != 0 ||
      wType.getDimSize(0) != channels) {
    return n.fail("the weight shape does not match the input channels and "
                  "group " + llvm::Twine(group));
  }
  bool lifted = rank == 3;
  auto lift = [&](SmallVector<int64_t> v, int64_t fill) {
    if (lifted) {
      v.insert(v.begin(), fill);
    }
    return v;
  };
  int64_t spatial = 2;
  SmallVector<int64_t> in = {xType.getDimSize(2), xType.getDimSize(3)};
  SmallVector<int64_t> k = {wType.getDimSize(2), wType.getDimSize(3)};
  SmallVector<int64_t> strides = lift(
      n.intsAttr("strides").value_or(SmallVector<int64_t>(rank - 2, 1)), 1);
  SmallVector<int64_t> dilations = lift(
      n.intsAttr("dilations").value_or(SmallVector<int64_t>(rank - 2, 1)), 1);
  SmallVector<int64_t> outputPadding = lift(
      n.intsAttr("output_padding").value_or(SmallVector<int64_t>(rank - 2, 0)),
      0);
  SmallVector<int64_t> pads =
      n.intsAttr("pads").value_or(SmallVector<int64_t>(2 * (rank - 2), 0));
  if (lifted && pads.size() == 2) {
    pads = {0, pads[0], 0, pads[1]};
  }
  if (strides.size() != 2 || dilations.size() != 2 ||
      outputPadding.size() != 2 || pads.size() != 4) {
    return n.fail("strides, dilations, output_padding or pads do not match "
                  "the spatial rank");
  }
  std::optional<SmallVector<int64_t>> outputShape = n.intsAttr("output_shape");
  if (outputShape) {
    *outputShape = lift(*outputShape, 1);
    if (outputShape->size() != 2) {
      return n.fail("output_shape does not match the spatial rank");
    }
  }
  FailureOr<SmallVector<int64_t>> sizes = transposedConvSizes(
      n, in, k, strides, dilations, outputPadding, pads,
      outputShape ? std::optional<ArrayRef<int64_t>>(*outputShape)
                  : std::nullopt);
  if (failed(sizes)) {
    return failure();
  }
  SmallVector<int64_t> out = *sizes;
  // The input spread out by the strides, in NHWC.
  Value nhwc = transpose(b, loc, x, {0, 2, 3, 1});
  SmallVector<int64_t> spread = {batch, (in[0] - 1) * strides[0] + 1,
                                 (in[1] - 1) * strides[1] + 1, channels};
  // Then padded by (k - 1) * d - pad on each side (cropped where negative).
  SmallVector<int64_t> before(spatial), after(spatial);
  for (int64_t i = 0; i < spatial; ++i) {
    int64_t overhang = (k[i] - 1) * dilations[i];
    before[i] = overhang - pads[i];
    after[i] = overhang - pads[i + spatial] + outputPadding[i];
  }
  SmallVector<int64_t> padded = {batch, spread[1] + std::max<int64_t>(before[0], 0) +
                                            std::max<int64_t>(after[0], 0),
                                 spread[2] + std::max<int64_t>(before[1], 0) +
                                     std::max<int64_t>(after[1], 0),
                                 channels};
  Value zeros = filled(b, loc, padded, scalar(b, loc, element, 0));
  SmallVector<int64_t> offsets = {0, std::max<int64_t>(before[0], 0),
                                  std::max<int64_t>(before[1], 0), 0};
  Value placed = tensor::InsertSliceOp::create(
      b, loc, nhwc, zeros, getAsIndexOpFoldResult(b.getContext(), offsets),
      getAsIndexOpFoldResult(
          b.getContext(), SmallVector<int64_t>{batch, in[0], in[1], channels}),
      getAsIndexOpFoldResult(b.getContext(),
                             SmallVector<int64_t>{1, strides[0], strides[1], 1}));
  // Negative padding crops.
  SmallVector<int64_t> cropOffsets = {0, std::max<int64_t>(-before[0], 0),
                                      std::max<int64_t>(-before[1], 0), 0};
  SmallVector<int64_t> cropSizes = {
      batch,
      padded[1] - cropOffsets[1] - std::max<int64_t>(-after[0], 0),
      padded[2] - cropOffsets[2] - std::max<int64_t>(-after[1], 0), channels};
  placed = slice(b, loc, placed, cropOffsets, cropSizes, {1, 1, 1, 1});
  // The weight (C, M/g, kh, kw) as a convolution's (M, C/g, kh, kw),
  // flipped spatially.
  int64_t perGroupIn = channels / group;
  SmallVector<Value> groups;
  for (int64_t g = 0; g < group; ++g) {
    Value wg = slice(b, loc, weight, {g * perGroupIn, 0, 0, 0},
                     {perGroupIn, perGroupOut, k[0], k[1]}, {1, 1, 1, 1});
    groups.push_back(transpose(b, loc, wg, {1, 0, 2, 3}));
  }
  Value swapped = concat(b, loc, groups, 0);
  auto swappedType = cast<RankedTensorType>(swapped.getType());
  AffineExpr d0 = b.getAffineDimExpr(0), d1 = b.getAffineDimExpr(1),
             d2 = b.getAffineDimExpr(2), d3 = b.getAffineDimExpr(3);
  AffineMap flip = AffineMap::get(
      4, 0, {d0, d1, d2 * -1 + (k[0] - 1), d3 * -1 + (k[1] - 1)},
      b.getContext());
  Value flipped = generic(b, loc, swapped, flip, swappedType,
                          [](OpBuilder &, Location, ValueRange a) {
                            return a[0];
                          });
  Value result = convolveNHWC(b, loc, placed, flipped, group, {1, 1},
                              dilations, out[0], out[1]);
  (void)filters;
  return finishConv(n, result, rank);
}

/// Whether `shape` has at most kFoldLimit elements (without overflow).
bool fitsDivisorLimit(ArrayRef<int64_t> shape) {
  int64_t count = 1;
  for (int64_t dim : shape) {
    if (__builtin_mul_overflow(count, dim, &count) || count > kFoldLimit) {
      return false;
    }
  }
  return true;
}

/// MaxPool's Indices (NHWC, i64) of the maxima `max` (NHWC) over the
/// padded input `padded` (NHWC): for each output, the least flat index
/// into the unpadded NCHW input, (n C + c) prod(in) + the position in the
/// plane (row major, or column major with `columnMajor`), of the taps
/// inside the input that hold the maximum. The least index is the first
/// maximum in either order, and a minimum does not depend on the order
/// the reduction visits the taps in.
Value maxPoolIndices(OpBuilder &b, Location loc, Value padded, Value max,
                     Value windowTensor, const Window &w, ArrayRef<int64_t> in,
                     int64_t channels, bool columnMajor) {
  MLIRContext *context = b.getContext();
  int64_t spatial = in.size();
  int64_t rank = spatial + 2;
  int64_t loops = rank + spatial;
  auto dim = [&](int64_t d) { return b.getAffineDimExpr(d); };
  SmallVector<AffineExpr> xExprs = {dim(0)}, kExprs, outExprs;
  for (int64_t i = 0; i < spatial; ++i) {
    xExprs.push_back(dim(1 + i) * w.strides[i] +
                     dim(rank + i) * w.dilations[i]);
    kExprs.push_back(dim(rank + i));
  }
  xExprs.push_back(dim(rank - 1));
  for (int64_t d = 0; d < rank; ++d) {
    outExprs.push_back(dim(d));
  }
  Type i64 = b.getI64Type();
  SmallVector<OpFoldResult> sizes = dimsOf(b, loc, max);
  constexpr int64_t kNone = std::numeric_limits<int64_t>::max();
  Value init =
      filledTo(b, loc, sizes, arith::ConstantIntOp::create(b, loc, i64, kNone));
  SmallVector<utils::IteratorType> iterators(rank,
                                             utils::IteratorType::parallel);
  iterators.append(spatial, utils::IteratorType::reduction);
  int64_t plane = 1;
  for (int64_t size : in) {
    plane *= size;
  }
  Type element = getElementTypeOrSelf(padded.getType());
  return linalg::GenericOp::create(
             b, loc, TypeRange{init.getType()},
             ValueRange{padded, windowTensor, max}, ValueRange{init},
             {AffineMap::get(loops, 0, xExprs, context),
              AffineMap::get(loops, 0, kExprs, context),
              AffineMap::get(loops, 0, outExprs, context),
              AffineMap::get(loops, 0, outExprs, context)},
             iterators,
             [&](OpBuilder &nb, Location l, ValueRange args) {
               auto index = [&](int64_t d) -> Value {
                 return arith::IndexCastOp::create(
                     nb, l, i64, linalg::IndexOp::create(nb, l, d));
               };
               auto c64 = [&](int64_t v) -> Value {
                 return arith::ConstantIntOp::create(nb, l, i64, v);
               };
               Value equal =
                   isFloat(element)
                       ? arith::CmpFOp::create(nb, l, arith::CmpFPredicate::OEQ,
                                               args[0], args[2])
                             .getResult()
                       : arith::CmpIOp::create(nb, l, arith::CmpIPredicate::eq,
                                               args[0], args[2])
                             .getResult();
               Value hit = equal;
               // (n C + c) plane, then the position in the plane.
               Value flat = arith::MulIOp::create(
                   nb, l,
                   arith::AddIOp::create(
                       nb, l,
                       arith::MulIOp::create(nb, l, index(0), c64(channels)),
                       index(rank - 1)),
                   c64(plane));
               int64_t step = 1;
               for (int64_t k = 0; k < spatial; ++k) {
                 // Row major: the last spatial dim is the fastest.
                 int64_t i = columnMajor ? k : spatial - 1 - k;
                 Value at = arith::SubIOp::create(
                     nb, l,
                     arith::AddIOp::create(
                         nb, l,
                         arith::MulIOp::create(nb, l, index(1 + i),
                                               c64(w.strides[i])),
                         arith::MulIOp::create(nb, l, index(rank + i),
                                               c64(w.dilations[i]))),
                     c64(w.padBegin[i]));
                 Value inside = arith::AndIOp::create(
                     nb, l,
                     arith::CmpIOp::create(nb, l, arith::CmpIPredicate::sge, at,
                                           c64(0)),
                     arith::CmpIOp::create(nb, l, arith::CmpIPredicate::slt, at,
                                           c64(in[i])));
                 hit = arith::AndIOp::create(nb, l, hit, inside);
                 flat = arith::AddIOp::create(
                     nb, l, flat, arith::MulIOp::create(nb, l, at, c64(step)));
                 step *= in[i];
               }
               Value candidate =
                   arith::SelectOp::create(nb, l, hit, flat, c64(kNone));
               linalg::YieldOp::create(
                   nb, l,
                   ValueRange{arith::MinSIOp::create(nb, l, args[3], candidate)
                                  .getResult()});
             })
      ->getResult(0);
}

enum class PoolKind { Max, Average, Lp };

/// |x|^p of a float scalar (x * x for p = 2, |x| for p = 1; powf, in f32
/// for narrower floats, otherwise).
Value lpPower(OpBuilder &b, Location loc, Value x, int64_t p) {
  Value magnitude = math::AbsFOp::create(b, loc, x);
  if (p == 1) {
    return magnitude;
  }
  if (p == 2) {
    return arith::MulFOp::create(b, loc, x, x);
  }
  return viaF32(b, loc, magnitude, [&](Value v) -> Value {
    return math::PowFOp::create(b, loc, v,
                                scalar(b, loc, v.getType(), double(p)));
  });
}

/// s^(1/p) of a float scalar (sqrt for p = 2).
Value lpRoot(OpBuilder &b, Location loc, Value s, int64_t p) {
  if (p == 1) {
    return s;
  }
  return viaF32(b, loc, s, [&](Value v) -> Value {
    if (p == 2) {
      return math::SqrtOp::create(b, loc, v);
    }
    return math::PowFOp::create(b, loc, v,
                                scalar(b, loc, v.getType(), 1.0 / double(p)));
  });
}

/// LpPool's and GlobalLpPool's and LpNormalization's p: at least 1.
FailureOr<int64_t> lpExponent(Node &n) {
  int64_t p = n.intAttr("p", 2);
  if (p < 1 || p > 1024) {
    return n.fail("p = " + llvm::Twine(p) + " is outside [1, 1024]");
  }
  return p;
}

/// MaxPool, AveragePool and LpPool; GlobalLpPool with `globalKernel` (the
/// whole spatial extent) for kernel_shape.
LogicalResult lowerPool(Node &n, PoolKind kind, bool globalKernel = false) {
  bool isMax = kind == PoolKind::Max;
  int64_t rank = n.rank(0);
  if (rank < 3 || rank > 5) {
    return n.fail("only 1-D, 2-D and 3-D pooling is supported");
  }
  bool wantIndices = isMax && n.numOutputs() > 1 && n.outputUsed(1);
  int64_t storageOrder = n.intAttr("storage_order", 0);
  if (storageOrder != 0 && storageOrder != 1) {
    return n.fail("storage_order must be 0 (row major) or 1 (column major); "
                  "it is " +
                  llvm::Twine(storageOrder));
  }
  std::optional<SmallVector<int64_t>> kernel =
      globalKernel
          ? std::optional(SmallVector<int64_t>(n.shape(0).drop_front(2)))
          : n.intsAttr("kernel_shape");
  if (!kernel) {
    return n.fail("has no kernel_shape");
  }
  Type element = n.elem(0);
  if (!isFloat(element) && !isMax) {
    return n.fail(kind == PoolKind::Lp
                      ? "Lp pooling expects a floating-point input"
                      : "average pooling expects a floating-point input");
  }
  int64_t p = 2;
  if (kind == PoolKind::Lp) {
    FailureOr<int64_t> exponent = lpExponent(n);
    if (failed(exponent)) {
      return failure();
    }
    p = *exponent;
  }
  bool isUnsigned = n.isUnsigned(0);
  if (failed(checkOnlyBatchDynamic(n))) {
    return failure();
  }
  ArrayRef<int64_t> xs = n.shape(0);
  bool ceil = n.intAttr("ceil_mode", 0) != 0;
  FailureOr<Window> w = window(n, xs.drop_front(2), *kernel, ceil);
  if (failed(w)) {
    return failure();
  }
  // The explicit padding (without ceil_mode's extra): what
  // count_include_pad counts.
  FailureOr<Window> explicitPads = window(n, xs.drop_front(2), *kernel, false);
  OpBuilder &b = n.b;
  Location loc = n.loc;
  Value x = liftTo2D(b, loc, n.in(0));
  liftWindow(*w);
  liftWindow(*explicitPads);
  auto xType = cast<RankedTensorType>(x.getType());
  int64_t liftedRank = xType.getRank();
  int64_t spatial = liftedRank - 2;
  OpFoldResult batch = dimOf(b, loc, x, 0);
  int64_t channels = xType.getDimSize(1);
  SmallVector<int64_t> in(xType.getShape().drop_front(2));
  Value nhwc = transpose(b, loc, x, toChannelsLast(liftedRank));
  if (kind == PoolKind::Lp) {
    // Sum |x|^p over each window (padding adds zeros), then the root.
    nhwc = elementwise(b, loc, nhwc,
                       cast<RankedTensorType>(nhwc.getType()).getShape(),
                       element, [&](OpBuilder &nb, Location l, ValueRange a) {
                         return lpPower(nb, l, a[0], p);
                       });
  }
  Value padValue;
  if (!isMax) {
    padValue = scalar(b, loc, element, 0);
  } else if (isUnsigned) {
    padValue = scalar(b, loc, element, 0);
  } else {
    padValue = lowest(b, loc, element);
  }
  nhwc = padSpatial(b, loc, nhwc, *w, padValue);
  SmallVector<OpFoldResult> outSizes = {batch};
  for (int64_t o : w->out) {
    outSizes.push_back(b.getIndexAttr(o));
  }
  outSizes.push_back(b.getIndexAttr(channels));
  SmallVector<int64_t> outShape = staticShapeOf(outSizes);
  Value windowTensor =
      tensor::EmptyOp::create(b, loc, ArrayRef<int64_t>(w->kernel), element);
  Value init = filledTo(b, loc, outSizes, padValue);
  DenseIntElementsAttr strides = i64Vector(b, w->strides);
  DenseIntElementsAttr dilations = i64Vector(b, w->dilations);
  SmallVector<Type> resultTypes = {init.getType()};
  SmallVector<Value> ins = {nhwc, windowTensor};
  SmallVector<Value> outs = {init};
  Value out;
  if (isMax && spatial == 2) {
    out = isUnsigned ? linalg::PoolingNhwcMaxUnsignedOp::create(
                           b, loc, resultTypes, ins, outs, strides, dilations)
                           ->getResult(0)
                     : linalg::PoolingNhwcMaxOp::create(
                           b, loc, resultTypes, ins, outs, strides, dilations)
                           ->getResult(0);
  } else if (isMax) {
    if (isUnsigned) {
      return n.fail("3-D pooling of unsigned integers is not supported");
    }
    out = linalg::PoolingNdhwcMaxOp::create(b, loc, resultTypes, ins, outs,
                                            strides, dilations)
              ->getResult(0);
  } else if (spatial == 2) {
    out = linalg::PoolingNhwcSumOp::create(b, loc, resultTypes, ins, outs,
                                           strides, dilations)
              ->getResult(0);
  } else {
    out = linalg::PoolingNdhwcSumOp::create(b, loc, resultTypes, ins, outs,
                                            strides, dilations)
              ->getResult(0);
  }
  if (kind == PoolKind::Lp) {
    out = elementwise(b, loc, out, outShape, element,
                      [&](OpBuilder &nb, Location l, ValueRange a) {
                        return lpRoot(nb, l, a[0], p);
                      });
  } else if (!isMax) {
    // Divide by the count of each window's elements: inside the input,
    // or inside the explicitly padded input with count_include_pad.
    bool includePad = n.intAttr("count_include_pad", 0) != 0;
    SmallVector<float> counts;
    SmallVector<int64_t> position(spatial, 0);
    // The divisors are a constant of the spatial output's shape.
    if (!fitsDivisorLimit(w->out)) {
      return n.fail("the output's spatial shape has more than 2^20 "
                    "elements, the most the divisors of an average pool "
                    "are computed for");
    }
    int64_t total = 1;
    for (int64_t o : w->out) {
      total *= o;
    }
    for (int64_t linear = 0; linear < total; ++linear) {
      int64_t rest = linear;
      for (int64_t d = spatial - 1; d >= 0; --d) {
        position[d] = rest % w->out[d];
        rest /= w->out[d];
      }
      int64_t count = 1;
      for (int64_t d = 0; d < spatial; ++d) {
        int64_t lo = includePad ? -explicitPads->padBegin[d] : 0;
        int64_t hi = includePad ? in[d] + explicitPads->padEnd[d] : in[d];
        // The taps p in [0, kernel) with lo <= first + p * dilation < hi,
        // counted without a loop over the kernel (up to 2^30 taps).
        int64_t first = position[d] * w->strides[d] - w->padBegin[d];
        int64_t begin = std::max<int64_t>(
            0, llvm::divideCeilSigned(lo - first, w->dilations[d]));
        int64_t end = std::min<int64_t>(
            w->kernel[d], llvm::divideCeilSigned(hi - first, w->dilations[d]));
        count *= std::max<int64_t>(0, end - begin);
      }
      counts.push_back(static_cast<float>(std::max<int64_t>(count, 1)));
    }
    SmallVector<int64_t> divisorShape(w->out);
    divisorShape.push_back(1);
    Value divisor = constant(
        b, loc,
        DenseElementsAttr::get(
            RankedTensorType::get(divisorShape, b.getF32Type()),
            ArrayRef<float>(counts)));
    divisor = convertTensor(b, loc, divisor, element);
    out = elementwise(b, loc, {out, divisor}, outShape, element,
                      [](OpBuilder &nb, Location l, ValueRange a) {
                        return arith::DivFOp::create(nb, l, a[0], a[1])
                            .getResult();
                      });
  }
  auto toNCHW = [&](Value v) {
    Value nchw = transpose(b, loc, v, toChannelsFirst(liftedRank));
    if (rank == 3) {
      nchw = reshapeTo(
          b, loc, nchw,
          {batch, b.getIndexAttr(channels), b.getIndexAttr(w->out[1])});
    }
    return nchw;
  };
  if (!wantIndices) {
    return n.replace(toNCHW(out), {isUnsigned});
  }
  Value indices = maxPoolIndices(b, loc, nhwc, out, windowTensor, *w, in,
                                 channels, storageOrder == 1);
  return n.replace({toNCHW(out), toNCHW(indices)}, {isUnsigned, false});
}

/// LpNormalization: x / (sum over `axis` of |x|^p)^(1/p), p 1 or 2.
LogicalResult lowerLpNormalization(Node &n) {
  Type element = n.elem(0);
  if (!isFloat(element)) {
    return n.fail("expects a floating-point input");
  }
  int64_t p = n.intAttr("p", 2);
  if (p != 1 && p != 2) {
    return n.fail("p = " + llvm::Twine(p) + " is not 1 or 2");
  }
  int64_t rank = n.rank(0);
  int64_t axis = n.intAttr("axis", -1);
  if (axis < -rank || axis >= rank) {
    return n.fail("axis " + llvm::Twine(axis) + " is out of range for rank " +
                  llvm::Twine(rank));
  }
  if (axis < 0) {
    axis += rank;
  }
  OpBuilder &b = n.b;
  Location loc = n.loc;
  Value x = n.in(0);
  auto type = cast<RankedTensorType>(x.getType());
  Type acc = element.isF16() || element.isBF16() ? b.getF32Type() : element;
  Value sum =
      reduce(b, loc, x, {axis}, scalar(b, loc, acc, 0),
             [&](OpBuilder &nb, Location l, ValueRange a) -> Value {
               Value v = convertScalar(nb, l, a[0], acc);
               return arith::AddFOp::create(nb, l, a[1], lpPower(nb, l, v, p));
             });
  SmallVector<OpFoldResult> kept = dimsOf(b, loc, x);
  kept[axis] = b.getIndexAttr(1);
  sum =
      elementwise(b, loc, sum, cast<RankedTensorType>(sum.getType()).getShape(),
                  acc, [&](OpBuilder &nb, Location l, ValueRange a) {
                    return lpRoot(nb, l, a[0], p);
                  });
  Value norm = reshapeTo(b, loc, sum, kept);
  SmallVector<AffineMap> maps = {
      b.getMultiDimIdentityMap(rank),
      AffineMap::getMultiDimIdentityMap(rank, b.getContext())
          .replace(b.getAffineDimExpr(axis), b.getAffineConstantExpr(0), rank,
                   0)};
  Value y =
      generic(b, loc, {x, norm}, maps, type,
              [&](OpBuilder &nb, Location l, ValueRange a) -> Value {
                Value v = convertScalar(nb, l, a[0], acc);
                return convertScalar(
                    nb, l, arith::DivFOp::create(nb, l, v, a[1]), element);
              });
  return n.replace(y);
}

/// Sum or max over the spatial dims, kept as size-1 dims.
Value reduceSpatial(OpBuilder &b, Location loc, Value x, bool isMax) {
  auto type = cast<RankedTensorType>(x.getType());
  Type element = type.getElementType();
  SmallVector<int64_t> axes;
  SmallVector<OpFoldResult> shape;
  int64_t count = 1;
  for (int64_t d = 0; d < type.getRank(); ++d) {
    if (d >= 2) {
      axes.push_back(d);
      count *= type.getDimSize(d);
      shape.push_back(b.getIndexAttr(1));
    } else {
      shape.push_back(dimOf(b, loc, x, d));
    }
  }
  Type acc = element.isF16() || element.isBF16() ? b.getF32Type() : element;
  Value init = isMax ? lowest(b, loc, acc) : scalar(b, loc, acc, 0);
  Value r = reduce(b, loc, x, axes, init,
                   [&](OpBuilder &nb, Location l, ValueRange a) -> Value {
                     Value v = convertScalar(nb, l, a[0], acc);
                     if (isMax) {
                       return arith::MaximumFOp::create(nb, l, a[1], v);
                     }
                     return arith::AddFOp::create(nb, l, a[1], v);
                   });
  if (!isMax) {
    r = elementwise(b, loc, r, cast<RankedTensorType>(r.getType()).getShape(),
                    acc, [&](OpBuilder &nb, Location l, ValueRange a) {
                      return arith::DivFOp::create(nb, l, a[0],
                                                   scalar(nb, l, acc, count))
                          .getResult();
                    });
  }
  r = convertTensor(b, loc, r, element);
  return reshapeTo(b, loc, r, shape);
}

/// Per-channel (axis 1) vectors reshaped to broadcast over NC...: (C, 1, 1).
Value channelVector(OpBuilder &b, Location loc, Value v, int64_t rank) {
  auto type = cast<RankedTensorType>(v.getType());
  SmallVector<int64_t> shape = {type.getNumElements()};
  for (int64_t d = 2; d < rank; ++d) {
    shape.push_back(1);
  }
  return reshape(b, loc, v, shape);
}

LogicalResult lowerBatchNorm(Node &n) {
  if (n.intAttr("training_mode", 0) != 0 ||
      (n.numOutputs() > 1 && n.outputUsed(1))) {
    return n.fail("training mode is not supported");
  }
  if (failed(checkOnlyBatchDynamic(n))) {
    return failure();
  }
  OpBuilder &b = n.b;
  Location loc = n.loc;
  Type element = n.elem(0);
  double epsilon = n.floatAttr("epsilon", 1e-5);
  int64_t channels = n.shape(0).size() > 1 ? n.shape(0)[1] : 1;
  SmallVector<int64_t> vec = {channels};
  // a = scale / sqrt(var + eps), c = bias - mean * a: per channel, folded
  // when the statistics are constants.
  auto in = [&](unsigned i) { return reshape(b, loc, n.in(i), vec); };
  Value a = elementwise(b, loc, {in(1), in(4)}, vec, element,
                        [&](OpBuilder &nb, Location l, ValueRange v) -> Value {
                          Value s = math::SqrtOp::create(
                              nb, l, arith::AddFOp::create(
                                         nb, l, v[1],
                                         scalar(nb, l, element, epsilon)));
                          return arith::DivFOp::create(nb, l, v[0], s);
                        });
  Value c = elementwise(b, loc, {in(2), in(3), a}, vec, element,
                        [&](OpBuilder &nb, Location l, ValueRange v) -> Value {
                          return arith::SubFOp::create(
                              nb, l, v[0],
                              arith::MulFOp::create(nb, l, v[1], v[2]));
                        });
  int64_t rank = n.rank(0);
  Value y = elementwise(b, loc,
                        {n.in(0), channelVector(b, loc, a, rank),
                         channelVector(b, loc, c, rank)},
                        n.shape(0), element,
                        [](OpBuilder &nb, Location l, ValueRange v) -> Value {
                          return arith::AddFOp::create(
                              nb, l, arith::MulFOp::create(nb, l, v[0], v[1]),
                              v[2]);
                        });
  SmallVector<Value> results = {y};
  for (unsigned i = 1; i < n.numOutputs(); ++i) {
    results.push_back(Value());
  }
  return n.replace(results);
}

LogicalResult lowerInstanceNorm(Node &n) {
  OpBuilder &b = n.b;
  Location loc = n.loc;
  Type element = n.elem(0);
  int64_t rank = n.rank(0);
  double epsilon = n.floatAttr("epsilon", 1e-5);
  Value x = n.in(0);
  Value mean = reduceSpatial(b, loc, x, false);
  Value centered = elementwise(b, loc, {x, mean}, n.shape(0), element,
                               [](OpBuilder &nb, Location l, ValueRange a) {
                                 return arith::SubFOp::create(nb, l, a[0], a[1])
                                     .getResult();
                               });
  Value squares = elementwise(b, loc, centered, n.shape(0), element,
                              [](OpBuilder &nb, Location l, ValueRange a) {
                                return arith::MulFOp::create(nb, l, a[0], a[0])
                                    .getResult();
                              });
  Value var = reduceSpatial(b, loc, squares, false);
  Value y = elementwise(
      b, loc,
      {centered, var, channelVector(b, loc, n.in(1), rank),
       channelVector(b, loc, n.in(2), rank)},
      n.shape(0), element,
      [&](OpBuilder &nb, Location l, ValueRange a) -> Value {
        Value s = math::SqrtOp::create(
            nb, l,
            arith::AddFOp::create(nb, l, a[1],
                                  scalar(nb, l, element, epsilon)));
        Value v = arith::DivFOp::create(nb, l, a[0], s);
        return arith::AddFOp::create(nb, l,
                                     arith::MulFOp::create(nb, l, v, a[2]),
                                     a[3]);
      });
  return n.replace(y);
}

/// Col2Im (opset 18) for 2-D images: input (N, C * kh * kw, L) of blocks
/// -> (N, C, H, W), each output element the sum of the block elements
/// that land on it. One linalg.generic over (n, c, y, x, ki, kj), the
/// kernel offsets reduced: kernel offset (ki, kj) reads block
/// (bi, bj) = ((y + top - ki * dh) / sh, (x + left - kj * dw) / sw) when
/// the division is exact and the block exists (tensor.extract of channel
/// c * kh * kw + ki * kw + kj, column bi * ow + bj). `image_shape` and
/// `block_shape` must be constants.
LogicalResult lowerCol2Im(Node &n) {
  if (n.rank(0) != 3) {
    return n.fail("expects a rank-3 input (N x C*prod(block_shape) x L); "
                  "it has rank " +
                  llvm::Twine(n.rank(0)));
  }
  FailureOr<SmallVector<int64_t>> image = n.constInts(1, "image_shape");
  if (failed(image)) {
    return failure();
  }
  FailureOr<SmallVector<int64_t>> block = n.constInts(2, "block_shape");
  if (failed(block)) {
    return failure();
  }
  int64_t spatial = image->size();
  if (spatial < 1 || spatial > 3 ||
      static_cast<int64_t>(block->size()) != spatial) {
    return n.fail("image_shape and block_shape must hold 1 to 3 values, as "
                  "many each; they hold " +
                  llvm::Twine(image->size()) + " and " +
                  llvm::Twine(block->size()));
  }
  SmallVector<int64_t> strides =
      n.intsAttr("strides").value_or(SmallVector<int64_t>(spatial, 1));
  SmallVector<int64_t> dilations =
      n.intsAttr("dilations").value_or(SmallVector<int64_t>(spatial, 1));
  SmallVector<int64_t> pads =
      n.intsAttr("pads").value_or(SmallVector<int64_t>(2 * spatial, 0));
  if (static_cast<int64_t>(strides.size()) != spatial ||
      static_cast<int64_t>(dilations.size()) != spatial ||
      static_cast<int64_t>(pads.size()) != 2 * spatial) {
    return n.fail("strides and dilations must hold " + llvm::Twine(spatial) +
                  " values and pads " + llvm::Twine(2 * spatial));
  }
  constexpr int64_t kLimit = int64_t(1) << 31;
  for (int64_t d = 0; d < spatial; ++d) {
    if ((*image)[d] < 1 || (*image)[d] > kLimit || (*block)[d] < 1 ||
        (*block)[d] > kLimit || strides[d] < 1 || strides[d] > kLimit ||
        dilations[d] < 1 || dilations[d] > kLimit || pads[d] < 0 ||
        pads[d] > kLimit || pads[d + spatial] < 0 ||
        pads[d + spatial] > kLimit) {
      return n.fail("image_shape, block_shape, strides and dilations must be "
                    "positive and pads not negative (each below 2^31)");
    }
  }
  int64_t batch = n.shape(0)[0], rows = n.shape(0)[1], length = n.shape(0)[2];
  int64_t blockElements = 1;
  for (int64_t k : *block) {
    blockElements *= k;
  }
  if (rows % blockElements != 0) {
    return n.fail("the input's dimension 1 (" + llvm::Twine(rows) +
                  ") is not a multiple of the block's " +
                  llvm::Twine(blockElements) + " elements");
  }
  int64_t channels = rows / blockElements;
  SmallVector<int64_t> blocks;
  int64_t blockCount = 1;
  std::string made;
  for (int64_t d = 0; d < spatial; ++d) {
    int64_t span = dilations[d] * ((*block)[d] - 1) + 1;
    int64_t padded = (*image)[d] + pads[d] + pads[d + spatial];
    if (padded < span) {
      return n.fail("the block is larger than the padded image along "
                    "spatial axis " +
                    llvm::Twine(d));
    }
    blocks.push_back((padded - span) / strides[d] + 1);
    blockCount *= blocks.back();
    made += (d ? " x " : "") + std::to_string(blocks.back());
  }
  if (blockCount != length) {
    return n.fail("the input holds " + llvm::Twine(length) +
                  " blocks where the image, block, strides, dilations and "
                  "pads make " +
                  made);
  }
  SmallVector<int64_t> shape = {batch, channels};
  shape.append(image->begin(), image->end());
  if (failed(n.checkShape(shape, n.elem(0), "the result"))) {
    return failure();
  }
  Type element = n.elem(0);
  bool floating = isFloat(element);
  OpBuilder &b = n.b;
  Location loc = n.loc;
  MLIRContext *context = b.getContext();
  Value source = n.in(0);
  Value init = filled(b, loc, shape, scalar(b, loc, element, 0));
  // Loops: the output's (n, c, spatial...), then the block's offsets.
  int64_t loops = 2 + 2 * spatial;
  SmallVector<AffineExpr> outExprs, kernelExprs;
  for (int64_t d = 0; d < 2 + spatial; ++d) {
    outExprs.push_back(b.getAffineDimExpr(d));
  }
  for (int64_t d = 0; d < spatial; ++d) {
    kernelExprs.push_back(b.getAffineDimExpr(2 + spatial + d));
  }
  SmallVector<utils::IteratorType> iterators(2 + spatial,
                                             utils::IteratorType::parallel);
  iterators.append(spatial, utils::IteratorType::reduction);
  // A block-shaped operand gives the reduced loops their extents.
  Value kernel = splat(b, loc, *block, element, 0);
  Value result =
      linalg::GenericOp::create(
          b, loc, TypeRange{init.getType()}, ValueRange{kernel},
          ValueRange{init},
          {AffineMap::get(loops, 0, kernelExprs, context),
           AffineMap::get(loops, 0, outExprs, context)},
          iterators,
          [&](OpBuilder &nb, Location l, ValueRange args) {
            auto index = [&](int64_t v) -> Value {
              return arith::ConstantIndexOp::create(nb, l, v);
            };
            Value zero = index(0);
            Value valid;
            // The block (column) and the offset in it (row), each
            // linearized row-major.
            Value column = zero;
            Value offset = zero;
            for (int64_t d = 0; d < spatial; ++d) {
              // t = pixel + pad_begin - k * dilation; block = t / stride.
              Value pixel = linalg::IndexOp::create(nb, l, 2 + d);
              Value k = linalg::IndexOp::create(nb, l, 2 + spatial + d);
              Value t = arith::SubIOp::create(
                  nb, l, arith::AddIOp::create(nb, l, pixel, index(pads[d])),
                  arith::MulIOp::create(nb, l, k, index(dilations[d])));
              Value stride = index(strides[d]);
              Value q = arith::DivSIOp::create(nb, l, t, stride);
              Value ok = arith::AndIOp::create(
                  nb, l,
                  arith::CmpIOp::create(nb, l, arith::CmpIPredicate::sge, t,
                                        zero),
                  arith::CmpIOp::create(
                      nb, l, arith::CmpIPredicate::eq,
                      arith::RemSIOp::create(nb, l, t, stride), zero));
              ok = arith::AndIOp::create(
                  nb, l, ok,
                  arith::CmpIOp::create(nb, l, arith::CmpIPredicate::slt, q,
                                        index(blocks[d])));
              valid = valid ? arith::AndIOp::create(nb, l, valid, ok) : ok;
              column = arith::AddIOp::create(
                  nb, l, arith::MulIOp::create(nb, l, column, index(blocks[d])),
                  q);
              offset = arith::AddIOp::create(
                  nb, l,
                  arith::MulIOp::create(nb, l, offset, index((*block)[d])), k);
            }
            column = arith::SelectOp::create(nb, l, valid, column, zero);
            Value row = arith::AddIOp::create(
                nb, l,
                arith::MulIOp::create(nb, l, linalg::IndexOp::create(nb, l, 1),
                                      index(blockElements)),
                offset);
            Value v = tensor::ExtractOp::create(
                nb, l, source,
                ValueRange{linalg::IndexOp::create(nb, l, 0), row, column});
            v = arith::SelectOp::create(nb, l, valid, v,
                                        scalar(nb, l, element, 0));
            Value sum =
                floating ? arith::AddFOp::create(nb, l, args[1], v).getResult()
                         : arith::AddIOp::create(nb, l, args[1], v).getResult();
            linalg::YieldOp::create(nb, l, ValueRange{sum});
          })
          ->getResult(0);
  return n.replace(result, {n.isUnsigned(0)});
}

/// AffineGrid (opset 20): theta (N, 2, 3) and size (N, C, H, W) -> grid
/// (N, H, W, 2), or theta (N, 3, 4) and size (N, C, D, H, W) -> (N, D, H,
/// W, 3). Each grid point is theta[n] times the point's normalized
/// coordinates (x along W first, then y, then z; and a 1), which are a
/// compile-time constant: -1 + 2i / (size - 1) with align_corners, else
/// -1 + (2i + 1) / size (0 along an axis of size 1 with align_corners).
/// One linalg.generic contracting theta's columns with that constant.
/// `size` must be a constant.
LogicalResult lowerAffineGrid(Node &n) {
  if (!isFloat(n.elem(0))) {
    return n.fail("theta must be a float tensor; it is " + typeText(n.type(0)));
  }
  FailureOr<SmallVector<int64_t>> size = n.constInts(1, "size");
  if (failed(size)) {
    return failure();
  }
  int64_t spatial = int64_t(size->size()) - 2;
  if (spatial != 2 && spatial != 3) {
    return n.fail("size must hold 4 values (2-D) or 5 (3-D); it holds " +
                  llvm::Twine(size->size()));
  }
  ArrayRef<int64_t> theta = n.shape(0);
  if (theta.size() != 3 || theta[0] != (*size)[0] || theta[1] != spatial ||
      theta[2] != spatial + 1) {
    return n.fail("theta must be " + llvm::Twine((*size)[0]) + " x " +
                  llvm::Twine(spatial) + " x " + llvm::Twine(spatial + 1) +
                  " for size's batch and rank; it is " + typeText(n.type(0)));
  }
  int64_t align = n.intAttr("align_corners", 0);
  if (align != 0 && align != 1) {
    return n.fail("align_corners = " + llvm::Twine(align) + " is not 0 or 1");
  }
  SmallVector<int64_t> dims(size->begin() + 2, size->end());
  SmallVector<int64_t> baseShape(dims);
  baseShape.push_back(spatial + 1);
  SmallVector<int64_t> shape = {(*size)[0]};
  shape.append(dims);
  shape.push_back(spatial);
  for (int64_t d : shape) {
    if (d < 0) {
      return n.fail("size holds a negative dimension");
    }
  }
  if (failed(n.checkShape(baseShape, n.elem(0), "the grid")) ||
      failed(n.checkShape(shape, n.elem(0), "the result"))) {
    return failure();
  }
  int64_t points = 1;
  for (int64_t d : dims) {
    points *= d;
  }
  if (points * (spatial + 1) > kFoldLimit) {
    return n.fail("the grid has " + llvm::Twine(points) +
                  " points, more than this lowering's constant of " +
                  llvm::Twine(kFoldLimit / (spatial + 1)));
  }
  // The normalized coordinates, x (the last axis) first, then a 1.
  Type element = n.elem(0);
  auto coordinate = [&](int64_t i, int64_t count) -> double {
    if (align) {
      return count <= 1 ? 0.0 : -1.0 + 2.0 * double(i) / double(count - 1);
    }
    return -1.0 + (2.0 * double(i) + 1.0) / double(count);
  };
  SmallVector<Attribute> values;
  values.reserve(points * (spatial + 1));
  SmallVector<int64_t> strides = stridesOf(dims);
  for (int64_t p = 0; p < points; ++p) {
    for (int64_t j = 0; j < spatial; ++j) {
      int64_t axis = spatial - 1 - j;
      int64_t i = (p / strides[axis]) % dims[axis];
      values.push_back(FloatAttr::get(element, coordinate(i, dims[axis])));
    }
    values.push_back(FloatAttr::get(element, 1.0));
  }
  OpBuilder &b = n.b;
  Location loc = n.loc;
  MLIRContext *context = b.getContext();
  Value base = constant(b, loc,
                        DenseElementsAttr::get(
                            RankedTensorType::get(baseShape, element), values));
  // Loops (n, spatial..., k) parallel and j reduced:
  // grid[n, p..., k] = sum_j theta[n, k, j] * base[p..., j].
  unsigned loops = spatial + 3;
  auto dim = [&](int64_t d) { return b.getAffineDimExpr(d); };
  SmallVector<AffineExpr> thetaExprs = {dim(0), dim(spatial + 1),
                                        dim(spatial + 2)};
  SmallVector<AffineExpr> baseExprs, outExprs = {dim(0)};
  for (int64_t d = 0; d < spatial; ++d) {
    baseExprs.push_back(dim(1 + d));
    outExprs.push_back(dim(1 + d));
  }
  baseExprs.push_back(dim(spatial + 2));
  outExprs.push_back(dim(spatial + 1));
  SmallVector<utils::IteratorType> iterators(loops - 1,
                                             utils::IteratorType::parallel);
  iterators.push_back(utils::IteratorType::reduction);
  Value init = filled(b, loc, shape, scalar(b, loc, element, 0));
  Value grid =
      linalg::GenericOp::create(b, loc, TypeRange{init.getType()},
                                ValueRange{n.in(0), base}, ValueRange{init},
                                {AffineMap::get(loops, 0, thetaExprs, context),
                                 AffineMap::get(loops, 0, baseExprs, context),
                                 AffineMap::get(loops, 0, outExprs, context)},
                                iterators, yieldFloatMulAdd)
          ->getResult(0);
  return n.replace(grid);
}

} // namespace

Value mlir::strata::onnx::matmulValues(OpBuilder &b, Location loc, Value lhs,
                                       Value rhs) {
  return matmul(b, loc, lhs, rhs);
}

FailureOr<Value> mlir::strata::onnx::convolveNCHW(Node &n, Value x,
                                                  Value weight) {
  FailureOr<Value> out = convolutionNHWC(n, x, weight);
  if (failed(out)) {
    return failure();
  }
  auto type = cast<RankedTensorType>(out->getType());
  Value nchw = transpose(n.b, n.loc, *out, toChannelsFirst(type.getRank()));
  if (cast<RankedTensorType>(x.getType()).getRank() == 3) {
    nchw = reshapeTo(n.b, n.loc, nchw,
                     {dimOf(n.b, n.loc, *out, 0),
                      n.b.getIndexAttr(type.getDimSize(3)),
                      n.b.getIndexAttr(type.getDimSize(2))});
  }
  return nchw;
}

FailureOr<ConvWindow>
mlir::strata::onnx::convWindow2D(Node &n, ArrayRef<int64_t> in,
                                 ArrayRef<int64_t> kernel) {
  FailureOr<Window> w = window(n, in, kernel, false);
  if (failed(w)) {
    return failure();
  }
  return ConvWindow{w->strides, w->dilations, w->padBegin, w->padEnd, w->out};
}

void mlir::strata::onnx::addNNLowerings(LoweringTable &table) {
  table["MatMul"] = lowerMatMul;
  table["Gemm"] = lowerGemm;
  table.allowDynamic({"MatMul", "Gemm"});
  table["Conv"] = lowerConv;
  table["ConvTranspose"] = lowerConvTranspose;
  table["Col2Im"] = lowerCol2Im;
  table["AffineGrid"] = lowerAffineGrid;
  table["MaxPool"] = [](Node &n) { return lowerPool(n, PoolKind::Max); };
  table["AveragePool"] = [](Node &n) {
    return lowerPool(n, PoolKind::Average);
  };
  table["LpPool"] = [](Node &n) { return lowerPool(n, PoolKind::Lp); };
  table["GlobalLpPool"] = [](Node &n) {
    return lowerPool(n, PoolKind::Lp, /*globalKernel=*/true);
  };
  table["LpNormalization"] = lowerLpNormalization;
  table["GlobalAveragePool"] = [](Node &n) -> LogicalResult {
    if (failed(checkOnlyBatchDynamic(n))) {
      return failure();
    }
    return n.replace(reduceSpatial(n.b, n.loc, n.in(0), false));
  };
  table["GlobalMaxPool"] = [](Node &n) -> LogicalResult {
    if (failed(checkOnlyBatchDynamic(n))) {
      return failure();
    }
    return n.replace(reduceSpatial(n.b, n.loc, n.in(0), true));
  };
  table["BatchNormalization"] = lowerBatchNorm;
  table["InstanceNormalization"] = lowerInstanceNorm;
  // Convolutions, pools and the normalizations over channels take a
  // dynamic batch (their window geometry is static).
  table.allowDynamic({"Conv", "MaxPool", "AveragePool", "GlobalAveragePool",
                      "GlobalMaxPool", "LpPool", "GlobalLpPool",
                      "LpNormalization", "BatchNormalization"});
}
