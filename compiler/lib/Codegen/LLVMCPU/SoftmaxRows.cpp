//===- SoftmaxRows.cpp - linalg.softmax over rows as three vector passes --===//
//
// A bufferized linalg.softmax over its innermost dimension (what
// TileAndDistribute keeps whole for llvm-cpu: each workgroup's band of rows)
// becomes loops over its rows, and per row three passes over the row while
// it sits in the L1 cache:
//   1. m = the row's maximum (NaN elements skipped: they make the row NaN in
//      pass 2 anyway),
//   2. out[j] = exp(in[j] - m), s = the sum of those,
//   3. out[j] *= 1 / s,
// each on native vectors with a scalar tail for the last (size mod lanes)
// elements. Upstream's decomposition (max, exp, sum, divide as four linalg
// ops) reads the band four times through a temporary, reduces through
// transposes of 16 x 16 tiles and divides every element.
//
//===----------------------------------------------------------------------===//
#include "Strata/Codegen/LLVMCPU/Codegen.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

namespace mlir::strata::llvmcpu {
namespace {

// Whether the innermost dimension of `memref` is contiguous (stride 1), so
// that a vector.load reads consecutive elements of a row.
bool hasUnitInnerStride(MemRefType type) {
  SmallVector<int64_t> strides;
  int64_t offset;
  return succeeded(type.getStridesAndOffset(strides, offset)) &&
         !strides.empty() && strides.back() == 1;
}

// A loop from `lb` to `ub` by `step` carrying `init`; `body` gets the
// induction variable and the carried values and returns the next ones.
SmallVector<Value> buildLoop(
    OpBuilder &b, Location loc, Value lb, Value ub, Value step, ValueRange init,
    function_ref<SmallVector<Value>(OpBuilder &, Location, Value, ValueRange)>
        body) {
  auto loop = scf::ForOp::create(
      b, loc, lb, ub, step, init,
      [&](OpBuilder &nb, Location l, Value iv, ValueRange args) {
        scf::YieldOp::create(nb, l, body(nb, l, iv, args));
      });
  return SmallVector<Value>(loop.getResults());
}

// The maximum of a and b, b when a is NaN (the x86 MAXPS form, which LLVM
// selects for this compare and select).
Value maxSkippingNaN(OpBuilder &b, Location loc, Value a, Value acc) {
  Value greater =
      arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OGT, a, acc);
  return arith::SelectOp::create(b, loc, greater, a, acc);
}

// The lanes of `v` combined by halves (16 -> 8 -> 4 -> 2 -> 1): a tree of
// log2(lanes) vector steps, where vector.reduction becomes a serial chain
// (an ordered sum; a maximum with NaN checks at every lane) that costs as
// much as the rest of a row of 128.
Value reduceByHalves(OpBuilder &b, Location loc, Value v,
                     function_ref<Value(Value, Value)> combine) {
  auto type = cast<VectorType>(v.getType());
  int64_t lanes = type.getNumElements();
  while (lanes > 1 && lanes % 2 == 0) {
    int64_t half = lanes / 2;
    Value low =
        vector::ExtractStridedSliceOp::create(b, loc, v, {0}, {half}, {1});
    Value high =
        vector::ExtractStridedSliceOp::create(b, loc, v, {half}, {half}, {1});
    v = combine(high, low);
    lanes = half;
  }
  Value result = vector::ExtractOp::create(b, loc, v, ArrayRef<int64_t>{0});
  for (int64_t i = 1; i < lanes; ++i) {
    result = combine(vector::ExtractOp::create(b, loc, v, ArrayRef<int64_t>{i}),
                     result);
  }
  return result;
}

LogicalResult lowerSoftmax(linalg::SoftmaxOp op, int64_t nativeVectorBytes) {
  auto inType = dyn_cast<MemRefType>(op.getInput().getType());
  auto outType = dyn_cast<MemRefType>(op.getOutput().getType());
  if (!inType || !outType) {
    return op.emitOpError("llvm-cpu lowers linalg.softmax on buffers only");
  }
  int64_t rank = inType.getRank();
  auto f32 = dyn_cast<Float32Type>(inType.getElementType());
  if (!f32 || rank == 0 ||
      op.getDimension() != static_cast<uint64_t>(rank - 1)) {
    return op.emitOpError("llvm-cpu lowers linalg.softmax of f32 over the "
                          "innermost dimension only");
  }
  OpBuilder b(op);
  Location loc = op.getLoc();
  Value in = op.getInput(), out = op.getOutput();
  // Rows read and written as vectors when both are contiguous; else one
  // element at a time, in the same three passes.
  int64_t lanes = hasUnitInnerStride(inType) && hasUnitInnerStride(outType)
                      ? std::max<int64_t>(1, nativeVectorBytes / 4)
                      : 1;
  Value zero = arith::ConstantIndexOp::create(b, loc, 0);
  Value one = arith::ConstantIndexOp::create(b, loc, 1);
  Value vectorStep = arith::ConstantIndexOp::create(b, loc, lanes);
  Value length = memref::DimOp::create(b, loc, in, rank - 1);
  // Elements in whole vectors: length rounded down to a multiple of lanes.
  Value whole = arith::MulIOp::create(
      b, loc, arith::DivUIOp::create(b, loc, length, vectorStep), vectorStep);
  Type element = b.getF32Type();
  auto vectorType = VectorType::get({lanes}, element);
  Value lowest = arith::ConstantOp::create(
      b, loc, b.getFloatAttr(element, -std::numeric_limits<float>::infinity()));
  Value zeroF = arith::ConstantOp::create(b, loc, b.getFloatAttr(element, 0.0));
  Value oneF = arith::ConstantOp::create(b, loc, b.getFloatAttr(element, 1.0));

  // One loop per outer dimension; the row's indices end with its element.
  std::function<void(OpBuilder &, SmallVector<Value>)> emitRows =
      [&](OpBuilder &rb, SmallVector<Value> outer) {
        if (static_cast<int64_t>(outer.size()) < rank - 1) {
          Value size = memref::DimOp::create(rb, loc, in, outer.size());
          scf::ForOp::create(
              rb, loc, zero, size, one, ValueRange{},
              [&](OpBuilder &nb, Location l, Value iv, ValueRange) {
                SmallVector<Value> next = outer;
                next.push_back(iv);
                emitRows(nb, next);
                scf::YieldOp::create(nb, l);
              });
          return;
        }
        auto at = [&](Value j) {
          SmallVector<Value> indices = outer;
          indices.push_back(j);
          return indices;
        };
        bool vectors = lanes > 1;
        // Pass 1: the maximum.
        Value max = lowest;
        if (vectors) {
          Value splat =
              vector::BroadcastOp::create(rb, loc, vectorType, lowest);
          Value acc = buildLoop(
              rb, loc, zero, whole, vectorStep, {splat},
              [&](OpBuilder &nb, Location l, Value j, ValueRange args) {
                Value v = vector::LoadOp::create(nb, l, vectorType, in, at(j));
                return SmallVector<Value>{maxSkippingNaN(nb, l, v, args[0])};
              })[0];
          max = reduceByHalves(rb, loc, acc, [&](Value x, Value y) {
            return maxSkippingNaN(rb, loc, x, y);
          });
        }
        max = buildLoop(
            rb, loc, whole, length, one, {max},
            [&](OpBuilder &nb, Location l, Value j, ValueRange args) {
              Value x = memref::LoadOp::create(nb, l, in, at(j));
              return SmallVector<Value>{maxSkippingNaN(nb, l, x, args[0])};
            })[0];
        // Pass 2: the exponentials, stored, and their sum.
        Value sum = zeroF;
        if (vectors) {
          Value maxSplat =
              vector::BroadcastOp::create(rb, loc, vectorType, max);
          Value splat = vector::BroadcastOp::create(rb, loc, vectorType, zeroF);
          Value acc = buildLoop(
              rb, loc, zero, whole, vectorStep, {splat},
              [&](OpBuilder &nb, Location l, Value j, ValueRange args) {
                Value v = vector::LoadOp::create(nb, l, vectorType, in, at(j));
                Value e = math::ExpOp::create(
                    nb, l, arith::SubFOp::create(nb, l, v, maxSplat));
                vector::StoreOp::create(nb, l, e, out, at(j));
                return SmallVector<Value>{
                    arith::AddFOp::create(nb, l, args[0], e)};
              })[0];
          sum = reduceByHalves(rb, loc, acc, [&](Value x, Value y) -> Value {
            return arith::AddFOp::create(rb, loc, x, y);
          });
        }
        sum =
            buildLoop(rb, loc, whole, length, one, {sum},
                      [&](OpBuilder &nb, Location l, Value j, ValueRange args) {
                        Value x = memref::LoadOp::create(nb, l, in, at(j));
                        Value e = math::ExpOp::create(
                            nb, l, arith::SubFOp::create(nb, l, x, max));
                        memref::StoreOp::create(nb, l, e, out, at(j));
                        return SmallVector<Value>{
                            arith::AddFOp::create(nb, l, args[0], e)};
                      })[0];
        // Pass 3: scaled by the sum's reciprocal.
        Value scale = arith::DivFOp::create(rb, loc, oneF, sum);
        if (vectors) {
          Value scaleSplat =
              vector::BroadcastOp::create(rb, loc, vectorType, scale);
          buildLoop(rb, loc, zero, whole, vectorStep, {},
                    [&](OpBuilder &nb, Location l, Value j, ValueRange) {
                      Value v =
                          vector::LoadOp::create(nb, l, vectorType, out, at(j));
                      vector::StoreOp::create(
                          nb, l, arith::MulFOp::create(nb, l, v, scaleSplat),
                          out, at(j));
                      return SmallVector<Value>{};
                    });
        }
        buildLoop(rb, loc, whole, length, one, {},
                  [&](OpBuilder &nb, Location l, Value j, ValueRange) {
                    Value x = memref::LoadOp::create(nb, l, out, at(j));
                    memref::StoreOp::create(
                        nb, l, arith::MulFOp::create(nb, l, x, scale), out,
                        at(j));
                    return SmallVector<Value>{};
                  });
      };
  emitRows(b, {});
  op.erase();
  return success();
}

} // namespace

LogicalResult lowerSoftmaxRows(ModuleOp module, int64_t nativeVectorBytes) {
  module.getContext()
      ->loadDialect<arith::ArithDialect, math::MathDialect,
                    memref::MemRefDialect, scf::SCFDialect,
                    vector::VectorDialect>();
  SmallVector<linalg::SoftmaxOp> softmaxes;
  module.walk([&](linalg::SoftmaxOp op) { softmaxes.push_back(op); });
  for (linalg::SoftmaxOp op : softmaxes) {
    if (failed(lowerSoftmax(op, nativeVectorBytes))) {
      return failure();
    }
  }
  return success();
}

} // namespace mlir::strata::llvmcpu
