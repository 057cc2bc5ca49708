// FlattenGraph.cpp - a graph's nodes as the importer creates them
// (FlattenGraph.h): model-local functions inlined, nodes sorted
// topologically.
//
// Exporters do not always write nodes in order: float16 converters append
// the Casts they insert at the end of the list, and graph surgery tools
// leave nodes where they were added. ONNX only asks the graph to be
// acyclic, so the importer sorts it, keeping the model's order where it is
// already topological.

#include "FlattenGraph.h"

#include "mlir/IR/Diagnostics.h"

#include <google/protobuf/unknown_field_set.h>

using namespace mlir;
using namespace mlir::strata::onnx;

namespace {

bool isDefaultDomain(llvm::StringRef domain) {
  return domain.empty() || domain == "ai.onnx";
}

std::string normalDomain(llvm::StringRef domain) {
  return isDefaultDomain(domain) ? "" : domain.str();
}

std::string functionKey(llvm::StringRef domain, llvm::StringRef name) {
  return normalDomain(domain) + "\n" + name.str();
}

/// FunctionProto's `attribute_proto` (field 11, attributes with their
/// default values) came after onnx 1.12, whose classes keep it as an
/// unknown field.
constexpr int kAttributeProtoField = 11;

/// The most nodes inlining may make: a function that calls another twice,
/// which calls another twice, ... doubles them at each level.
constexpr size_t kMaxNodes = size_t(1) << 20;

/// Adds to `out` (once each) the names `graph` reads that neither it nor
/// its subgraphs define: what it reads of the enclosing scopes.
void freeNames(const ::onnx::GraphProto &graph,
               SmallVectorImpl<std::string> &out, llvm::StringSet<> &seen) {
  llvm::StringSet<> local;
  for (const ::onnx::ValueInfoProto &info : graph.input()) {
    local.insert(info.name());
  }
  for (const ::onnx::TensorProto &init : graph.initializer()) {
    local.insert(init.name());
  }
  for (const ::onnx::NodeProto &node : graph.node()) {
    for (const std::string &output : node.output()) {
      local.insert(output);
    }
  }
  auto read = [&](const std::string &name) {
    if (!name.empty() && !local.contains(name) && seen.insert(name).second) {
      out.push_back(name);
    }
  };
  for (const ::onnx::NodeProto &node : graph.node()) {
    for (const std::string &input : node.input()) {
      read(input);
    }
    for (const ::onnx::AttributeProto &attr : node.attribute()) {
      if (attr.type() != ::onnx::AttributeProto::GRAPH) {
        continue;
      }
      SmallVector<std::string> inner;
      llvm::StringSet<> innerSeen;
      freeNames(attr.g(), inner, innerSeen);
      for (const std::string &name : inner) {
        read(name);
      }
    }
  }
  for (const ::onnx::ValueInfoProto &info : graph.output()) {
    read(info.name());
  }
}

} // namespace

std::string FlatNode::describe() const {
  return name.empty() ? "'" + opType + "' (unnamed)"
                      : "'" + name + "' (" + opType + ")";
}

struct NodeFlattener::Function {
  const ::onnx::FunctionProto *proto = nullptr;
  llvm::StringMap<int64_t> opsets;
  /// Attribute defaults by name, parsed from the unknown field.
  std::vector<std::unique_ptr<::onnx::AttributeProto>> defaultStorage;
  llvm::StringMap<const ::onnx::AttributeProto *> defaults;
};

struct NodeFlattener::Scope {
  /// The function being expanded; null for the graph itself.
  const Function *function = nullptr;
  /// The function's value names -> names in the graph's scope.
  llvm::StringMap<std::string> names;
  /// What `ref_attr_name` refers to: the caller's attributes, then the
  /// function's defaults.
  llvm::StringMap<const ::onnx::AttributeProto *> attributes;
  /// The prefix of the names of the function's nodes ("call/").
  std::string path;
  const Scope *parent = nullptr;
};

