// NonMaxSuppression.cpp - ONNX NonMaxSuppression: boxes ranked by score,
// their overlaps as bit masks, a greedy kernel per batch and class, and the
// selected rows counted, read back and filled like the other results whose
// shape depends on the data (DataDependentOps.cpp).

#include "Lowering.h"

using namespace mlir;
using namespace mlir::strata;
using namespace mlir::strata::onnx;

namespace {

Value indexConst(OpBuilder &b, Location loc, int64_t value) {
  return arith::ConstantIndexOp::create(b, loc, value);
}

Value i64Const(OpBuilder &b, Location loc, int64_t value) {
  return arith::ConstantIntOp::create(b, loc, b.getI64Type(), value);
}

Value toI64(OpBuilder &b, Location loc, Value index) {
  return arith::IndexCastOp::create(b, loc, b.getI64Type(), index);
}

Value toIndex(OpBuilder &b, Location loc, Value value) {
  return arith::IndexCastOp::create(b, loc, b.getIndexType(), value);
}

/// Whether two scores are equal, NaN equal to NaN.
Value sameScore(OpBuilder &b, Location loc, Value x, Value y) {
  Value bothNaN = arith::AndIOp::create(
      b, loc, arith::CmpFOp::create(b, loc, arith::CmpFPredicate::UNO, x, x),
      arith::CmpFOp::create(b, loc, arith::CmpFPredicate::UNO, y, y));
  return arith::OrIOp::create(
      b, loc, arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OEQ, x, y),
      bothNaN);
}

//===----------------------------------------------------------------------===//
// NonMaxSuppression
//===----------------------------------------------------------------------===//

/// Most boxes NonMaxSuppression takes: the greedy kernel keeps the boxes
/// it selected as bit masks, two i64 results per 64 boxes.
constexpr int64_t kMaxSuppressionBoxes = 64 * 64;

