// Reflection.h - util.reflection: what a front end names on a public
// func.func for the module's reflection metadata.

#ifndef STRATA_DIALECT_UTIL_IR_REFLECTION_H
#define STRATA_DIALECT_UTIL_IR_REFLECTION_H

#include "llvm/ADT/StringRef.h"

namespace mlir::strata::util {

/// A dictionary of strings on a public func.func whose entries the vm
/// conversion adds, after the signature's types, to the export's
/// reflection metadata (what strata-dump shows); the ONNX importer names
/// the graph and its inputs and outputs there ("onnx.graph",
/// "arg0.name", "result0.name").
inline constexpr llvm::StringLiteral kReflectionAttrName = "util.reflection";

} // namespace mlir::strata::util

#endif // STRATA_DIALECT_UTIL_IR_REFLECTION_H
