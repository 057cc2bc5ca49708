// ConvToMatmul.h - 2-D convolutions as im2col + matmul (ConvToMatmul.cpp).
#ifndef STRATA_LIB_DIALECT_FLOW_TRANSFORMS_CONVTOMATMUL_H_
#define STRATA_LIB_DIALECT_FLOW_TRANSFORMS_CONVTOMATMUL_H_

#include "mlir/IR/PatternMatch.h"

namespace mlir::strata::flow {

/// linalg.conv_2d_nhwc_hwcf on static f32 tensors with at least `minWork`
/// multiply-adds (below it the target's loops are as good) becomes an
/// im2col linalg.generic, a linalg.matmul and reshapes around them. With
/// `dynamicBatch`, so does one whose batch alone is dynamic (its work
/// counted at batch 1): the im2col rows and the matmul's M are then
/// dynamic.
void populateConvToMatmulPatterns(RewritePatternSet &patterns, int64_t minWork,
                                  bool dynamicBatch = false);

} // namespace mlir::strata::flow

#endif // STRATA_LIB_DIALECT_FLOW_TRANSFORMS_CONVTOMATMUL_H_
