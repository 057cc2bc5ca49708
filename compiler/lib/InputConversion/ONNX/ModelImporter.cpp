// ModelImporter.cpp - ONNX ModelProto bytes to the onnx dialect (Importer.h):
// types, tensors (inline and external data), attributes and nodes.
//
// Built with the proto classes only (libonnx_proto), without exceptions:
// nothing here needs onnx's checker or shape inference.

#include "Strata/InputConversion/ONNX/Importer.h"

#include "FlattenGraph.h"

#include "Strata/Dialect/ONNX/IR/ONNXOps.h"
#include "Strata/Dialect/Util/IR/Reflection.h"
#include "Strata/Dialect/Util/IR/UtilOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlowOps.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/Diagnostics.h"
#include "llvm/ADT/MapVector.h"
#include "llvm/ADT/ScopeExit.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"

#include <onnx/onnx_pb.h>

#include "strata/schemas/element_types.h"

#include <cstring>
#include <limits>

using namespace mlir;
namespace sonnx = mlir::strata::onnx;
namespace util = mlir::strata::util;

namespace {

using TensorProto = ::onnx::TensorProto;

// TensorProto.DataType values newer than the proto classes.
constexpr int kFloat8E4M3FN = 17;
constexpr int kFloat8E4M3FNUZ = 18;
constexpr int kFloat8E5M2 = 19;
constexpr int kFloat8E5M2FNUZ = 20;
constexpr int kUInt4 = 21;
constexpr int kInt4 = 22;

bool isDefaultDomain(llvm::StringRef domain) {
  return domain.empty() || domain == "ai.onnx";
}

const char *dataTypeName(int type) {
  switch (type) {
  case TensorProto::STRING:
    return "string";
  case TensorProto::COMPLEX64:
    return "complex64";
  case TensorProto::COMPLEX128:
    return "complex128";
  case TensorProto::UNDEFINED:
    return "undefined";
  // Newer than opset 21.
  case 23:
    return "float4e2m1 (23)";
  case 24:
    return "float8e8m0 (24)";
  case 25:
    return "uint2 (25)";
  case 26:
    return "int2 (26)";
  default:
    return "an unknown data type";
  }
}

/// The MLIR element type of an ONNX data type: signless integers for the
/// signed ones and bool (i1), unsigned integers for the unsigned ones.
Type elementType(MLIRContext *ctx, int type) {
  Builder b(ctx);
  switch (type) {
  case TensorProto::FLOAT:
    return b.getF32Type();
  case TensorProto::DOUBLE:
    return b.getF64Type();
  case TensorProto::FLOAT16:
    return b.getF16Type();
  case TensorProto::BFLOAT16:
    return b.getBF16Type();
  case TensorProto::BOOL:
    return b.getI1Type();
  case TensorProto::INT8:
    return b.getIntegerType(8);
  case TensorProto::INT16:
    return b.getIntegerType(16);
  case TensorProto::INT32:
    return b.getIntegerType(32);
  case TensorProto::INT64:
    return b.getIntegerType(64);
  case TensorProto::UINT8:
    return b.getIntegerType(8, /*isSigned=*/false);
  case TensorProto::UINT16:
    return b.getIntegerType(16, false);
  case TensorProto::UINT32:
    return b.getIntegerType(32, false);
  case TensorProto::UINT64:
    return b.getIntegerType(64, false);
  // Opset 19's float8 types and opset 21's 4-bit integers, by number (the
  // proto classes of onnx 1.12 predate them).
  case kFloat8E4M3FN:
    return Float8E4M3FNType::get(ctx);
  case kFloat8E4M3FNUZ:
    return Float8E4M3FNUZType::get(ctx);
  case kFloat8E5M2:
    return Float8E5M2Type::get(ctx);
  case kFloat8E5M2FNUZ:
    return Float8E5M2FNUZType::get(ctx);
  case kUInt4:
    return b.getIntegerType(4, false);
  case kInt4:
    return b.getIntegerType(4);
  default:
    return Type();
  }
}

/// How the reflection names an element type the signature does not show:
/// "ui8" for the unsigned ones, "f8E4M3FN" ... for the float8 types and
/// "i4"/"ui4" for the 4-bit ones (all travel as 8-bit integers), else "".
std::string recordedElementName(Type element) {
  std::string text;
  llvm::raw_string_ostream os(text);
  element.print(os);
  if (element.isUnsignedInteger()) {
    return text;
  }
  // The names tools know how to present (schemas/ element_types.h).
#define STRATA_RECORDED_NAME(name, presented)                                  \
  if (text == name) {                                                          \
    return text;                                                               \
  }
  STRATA_RECORDED_ELEMENT_TYPES(STRATA_RECORDED_NAME)
#undef STRATA_RECORDED_NAME
  return "";
}

class Importer {
public:
  Importer(MLIRContext *ctx, const sonnx::ImportOptions &options)
      : ctx(ctx), options(options), builder(ctx) {}

