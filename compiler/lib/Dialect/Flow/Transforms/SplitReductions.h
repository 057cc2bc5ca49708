// SplitReductions.h - float sums as partial sums combined in a tree, and f16
// sums accumulated in f32 (SplitReductions.cpp).
#ifndef STRATA_LIB_DIALECT_FLOW_TRANSFORMS_SPLITREDUCTIONS_H_
#define STRATA_LIB_DIALECT_FLOW_TRANSFORMS_SPLITREDUCTIONS_H_

#include "mlir/IR/BuiltinOps.h"

namespace mlir::strata::flow {

/// Rewrites each float sum (a linalg op with one reduction loop whose body
/// adds a value computed from its input to the accumulator):
/// - a long, static, contiguous sum becomes two ops: partial sums per
///   (group, lane), groups spread over workgroups and lanes over vector
///   lanes, then a small sum of the partials; each partial adds a few
///   hundred values, so rounding errors stay those of a short sum;
/// - an f16 sum accumulates in f32 (the partials too) and rounds to f16
///   once at the end.
void splitReductions(ModuleOp module);

} // namespace mlir::strata::flow

#endif // STRATA_LIB_DIALECT_FLOW_TRANSFORMS_SPLITREDUCTIONS_H_
