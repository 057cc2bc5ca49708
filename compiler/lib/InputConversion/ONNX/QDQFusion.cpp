// QDQFusion.cpp - ONNX's QDQ form of a quantized layer as one integer
// contraction: DequantizeLinear(x_q) and DequantizeLinear(constant int8
// weight) -> Conv / Gemm / MatMul (-> Relu / Clip) -> QuantizeLinear
// becomes an i8 x i8 -> i32 linalg.matmul (a convolution through im2col;
// a depthwise one, group = channels, as an i8 depthwise convolution into
// i32, its taps the depth) and a requantizing epilogue, so activations
// stay 8-bit between layers.
//
// With A' = x - 128 for u8 x (x for s8, offset 0) and W' = w - zero point
// (computed at compile time; it must fit in i8), the layer's accumulator
// is sum(A' * W') + (offset - x_zp) * colsum(W') + bias / (sx * sw), and
// the output is saturate(round_even(acc * sx * sw / sy) + y_zp) clamped to
// the activation's range. Everything but sum(A' * W') is one per-channel
// i32 constant and one per-channel f32 multiplier.

#include "Lowering.h"

#include "mlir/IR/Matchers.h"

using namespace mlir;
using namespace mlir::strata;
using namespace mlir::strata::onnx;

namespace {

/// The onnx.node of op type `type` (default domain) defining `value`.
NodeOp nodeOf(Value value, StringRef type) {
  auto node = value ? value.getDefiningOp<NodeOp>() : NodeOp();
  if (!node || node.getOpType() != type ||
      !(node.getDomain().empty() || node.getDomain() == "ai.onnx")) {
    return {};
  }
  return node;
}

/// A DequantizeLinear whose only user is the contraction.
NodeOp dequantizeOf(Value value) {
  NodeOp dq = nodeOf(value, "DequantizeLinear");
  if (!dq || !dq.getOutputs()[0].hasOneUse() || dq.getInputs().size() < 2) {
    return {};
  }
  return dq;
}

bool hasOneUse(NodeOp node) {
  return node.getOutputs().size() == 1 && node.getOutputs()[0].hasOneUse();
}

SmallVector<double> floatsOf(DenseElementsAttr attr) {
  SmallVector<double> values;
  for (const APFloat &v : attr.getValues<APFloat>()) {
    values.push_back(v.convertToDouble());
  }
  return values;
}

/// A DequantizeLinear's scale and zero point, `count` values each (a
/// per-tensor parameter repeated), read from constants; fails when they
/// are not constants or not of that many values.
struct QuantParams {
  SmallVector<double> scale;
  SmallVector<int64_t> zeroPoint;
};

FailureOr<QuantParams> paramsOf(Node &n, int64_t count) {
  DenseElementsAttr scale = constantOf(n.in(1));
  if (!scale || !isa<FloatType>(scale.getElementType())) {
    return failure();
  }
  QuantParams p;
  p.scale = floatsOf(scale);
  if (n.has(2)) {
    DenseElementsAttr zp = constantOf(n.in(2));
    if (!zp || !isa<IntegerType>(zp.getElementType())) {
      return failure();
    }
    p.zeroPoint = intsOf(zp, n.isUnsigned(2));
  } else {
    p.zeroPoint.assign(p.scale.size(), 0);
  }
  if (p.scale.size() != p.zeroPoint.size()) {
    return failure();
  }
  if (p.scale.size() == 1) {
    p.scale.assign(count, p.scale[0]);
    p.zeroPoint.assign(count, p.zeroPoint[0]);
  }
  if (int64_t(p.scale.size()) != count) {
    return failure();
  }
  for (double s : p.scale) {
    if (!(s > 0) || !std::isfinite(s)) {
      return failure();
    }
  }
  return p;
}

bool is8Bit(Type type) { return type.isInteger(8); }

Value i8Scalar(OpBuilder &b, Location loc, int64_t value) {
  return arith::ConstantOp::create(
      b, loc,
      b.getIntegerAttr(b.getIntegerType(8),
                       APInt(8, static_cast<uint64_t>(value) & 0xff)));
}

/// A' = x - 128 for u8 (flipping the top bit), x itself for s8.
Value shifted(OpBuilder &b, Location loc, Value x, bool isUnsigned,
              ArrayRef<AffineMap> maps, RankedTensorType type) {
  return generic(b, loc, x, maps, type,
                 [&](OpBuilder &nb, Location l, ValueRange a) -> Value {
                   return flipTopBit(nb, l, a[0], isUnsigned);
                 });
}

} // namespace