  OwningOpRef<ModuleOp> run(llvm::StringRef bytes);

private:
  InFlightDiagnostic error() { return emitError(fileLoc); }
  FailureOr<Type> valueType(const ::onnx::ValueInfoProto &info,
                            bool applyInputShapes);
  FailureOr<DenseElementsAttr> tensor(const TensorProto &proto,
                                      llvm::StringRef what);
  /// The tensor's bytes as stored in a file beside the model or in
  /// raw_data; none when it keeps its values in the typed fields.
  FailureOr<std::optional<std::string>> storedBytes(const TensorProto &proto,
                                                    llvm::StringRef what) {
    if (proto.data_location() == TensorProto::EXTERNAL) {
      FailureOr<std::string> bytes = externalBytes(proto, what);
      if (failed(bytes)) {
        return failure();
      }
      return std::optional<std::string>(std::move(*bytes));
    }
    if (proto.has_raw_data()) {
      return std::optional<std::string>(proto.raw_data());
    }
    return std::optional<std::string>();
  }

  FailureOr<std::string> externalBytes(const TensorProto &proto,
                                       llvm::StringRef what);
  /// An INT4 or UINT4 tensor (`count` elements of `type`), unpacked.
  FailureOr<DenseElementsAttr> int4Tensor(const TensorProto &proto,
                                          llvm::StringRef what,
                                          RankedTensorType type, int64_t count);
  FailureOr<NamedAttribute> attribute(llvm::StringRef name,
                                      const ::onnx::AttributeProto &attr,
                                      llvm::StringRef node);
  LogicalResult importGraph(const ::onnx::ModelProto &model,
                            const ::onnx::GraphProto &graph);
  /// The nodes of `graph` (flattened) at the builder's insertion point;
  /// `values` holds what they may read.
  LogicalResult importNodes(const ::onnx::GraphProto &graph);
  /// Makes `name` stand for `value` in the current scope (undone when the
  /// subgraph being read ends).
  void define(const std::string &name, Value value);
  /// A subgraph (`what` names it in errors) as the one block of `region`:
  /// its inputs as arguments, its initializers and nodes, an onnx.yield of
  /// its outputs.
  LogicalResult importSubgraph(const ::onnx::GraphProto &graph, Region &region,
                               const std::string &what);