NodeFlattener::NodeFlattener(const ::onnx::ModelProto &model,
                             const llvm::StringMap<int64_t> &opsets,
                             Location loc)
    : model(model), opsets(opsets), loc(loc) {}

NodeFlattener::~NodeFlattener() = default;

LogicalResult NodeFlattener::init() {
  for (const ::onnx::FunctionProto &proto : model.functions()) {
    auto function = std::make_unique<Function>();
    function->proto = &proto;
    for (const ::onnx::OperatorSetIdProto &opset : proto.opset_import()) {
      function->opsets[normalDomain(opset.domain())] = opset.version();
    }
    const google::protobuf::UnknownFieldSet &unknown = proto.unknown_fields();
    for (int i = 0; i < unknown.field_count(); ++i) {
      const google::protobuf::UnknownField &field = unknown.field(i);
      if (field.number() != kAttributeProtoField ||
          field.type() !=
              google::protobuf::UnknownField::TYPE_LENGTH_DELIMITED) {
        continue;
      }
      auto attr = std::make_unique<::onnx::AttributeProto>();
      if (!attr->ParseFromString(field.length_delimited())) {
        emitError(loc) << "function '" << proto.name()
                       << "' has an attribute default that does not parse";
        return failure();
      }
      function->defaults[attr->name()] = attr.get();
      function->defaultStorage.push_back(std::move(attr));
    }
    std::string key = functionKey(proto.domain(), proto.name());
    if (!functions.try_emplace(key, std::move(function)).second) {
      emitError(loc) << "function '" << proto.name() << "' of domain '"
                     << proto.domain() << "' is defined twice";
      return failure();
    }
  }
  return success();
}

std::string NodeFlattener::freshName(llvm::StringRef hint) {
  std::string name = hint.str();
  for (unsigned n = 1; !usedNames.insert(name).second; ++n) {
    name = hint.str() + "#" + std::to_string(n);
  }
  return name;
}

LogicalResult NodeFlattener::expand(const ::onnx::NodeProto &node,
                                    const Scope &scope, unsigned index,
                                    std::vector<FlatNode> &out) {
  if (out.size() >= kMaxNodes) {
    emitError(loc) << "inlining the model's functions makes more than "
                   << kMaxNodes << " nodes";
    return failure();
  }
  FlatNode flat;
  flat.domain = node.domain();
  flat.opType = node.op_type();
  if (!scope.function) {
    flat.name = node.name();
  } else {
    flat.name = scope.path + (node.name().empty()
                                  ? node.op_type() + "_" + std::to_string(index)
                                  : node.name());
  }
  auto rename = [&](const std::string &name,
                    SmallVectorImpl<std::string> &into) -> LogicalResult {
    if (!scope.function || name.empty()) {
      into.push_back(name);
      return success();
    }
    auto it = scope.names.find(name);
    if (it == scope.names.end()) {
      emitError(loc) << "function '" << scope.function->proto->name()
                     << "': node " << flat.describe() << " reads '" << name
                     << "', which is neither an input of the function nor "
                        "made by a node in it";
      return failure();
    }
    into.push_back(it->second);
    return success();
  };
  for (const std::string &input : node.input()) {
    if (failed(rename(input, flat.inputs))) {
      return failure();
    }
  }
  for (const std::string &output : node.output()) {
    if (failed(rename(output, flat.outputs))) {
      return failure();
    }
  }
  for (const ::onnx::AttributeProto &attr : node.attribute()) {
    if (attr.type() == ::onnx::AttributeProto::GRAPH &&
        !attr.has_ref_attr_name()) {
      if (scope.function) {
        emitError(loc) << "function '" << scope.function->proto->name()
                       << "': node " << flat.describe() << " has the graph "
                       << "attribute '" << attr.name()
                       << "'; subgraphs in model-local functions are not "
                          "supported";
        return failure();
      }
      flat.subgraphs.push_back({attr.name(), &attr.g()});
      llvm::StringSet<> seen;
      freeNames(attr.g(), flat.captures, seen);
      continue;
    }
    if (!attr.has_ref_attr_name()) {
      flat.attributes.push_back({attr.name(), &attr});
      continue;
    }
    if (!scope.function) {
      emitError(loc) << "node " << flat.describe() << ": attribute '"
                     << attr.name() << "' refers to '" << attr.ref_attr_name()
                     << "' (ref_attr_name), which only a function's nodes "
                        "may do";
      return failure();
    }
    // An attribute the caller does not set and that has no default is
    // left out, as ONNX says.
    auto it = scope.attributes.find(attr.ref_attr_name());
    if (it != scope.attributes.end()) {
      flat.attributes.push_back({attr.name(), it->second});
    }
  }

  auto function = functions.find(functionKey(node.domain(), node.op_type()));
  if (function != functions.end()) {
    return inlineCall(*function->second, flat, scope, out);
  }
  std::string domain = normalDomain(node.domain());
  std::optional<int64_t> opset;
  for (const Scope *s = &scope; s && !opset; s = s->parent) {
    if (s->function) {
      auto it = s->function->opsets.find(domain);
      if (it != s->function->opsets.end()) {
        opset = it->second;
      }
    }
  }
  if (!opset) {
    auto it = opsets.find(domain);
    if (it == opsets.end()) {
      emitError(loc) << "node " << flat.describe() << " is in domain '"
                     << node.domain()
                     << "', which the model neither imports nor defines a "
                        "function of";
      return failure();
    }
    opset = it->second;
  }
  flat.opset = *opset;
  out.push_back(std::move(flat));
  return success();
}