//===----------------------------------------------------------------------===//
// Finding groups
//===----------------------------------------------------------------------===//

void mlir::strata::onnx::expandQLinearConvs(Block &block,
                                            RewriterBase &rewriter) {
  for (NodeOp node : llvm::make_early_inc_range(block.getOps<NodeOp>())) {
    // Input 0 is typed none while its producer is unlowered; the others
    // must be values (constants) here.
    if (node.getOpType() != "QLinearConv" ||
        !(node.getDomain().empty() || node.getDomain() == "ai.onnx") ||
        node.getInputs().size() < 8 || node.getOutputs().size() != 1) {
      continue;
    }
    OperandRange in = node.getInputs();
    // A uint8 constant is a signless one behind a cast (prepareBlock).
    auto isConstant = [](Value value) {
      if (auto cast = value.getDefiningOp<UnrealizedConversionCastOp>();
          cast && cast->getNumOperands() == 1) {
        value = cast->getOperand(0);
      }
      return bool(constantOf(value));
    };
    DenseElementsAttr xs = constantOf(in[1]), ws = constantOf(in[4]);
    if (!xs || !ws || !isConstant(in[3]) || !isConstant(in[2]) ||
        !isConstant(in[5]) || !isConstant(in[7]) || xs.getNumElements() != 1 ||
        !xs.getElementType().isF32() || !ws.getElementType().isF32() ||
        llvm::any_of(in.drop_front(),
                     [](Value v) { return isa<NoneType>(v.getType()); })) {
      continue;
    }
    rewriter.setInsertionPoint(node);
    Location loc = node.getLoc();
    int64_t opset = std::max<int64_t>(node.getOpset(), 13);
    // The new nodes' results are typed none until lowered, as the
    // importer's are without a declared type; the QuantizeLinear keeps the
    // QLinearConv's result type.
    auto make = [&](StringRef type, ValueRange inputs, DictionaryAttr attrs,
                    Type result = Type()) -> Value {
      return NodeOp::create(
                 rewriter, loc,
                 TypeRange{result ? result : Type(rewriter.getNoneType())},
                 rewriter.getStringAttr(type), rewriter.getStringAttr(""),
                 rewriter.getI64IntegerAttr(opset), StringAttr(), attrs,
                 ArrayAttr(), inputs, 0)
          ->getResult(0);
    };
    DictionaryAttr none = rewriter.getDictionaryAttr({});
    DictionaryAttr axis0 = rewriter.getDictionaryAttr(
        {rewriter.getNamedAttr("axis", rewriter.getI64IntegerAttr(0))});
    SmallVector<Value> convInputs = {
        make("DequantizeLinear", {in[0], in[1], in[2]}, none),
        make("DequantizeLinear", {in[3], in[4], in[5]},
             ws.getNumElements() > 1 ? axis0 : none)};
    if (in.size() > 8) {
      // The bias in accumulator steps: x_scale * w_scale[c].
      float x = xs.getSplatValue<float>();
      SmallVector<float> scale;
      for (float w : ws.getValues<float>()) {
        scale.push_back(x * w);
      }
      Value scaleConst = arith::ConstantOp::create(
          rewriter, loc,
          DenseElementsAttr::get(RankedTensorType::get({int64_t(scale.size())},
                                                       rewriter.getF32Type()),
                                 ArrayRef<float>(scale)));
      convInputs.push_back(make("DequantizeLinear", {in[8], scaleConst},
                                scale.size() > 1 ? axis0 : none));
    }
    Value conv = make("Conv", convInputs, node.getAttrs());
    Value y = make("QuantizeLinear", {conv, in[6], in[7]}, none,
                   node.getOutputs()[0].getType());
    rewriter.replaceAllUsesWith(node.getOutputs()[0], y);
    rewriter.eraseOp(node);
  }
}