  MLIRContext *ctx;
  const sonnx::ImportOptions &options;
  OpBuilder builder;
  Location fileLoc = UnknownLoc::get(ctx);
  llvm::StringMap<int64_t> opsets;
  llvm::StringMap<Value> values;
  llvm::StringMap<Type> declaredTypes;
  Value none;
  Block *entryBlock = nullptr;
  sonnx::NodeFlattener *flattener = nullptr;
  /// While a subgraph is read: the names it defined and what each stood
  /// for before (null: nothing), restored in reverse when it ends.
  std::vector<std::pair<std::string, Value>> *shadowed = nullptr;
};

void Importer::define(const std::string &name, Value value) {
  if (shadowed) {
    auto it = values.find(name);
    shadowed->push_back({name, it == values.end() ? Value() : it->second});
  }
  values[name] = value;
}

/// How the reflection spells a value of `type`: "2x?xf32" for a tensor
/// ("*xf32" without a shape), "list<E>" for a sequence, "optional<E>".
std::string boundaryTypeText(MLIRContext *ctx, const ::onnx::TypeProto &type) {
  if (type.has_sequence_type()) {
    return "list<" + boundaryTypeText(ctx, type.sequence_type().elem_type()) +
           ">";
  }
  if (type.has_optional_type()) {
    return "optional<" +
           boundaryTypeText(ctx, type.optional_type().elem_type()) + ">";
  }
  const ::onnx::TypeProto_Tensor &tensorType = type.tensor_type();
  std::string text;
  if (!tensorType.has_shape()) {
    text = "*x";
  } else {
    for (const ::onnx::TensorShapeProto_Dimension &dim :
         tensorType.shape().dim()) {
      text += dim.has_dim_value() && dim.dim_value() >= 0
                  ? std::to_string(dim.dim_value()) + "x"
                  : std::string("?x");
    }
  }
  std::string element;
  llvm::raw_string_ostream os(element);
  Type elem = elementType(ctx, tensorType.elem_type());
  if (elem) {
    elem.print(os);
  } else {
    os << "?";
  }
  return text + element;
}

FailureOr<Type> Importer::valueType(const ::onnx::ValueInfoProto &info,
                                    bool applyInputShapes) {
  const ::onnx::TypeProto &type = info.type();
  // A sequence is a list of its elements on the host; so is an optional
  // (of 0 or 1 element).
  if (type.has_sequence_type() || type.has_optional_type()) {
    const ::onnx::TypeProto &elem = type.has_sequence_type()
                                        ? type.sequence_type().elem_type()
                                        : type.optional_type().elem_type();
    if (elem.value_case() == ::onnx::TypeProto::VALUE_NOT_SET) {
      error() << "value '" << info.name() << "' is "
              << (type.has_sequence_type() ? "a sequence" : "an optional")
              << " without an element type";
      return failure();
    }
    // ONNX's sequence ops make and read sequences of tensors only, and an
    // optional holds a tensor or such a sequence: nothing nests deeper.
    if (type.has_sequence_type() && !elem.has_tensor_type()) {
      error() << "value '" << info.name() << "' is a sequence of "
              << (elem.has_sequence_type()   ? "sequences"
                  : elem.has_optional_type() ? "optionals"
                                             : "non-tensors")
              << "; only sequences of tensors are supported (ONNX's "
                 "sequence ops make and read no other)";
      return failure();
    }
    if (type.has_optional_type() && elem.has_optional_type()) {
      error() << "value '" << info.name()
              << "' is an optional of an optional; an optional holds a "
                 "tensor or a sequence of tensors";
      return failure();
    }
    if (elem.has_tensor_type() &&
        elem.tensor_type().elem_type() >= kFloat8E4M3FN &&
        elem.tensor_type().elem_type() <= kInt4) {
      error() << "value '" << info.name() << "' is "
              << (type.has_sequence_type() ? "a sequence" : "an optional")
              << " of float8 or 4-bit tensors, which are not supported "
                 "(tensors of those types are)";
      return failure();
    }
    ::onnx::ValueInfoProto element;
    element.set_name(info.name());
    *element.mutable_type() = elem;
    FailureOr<Type> elementType =
        valueType(element, /*applyInputShapes=*/false);
    if (failed(elementType)) {
      return failure();
    }
    return Type(util::ListType::get(ctx, *elementType));
  }
  if (!type.has_tensor_type()) {
    const char *kind = type.has_map_type() ? "a map" : "no tensor";
    error() << "value '" << info.name() << "' has " << kind
            << " type; only tensors are supported";
    return failure();
  }
  const ::onnx::TypeProto_Tensor &tensorType = type.tensor_type();
  Type element = elementType(ctx, tensorType.elem_type());
  if (!element) {
    error() << "value '" << info.name() << "' has element type "
            << dataTypeName(tensorType.elem_type())
            << ", which is not supported";
    return failure();
  }
  if (applyInputShapes) {
    auto it = options.inputShapes.find(info.name());
    if (it != options.inputShapes.end()) {
      if (tensorType.has_shape() &&
          static_cast<size_t>(tensorType.shape().dim_size()) !=
              it->second.size()) {
        error() << "--input-shape for '" << info.name() << "' has rank "
                << it->second.size() << ", but the model declares rank "
                << tensorType.shape().dim_size();
        return failure();
      }
      return Type(RankedTensorType::get(it->second, element));
    }
  }
  if (!tensorType.has_shape()) {
    return Type(UnrankedTensorType::get(element));
  }
  SmallVector<int64_t> dims;
  for (const ::onnx::TensorShapeProto_Dimension &dim :
       tensorType.shape().dim()) {
    dims.push_back(dim.has_dim_value() && dim.dim_value() >= 0
                       ? dim.dim_value()
                       : ShapedType::kDynamic);
  }
  return Type(RankedTensorType::get(dims, element));
}

FailureOr<std::string> Importer::externalBytes(const TensorProto &proto,
                                               llvm::StringRef what) {
  std::string location;
  uint64_t offset = 0;
  std::optional<uint64_t> length;
  for (const ::onnx::StringStringEntryProto &entry : proto.external_data()) {
    if (entry.key() == "location") {
      location = entry.value();
    } else if (entry.key() == "offset" || entry.key() == "length") {
      uint64_t number = 0;
      if (llvm::StringRef(entry.value()).getAsInteger(10, number)) {
        error() << what << " has external data with " << entry.key() << " '"
                << entry.value() << "', which is not a number";
        return failure();
      }
      if (entry.key() == "offset") {
        offset = number;
      } else {
        length = number;
      }
    }
  }
  if (location.empty()) {
    error() << what << " has external data without a location";
    return failure();
  }
  if (llvm::sys::path::is_absolute(location) ||
      llvm::StringRef(location).contains("..")) {
    error() << what << " has external data at '" << location
            << "', outside the model's folder";
    return failure();
  }
  llvm::SmallString<256> path(options.externalDataDir);
  llvm::sys::path::append(path, location);
  llvm::ErrorOr<std::unique_ptr<llvm::MemoryBuffer>> file =
      llvm::MemoryBuffer::getFile(path, /*IsText=*/false,
                                  /*RequiresNullTerminator=*/false);
  if (!file) {
    error() << what << ": cannot read its external data file '" << path
            << "': " << file.getError().message();
    return failure();
  }
  uint64_t size = (*file)->getBufferSize();
  uint64_t count = length.value_or(size >= offset ? size - offset : 0);
  if (offset > size || count > size - offset) {
    error() << what << ": external data file '" << path << "' has " << size
            << " bytes, too few for offset " << offset << " and length "
            << count;
    return failure();
  }
  return std::string((*file)->getBufferStart() + offset, count);
}

FailureOr<DenseElementsAttr> Importer::int4Tensor(const TensorProto &proto,
                                                  llvm::StringRef what,
                                                  RankedTensorType type,
                                                  int64_t count) {
  // Two values a byte, the first in the low nibble, in raw_data, external
  // data or int32_data (each of those holding one byte's pair).
  if (static_cast<uint64_t>(count) > (uint64_t(1) << 40)) {
    error() << what << " has " << count << " elements, more than supported";
    return failure();
  }
  const uint64_t packed = (static_cast<uint64_t>(count) + 1) / 2;
  std::string raw;
  FailureOr<std::optional<std::string>> stored = storedBytes(proto, what);
  if (failed(stored)) {
    return failure();
  }
  if (*stored) {
    raw = std::move(**stored);
  } else {
    if (static_cast<uint64_t>(proto.int32_data_size()) != packed) {
      error() << what << " holds " << proto.int32_data_size() << " values for "
              << count << " 4-bit elements packed two a value";
      return failure();
    }
    raw.resize(packed);
    for (uint64_t i = 0; i < packed; ++i) {
      raw[i] = static_cast<char>(proto.int32_data(i) & 0xFF);
    }
  }
  if (raw.size() != packed) {
    error() << what << " holds " << raw.size() << " bytes of data for " << count
            << " 4-bit elements (" << packed << " bytes packed)";
    return failure();
  }
  SmallVector<APInt> items;
  items.reserve(count);
  for (int64_t i = 0; i < count; ++i) {
    uint8_t byte = static_cast<uint8_t>(raw[i / 2]);
    uint64_t nibble = (i % 2 == 0) ? (byte & 0xF) : (byte >> 4);
    items.push_back(APInt(4, nibble, /*isSigned=*/false));
  }
  return DenseElementsAttr::get(type, items);
}

FailureOr<DenseElementsAttr> Importer::tensor(const TensorProto &proto,
                                              llvm::StringRef what) {
  Type element = elementType(ctx, proto.data_type());
  if (!element) {
    error() << what << " has element type " << dataTypeName(proto.data_type())
            << ", which is not supported";
    return failure();
  }
  SmallVector<int64_t> dims;
  int64_t count = 1;
  for (int64_t dim : proto.dims()) {
    if (dim < 0 || (dim > 0 && count > std::numeric_limits<int64_t>::max() /
                                           dim)) {
      error() << what << " has an invalid dimension " << dim;
      return failure();
    }
    dims.push_back(dim);
    count *= dim;
  }
  auto type = RankedTensorType::get(dims, element);
  const unsigned bits = element.getIntOrFloatBitWidth();
  const uint64_t width = bits <= 8 ? 1 : bits / 8;
  if (bits == 4) {
    return int4Tensor(proto, what, type, count);
  }
  if (static_cast<uint64_t>(count) > (uint64_t(1) << 40) / width) {
    error() << what << " has " << count << " elements, more than supported";
    return failure();
  }
  std::string raw;
  FailureOr<std::optional<std::string>> stored = storedBytes(proto, what);
  if (failed(stored)) {
    return failure();
  }
  if (*stored) {
    raw = std::move(**stored);
  } else {
    // The typed fields, each element converted to little-endian bytes of
    // its width (ONNX keeps 8/16-bit values and float16 bits in int32_data).
    // Their count is checked first: the dims alone must not make a buffer
    // (a few bytes of model could ask for a terabyte).
    int64_t have;
    switch (proto.data_type()) {
    case TensorProto::FLOAT:
      have = proto.float_data_size();
      break;
    case TensorProto::DOUBLE:
      have = proto.double_data_size();
      break;
    case TensorProto::INT64:
      have = proto.int64_data_size();
      break;
    case TensorProto::UINT32:
    case TensorProto::UINT64:
      have = proto.uint64_data_size();
      break;
    default: // INT32, INT16, INT8, UINT16, UINT8, BOOL, FLOAT16, BFLOAT16,
             // the float8 types (their bits)
      have = proto.int32_data_size();
      break;
    }
    if (have != count) {
      error() << what << " holds " << have << " values for " << count
              << " elements";
      return failure();
    }
    raw.resize(count * width);
    auto store = [&](int64_t i, uint64_t bitsValue) {
      std::memcpy(&raw[i * width], &bitsValue, width);
    };
    switch (proto.data_type()) {
    case TensorProto::FLOAT:
      for (int64_t i = 0; i < count; ++i) {
        float value = proto.float_data(i);
        std::memcpy(&raw[i * 4], &value, 4);
      }
      break;
    case TensorProto::DOUBLE:
      for (int64_t i = 0; i < count; ++i) {
        double value = proto.double_data(i);
        std::memcpy(&raw[i * 8], &value, 8);
      }
      break;
    case TensorProto::INT64:
      for (int64_t i = 0; i < count; ++i) {
        store(i, static_cast<uint64_t>(proto.int64_data(i)));
      }
      break;
    case TensorProto::UINT32:
    case TensorProto::UINT64:
      for (int64_t i = 0; i < count; ++i) {
        store(i, proto.uint64_data(i));
      }
      break;
    default:
      for (int64_t i = 0; i < count; ++i) {
        store(i, static_cast<uint64_t>(
                     static_cast<int64_t>(proto.int32_data(i))));
      }
      break;
    }
  }
  if (raw.size() != static_cast<uint64_t>(count) * width) {
    error() << what << " holds " << raw.size() << " bytes of data for "
            << count << " elements of " << width << " bytes";
    return failure();
  }
  if (bits == 1) {
    // MLIR packs i1 bits; ONNX keeps a byte per bool.
    SmallVector<bool> flags(count);
    for (int64_t i = 0; i < count; ++i) {
      flags[i] = raw[i] != 0;
    }
    return DenseElementsAttr::get(type, flags);
  }
  if (count == 0) {
    return DenseElementsAttr::get(type, ArrayRef<Attribute>{});
  }
  return DenseElementsAttr::getFromRawBuffer(
      type, ArrayRef<char>(raw.data(), raw.size()));
}

FailureOr<NamedAttribute>
Importer::attribute(llvm::StringRef name, const ::onnx::AttributeProto &attr,
                    llvm::StringRef node) {
  std::string what = ("attribute '" + name + "' of node " + node).str();
  Attribute value;
  switch (attr.type()) {
  case ::onnx::AttributeProto::FLOAT:
    value = builder.getF32FloatAttr(attr.f());
    break;
  case ::onnx::AttributeProto::INT:
    value = builder.getI64IntegerAttr(attr.i());
    break;
  case ::onnx::AttributeProto::STRING:
    value = builder.getStringAttr(attr.s());
    break;
  case ::onnx::AttributeProto::FLOATS: {
    SmallVector<Attribute> items;
    for (float f : attr.floats()) {
      items.push_back(builder.getF32FloatAttr(f));
    }
    value = builder.getArrayAttr(items);
    break;
  }
  case ::onnx::AttributeProto::INTS: {
    SmallVector<Attribute> items;
    for (int64_t i : attr.ints()) {
      items.push_back(builder.getI64IntegerAttr(i));
    }
    value = builder.getArrayAttr(items);
    break;
  }
  case ::onnx::AttributeProto::STRINGS: {
    SmallVector<Attribute> items;
    for (const std::string &s : attr.strings()) {
      items.push_back(builder.getStringAttr(s));
    }
    value = builder.getArrayAttr(items);
    break;
  }
  case ::onnx::AttributeProto::TENSOR: {
    FailureOr<DenseElementsAttr> t = tensor(attr.t(), what);
    if (failed(t)) {
      return failure();
    }
    value = *t;
    break;
  }
  default:
    // Graphs, sparse tensors and type protos: kept as a marker so that
    // the lowering of the node names what it does not support.
    value = builder.getStringAttr(
        "<unsupported attribute type " + std::to_string(attr.type()) + ">");
    break;
  }
  return builder.getNamedAttr(name, value);
}

LogicalResult Importer::importGraph(const ::onnx::ModelProto &model,
                                    const ::onnx::GraphProto &graph) {
  // Initializers are constants; an input that is also an initializer
  // (IR versions before 4 list them in both) is the constant.
  llvm::StringSet<> initializers;
  for (const TensorProto &init : graph.initializer()) {
    initializers.insert(init.name());
  }
  for (const ::onnx::ValueInfoProto &info : graph.value_info()) {
    if (info.type().has_tensor_type()) {
      FailureOr<Type> type = valueType(info, /*applyInputShapes=*/false);
      if (succeeded(type)) {
        declaredTypes[info.name()] = *type;
      }
    }
  }
  SmallVector<Type> inputTypes;
  SmallVector<const ::onnx::ValueInfoProto *> inputs;
  llvm::StringSet<> seenShapes;
  for (const ::onnx::ValueInfoProto &info : graph.input()) {
    if (initializers.contains(info.name())) {
      continue;
    }
    FailureOr<Type> type = valueType(info, /*applyInputShapes=*/true);
    if (failed(type)) {
      return failure();
    }
    seenShapes.insert(info.name());
    inputTypes.push_back(*type);
    inputs.push_back(&info);
  }
  for (const auto &entry : options.inputShapes) {
    if (!seenShapes.contains(entry.getKey())) {
      std::string names;
      for (const ::onnx::ValueInfoProto *info : inputs) {
        names += (names.empty() ? "'" : ", '") + info->name() + "'";
      }
      error() << "--input-shape names '" << entry.getKey()
              << "', which is not an input of the graph (its inputs: "
              << (names.empty() ? "none" : names) << ")";
      return failure();
    }
  }
  SmallVector<Type> outputTypes;
  for (const ::onnx::ValueInfoProto &info : graph.output()) {
    FailureOr<Type> type = valueType(info, /*applyInputShapes=*/false);
    if (failed(type)) {
      return failure();
    }
    outputTypes.push_back(*type);
    declaredTypes[info.name()] = *type;
  }

  auto func = func::FuncOp::create(builder, fileLoc, "main",
                                   builder.getFunctionType(inputTypes,
                                                           outputTypes));
  // The graph's and its values' names, for the module's reflection.
  SmallVector<NamedAttribute> names;
  names.push_back(builder.getNamedAttr("onnx.graph",
                                       builder.getStringAttr(graph.name())));
  Block *entry = func.addEntryBlock();
  entryBlock = entry;
  // Unsigned tensors cross the boundary as signless ones of their width
  // (the signature says i8 for a uint8 tensor); "argN.element_type" says
  // what they are, so that tools give the values back unsigned.
  // So do float8 tensors (their bit patterns, i8 in the signature) and
  // int4/uint4 ones (one value a byte): "argN.element_type = f8E4M3FN".
  auto addElementType = [&](const std::string &key, Type type) {
    auto shaped = dyn_cast<ShapedType>(type);
    if (!shaped) {
      return;
    }
    std::string recorded = recordedElementName(shaped.getElementType());
    if (!recorded.empty()) {
      names.push_back(builder.getNamedAttr(key + ".element_type",
                                           builder.getStringAttr(recorded)));
    }
  };
  // A sequence or optional says so: "list<?xf32>", "optional<4xi64>"
  // (tools build and read vm.lists by it).
  auto addListType = [&](const std::string &key,
                         const ::onnx::TypeProto &type) {
    if (type.has_sequence_type() || type.has_optional_type()) {
      names.push_back(builder.getNamedAttr(
          key, builder.getStringAttr(boundaryTypeText(ctx, type))));
    }
  };
  for (auto [index, info] : llvm::enumerate(inputs)) {
    std::string key = "arg" + std::to_string(index);
    addListType(key, info->type());
    names.push_back(builder.getNamedAttr(key + ".name",
                                         builder.getStringAttr(info->name())));
    addElementType(key, inputTypes[index]);
    values[info->name()] = entry->getArgument(index);
  }
  for (auto [index, info] : llvm::enumerate(graph.output())) {
    std::string key = "result" + std::to_string(index);
    addListType(key, info.type());
    names.push_back(builder.getNamedAttr(key + ".name",
                                         builder.getStringAttr(info.name())));
    addElementType(key, outputTypes[index]);
  }
  // Symbolic dimensions: their names in the reflection ("N,3,224,224"),
  // and two arguments that share a name checked equal at the call.
  builder.setInsertionPointToStart(entry);
  llvm::MapVector<llvm::StringRef, SmallVector<std::pair<unsigned, int64_t>>>
      symbols;
  for (auto [index, info] : llvm::enumerate(inputs)) {
    auto type = dyn_cast<RankedTensorType>(inputTypes[index]);
    const ::onnx::TypeProto_Tensor &tensorType = info->type().tensor_type();
    if (!type || !tensorType.has_shape() ||
        tensorType.shape().dim_size() != type.getRank()) {
      continue;
    }
    std::string dims;
    bool named = false;
    for (auto [d, dim] : llvm::enumerate(tensorType.shape().dim())) {
      dims += d == 0 ? "" : ",";
      if (!type.isDynamicDim(d)) {
        dims += std::to_string(type.getDimSize(d));
      } else if (dim.has_dim_param() && !dim.dim_param().empty()) {
        dims += dim.dim_param();
        named = true;
        symbols[dim.dim_param()].push_back(
            {static_cast<unsigned>(index), static_cast<int64_t>(d)});
      } else {
        dims += "?";
      }
    }
    if (named) {
      names.push_back(
          builder.getNamedAttr("arg" + std::to_string(index) + ".dims",
                               builder.getStringAttr(dims)));
    }
  }
  for (auto &[symbol, uses] : symbols) {
    auto [firstArg, firstDim] = uses.front();
    Value first = tensor::DimOp::create(builder, fileLoc,
                                        entry->getArgument(firstArg), firstDim);
    for (auto [arg, dim] : ArrayRef(uses).drop_front()) {
      Value other =
          tensor::DimOp::create(builder, fileLoc, entry->getArgument(arg), dim);
      // The call's two sizes go into the message ({0} and {1}).
      std::string message;
      llvm::raw_string_ostream(message)
          << "argument " << arg << " ('" << inputs[arg]->name()
          << "') dimension " << dim << " is {1} but argument " << firstArg
          << " ('" << inputs[firstArg]->name() << "') dimension " << firstDim
          << " is {0}; the model names both '" << symbol << "'";
      util::AssertEqOp::create(builder, fileLoc, first, other,
                               builder.getStringAttr(message));
    }
  }
  func->setAttr(util::kReflectionAttrName, builder.getDictionaryAttr(names));
  for (const TensorProto &init : graph.initializer()) {
    FailureOr<DenseElementsAttr> value =
        tensor(init, "initializer '" + init.name() + "'");
    if (failed(value)) {
      return failure();
    }
    values[init.name()] = arith::ConstantOp::create(
        builder, NameLoc::get(builder.getStringAttr(init.name()), fileLoc),
        *value);
  }

  // Functions inlined, nodes in an order where each reads what is made
  // before it.
  sonnx::NodeFlattener flattener(model, opsets, fileLoc);
  if (failed(flattener.init())) {
    return failure();
  }
  this->flattener = &flattener;
  if (failed(importNodes(graph))) {
    return failure();
  }
  SmallVector<Value> results;
  for (const ::onnx::ValueInfoProto &info : graph.output()) {
    auto it = values.find(info.name());
    if (it == values.end()) {
      error() << "graph output '" << info.name()
              << "' is produced by no node, input or initializer";
      return failure();
    }
    results.push_back(it->second);
  }
  func::ReturnOp::create(builder, fileLoc, results);
  return success();
}

LogicalResult Importer::importNodes(const ::onnx::GraphProto &graph) {
  // What the nodes may read before any of them runs: the values of this
  // scope and the enclosing ones.
  FailureOr<std::vector<sonnx::FlatNode>> nodes = flattener->flatten(
      graph, [&](llvm::StringRef name) { return values.count(name) != 0; });
  if (failed(nodes)) {
    return failure();
  }
  for (const sonnx::FlatNode &node : *nodes) {
    std::string nodeName = node.describe();
    SmallVector<Value> operands;
    for (const std::string &input : node.inputs) {
      if (input.empty()) {
        if (!none) {
          OpBuilder::InsertionGuard guard(builder);
          builder.setInsertionPointToStart(entryBlock);
          none = sonnx::NoneOp::create(builder, fileLoc, builder.getNoneType());
        }
        operands.push_back(none);
        continue;
      }
      auto it = values.find(input);
      if (it == values.end()) {
        // The flattener checked every read; kept as a guard.
        error() << "node " << nodeName << " reads '" << input
                << "', which no node, input or initializer produces";
        return failure();
      }
      operands.push_back(it->second);
    }
    SmallVector<Type> resultTypes;
    for (const std::string &output : node.outputs) {
      auto it = declaredTypes.find(output);
      resultTypes.push_back(it == declaredTypes.end() || output.empty()
                                ? Type(builder.getNoneType())
                                : it->second);
    }
    SmallVector<NamedAttribute> attrs;
    llvm::StringSet<> attrNames;
    for (const auto &[name, attr] : node.attributes) {
      // A dictionary's names are unique and not empty (MLIR asserts it,
      // and a release build would keep either value).
      if (name.empty()) {
        error() << "node " << nodeName << " has an attribute without a name";
        return failure();
      }
      if (!attrNames.insert(name).second) {
        error() << "node " << nodeName << " has attribute '" << name
                << "' twice";
        return failure();
      }
      FailureOr<NamedAttribute> named = attribute(name, *attr, nodeName);
      if (failed(named)) {
        return failure();
      }
      attrs.push_back(*named);
    }
    Location loc =
        node.name.empty()
            ? fileLoc
            : Location(NameLoc::get(builder.getStringAttr(node.name), fileLoc));
    SmallVector<Attribute> subgraphNames;
    for (const auto &subgraph : node.subgraphs) {
      subgraphNames.push_back(builder.getStringAttr(subgraph.first));
    }
    auto op = sonnx::NodeOp::create(
        builder, loc, resultTypes, builder.getStringAttr(node.opType),
        builder.getStringAttr(node.domain),
        builder.getI64IntegerAttr(node.opset),
        node.name.empty() ? StringAttr() : builder.getStringAttr(node.name),
        builder.getDictionaryAttr(attrs),
        subgraphNames.empty() ? ArrayAttr()
                              : builder.getArrayAttr(subgraphNames),
        operands, node.subgraphs.size());
    for (auto [index, subgraph] : llvm::enumerate(node.subgraphs)) {
      if (failed(importSubgraph(*subgraph.second, op.getSubgraphs()[index],
                                nodeName + "'s " + subgraph.first))) {
        return failure();
      }
    }
    for (auto [index, output] : llvm::enumerate(node.outputs)) {
      if (!output.empty()) {
        define(output, op.getResult(index));
      }
    }
  }
  return success();
}

LogicalResult Importer::importSubgraph(const ::onnx::GraphProto &graph,
                                       Region &region,
                                       const std::string &what) {
  // The subgraph's names shadow the enclosing scopes' while it is read.
  std::vector<std::pair<std::string, Value>> log;
  std::vector<std::pair<std::string, Value>> *outerLog = shadowed;
  shadowed = &log;
  llvm::scope_exit restore([&] {
    for (auto &[name, previous] : llvm::reverse(log)) {
      if (previous) {
        values[name] = previous;
      } else {
        values.erase(name);
      }
    }
    shadowed = outerLog;
  });
  for (const ::onnx::ValueInfoProto &info : graph.value_info()) {
    if (info.type().has_tensor_type()) {
      FailureOr<Type> type = valueType(info, /*applyInputShapes=*/false);
      if (succeeded(type)) {
        declaredTypes[info.name()] = *type;
      }
    }
  }
  for (const ::onnx::ValueInfoProto &info : graph.output()) {
    if (info.type().has_tensor_type()) {
      FailureOr<Type> type = valueType(info, /*applyInputShapes=*/false);
      if (succeeded(type)) {
        declaredTypes[info.name()] = *type;
      }
    }
  }
  // Inputs without a declared tensor type (a Loop body's carried values
  // often have none) are `none`: the lowering gives each the type of what
  // the node passes in.
  SmallVector<Type> argTypes;
  SmallVector<Location> argLocs;
  for (const ::onnx::ValueInfoProto &info : graph.input()) {
    Type type = builder.getNoneType();
    if (info.type().has_tensor_type()) {
      FailureOr<Type> declared = valueType(info, /*applyInputShapes=*/false);
      if (failed(declared)) {
        return failure();
      }
      type = *declared;
    } else if (info.has_type() &&
               info.type().value_case() != ::onnx::TypeProto::VALUE_NOT_SET) {
      if (failed(valueType(info, /*applyInputShapes=*/false))) {
        return failure();
      }
    }
    argTypes.push_back(type);
    argLocs.push_back(fileLoc);
  }
  OpBuilder::InsertionGuard guard(builder);
  Block *block = builder.createBlock(&region, {}, argTypes, argLocs);
  for (auto [index, info] : llvm::enumerate(graph.input())) {
    define(info.name(), block->getArgument(index));
  }
  for (const TensorProto &init : graph.initializer()) {
    FailureOr<DenseElementsAttr> value =
        tensor(init, "initializer '" + init.name() + "' of " + what);
    if (failed(value)) {
      return failure();
    }
    define(init.name(),
           arith::ConstantOp::create(
               builder,
               NameLoc::get(builder.getStringAttr(init.name()), fileLoc),
               *value));
  }
  if (failed(importNodes(graph))) {
    return failure();
  }
  SmallVector<Value> results;
  for (const ::onnx::ValueInfoProto &info : graph.output()) {
    auto it = values.find(info.name());
    if (it == values.end()) {
      error() << what << ": output '" << info.name()
              << "' is produced by no node, input or initializer";
      return failure();
    }
    results.push_back(it->second);
  }
  sonnx::YieldOp::create(builder, fileLoc, results);
  return success();
}

OwningOpRef<ModuleOp> Importer::run(llvm::StringRef bytes) {
  fileLoc = FileLineColLoc::get(ctx, options.fileName, 0, 0);
  ::onnx::ModelProto model;
  if (bytes.size() > static_cast<size_t>(std::numeric_limits<int>::max()) ||
      !model.ParseFromArray(bytes.data(), static_cast<int>(bytes.size()))) {
    error() << "not a valid ONNX model: the protobuf does not parse (a "
               "truncated or corrupt file?)";
    return nullptr;
  }
  if (!model.has_graph()) {
    error() << "the ONNX model has no graph";
    return nullptr;
  }
  for (const ::onnx::OperatorSetIdProto &opset : model.opset_import()) {
    opsets[isDefaultDomain(opset.domain()) ? "" : opset.domain()] =
        opset.version();
  }
  if (!opsets.count("")) {
    // IR version 2 models may leave the default domain out: opset 1.
    opsets[""] = 1;
  }
  OwningOpRef<ModuleOp> module = ModuleOp::create(fileLoc);
  builder.setInsertionPointToStart(module->getBody());
  if (failed(importGraph(model, model.graph()))) {
    return nullptr;
  }
  return module;
}

} // namespace

