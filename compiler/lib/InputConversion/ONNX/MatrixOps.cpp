// MatrixOps.cpp - ONNX's per-matrix linear algebra: Det, the determinant
// of each square matrix of a batch by an LU factorization with partial
// pivoting.

#include "Lowering.h"

using namespace mlir;
using namespace mlir::strata;
using namespace mlir::strata::onnx;

namespace {

/// The largest matrix Det factors: its LU is unrolled into one kernel
/// body of about M^3 operations per matrix.
constexpr int64_t kMaxDetSize = 16;

/// Det: x [..., M, M] to [...]. Each matrix is factored in the body of one
/// kernel over the batch, unrolled: at step k the row at or below k with
/// the largest |a[i][k]| (the first of equals) is swapped into row k, each
/// swap flipping the sign, and the rows below lose their multiple of row k.
/// The determinant is the sign times the product of the pivots. A zero
/// pivot (a singular matrix) eliminates nothing, so the product is 0, not
/// NaN. f16 and bf16 are computed in f32.
LogicalResult lowerDet(Node &n) {
  OpBuilder &b = n.b;
  Location loc = n.loc;
  int64_t rank = n.rank(0);
  Type element = n.elem(0);
  if (rank < 2 || !isFloat(element) ||
      n.shape(0)[rank - 1] != n.shape(0)[rank - 2]) {
    return n.fail("input 0 must be a float tensor of square matrices "
                  "[..., M, M]; it is " +
                  typeText(n.type(0)));
  }
  int64_t size = n.shape(0)[rank - 1];
  if (size > kMaxDetSize) {
    return n.fail("Det of " + llvm::Twine(size) + " x " + llvm::Twine(size) +
                  " matrices is not supported: the factorization is unrolled "
                  "for matrices of at most " +
                  llvm::Twine(kMaxDetSize) + " x " + llvm::Twine(kMaxDetSize));
  }
  Type compute =
      element.isF16() || element.isBF16() ? Type(b.getF32Type()) : element;
  SmallVector<int64_t> batch(n.shape(0).drop_back(2));
  auto type = RankedTensorType::get(batch, element);
  Value x = n.in(0);
  Value result = generic(
      b, loc, {}, {}, type,
      [&](OpBuilder &nb, Location l, ValueRange) -> Value {
        SmallVector<Value> at;
        for (int64_t d = 0; d < rank - 2; ++d) {
          at.push_back(linalg::IndexOp::create(nb, l, d));
        }
        at.append(2, Value());
        std::vector<SmallVector<Value>> a(size);
        for (int64_t i = 0; i < size; ++i) {
          for (int64_t j = 0; j < size; ++j) {
            at[rank - 2] = arith::ConstantIndexOp::create(nb, l, i);
            at[rank - 1] = arith::ConstantIndexOp::create(nb, l, j);
            a[i].push_back(convertScalar(
                nb, l, tensor::ExtractOp::create(nb, l, x, at), compute));
          }
        }
        Value zero = scalar(nb, l, compute, 0);
        Value det = scalar(nb, l, compute, 1);
        Type i32 = nb.getI32Type();
        for (int64_t k = 0; k < size; ++k) {
          // The pivot's row p.
          Value best = math::AbsFOp::create(nb, l, a[k][k]);
          Value p = scalar(nb, l, i32, double(k));
          for (int64_t i = k + 1; i < size; ++i) {
            Value v = math::AbsFOp::create(nb, l, a[i][k]);
            Value bigger = arith::CmpFOp::create(
                nb, l, arith::CmpFPredicate::OGT, v, best);
            best = arith::SelectOp::create(nb, l, bigger, v, best);
            p = arith::SelectOp::create(nb, l, bigger,
                                        scalar(nb, l, i32, double(i)), p);
          }
          if (k + 1 < size) {
            // Rows k and p swap (columns from k on; those before are done).
            SmallVector<Value> rowK(a[k]);
            for (int64_t i = k + 1; i < size; ++i) {
              Value isP =
                  arith::CmpIOp::create(nb, l, arith::CmpIPredicate::eq, p,
                                        scalar(nb, l, i32, double(i)));
              for (int64_t j = k; j < size; ++j) {
                rowK[j] = arith::SelectOp::create(nb, l, isP, a[i][j], rowK[j]);
                a[i][j] = arith::SelectOp::create(nb, l, isP, a[k][j], a[i][j]);
              }
            }
            a[k] = rowK;
            Value swapped =
                arith::CmpIOp::create(nb, l, arith::CmpIPredicate::ne, p,
                                      scalar(nb, l, i32, double(k)));
            det = arith::SelectOp::create(
                nb, l, swapped, arith::NegFOp::create(nb, l, det), det);
          }
          Value pivot = a[k][k];
          det = arith::MulFOp::create(nb, l, det, pivot);
          Value singular = arith::CmpFOp::create(
              nb, l, arith::CmpFPredicate::OEQ, pivot, zero);
          for (int64_t i = k + 1; i < size; ++i) {
            Value factor = arith::SelectOp::create(
                nb, l, singular, zero,
                arith::DivFOp::create(nb, l, a[i][k], pivot));
            for (int64_t j = k + 1; j < size; ++j) {
              a[i][j] = arith::SubFOp::create(
                  nb, l, a[i][j],
                  arith::MulFOp::create(nb, l, factor, a[k][j]));
            }
          }
        }
        return convertScalar(nb, l, det, element);
      });
  return n.replace(result);
}

} // namespace

void mlir::strata::onnx::addMatrixLowerings(LoweringTable &table) {
  table["Det"] = lowerDet;
}