namespace {

/// The one value of a per-tensor constant behind an optional unsigned
/// cast (prepareBlock), with the type the ONNX value has.
struct ScalarConstant {
  DenseElementsAttr value;
  Type type;
};

std::optional<ScalarConstant> scalarConstant(Value value) {
  Type type = value.getType();
  if (auto cast = value.getDefiningOp<UnrealizedConversionCastOp>();
      cast && cast->getNumOperands() == 1) {
    value = cast->getOperand(0);
  }
  DenseElementsAttr attr = constantOf(value);
  if (!attr || attr.getNumElements() != 1) {
    return std::nullopt;
  }
  return ScalarConstant{attr, type};
}

/// Whether a DequantizeLinear and a QuantizeLinear (default domain, three
/// inputs) share one per-tensor positive f32 scale and one zero point of
/// the same type: then QuantizeLinear(DequantizeLinear(v)) is v.
bool sameQuantization(NodeOp dq, NodeOp q) {
  if (dq.getInputs().size() != 3 || q.getInputs().size() != 3) {
    return false;
  }
  std::optional<ScalarConstant> ds = scalarConstant(dq.getInputs()[1]);
  std::optional<ScalarConstant> qs = scalarConstant(q.getInputs()[1]);
  std::optional<ScalarConstant> dz = scalarConstant(dq.getInputs()[2]);
  std::optional<ScalarConstant> qz = scalarConstant(q.getInputs()[2]);
  if (!ds || !qs || !dz || !qz || !ds->value.getElementType().isF32() ||
      !qs->value.getElementType().isF32() || dz->type != qz->type ||
      !isa<IntegerType>(dz->value.getElementType()) || dz->value != qz->value) {
    return false;
  }
  float scale = ds->value.getSplatValue<float>();
  return scale == qs->value.getSplatValue<float>() && scale > 0 &&
         std::isfinite(scale);
}

} // namespace

void QuantizedGroups::find(Block &block) {
  for (auto q : block.getOps<NodeOp>()) {
    if (q.getOpType() != "QuantizeLinear" || q.getInputs().size() < 2 ||
        !(q.getDomain().empty() || q.getDomain() == "ai.onnx")) {
      continue;
    }
    QuantizedGroup g;
    g.quantize = q;
    Value in = q.getInputs()[0];
    // DequantizeLinear -> MaxPool -> QuantizeLinear: decided at the
    // QuantizeLinear, once the parameters are constants (integerPool).
    if (NodeOp pool = nodeOf(in, "MaxPool"); pool && hasOneUse(pool) &&
                                             !pool.getInputs().empty() &&
                                             q.getInputs().size() == 3) {
      if (NodeOp dq = dequantizeOf(pool.getInputs()[0]);
          dq && dq.getInputs().size() == 3) {
        g.input = dq;
        g.pool = pool;
        deferred.insert(dq);
        deferred.insert(pool);
        groups[q] = g;
        continue;
      }
    }
    for (StringRef act : {"Relu", "Clip"}) {
      if (NodeOp a = nodeOf(in, act); a && hasOneUse(a)) {
        g.activation = a;
        in = a.getInputs()[0];
      }
    }
    for (StringRef type : {"Conv", "Gemm", "MatMul"}) {
      if (NodeOp c = nodeOf(in, type); c && hasOneUse(c)) {
        g.contraction = c;
      }
    }
    if (!g.contraction || g.contraction.getInputs().size() < 2) {
      continue;
    }
    g.input = dequantizeOf(g.contraction.getInputs()[0]);
    g.weight = dequantizeOf(g.contraction.getInputs()[1]);
    if (!g.input || !g.weight) {
      continue;
    }
    unsigned biasIndex = 2;
    if (g.contraction.getInputs().size() > biasIndex) {
      g.bias = dequantizeOf(g.contraction.getInputs()[biasIndex]);
    }
    for (NodeOp node :
         {g.input, g.weight, g.bias, g.contraction, g.activation}) {
      if (node) {
        deferred.insert(node);
      }
    }
    groups[q] = g;
  }
}

bool QuantizedGroups::isDeferred(Operation *op) const {
  return deferred.contains(op);
}

