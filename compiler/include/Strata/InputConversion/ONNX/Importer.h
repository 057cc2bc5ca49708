// Importer.h - ONNX models (protobuf bytes) to the onnx dialect: one
// func.func @main per graph, one onnx.node per node.

#ifndef STRATA_INPUTCONVERSION_ONNX_IMPORTER_H
#define STRATA_INPUTCONVERSION_ONNX_IMPORTER_H

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/OwningOpRef.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringRef.h"

#include <cstdint>
#include <string>

namespace mlir::strata::onnx {

struct ImportOptions {
  /// Dimensions for graph inputs by name ("x" -> {1, 3, 224, 224}): they
  /// replace the declared shape (its rank must match), which fixes
  /// symbolic dimensions such as a batch size.
  llvm::StringMap<llvm::SmallVector<int64_t>> inputShapes;
  /// Where external-data files are looked up: the model's folder.
  std::string externalDataDir = ".";
  /// The model's file name, for locations ("model.onnx").
  std::string fileName = "model.onnx";
};

/// Parses `--input-shape` values: "name=1x3x224x224" (a scalar: "name=").
/// Returns false and sets `error` on a malformed value.
bool parseInputShape(llvm::StringRef text, ImportOptions &options,
                     std::string &error);

/// True when `bytes` start like an ONNX ModelProto rather than MLIR text.
bool looksLikeONNXModel(llvm::StringRef bytes);

/// Imports a serialized ModelProto into a new module holding `func.func
/// @main`: the graph's inputs (initializers excluded) in order as
/// arguments, its outputs in order as results, initializers as
/// arith.constant, each node as an onnx.node in graph order. Errors are
/// emitted on the context (naming the node, value or tensor) and give a
/// null module.
OwningOpRef<ModuleOp> importModel(MLIRContext *context, llvm::StringRef bytes,
                                  const ImportOptions &options);

} // namespace mlir::strata::onnx

#endif // STRATA_INPUTCONVERSION_ONNX_IMPORTER_H
