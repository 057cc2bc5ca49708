// GlobalPool.h - the shape of a global pool that a convolution is computed
// in (--fuse-into-pool): one definition that dispatch formation, which
// puts the convolution into the pool's dispatch (FormDispatches.cpp
// findGlobalPoolReader, isFusedIntoGlobalPool), and the llvm-cpu tiling,
// which cuts that dispatch by the pool's images and channels
// (TileAndDistribute.cpp findGlobalPooledConvolution), both ask, so that
// the two cannot disagree on which ops it takes.

#ifndef STRATA_DIALECT_FLOW_IR_GLOBALPOOL_H
#define STRATA_DIALECT_FLOW_IR_GLOBALPOOL_H

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "llvm/ADT/STLExtras.h"

namespace mlir::strata::flow {

/// Whether `pool` reduces whole images of its input `input`, NHWC: four
/// loops, the input read through a permutation of them, the loops over its
/// rows and columns reductions and those over its images and channels
/// parallel, and one result that is images x channels (squeezenet1_1's
/// average over 13x13 pixels; not a pool that keeps unit rows and
/// columns, 1x1x1xC).
inline bool isGlobalPoolOf(linalg::LinalgOp pool, OpOperand &input) {
  if (!pool || input.getOwner() != pool.getOperation() ||
      !pool.isDpsInput(&input) || pool.getNumLoops() != 4 ||
      pool.getNumDpsInits() != 1 || pool->getNumResults() != 1) {
    return false;
  }
  AffineMap map = pool.getMatchingIndexingMap(&input);
  AffineMap resultMap = pool.getMatchingIndexingMap(pool.getDpsInitOperand(0));
  // The result is the input's images, then its channels (not channels x
  // images: the code generator cuts the result's first dimension by image).
  if (!map.isPermutation() || !resultMap.isProjectedPermutation() ||
      resultMap.getNumResults() != 2 ||
      resultMap.getDimPosition(0) != map.getDimPosition(0) ||
      resultMap.getDimPosition(1) != map.getDimPosition(3)) {
    return false;
  }
  SmallVector<utils::IteratorType> iterators = pool.getIteratorTypesArray();
  for (unsigned dim = 0; dim < 4; ++dim) {
    bool reduced =
        iterators[map.getDimPosition(dim)] == utils::IteratorType::reduction;
    if (reduced != (dim == 1 || dim == 2)) {
      return false;
    }
  }
  return true;
}

/// Whether `op` is an all-parallel op that reads a global pool's result
/// `pooled` as it writes its own (the average's division after the sum):
/// the dispatch's root then, with the pool before it.
inline bool isGlobalPoolEpilogue(linalg::LinalgOp op, Value pooled) {
  if (!op || op.getNumReductionLoops() != 0 || op.getNumDpsInits() != 1 ||
      !op.getMatchingIndexingMap(op.getDpsInitOperand(0)).isIdentity()) {
    return false;
  }
  bool reads = false;
  for (OpOperand *input : op.getDpsInputOperands()) {
    if (input->get() == pooled) {
      if (!op.getMatchingIndexingMap(input).isIdentity()) {
        return false;
      }
      reads = true;
    }
  }
  return reads;
}

} // namespace mlir::strata::flow

#endif // STRATA_DIALECT_FLOW_IR_GLOBALPOOL_H
