//===- IndexBounds.h - constant bounds of tile sizes ----------------------===//
//
// Constant upper bounds of dynamic sizes, for temporaries placed at a fixed
// size (LowerToLLVM.cpp) and microkernel scratch (UkernelCommon.cpp). The
// value bounds analysis answers first; where it cannot (it knows an
// affine.max only from below, and a workgroup id not at all), ranges are
// carried through affine.apply/min/max, arith.addi/muli and the workgroup
// ids (below kWorkgroupCountAttr): a band of a padded window,
// 2 * max(0, min(rows left, rows wanted)) + 5 rows, is at most 11.
//
//===----------------------------------------------------------------------===//
#ifndef STRATA_LIB_CODEGEN_LLVMCPU_INDEXBOUNDS_H_
#define STRATA_LIB_CODEGEN_LLVMCPU_INDEXBOUNDS_H_

#include "mlir/IR/Value.h"
#include "mlir/Support/LLVM.h"

namespace mlir::strata::llvmcpu {

/// A constant (closed) upper bound of the index value `size`.
FailureOr<int64_t> indexUpperBound(Value size);

/// A constant upper bound of dimension `dim` of `memref`: its static size,
/// else the value bounds analysis's, else the bound of the size its alloc
/// was given (indexUpperBound).
FailureOr<int64_t> dimUpperBound(Value memref, int64_t dim);

} // namespace mlir::strata::llvmcpu

#endif // STRATA_LIB_CODEGEN_LLVMCPU_INDEXBOUNDS_H_