LogicalResult NodeFlattener::inlineCall(const Function &function,
                                        FlatNode &call, const Scope &scope,
                                        std::vector<FlatNode> &out) {
  const ::onnx::FunctionProto &proto = *function.proto;
  for (const Scope *s = &scope; s; s = s->parent) {
    if (s->function == &function) {
      emitError(loc) << "node " << call.describe() << " calls function '"
                     << proto.name()
                     << "', which is already being inlined "
                        "(a function may not call itself)";
      return failure();
    }
  }
  if (call.inputs.size() > static_cast<size_t>(proto.input_size()) ||
      call.outputs.size() > static_cast<size_t>(proto.output_size())) {
    emitError(loc) << "node " << call.describe() << " has "
                   << call.inputs.size() << " inputs and "
                   << call.outputs.size() << " outputs; function '"
                   << proto.name() << "' takes at most " << proto.input_size()
                   << " and makes " << proto.output_size();
    return failure();
  }
  Scope inner;
  inner.function = &function;
  inner.parent = &scope;
  inner.path =
      (call.name.empty() ? scope.path + proto.name() : call.name) + "/";
  for (auto [i, input] : llvm::enumerate(proto.input())) {
    inner.names[input] = i < call.inputs.size() ? call.inputs[i] : "";
  }
  for (auto [i, output] : llvm::enumerate(proto.output())) {
    inner.names[output] = i < call.outputs.size() && !call.outputs[i].empty()
                              ? call.outputs[i]
                              : freshName(inner.path + output);
  }
  for (const ::onnx::NodeProto &node : proto.node()) {
    for (const std::string &output : node.output()) {
      if (!output.empty() && !inner.names.count(output)) {
        inner.names[output] = freshName(inner.path + output);
      }
    }
  }
  for (auto &[name, attr] : call.attributes) {
    inner.attributes[name] = attr;
  }
  for (const auto &entry : function.defaults) {
    inner.attributes.try_emplace(entry.getKey(), entry.getValue());
  }
  for (auto [index, node] : llvm::enumerate(proto.node())) {
    if (failed(expand(node, inner, index, out))) {
      return failure();
    }
  }
  return success();
}