/// NonMaxSuppression, per batch and class: the boxes ranked by score
/// (higher first, ties by index), the overlaps between the boxes of each
/// batch as bit masks (computed once for every class), then a greedy
/// kernel that walks the ranks in order, selecting a box when its score passes
/// the threshold, fewer than max_output_boxes_per_class are selected and no
/// selected box overlaps it by more than iou_threshold (intersection over
/// union, as ONNX Runtime computes it). The selections are counted by a scan,
/// the count read back, and the [count, 3] result (batch, class, box) filled in
/// order.
LogicalResult lowerNonMaxSuppression(Node &n) {
  OpBuilder &b = n.b;
  Location loc = n.loc;
  MLIRContext *context = b.getContext();
  ArrayRef<int64_t> boxShape = n.shape(0), scoreShape = n.shape(1);
  int64_t batches = boxShape[0], boxes = boxShape[1];
  int64_t classes = scoreShape[1];
  if (boxShape[2] != 4) {
    return n.fail("input 0 (boxes) has " + llvm::Twine(boxShape[2]) +
                  " coordinates per box; it takes 4");
  }
  if (scoreShape[0] != batches || scoreShape[2] != boxes) {
    return n.fail("input 1 (scores) has the shape " + typeText(n.type(1)) +
                  "; it takes [" + llvm::Twine(batches) + ", classes, " +
                  llvm::Twine(boxes) + "] for the boxes' " +
                  typeText(n.type(0)));
  }
  for (unsigned i = 2; i < 5; ++i) {
    if (n.has(i) && n.type(i).getNumElements() != 1) {
      return n.fail("input " + llvm::Twine(i) + " has " +
                    llvm::Twine(n.type(i).getNumElements()) +
                    " values; it takes one");
    }
  }
  if (boxes > kMaxSuppressionBoxes) {
    return n.fail("it takes at most " + llvm::Twine(kMaxSuppressionBoxes) +
                  " boxes; the input has " + llvm::Twine(boxes));
  }
  int64_t centerPoint = n.intAttr("center_point_box", 0);
  if (centerPoint != 0 && centerPoint != 1) {
    return n.fail("center_point_box is " + llvm::Twine(centerPoint) +
                  "; it takes 0 or 1");
  }
  Type i64 = b.getI64Type();
  Type f32 = b.getF32Type();
  // The largest temporaries: a rank and a box per (batch, class, box), and
  // their flattened count (the input shapes alone do not bound them).
  if (failed(n.checkShape({batches, classes, boxes}, i64, "the ranks"))) {
    return failure();
  }
  auto resultOf = [&](ArrayRef<OpFoldResult> sizes) {
    return RankedTensorType::get(staticShapeOf(sizes), i64);
  };
  if (batches == 0 || classes == 0 || boxes == 0) {
    return n.replace(
        tensor::EmptyOp::create(b, loc, SmallVector<int64_t>{0, 3}, i64)
            .getResult());
  }
  auto dim = [&](unsigned d) { return b.getAffineDimExpr(d); };
  // The scalar parameters, read by the kernels.
  auto scalarOf = [&](OpBuilder &nb, Location l, unsigned i) -> Value {
    SmallVector<Value> at(n.rank(i), indexConst(nb, l, 0));
    return tensor::ExtractOp::create(nb, l, n.in(i), at);
  };
  // Corners of each box as (y1, x1, y2, x2), y1 <= y2 and x1 <= x2, in f32.
  Value corners = generic(
      b, loc, {}, {}, RankedTensorType::get({batches, boxes, 4}, f32),
      [&](OpBuilder &nb, Location l, ValueRange) -> Value {
        Value batch = linalg::IndexOp::create(nb, l, 0);
        Value box = linalg::IndexOp::create(nb, l, 1);
        Value c = linalg::IndexOp::create(nb, l, 2);
        auto coordinate = [&](int64_t k) -> Value {
          Value v = tensor::ExtractOp::create(
              nb, l, n.in(0), ValueRange{batch, box, indexConst(nb, l, k)});
          return convertScalar(nb, l, v, f32);
        };
        Value lowY, lowX, highY, highX;
        if (centerPoint) {
          Value half = scalar(nb, l, f32, 0.5);
          Value cx = coordinate(0), cy = coordinate(1);
          Value w = arith::MulFOp::create(nb, l, coordinate(2), half);
          Value h = arith::MulFOp::create(nb, l, coordinate(3), half);
          lowX = arith::SubFOp::create(nb, l, cx, w);
          highX = arith::AddFOp::create(nb, l, cx, w);
          lowY = arith::SubFOp::create(nb, l, cy, h);
          highY = arith::AddFOp::create(nb, l, cy, h);
        } else {
          Value y1 = coordinate(0), x1 = coordinate(1);
          Value y2 = coordinate(2), x2 = coordinate(3);
          lowY = arith::MinimumFOp::create(nb, l, y1, y2);
          highY = arith::MaximumFOp::create(nb, l, y1, y2);
          lowX = arith::MinimumFOp::create(nb, l, x1, x2);
          highX = arith::MaximumFOp::create(nb, l, x1, x2);
        }
        Value v = highX;
        Value values[3] = {lowY, lowX, highY};
        for (int64_t k = 2; k >= 0; --k) {
          Value here = arith::CmpIOp::create(nb, l, arith::CmpIPredicate::eq, c,
                                             indexConst(nb, l, k));
          v = arith::SelectOp::create(nb, l, here, values[k], v);
        }
        return v;
      });
  // rank[b, c, j]: the boxes ranked above box j (higher score, or the same
  // score and a lower index).
  auto map3 = [&](unsigned dims, ArrayRef<AffineExpr> exprs) {
    return AffineMap::get(dims, 0, exprs, context);
  };
  SmallVector<utils::IteratorType> reduce3 = {
      utils::IteratorType::parallel, utils::IteratorType::parallel,
      utils::IteratorType::parallel, utils::IteratorType::reduction};
  Value rankInit =
      filled(b, loc, {batches, classes, boxes}, scalar(b, loc, i64, 0));
  Value ranks =
      linalg::GenericOp::create(
          b, loc, TypeRange{rankInit.getType()}, ValueRange{n.in(1), n.in(1)},
          ValueRange{rankInit},
          {map3(4, {dim(0), dim(1), dim(2)}), map3(4, {dim(0), dim(1), dim(3)}),
           map3(4, {dim(0), dim(1), dim(2)})},
          reduce3,
          [&](OpBuilder &nb, Location l, ValueRange args) {
            Value mine = args[0], other = args[1];
            Value earlier =
                arith::CmpIOp::create(nb, l, arith::CmpIPredicate::ult,
                                      linalg::IndexOp::create(nb, l, 3),
                                      linalg::IndexOp::create(nb, l, 2));
            // A strict total order, so the ranks are a permutation: NaN
            // scores rank below every number and equal each other.
            Value otherNumber = arith::CmpFOp::create(
                nb, l, arith::CmpFPredicate::ORD, other, other);
            Value mineNaN = arith::CmpFOp::create(
                nb, l, arith::CmpFPredicate::UNO, mine, mine);
            Value above = arith::OrIOp::create(
                nb, l,
                arith::CmpFOp::create(nb, l, arith::CmpFPredicate::OGT, other,
                                      mine),
                arith::AndIOp::create(nb, l, otherNumber, mineNaN));
            above = arith::OrIOp::create(
                nb, l, above,
                arith::AndIOp::create(nb, l, sameScore(nb, l, other, mine),
                                      earlier));
            linalg::YieldOp::create(
                nb, l,
                ValueRange{
                    arith::AddIOp::create(
                        nb, l, args[2],
                        arith::ExtUIOp::create(nb, l, nb.getI64Type(), above))
                        .getResult()});
          })
          ->getResult(0);
  // order[b, c, p]: the box of rank p.
  Value orderInit =
      filled(b, loc, {batches, classes, boxes}, scalar(b, loc, i64, 0));
  Value order =
      linalg::GenericOp::create(
          b, loc, TypeRange{orderInit.getType()}, ValueRange{ranks},
          ValueRange{orderInit},
          {map3(4, {dim(0), dim(1), dim(3)}),
           map3(4, {dim(0), dim(1), dim(2)})},
          reduce3,
          [&](OpBuilder &nb, Location l, ValueRange args) {
            Value p = toI64(nb, l, linalg::IndexOp::create(nb, l, 2));
            Value j = toI64(nb, l, linalg::IndexOp::create(nb, l, 3));
            Value hit = arith::CmpIOp::create(nb, l, arith::CmpIPredicate::eq,
                                              args[0], p);
            linalg::YieldOp::create(
                nb, l,
                ValueRange{arith::SelectOp::create(nb, l, hit, j, args[1])
                               .getResult()});
          })
          ->getResult(0);
  // overlaps[b, i, w]: bit e set when box j = 64 w + e (another box of
  // batch b) overlaps box i by more than the threshold. Symmetric, and the
  // same for every class.
  int64_t words = (boxes + 63) / 64;
  Value bitsOfWord = splat(b, loc, {64}, b.getI8Type(), 0);
  Value overlapInit =
      filled(b, loc, {batches, boxes, words}, scalar(b, loc, i64, 0));
  Value overlaps =
      linalg::GenericOp::create(
          b, loc, TypeRange{overlapInit.getType()}, ValueRange{bitsOfWord},
          ValueRange{overlapInit},
          {map3(4, {dim(3)}), map3(4, {dim(0), dim(1), dim(2)})},
          {utils::IteratorType::parallel, utils::IteratorType::parallel,
           utils::IteratorType::parallel, utils::IteratorType::reduction},
          [&](OpBuilder &nb, Location l, ValueRange args) {
            Value batch = linalg::IndexOp::create(nb, l, 0);
            Value mine = linalg::IndexOp::create(nb, l, 1);
            Value e = linalg::IndexOp::create(nb, l, 3);
            Value j = arith::AddIOp::create(
                nb, l,
                arith::MulIOp::create(nb, l, linalg::IndexOp::create(nb, l, 2),
                                      indexConst(nb, l, 64)),
                e);
            Value another = arith::AndIOp::create(
                nb, l,
                arith::CmpIOp::create(nb, l, arith::CmpIPredicate::ult, j,
                                      indexConst(nb, l, boxes)),
                arith::CmpIOp::create(nb, l, arith::CmpIPredicate::ne, j,
                                      mine));
            Value other = arith::SelectOp::create(nb, l, another, j,
                                                  indexConst(nb, l, 0));
            auto corner = [&](Value box, int64_t k) -> Value {
              return tensor::ExtractOp::create(
                  nb, l, corners, ValueRange{batch, box, indexConst(nb, l, k)});
            };
            Value zero = scalar(nb, l, f32, 0);
            auto extent = [&](Value low, Value high) -> Value {
              return arith::SubFOp::create(nb, l, high, low);
            };
            Value interY = arith::MaximumFOp::create(
                nb, l,
                extent(arith::MaximumFOp::create(nb, l, corner(mine, 0),
                                                 corner(other, 0)),
                       arith::MinimumFOp::create(nb, l, corner(mine, 2),
                                                 corner(other, 2))),
                zero);
            Value interX = arith::MaximumFOp::create(
                nb, l,
                extent(arith::MaximumFOp::create(nb, l, corner(mine, 1),
                                                 corner(other, 1)),
                       arith::MinimumFOp::create(nb, l, corner(mine, 3),
                                                 corner(other, 3))),
                zero);
            Value inter = arith::MulFOp::create(nb, l, interY, interX);
            auto area = [&](Value box) -> Value {
              return arith::MulFOp::create(
                  nb, l, extent(corner(box, 0), corner(box, 2)),
                  extent(corner(box, 1), corner(box, 3)));
            };
            Value areaMine = area(mine), areaOther = area(other);
            Value unionArea = arith::SubFOp::create(
                nb, l, arith::AddFOp::create(nb, l, areaMine, areaOther),
                inter);
            auto positive = [&](Value v) -> Value {
              return arith::CmpFOp::create(nb, l, arith::CmpFPredicate::OGT, v,
                                           zero);
            };
            Value threshold =
                n.has(3) ? convertScalar(nb, l, scalarOf(nb, l, 3), f32) : zero;
            Value over = arith::CmpFOp::create(
                nb, l, arith::CmpFPredicate::OGT,
                arith::DivFOp::create(nb, l, inter, unionArea), threshold);
            Value hit = another;
            for (Value ok : {positive(inter), positive(areaMine),
                             positive(areaOther), positive(unionArea), over}) {
              hit = arith::AndIOp::create(nb, l, hit, ok);
            }
            Value bit = arith::ShLIOp::create(nb, l, i64Const(nb, l, 1),
                                              toI64(nb, l, e));
            Value acc = args[1];
            linalg::YieldOp::create(
                nb, l,
                ValueRange{
                    arith::SelectOp::create(
                        nb, l, hit, arith::OrIOp::create(nb, l, acc, bit), acc)
                        .getResult()});
          })
          ->getResult(0);
  // The greedy walk: per (b, c), the ranks in order (a reduction loop, which
  // runs in order: its combiner reads the selections so far). Its results
  // are the selected boxes as `words` masks by box (which the overlaps
  // test), the same by rank (which order the output), then their count.
  Value zeros = filled(b, loc, {batches, classes}, scalar(b, loc, i64, 0));
  SmallVector<Value> inits(2 * words + 1, zeros);
  SmallVector<Type> initTypes(2 * words + 1, zeros.getType());
  SmallVector<AffineMap> greedyMaps = {map3(3, {dim(0), dim(1), dim(2)})};
  greedyMaps.append(2 * words + 1, map3(3, {dim(0), dim(1)}));
  auto greedy = linalg::GenericOp::create(
      b, loc, initTypes, ValueRange{order}, inits, greedyMaps,
      {utils::IteratorType::parallel, utils::IteratorType::parallel,
       utils::IteratorType::reduction},
      [&](OpBuilder &nb, Location l, ValueRange args) {
        Value batch = linalg::IndexOp::create(nb, l, 0);
        Value cls = linalg::IndexOp::create(nb, l, 1);
        Value p = linalg::IndexOp::create(nb, l, 2);
        Value box = toIndex(nb, l, args[0]);
        ValueRange byBox = args.slice(1, words);
        ValueRange byRank = args.slice(1 + words, words);
        Value count = args.back();
        Value take = arith::ConstantIntOp::create(nb, l, 1, 1);
        if (n.has(4)) {
          Value score =
              convertScalar(nb, l,
                            tensor::ExtractOp::create(
                                nb, l, n.in(1), ValueRange{batch, cls, box}),
                            f32);
          take = arith::CmpFOp::create(
              nb, l, arith::CmpFPredicate::OGT, score,
              convertScalar(nb, l, scalarOf(nb, l, 4), f32));
        }
        // An absent max_output_boxes_per_class is 0: nothing is selected.
        Value most = n.has(2) ? convertScalar(nb, l, scalarOf(nb, l, 2),
                                              nb.getI64Type(), n.isUnsigned(2))
                              : i64Const(nb, l, 0);
        take = arith::AndIOp::create(
            nb, l, take,
            arith::CmpIOp::create(nb, l, arith::CmpIPredicate::slt, count,
                                  most));
        Value conflicts = i64Const(nb, l, 0);
        for (int64_t w = 0; w < words; ++w) {
          Value overlap = tensor::ExtractOp::create(
              nb, l, overlaps, ValueRange{batch, box, indexConst(nb, l, w)});
          conflicts = arith::OrIOp::create(
              nb, l, conflicts,
              arith::AndIOp::create(nb, l, overlap, byBox[w]));
        }
        take = arith::AndIOp::create(
            nb, l, take,
            arith::CmpIOp::create(nb, l, arith::CmpIPredicate::eq, conflicts,
                                  i64Const(nb, l, 0)));
        // Sets bit `at` of the masks `masks` when taken.
        SmallVector<Value> next;
        auto mark = [&](ValueRange masks, Value at) {
          Value at64 = toI64(nb, l, at);
          Value word = arith::DivUIOp::create(nb, l, at64, i64Const(nb, l, 64));
          Value bit = arith::ShLIOp::create(
              nb, l, i64Const(nb, l, 1),
              arith::RemUIOp::create(nb, l, at64, i64Const(nb, l, 64)));
          for (int64_t w = 0; w < words; ++w) {
            Value here = arith::AndIOp::create(
                nb, l, take,
                arith::CmpIOp::create(nb, l, arith::CmpIPredicate::eq, word,
                                      i64Const(nb, l, w)));
            next.push_back(arith::SelectOp::create(
                nb, l, here, arith::OrIOp::create(nb, l, masks[w], bit),
                masks[w]));
          }
        };
        mark(byBox, box);
        mark(byRank, p);
        next.push_back(arith::AddIOp::create(
            nb, l, count,
            arith::ExtUIOp::create(nb, l, nb.getI64Type(), take)));
        linalg::YieldOp::create(nb, l, next);
      });
  SmallVector<Value> selected;
  for (int64_t w = 0; w < words; ++w) {
    selected.push_back(greedy->getResult(words + w));
  }
  Value perClass = greedy->getResult(2 * words);
  // Where each (b, c)'s rows start: an exclusive scan of the counts; their
  // total is read back.
  int64_t groups = batches * classes;
  Value classInclusive =
      inclusiveScan(b, loc, reshape(b, loc, perClass, {groups}));
  OpFoldResult total = readCount(b, loc, classInclusive);
  // The inclusive count of selections up to each (b, c, p) in row-major
  // order: the rows before (b, c), plus the selected ranks up to p.
  Value upTo = generic(
      b, loc, {}, {}, RankedTensorType::get({batches, classes, boxes}, i64),
      [&](OpBuilder &nb, Location l, ValueRange) -> Value {
        Value batch = linalg::IndexOp::create(nb, l, 0);
        Value cls = linalg::IndexOp::create(nb, l, 1);
        Value p = toI64(nb, l, linalg::IndexOp::create(nb, l, 2));
        Value group = arith::AddIOp::create(
            nb, l,
            arith::MulIOp::create(nb, l, batch, indexConst(nb, l, classes)),
            cls);
        Value v = arith::SubIOp::create(
            nb, l, tensor::ExtractOp::create(nb, l, classInclusive, group),
            tensor::ExtractOp::create(nb, l, perClass, ValueRange{batch, cls}));
        Value word = arith::DivUIOp::create(nb, l, p, i64Const(nb, l, 64));
        // Bits 0..p % 64 (2 << 63 wraps to 0, and 0 - 1 is every bit).
        Value mask = arith::SubIOp::create(
            nb, l,
            arith::ShLIOp::create(
                nb, l, i64Const(nb, l, 2),
                arith::RemUIOp::create(nb, l, p, i64Const(nb, l, 64))),
            i64Const(nb, l, 1));
        for (int64_t w = 0; w < words; ++w) {
          Value bits = tensor::ExtractOp::create(nb, l, selected[w],
                                                 ValueRange{batch, cls});
          Value wv = i64Const(nb, l, w);
          Value whole =
              arith::CmpIOp::create(nb, l, arith::CmpIPredicate::ult, wv, word);
          Value partial =
              arith::CmpIOp::create(nb, l, arith::CmpIPredicate::eq, wv, word);
          Value counted = arith::SelectOp::create(
              nb, l, whole, bits,
              arith::SelectOp::create(nb, l, partial,
                                      arith::AndIOp::create(nb, l, bits, mask),
                                      i64Const(nb, l, 0)));
          v = arith::AddIOp::create(nb, l, v,
                                    math::CtPopOp::create(nb, l, counted));
        }
        return v;
      });
  Value positions =
      selectedPositions(b, loc, reshape(b, loc, upTo, {groups * boxes}), total);
  // The positions are read, not mapped, so they stay a kernel of their own:
  // fused, each column would search again.
  Value result = generic(
      b, loc, {}, {}, resultOf({total, b.getIndexAttr(3)}),
      [&](OpBuilder &nb, Location l, ValueRange) -> Value {
        Value column = linalg::IndexOp::create(nb, l, 1);
        Value flat = tensor::ExtractOp::create(
            nb, l, positions, ValueRange{linalg::IndexOp::create(nb, l, 0)});
        Value batch = arith::DivUIOp::create(nb, l, flat,
                                             i64Const(nb, l, classes * boxes));
        Value cls = arith::RemUIOp::create(
            nb, l, arith::DivUIOp::create(nb, l, flat, i64Const(nb, l, boxes)),
            i64Const(nb, l, classes));
        Value p = arith::RemUIOp::create(nb, l, flat, i64Const(nb, l, boxes));
        Value box = tensor::ExtractOp::create(nb, l, order,
                                              ValueRange{toIndex(nb, l, batch),
                                                         toIndex(nb, l, cls),
                                                         toIndex(nb, l, p)});
        Value v = box;
        Value isClass = arith::CmpIOp::create(nb, l, arith::CmpIPredicate::eq,
                                              column, indexConst(nb, l, 1));
        v = arith::SelectOp::create(nb, l, isClass, cls, v);
        Value isBatch = arith::CmpIOp::create(nb, l, arith::CmpIPredicate::eq,
                                              column, indexConst(nb, l, 0));
        return arith::SelectOp::create(nb, l, isBatch, batch, v);
      },
      {total, b.getIndexAttr(3)});
  return n.replace(result);
}

} // namespace

void mlir::strata::onnx::addNonMaxSuppressionLowering(LoweringTable &table) {
  table["NonMaxSuppression"] = lowerNonMaxSuppression;
}
