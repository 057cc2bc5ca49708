// RecurrentOps.cpp - ONNX's RNN, GRU and LSTM, unrolled over the (static)
// sequence: each step's gates as matmuls with the transposed weights
// (folded for constant weights) and elementwise activations.

#include "Lowering.h"

using namespace mlir;
using namespace mlir::strata;
using namespace mlir::strata::onnx;

namespace {

enum class Cell { RNN, GRU, LSTM };

Value sigmoidOf(OpBuilder &b, Location loc, Value x) {
  Value one = scalar(b, loc, x.getType(), 1.0);
  Value e = expOf(b, loc, arith::NegFOp::create(b, loc, x));
  return arith::DivFOp::create(b, loc, one,
                               arith::AddFOp::create(b, loc, one, e));
}

Value tanhOf(OpBuilder &b, Location loc, Value x) {
  return viaF32(b, loc, x, [&](Value v) -> Value {
    return math::TanhOp::create(b, loc, v);
  });
}

/// Elementwise f over equally shaped (or broadcast) tensors.
Value map(OpBuilder &b, Location loc, ValueRange inputs,
          function_ref<Value(OpBuilder &, Location, ValueRange)> f) {
  SmallVector<ArrayRef<int64_t>> shapes;
  for (Value v : inputs) {
    shapes.push_back(cast<RankedTensorType>(v.getType()).getShape());
  }
  SmallVector<int64_t> shape = *broadcastShapes(shapes);
  return elementwise(b, loc, inputs, shape,
                     cast<RankedTensorType>(inputs[0].getType()).getElementType(),
                     f);
}

Value addAll(OpBuilder &b, Location loc, ValueRange inputs) {
  return map(b, loc, inputs,
             [](OpBuilder &nb, Location l, ValueRange a) -> Value {
               Value s = a[0];
               for (Value v : a.drop_front()) {
                 s = arith::AddFOp::create(nb, l, s, v);
               }
               return s;
             });
}

LogicalResult lowerRecurrent(Node &n, Cell cell) {
  OpBuilder &b = n.b;
  Location loc = n.loc;
  Type element = n.elem(0);
  if (!isFloat(element)) {
    return n.fail("expects floating-point inputs");
  }
  if (n.op.getAttrs().get("activations") || n.op.getAttrs().get("clip")) {
    return n.fail("activations and clip other than the defaults are not "
                  "supported");
  }
  if (cell == Cell::LSTM && n.intAttr("input_forget", 0) != 0) {
    return n.fail("input_forget is not supported");
  }
  bool batchFirst = n.intAttr("layout", 0) != 0;
  StringRef direction = n.stringAttr("direction").value_or("forward");
  int64_t gates = cell == Cell::LSTM ? 4 : cell == Cell::GRU ? 3 : 1;
  // The ranks and the sizes the slices below rely on (found by
  // onnx_fuzzer: an X of rank 1 read a third dimension).
  auto rankIs = [&](unsigned i, int64_t rank) {
    return !n.has(i) || n.rank(i) == rank;
  };
  if (n.rank(0) != 3 || n.rank(1) != 3 || n.rank(2) != 3 || !rankIs(3, 2) ||
      !rankIs(5, 3) || !rankIs(6, 3)) {
    return n.fail("X, W and R must have rank 3, B rank 2, initial_h and "
                  "initial_c rank 3");
  }
  int64_t expectedDirs = direction == "bidirectional" ? 2 : 1;
  if (n.shape(1)[0] != expectedDirs || n.shape(2)[0] != expectedDirs ||
      n.shape(1)[1] == 0 || n.shape(1)[1] % gates != 0 ||
      n.shape(2)[1] != n.shape(1)[1] ||
      n.shape(2)[2] != n.shape(1)[1] / gates ||
      n.shape(1)[2] != n.shape(0)[2]) {
    return n.fail("the shapes of X, W and R do not match the direction, "
                  "the gates and one another");
  }
  Value x = n.in(0);
  if (batchFirst) {
    x = transpose(b, loc, x, {1, 0, 2});
  }
  auto xType = cast<RankedTensorType>(x.getType());
  int64_t seq = xType.getDimSize(0), batch = xType.getDimSize(1),
          inputSize = xType.getDimSize(2);
  int64_t dirs = n.shape(1)[0];
  int64_t hidden = n.shape(1)[1] / gates;
  if (n.intAttr("hidden_size", hidden) != hidden) {
    return n.fail("hidden_size does not match the weights");
  }
  // B, initial_h, initial_c and P are sliced per direction and gate and
  // added to the gates: their shapes follow from W's.
  auto shapeIs = [&](unsigned i, ArrayRef<int64_t> shape) {
    return !n.has(i) || n.shape(i) == shape;
  };
  SmallVector<int64_t> stateShape =
      batchFirst ? SmallVector<int64_t>{batch, dirs, hidden}
                 : SmallVector<int64_t>{dirs, batch, hidden};
  if (!shapeIs(3, {dirs, 2 * gates * hidden}) || !shapeIs(5, stateShape) ||
      !shapeIs(6, stateShape) || !shapeIs(7, {dirs, 3 * hidden})) {
    return n.fail("the shapes of B, initial_h, initial_c or P do not match "
                  "the directions, the batch and the hidden size");
  }
  // Each step is unrolled into the program (and the steps' outputs are
  // concatenated: an empty sequence concatenated nothing).
  constexpr int64_t kMaxSteps = int64_t(1) << 12;
  if (seq < 1) {
    return n.fail("X has a sequence of " + llvm::Twine(seq) +
                  " steps; at least 1 is supported");
  }
  if (seq * dirs > kMaxSteps) {
    return n.fail("a sequence of " + llvm::Twine(seq) + " steps in " +
                  llvm::Twine(dirs) + " directions is more than the " +
                  llvm::Twine(kMaxSteps) + " steps unrolled at most");
  }
  if (n.has(4)) {
    if (failed(n.checkReadable(4, "sequence_lens"))) {
      return failure();
    }
    DenseElementsAttr lengths = n.constant(4);
    if (!lengths) {
      return n.fail("input 4 (sequence_lens) must be known at compile time");
    }
    for (const APInt &v : lengths.getValues<APInt>()) {
      if (v.getSExtValue() != seq) {
        return n.fail("sequence_lens shorter than the sequence are not "
                      "supported");
      }
    }
  }
  bool linearBeforeReset = n.intAttr("linear_before_reset", 0) != 0;
  auto take = [&](Value v, int64_t d) {
    auto type = cast<RankedTensorType>(v.getType());
    SmallVector<int64_t> sizes(type.getShape());
    sizes[0] = 1;
    SmallVector<int64_t> offsets(type.getRank(), 0);
    offsets[0] = d;
    Value s = slice(b, loc, v, offsets, sizes,
                    SmallVector<int64_t>(type.getRank(), 1));
    return reshape(b, loc, s, ArrayRef<int64_t>(sizes).drop_front());
  };
  auto gate = [&](Value v, int64_t g, int64_t axis) {
    auto type = cast<RankedTensorType>(v.getType());
    SmallVector<int64_t> sizes(type.getShape()), offsets(type.getRank(), 0);
    sizes[axis] = hidden;
    offsets[axis] = g * hidden;
    return slice(b, loc, v, offsets, sizes,
                 SmallVector<int64_t>(type.getRank(), 1));
  };
  SmallVector<Value> ys, hs, cs;
  for (int64_t d = 0; d < dirs; ++d) {
    bool reverse = direction == "reverse" || (direction == "bidirectional" && d == 1);
    Value w = take(n.in(1), d);                 // (gates*H, I)
    Value r = take(n.in(2), d);                 // (gates*H, H)
    Value wt = transpose(b, loc, w, {1, 0});    // (I, gates*H)
    Value bias;                                 // Wb + Rb, (gates*H)
    Value wb, rb;
    if (n.has(3)) {
      Value bAll = take(n.in(3), d);            // (2*gates*H)
      wb = slice(b, loc, bAll, {0}, {gates * hidden}, {1});
      rb = slice(b, loc, bAll, {gates * hidden}, {gates * hidden}, {1});
      bias = addAll(b, loc, {wb, rb});
    }
    Value h = n.has(5) ? take(n.in(5), d)
                       : splat(b, loc, {batch, hidden}, element, 0.0);
    if (batchFirst && n.has(5)) {
      h = take(transpose(b, loc, n.in(5), {1, 0, 2}), d);
    }
    Value c;
    if (cell == Cell::LSTM) {
      c = n.has(6) ? take(batchFirst ? transpose(b, loc, n.in(6), {1, 0, 2})
                                     : n.in(6),
                          d)
                   : splat(b, loc, {batch, hidden}, element, 0.0);
    }
    Value peep;
    if (cell == Cell::LSTM && n.has(7)) {
      peep = take(n.in(7), d); // (3*H): i, o, f
    }
    SmallVector<Value> steps(seq);
    for (int64_t s = 0; s < seq; ++s) {
      int64_t t = reverse ? seq - 1 - s : s;
      Value xt = take(x, t); // (batch, I)
      (void)inputSize;
      Value xw = matmulValues(b, loc, xt, wt); // (batch, gates*H)
      if (cell == Cell::RNN) {
        Value hr = matmulValues(b, loc, h, transpose(b, loc, r, {1, 0}));
        SmallVector<Value> terms = {xw, hr};
        if (bias) {
          terms.push_back(bias);
        }
        h = map(b, loc, terms, [](OpBuilder &nb, Location l, ValueRange a) {
          Value sum = a[0];
          for (Value v : a.drop_front()) {
            sum = arith::AddFOp::create(nb, l, sum, v);
          }
          return tanhOf(nb, l, sum);
        });
      } else if (cell == Cell::GRU) {
        // Gates z, r, h.
        auto rGate = [&](int64_t g) { return gate(r, g, 0); };
        auto biasGate = [&](Value v, int64_t g) { return gate(v, g, 0); };
        Value xz = gate(xw, 0, 1), xr = gate(xw, 1, 1), xh = gate(xw, 2, 1);
        auto hTimes = [&](Value hv, int64_t g) {
          return matmulValues(b, loc, hv, transpose(b, loc, rGate(g), {1, 0}));
        };
        SmallVector<Value> zTerms = {xz, hTimes(h, 0)};
        SmallVector<Value> rTerms = {xr, hTimes(h, 1)};
        if (wb) {
          zTerms.append({biasGate(wb, 0), biasGate(rb, 0)});
          rTerms.append({biasGate(wb, 1), biasGate(rb, 1)});
        }
        Value z = map(b, loc, zTerms, [](OpBuilder &nb, Location l, ValueRange a) {
          Value sum = a[0];
          for (Value v : a.drop_front()) {
            sum = arith::AddFOp::create(nb, l, sum, v);
          }
          return sigmoidOf(nb, l, sum);
        });
        Value rr = map(b, loc, rTerms, [](OpBuilder &nb, Location l, ValueRange a) {
          Value sum = a[0];
          for (Value v : a.drop_front()) {
            sum = arith::AddFOp::create(nb, l, sum, v);
          }
          return sigmoidOf(nb, l, sum);
        });
        Value candidate;
        if (linearBeforeReset) {
          SmallVector<Value> hTerms = {hTimes(h, 2)};
          if (rb) {
            hTerms.push_back(biasGate(rb, 2));
          }
          Value hLinear = addAll(b, loc, hTerms);
          SmallVector<Value> terms = {xh, rr, hLinear};
          if (wb) {
            terms.push_back(biasGate(wb, 2));
          }
          candidate = map(b, loc, terms, [](OpBuilder &nb, Location l, ValueRange a) {
            Value sum = arith::AddFOp::create(
                nb, l, a[0], arith::MulFOp::create(nb, l, a[1], a[2]));
            if (a.size() > 3) {
              sum = arith::AddFOp::create(nb, l, sum, a[3]);
            }
            return tanhOf(nb, l, sum);
          });
        } else {
          Value rh = map(b, loc, {rr, h}, [](OpBuilder &nb, Location l, ValueRange a) {
            return arith::MulFOp::create(nb, l, a[0], a[1]).getResult();
          });
          SmallVector<Value> terms = {xh, hTimes(rh, 2)};
          if (wb) {
            terms.append({biasGate(wb, 2), biasGate(rb, 2)});
          }
          candidate = map(b, loc, terms, [](OpBuilder &nb, Location l, ValueRange a) {
            Value sum = a[0];
            for (Value v : a.drop_front()) {
              sum = arith::AddFOp::create(nb, l, sum, v);
            }
            return tanhOf(nb, l, sum);
          });
        }
        h = map(b, loc, {z, candidate, h}, [](OpBuilder &nb, Location l, ValueRange a) {
          Value one = scalar(nb, l, a[0].getType(), 1.0);
          return arith::AddFOp::create(
                     nb, l,
                     arith::MulFOp::create(
                         nb, l, arith::SubFOp::create(nb, l, one, a[0]), a[1]),
                     arith::MulFOp::create(nb, l, a[0], a[2]))
              .getResult();
        });
      } else {
        // LSTM gates i, o, f, c.
        Value hr = matmulValues(b, loc, h, transpose(b, loc, r, {1, 0}));
        SmallVector<Value> terms = {xw, hr};
        if (bias) {
          terms.push_back(bias);
        }
        Value all = addAll(b, loc, terms); // (batch, 4H)
        Value gi = gate(all, 0, 1), go = gate(all, 1, 1), gf = gate(all, 2, 1),
              gc = gate(all, 3, 1);
        Value zeros = splat(b, loc, {hidden}, element, 0.0);
        Value pi = peep ? gate(peep, 0, 0) : zeros;
        Value po = peep ? gate(peep, 1, 0) : zeros;
        Value pf = peep ? gate(peep, 2, 0) : zeros;
        auto peepGate = [&](Value g, Value p, Value cell) {
          return map(b, loc, {g, p, cell}, [](OpBuilder &nb, Location l, ValueRange a) {
            return sigmoidOf(nb, l, arith::AddFOp::create(
                                        nb, l, a[0],
                                        arith::MulFOp::create(nb, l, a[1], a[2])));
          });
        };
        Value i = peepGate(gi, pi, c);
        Value f = peepGate(gf, pf, c);
        c = map(b, loc, {f, c, i, gc}, [](OpBuilder &nb, Location l, ValueRange a) {
          return arith::AddFOp::create(
                     nb, l, arith::MulFOp::create(nb, l, a[0], a[1]),
                     arith::MulFOp::create(nb, l, a[2], tanhOf(nb, l, a[3])))
              .getResult();
        });
        Value o = peepGate(go, po, c);
        h = map(b, loc, {o, c}, [](OpBuilder &nb, Location l, ValueRange a) {
          return arith::MulFOp::create(nb, l, a[0], tanhOf(nb, l, a[1]))
              .getResult();
        });
      }
      steps[t] = reshape(b, loc, h, {1, 1, batch, hidden});
    }
    ys.push_back(concat(b, loc, steps, 0)); // (seq, 1, batch, H)
    hs.push_back(reshape(b, loc, h, {1, batch, hidden}));
    if (cell == Cell::LSTM) {
      cs.push_back(reshape(b, loc, c, {1, batch, hidden}));
    }
  }
  Value y = concat(b, loc, ys, 1);       // (seq, dirs, batch, H)
  Value yh = concat(b, loc, hs, 0);      // (dirs, batch, H)
  Value yc = cs.empty() ? Value() : concat(b, loc, cs, 0);
  if (batchFirst) {
    y = transpose(b, loc, y, {2, 0, 1, 3}); // (batch, seq, dirs, H)
    yh = transpose(b, loc, yh, {1, 0, 2});
    if (yc) {
      yc = transpose(b, loc, yc, {1, 0, 2});
    }
  }
  SmallVector<Value> results = {y, yh};
  if (cell == Cell::LSTM) {
    results.push_back(yc);
  }
  results.resize(n.numOutputs());
  return n.replace(results);
}

} // namespace

void mlir::strata::onnx::addRecurrentLowerings(LoweringTable &table) {
  table["RNN"] = [](Node &n) { return lowerRecurrent(n, Cell::RNN); };
  table["GRU"] = [](Node &n) { return lowerRecurrent(n, Cell::GRU); };
  table["LSTM"] = [](Node &n) { return lowerRecurrent(n, Cell::LSTM); };
}