const QuantizedGroup *QuantizedGroups::endingAt(Operation *op) const {
  auto it = groups.find(op);
  return it == groups.end() ? nullptr : &it->second;
}

//===----------------------------------------------------------------------===//
// Lowering a group
//===----------------------------------------------------------------------===//

namespace {

/// What the group's contraction is, read from its attributes and shapes:
/// rows x depth times depth x columns, the weight as a depth x columns
/// matrix of int values (before the zero point), the channel of each.
struct Contraction {
  bool isConv = false;
  /// A depthwise Conv (group = channels, one filter each): `depth` is the
  /// window's taps and `columns` the channels.
  bool isDepthwise = false;
  ConvWindow window;
  int64_t batch = 0, height = 0, width = 0, channels = 0, kh = 1, kw = 1;
  int64_t rows = 0, depth = 0, columns = 0;
  /// weightIndex[k * columns + f]: the weight element's linear index.
  SmallVector<int64_t> weightIndex;
  /// The weight's output-channel axis (where a per-channel scale lies).
  int64_t channelAxis = 0;
};

FailureOr<Contraction> contractionOf(Node &c, RankedTensorType xType,
                                     RankedTensorType wType) {
  Contraction k;
  ArrayRef<int64_t> xs = xType.getShape(), ws = wType.getShape();
  if (c.opType() == "Conv") {
    int64_t group = c.intAttr("group", 1);
    bool depthwise = xs.size() == 4 && ws.size() == 4 && group > 1 &&
                     group == xs[1] && ws[0] == group && ws[1] == 1;
    if (xs.size() != 4 || ws.size() != 4 ||
        (!depthwise && (group != 1 || ws[1] != xs[1]))) {
      return failure();
    }
    SmallVector<int64_t> kernel(ws.begin() + 2, ws.end());
    if (auto attr = c.intsAttr("kernel_shape"); attr && *attr != kernel) {
      return failure();
    }
    FailureOr<ConvWindow> w = convWindow2D(c, xs.drop_front(2), kernel);
    if (failed(w)) {
      return failure();
    }
    k.isConv = true;
    k.window = *w;
    k.batch = xs[0];
    k.channels = xs[1];
    k.height = xs[2];
    k.width = xs[3];
    k.kh = ws[2];
    k.kw = ws[3];
    k.rows = xs[0] * w->out[0] * w->out[1];
    k.channelAxis = 0;
    if (depthwise) {
      // B[ky * kw + kx][c] = w[c][0][ky][kx]: the HWC filter.
      k.isDepthwise = true;
      k.depth = k.kh * k.kw;
      k.columns = k.channels;
      k.weightIndex.resize(k.depth * k.columns);
      for (int64_t tap = 0; tap < k.depth; ++tap) {
        for (int64_t ch = 0; ch < k.channels; ++ch) {
          k.weightIndex[tap * k.columns + ch] = ch * k.depth + tap;
        }
      }
      return k;
    }
    k.depth = k.kh * k.kw * k.channels;
    k.columns = ws[0];
    // B[(ky * kw + kx) * C + ch][f] = w[f][ch][ky][kx]
    k.weightIndex.resize(k.depth * k.columns);
    for (int64_t ky = 0; ky < k.kh; ++ky) {
      for (int64_t kx = 0; kx < k.kw; ++kx) {
        for (int64_t ch = 0; ch < k.channels; ++ch) {
          int64_t row = (ky * k.kw + kx) * k.channels + ch;
          for (int64_t f = 0; f < k.columns; ++f) {
            k.weightIndex[row * k.columns + f] =
                ((f * k.channels + ch) * k.kh + ky) * k.kw + kx;
          }
        }
      }
    }
    return k;
  }
  bool transB = false;
  if (c.opType() == "Gemm") {
    if (c.intAttr("transA", 0) != 0 || c.floatAttr("alpha", 1.0) != 1.0 ||
        c.floatAttr("beta", 1.0) != 1.0) {
      return failure();
    }
    transB = c.intAttr("transB", 0) != 0;
  }
  if (xs.size() != 2 || ws.size() != 2) {
    return failure();
  }
  k.rows = xs[0];
  k.depth = xs[1];
  k.columns = transB ? ws[0] : ws[1];
  if ((transB ? ws[1] : ws[0]) != k.depth) {
    return failure();
  }
  k.channelAxis = transB ? 0 : 1;
  k.weightIndex.resize(k.depth * k.columns);
  for (int64_t r = 0; r < k.depth; ++r) {
    for (int64_t f = 0; f < k.columns; ++f) {
      k.weightIndex[r * k.columns + f] =
          transB ? f * k.depth + r : r * k.columns + f;
    }
  }
  return k;
}

/// The per-channel parameter of a weight DequantizeLinear: per tensor, or
/// along the weight's output-channel axis.
FailureOr<QuantParams> weightParams(Node &dq, int64_t channelAxis,
                                    int64_t columns) {
  if (dq.type(1).getNumElements() > 1) {
    int64_t axis = dq.intAttr("axis", 1);
    if (axis < 0) {
      axis += dq.rank(0);
    }
    if (axis != channelAxis) {
      return failure();
    }
  }
  return paramsOf(dq, columns);
}

/// Lowers the group; failure() (without an error) when it is not one the
/// integer path takes, so the caller lowers its nodes one by one.
FailureOr<Value> lowerInteger(const QuantizedGroup &g, RewriterBase &rewriter,
                              bool &isUnsignedResult) {
  // The checks each node's own pattern would make come first: static
  // ranked inputs (a deferred node's outputs, still unlowered, are typed
  // none), the inputs the op types require.
  for (NodeOp node :
       {g.input, g.weight, g.bias, g.contraction, g.activation, g.quantize}) {
    if (!node) {
      continue;
    }
    for (Value in : node.getInputs()) {
      auto type = dyn_cast<RankedTensorType>(in.getType());
      if (!isa<NoneType>(in.getType()) && (!type || !type.hasStaticShape())) {
        return failure();
      }
    }
  }
  for (NodeOp dq : {g.input, g.weight, g.bias}) {
    if (dq && isa<NoneType>(dq.getInputs()[0].getType())) {
      return failure();
    }
  }
  Node q(g.quantize, rewriter), dqX(g.input, rewriter), dqW(g.weight, rewriter),
      c(g.contraction, rewriter);
  OpBuilder &b = rewriter;
  Location loc = q.loc;
  if (!dqX.has(0) || !is8Bit(dqX.elem(0)) || !dqW.has(0) ||
      !is8Bit(dqW.elem(0)) || !dqX.elem(1).isF32() || !q.has(2) ||
      !is8Bit(q.elem(2)) || !q.elem(1).isF32()) {
    return failure();
  }
  // float8 and int4 are i8 storage here; blocked parameters are not per
  // tensor or channel: the nodes one by one take those.
  if (isNarrowElement(dqX.onnxElem(0)) || isNarrowElement(dqW.onnxElem(0)) ||
      isNarrowElement(q.onnxElem(2)) || dqX.intAttr("block_size", 0) != 0 ||
      dqW.intAttr("block_size", 0) != 0 || q.intAttr("block_size", 0) != 0) {
    return failure();
  }
  bool xUnsigned = dqX.isUnsigned(0);
  RankedTensorType xType = dqX.type(0);
  FailureOr<Contraction> k = contractionOf(c, xType, dqW.type(0));
  if (failed(k)) {
    return failure();
  }
  FailureOr<QuantParams> xp = paramsOf(dqX, 1);
  FailureOr<QuantParams> wp = weightParams(dqW, k->channelAxis, k->columns);
  DenseElementsAttr wAttr = constantOf(dqW.in(0));
  if (failed(xp) || failed(wp) || !wAttr) {
    return failure();
  }
  FailureOr<QuantParams> yp = paramsOf(q, 1);
  if (failed(yp)) {
    return failure();
  }
  double sx = xp->scale[0], sy = yp->scale[0];
  int64_t zx = xp->zeroPoint[0], zy = yp->zeroPoint[0];
  bool yUnsigned = q.isUnsigned(2);

  // The bias: DequantizeLinear of a constant, or a float constant.
  SmallVector<double> bias(k->columns, 0.0);
  unsigned biasIndex = 2;
  if (g.bias) {
    Node dqB(g.bias, rewriter);
    DenseElementsAttr bAttr = constantOf(dqB.in(0));
    if (!bAttr || !isa<IntegerType>(bAttr.getElementType()) ||
        bAttr.getNumElements() != k->columns) {
      return failure();
    }
    FailureOr<QuantParams> bp = paramsOf(dqB, k->columns);
    if (failed(bp)) {
      return failure();
    }
    SmallVector<int64_t> bq = intsOf(bAttr, dqB.isUnsigned(0));
    for (int64_t f = 0; f < k->columns; ++f) {
      bias[f] = double(bq[f] - bp->zeroPoint[f]) * bp->scale[f];
    }
  } else if (c.has(biasIndex)) {
    DenseElementsAttr bAttr = constantOf(c.in(biasIndex));
    if (!bAttr || !isa<FloatType>(bAttr.getElementType()) ||
        bAttr.getNumElements() != k->columns) {
      return failure();
    }
    bias = floatsOf(bAttr);
  }

  // The activation's range, in output steps.
  int64_t lo = yUnsigned ? 0 : -128, hi = yUnsigned ? 255 : 127;
  if (g.activation) {
    Node act(g.activation, rewriter);
    double minValue = 0.0, maxValue = INFINITY;
    if (act.opType() == "Clip") {
      minValue = -INFINITY;
      if (act.opset() < 11) {
        minValue = act.floatAttr("min", -INFINITY);
        maxValue = act.floatAttr("max", INFINITY);
      } else {
        for (unsigned i : {1u, 2u}) {
          if (!act.has(i)) {
            continue;
          }
          DenseElementsAttr bound = constantOf(act.in(i));
          if (!bound || bound.getNumElements() != 1 ||
              !isa<FloatType>(bound.getElementType())) {
            return failure();
          }
          (i == 1 ? minValue : maxValue) = floatsOf(bound)[0];
        }
      }
    }
    if (std::isfinite(minValue)) {
      lo = std::max<int64_t>(lo, int64_t(std::nearbyint(minValue / sy)) + zy);
    }
    if (std::isfinite(maxValue)) {
      hi = std::min<int64_t>(hi, int64_t(std::nearbyint(maxValue / sy)) + zy);
    }
    if (lo > hi) {
      return failure();
    }
  }

  // W' = w - zero point, which must fit in i8; its column sums; the
  // per-channel constants.
  SmallVector<int64_t> w = intsOf(wAttr, dqW.isUnsigned(0));
  SmallVector<int8_t> bValues(k->depth * k->columns);
  SmallVector<int64_t> colsum(k->columns, 0);
  for (int64_t r = 0; r < k->depth; ++r) {
    for (int64_t f = 0; f < k->columns; ++f) {
      int64_t v = w[k->weightIndex[r * k->columns + f]] - wp->zeroPoint[f];
      if (v < -128 || v > 127) {
        return failure();
      }
      bValues[r * k->columns + f] = int8_t(v);
      colsum[f] += v;
    }
  }
  int64_t offset = xUnsigned ? 128 : 0;
  SmallVector<int32_t> adjust(k->columns);
  SmallVector<float> multiplier(k->columns);
  for (int64_t f = 0; f < k->columns; ++f) {
    double accScale = sx * wp->scale[f];
    double biasSteps = std::nearbyint(bias[f] / accScale);
    double total = biasSteps + double((offset - zx) * colsum[f]);
    if (!(std::fabs(total) < double(1 << 30))) {
      return failure();
    }
    adjust[f] = int32_t(total);
    multiplier[f] = float(accScale / sy);
  }

  // A' (rows x depth, i8): im2col of the input padded with its zero point
  // (a tap of the padding then adds (x_zp - x_zp) * w = 0), top bit
  // flipped for u8.
  Type i8 = b.getIntegerType(8), i32 = b.getI32Type(), f32 = b.getF32Type();
  Value a;
  MLIRContext *context = b.getContext();
  Value acc;
  if (k->isDepthwise) {
    // A' = x - 128 flipped before the padding, so the padding is A' of the
    // zero point; then a depthwise convolution of i8 into i32.
    const ConvWindow &win = k->window;
    Value nhwc = transpose(b, loc, dqX.in(0), {0, 2, 3, 1});
    if (xUnsigned) {
      nhwc = shifted(b, loc, nhwc, xUnsigned, b.getMultiDimIdentityMap(4),
                     cast<RankedTensorType>(nhwc.getType()));
    }
    bool padded = false;
    for (int i = 0; i < 2; ++i) {
      padded |= win.padBegin[i] != 0 || win.padEnd[i] != 0;
    }
    if (padded) {
      SmallVector<int64_t> shape = {
          k->batch, k->height + win.padBegin[0] + win.padEnd[0],
          k->width + win.padBegin[1] + win.padEnd[1], k->channels};
      nhwc = tensor::PadOp::create(
          b, loc, RankedTensorType::get(shape, i8), nhwc,
          getAsIndexOpFoldResult(context,
                                 {0, win.padBegin[0], win.padBegin[1], 0}),
          getAsIndexOpFoldResult(context, {0, win.padEnd[0], win.padEnd[1], 0}),
          i8Scalar(b, loc, xUnsigned ? zx - 128 : zx));
    }
    auto filterType = RankedTensorType::get({k->kh, k->kw, k->channels}, i8);
    Value filter = arith::ConstantOp::create(
        b, loc, DenseElementsAttr::get(filterType, ArrayRef<int8_t>(bValues)));
    Value init = filled(b, loc, {k->batch, win.out[0], win.out[1], k->channels},
                        scalar(b, loc, i32, 0));
    auto i64Pair = [&](ArrayRef<int64_t> values) {
      return DenseIntElementsAttr::get(
          RankedTensorType::get({2}, b.getI64Type()), values);
    };
    acc = linalg::DepthwiseConv2DNhwcHwcOp::create(
              b, loc, TypeRange{init.getType()}, ValueRange{nhwc, filter},
              ValueRange{init}, i64Pair(win.strides), i64Pair(win.dilations))
              ->getResult(0);
  } else if (k->isConv) {
    const ConvWindow &win = k->window;
    Value nhwc = transpose(b, loc, dqX.in(0), {0, 2, 3, 1});
    bool padded = false;
    for (int i = 0; i < 2; ++i) {
      padded |= win.padBegin[i] != 0 || win.padEnd[i] != 0;
    }
    if (padded) {
      SmallVector<int64_t> shape = {
          k->batch, k->height + win.padBegin[0] + win.padEnd[0],
          k->width + win.padBegin[1] + win.padEnd[1], k->channels};
      nhwc = tensor::PadOp::create(
          b, loc, RankedTensorType::get(shape, i8), nhwc,
          getAsIndexOpFoldResult(context,
                                 {0, win.padBegin[0], win.padBegin[1], 0}),
          getAsIndexOpFoldResult(context, {0, win.padEnd[0], win.padEnd[1], 0}),
          i8Scalar(b, loc, zx));
    }
    a = windowRows(b, loc, nhwc, win, k->kh, k->kw, xUnsigned);
  } else {
    a = shifted(b, loc, dqX.in(0), xUnsigned, b.getMultiDimIdentityMap(2),
                RankedTensorType::get({k->rows, k->depth}, i8));
  }

  if (!k->isDepthwise) {
    auto bType = RankedTensorType::get({k->depth, k->columns}, i8);
    Value bMatrix = arith::ConstantOp::create(
        b, loc, DenseElementsAttr::get(bType, ArrayRef<int8_t>(bValues)));
    acc = filled(b, loc, {k->rows, k->columns}, scalar(b, loc, i32, 0));
    acc = linalg::MatmulOp::create(b, loc, TypeRange{acc.getType()},
                                   ValueRange{a, bMatrix}, ValueRange{acc})
              ->getResult(0);
  }
  auto vectorOf = [&](Type element) {
    return RankedTensorType::get({k->columns}, element);
  };
  Value adjustConst = arith::ConstantOp::create(
      b, loc, DenseElementsAttr::get(vectorOf(i32), ArrayRef<int32_t>(adjust)));
  Value multConst = arith::ConstantOp::create(
      b, loc,
      DenseElementsAttr::get(vectorOf(f32), ArrayRef<float>(multiplier)));
  // round_even((acc + adjust) * multiplier) + y_zp, clamped: in f32, exact
  // for the 8-bit range.
  SmallVector<int64_t> accShape(
      cast<RankedTensorType>(acc.getType()).getShape());
  Value y = elementwise(
      b, loc, {acc, adjustConst, multConst}, accShape, i8,
      [&](OpBuilder &nb, Location l, ValueRange v) -> Value {
        Value sum = arith::AddIOp::create(nb, l, v[0], v[1]);
        Value t = arith::MulFOp::create(
            nb, l, arith::SIToFPOp::create(nb, l, f32, sum), v[2]);
        t = math::RoundEvenOp::create(nb, l, t);
        t = arith::AddFOp::create(nb, l, t, scalar(nb, l, f32, double(zy)));
        t = arith::MaximumFOp::create(nb, l, t, scalar(nb, l, f32, double(lo)));
        t = arith::MinimumFOp::create(nb, l, t, scalar(nb, l, f32, double(hi)));
        Value i = arith::FPToSIOp::create(nb, l, i32, t);
        return arith::TruncIOp::create(nb, l, i8, i);
      });
  if (k->isDepthwise) {
    y = transpose(b, loc, y, {0, 3, 1, 2});
  } else if (k->isConv) {
    int64_t oh = k->window.out[0], ow = k->window.out[1];
    y = tensor::ExpandShapeOp::create(
        b, loc, RankedTensorType::get({k->batch, oh, ow, k->columns}, i8), y,
        ArrayRef<ReassociationIndices>{{0, 1, 2}, {3}});
    y = transpose(b, loc, y, {0, 3, 1, 2});
  }
  isUnsignedResult = yUnsigned;
  return y;
}

} // namespace

