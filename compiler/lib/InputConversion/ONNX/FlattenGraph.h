// FlattenGraph.h - a graph's nodes as the importer creates them: calls of
// model-local functions (ModelProto.functions) inlined, every node in an
// order where it reads only values made before it.

#ifndef STRATA_INPUTCONVERSION_ONNX_FLATTENGRAPH_H
#define STRATA_INPUTCONVERSION_ONNX_FLATTENGRAPH_H

#include "mlir/IR/Location.h"
#include "mlir/Support/LLVM.h"
#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringSet.h"

#include <onnx/onnx_pb.h>

#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace mlir::strata::onnx {

/// One node to import. Its value names are in the graph's scope (those of
/// an inlined function's body renamed) and its attributes resolved (a
/// function's `ref_attr_name` replaced by the caller's attribute or the
/// function's default). The protos it points to are owned by the model or
/// by the NodeFlattener, which must outlive it.
struct FlatNode {
  /// The node's name ("" when it has none; "call/inner" when inlined).
  std::string name;
  std::string domain;
  std::string opType;
  int64_t opset = 1;
  /// Value names; "" is an absent optional input or an unused output.
  SmallVector<std::string> inputs;
  SmallVector<std::string> outputs;
  /// Attributes under the names the node sees them by (graphs aside).
  SmallVector<std::pair<std::string, const ::onnx::AttributeProto *>>
      attributes;
  /// Graph attributes (If's branches, Loop's and Scan's body) by name, in
  /// the node's order; flattened when the importer reaches them.
  SmallVector<std::pair<std::string, const ::onnx::GraphProto *>> subgraphs;
  /// The values of enclosing scopes that the subgraphs read by name: the
  /// node depends on them as on its inputs.
  SmallVector<std::string> captures;
  /// "'name' (OpType)", or "'OpType' (unnamed)": how errors name it.
  std::string describe() const;
};

/// Inlines the model's local functions into a graph's nodes and sorts
/// them topologically. Not thread-safe; one per import.
class NodeFlattener {
public:
  /// `model` (borrowed) holds the functions; `opsets` (borrowed) are the
  /// model's opset imports by domain ("" for ai.onnx); errors go to `loc`.
  NodeFlattener(const ::onnx::ModelProto &model,
                const llvm::StringMap<int64_t> &opsets, Location loc);
  ~NodeFlattener();

  /// Reads the model's functions (and their attribute defaults); fails
  /// on a function defined twice.
  LogicalResult init();

  /// The nodes of `graph`, functions inlined, each after the producers of
  /// what it reads (its subgraphs' reads of enclosing scopes included).
  /// `available` says which names are defined before any node (the
  /// graph's inputs and initializers, and for a subgraph the values of the
  /// enclosing scopes). Fails, naming the node, on a value read that
  /// nothing defines, a value made twice, a cycle, a domain the model does
  /// not import, or a bad function call. A subgraph's nodes are flattened
  /// by another call when the importer reaches them.
  FailureOr<std::vector<FlatNode>>
  flatten(const ::onnx::GraphProto &graph,
          llvm::function_ref<bool(llvm::StringRef)> available);

private:
  struct Function;
  struct Scope;

  LogicalResult expand(const ::onnx::NodeProto &node, const Scope &scope,
                       unsigned index, std::vector<FlatNode> &out);
  LogicalResult inlineCall(const Function &function, FlatNode &call,
                           const Scope &scope, std::vector<FlatNode> &out);
  LogicalResult sort(std::vector<FlatNode> &nodes,
                     llvm::function_ref<bool(llvm::StringRef)> available);
  std::string freshName(llvm::StringRef hint);
  void addNames(const ::onnx::GraphProto &graph);

  const ::onnx::ModelProto &model;
  const llvm::StringMap<int64_t> &opsets;
  Location loc;
  /// By "<domain>\n<name>" (domain "" for ai.onnx).
  llvm::StringMap<std::unique_ptr<Function>> functions;
  /// Every value name of the graph being flattened, and those made up for
  /// inlined values, so that a made-up name is never one of them.
  llvm::StringSet<> usedNames;
  unsigned nextCall = 0;
};

} // namespace mlir::strata::onnx

#endif // STRATA_INPUTCONVERSION_ONNX_FLATTENGRAPH_H