bool mlir::strata::onnx::looksLikeONNXModel(llvm::StringRef bytes) {
  // A ModelProto starts with field 1 (ir_version, a varint: tag 0x08) in
  // every exporter's output; MLIR text never starts with that byte.
  return !bytes.empty() && bytes[0] == 0x08;
}

bool mlir::strata::onnx::parseInputShape(llvm::StringRef text,
                                         ImportOptions &options,
                                         std::string &error) {
  auto [name, dims] = text.split('=');
  if (name.empty() || !text.contains('=')) {
    error = "--input-shape='" + text.str() +
            "' is not NAME=DIMS (for example input=1x3x224x224)";
    return false;
  }
  SmallVector<int64_t> shape;
  if (!dims.empty()) {
    SmallVector<llvm::StringRef> parts;
    dims.split(parts, 'x');
    for (llvm::StringRef part : parts) {
      int64_t dim = 0;
      if (part.getAsInteger(10, dim) || dim < 0) {
        error = "--input-shape='" + text.str() + "': '" + part.str() +
                "' is not a dimension (a number >= 0)";
        return false;
      }
      shape.push_back(dim);
    }
  }
  options.inputShapes[name] = shape;
  return true;
}

OwningOpRef<ModuleOp>
mlir::strata::onnx::importModel(MLIRContext *context, llvm::StringRef bytes,
                                const ImportOptions &options) {
  context->getOrLoadDialect<sonnx::ONNXDialect>();
  context->getOrLoadDialect<arith::ArithDialect>();
  context->getOrLoadDialect<func::FuncDialect>();
  context->getOrLoadDialect<cf::ControlFlowDialect>();
  context->getOrLoadDialect<tensor::TensorDialect>();
  context->getOrLoadDialect<util::UtilDialect>();
  return Importer(context, options).run(bytes);
}