NodeOp QuantizedGroups::integerPool(const QuantizedGroup &g,
                                    RewriterBase &rewriter) {
  if (!g.pool || !sameQuantization(g.input, g.quantize)) {
    return {};
  }
  // The maximum of dequantized values is the dequantized maximum (the
  // scale is positive), and quantizing it again with the same scale and
  // zero point gives the integer back: the pool runs on the 8-bit values
  // themselves (exact), not on their f32 dequantization.
  NodeOp floatPool = g.pool, dq = g.input, q = g.quantize;
  rewriter.setInsertionPoint(q);
  auto pool = NodeOp::create(
      rewriter, floatPool.getLoc(), TypeRange{rewriter.getNoneType()},
      floatPool.getOpTypeAttr(), floatPool.getDomainAttr(),
      rewriter.getI64IntegerAttr(
          std::max<int64_t>(int64_t(floatPool.getOpset()), 12)),
      floatPool.getNodeNameAttr(), floatPool.getAttrsAttr(), ArrayAttr(),
      ValueRange{dq.getInputs()[0]}, 0);
  rewriter.replaceAllUsesWith(q.getOutputs()[0], pool->getResult(0));
  rewriter.eraseOp(q);
  rewriter.eraseOp(floatPool);
  rewriter.eraseOp(dq);
  return pool;
}

FailureOr<bool> QuantizedGroups::lower(const QuantizedGroup &g,
                                       RewriterBase &rewriter) {
  if (g.pool) {
    return false;
  }
  // The integer path computes its shapes at compile time: a group with a
  // dynamic dimension goes node by node.
  for (NodeOp node :
       {g.input, g.weight, g.bias, g.contraction, g.activation, g.quantize}) {
    if (!node) {
      continue;
    }
    for (Value input : node.getInputs()) {
      auto type = dyn_cast<RankedTensorType>(input.getType());
      if (type && !type.hasStaticShape()) {
        return false;
      }
    }
  }
  rewriter.setInsertionPoint(g.quantize);
  bool isUnsignedResult = false;
  FailureOr<Value> y = lowerInteger(g, rewriter, isUnsignedResult);
  if (failed(y)) {
    return false;
  }
  Node q(g.quantize, rewriter);
  if (failed(q.replace(*y, {isUnsignedResult}))) {
    return failure();
  }
  for (NodeOp node : {g.activation, g.contraction, g.bias, g.weight, g.input}) {
    if (node && node->use_empty()) {
      rewriter.eraseOp(node);
    }
  }
  return true;
}