LogicalResult
NodeFlattener::sort(std::vector<FlatNode> &nodes,
                    llvm::function_ref<bool(llvm::StringRef)> available) {
  llvm::StringMap<unsigned> producer;
  for (auto [index, node] : llvm::enumerate(nodes)) {
    for (const std::string &output : node.outputs) {
      if (output.empty()) {
        continue;
      }
      auto [it, inserted] = producer.try_emplace(output, index);
      if (!inserted) {
        emitError(loc) << "value '" << output << "' is made by two nodes, "
                       << nodes[it->second].describe() << " and "
                       << node.describe();
        return failure();
      }
    }
  }
  // Depth-first from each node in the model's order, producers first; an
  // explicit stack, as a chain of nodes listed backwards is as deep as the
  // graph is long.
  enum class State : uint8_t { New, OnStack, Done };
  std::vector<State> state(nodes.size(), State::New);
  std::vector<unsigned> order;
  order.reserve(nodes.size());
  std::vector<std::pair<unsigned, unsigned>> stack; // (node, next input)
  for (unsigned root = 0; root < nodes.size(); ++root) {
    if (state[root] != State::New) {
      continue;
    }
    stack.push_back({root, 0});
    state[root] = State::OnStack;
    while (!stack.empty()) {
      auto &[current, next] = stack.back();
      const FlatNode &node = nodes[current];
      if (next == node.inputs.size() + node.captures.size()) {
        state[current] = State::Done;
        order.push_back(current);
        stack.pop_back();
        continue;
      }
      unsigned at = next++;
      const std::string &input = at < node.inputs.size()
                                     ? node.inputs[at]
                                     : node.captures[at - node.inputs.size()];
      if (input.empty()) {
        continue;
      }
      auto it = producer.find(input);
      if (it == producer.end()) {
        if (!available(input)) {
          emitError(loc) << "node " << node.describe() << " reads '" << input
                         << "', which no node, input or initializer "
                            "produces";
          return failure();
        }
        continue;
      }
      unsigned from = it->second;
      if (state[from] == State::OnStack) {
        emitError(loc) << "node " << node.describe()
                       << " is on a cycle: its input '" << input
                       << "' depends on its own outputs";
        return failure();
      }
      if (state[from] == State::New) {
        state[from] = State::OnStack;
        stack.push_back({from, 0});
      }
    }
  }
  std::vector<FlatNode> sorted;
  sorted.reserve(nodes.size());
  for (unsigned index : order) {
    sorted.push_back(std::move(nodes[index]));
  }
  nodes = std::move(sorted);
  return success();
}

void NodeFlattener::addNames(const ::onnx::GraphProto &graph) {
  for (const ::onnx::ValueInfoProto &info : graph.input()) {
    usedNames.insert(info.name());
  }
  for (const ::onnx::TensorProto &init : graph.initializer()) {
    usedNames.insert(init.name());
  }
  for (const ::onnx::NodeProto &node : graph.node()) {
    for (const std::string &output : node.output()) {
      usedNames.insert(output);
    }
    for (const ::onnx::AttributeProto &attr : node.attribute()) {
      if (attr.type() == ::onnx::AttributeProto::GRAPH) {
        addNames(attr.g());
      }
    }
  }
  for (const ::onnx::ValueInfoProto &info : graph.output()) {
    usedNames.insert(info.name());
  }
}

FailureOr<std::vector<FlatNode>>
NodeFlattener::flatten(const ::onnx::GraphProto &graph,
                       llvm::function_ref<bool(llvm::StringRef)> available) {
  // The graph's names and its subgraphs', so that a name made up for an
  // inlined value never shadows one of theirs (an enclosing scope's names
  // were added when it was flattened).
  addNames(graph);
  Scope top;
  std::vector<FlatNode> nodes;
  for (auto [index, node] : llvm::enumerate(graph.node())) {
    if (failed(expand(node, top, index, nodes))) {
      return failure();
    }
  }
  if (failed(sort(nodes, available))) {
    return failure();
  }
  return nodes;
}
