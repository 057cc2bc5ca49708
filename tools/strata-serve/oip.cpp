// oip.cpp - the Open Inference Protocol's JSON (and binary) forms of model
// metadata, infer requests and infer answers; see oip.h. Requests are read
// with simdjson's DOM parser through its error codes, never an exception.
#include "oip.h"

#include <cstring>
#include <map>

#include <simdjson.h>

#include "strata/tensor_types.hpp"
#include "tensor_json.h"

namespace strata::service {

namespace {

using runtime::describeTensorType;
using runtime::shapeElementCount;
using simdjson::dom::element_type;

constexpr strata_hal_element_type_t kBfloat16 =
    STRATA_HAL_ELEMENT_TYPE(STRATA_HAL_NUMERICAL_TYPE_FLOAT_BRAIN, 16);

// The protocol's datatypes and the element types they are read as (the
// integers with their signedness, so that ranges are checked).
struct Datatype {
  const char* name;
  strata_hal_element_type_t type;
};
constexpr Datatype kDatatypes[] = {
    {"BOOL", STRATA_HAL_ELEMENT_TYPE_BOOL_8},
    {"UINT8", STRATA_HAL_ELEMENT_TYPE_UINT_8},
    {"UINT16", STRATA_HAL_ELEMENT_TYPE_UINT_16},
    {"UINT32", STRATA_HAL_ELEMENT_TYPE_UINT_32},
    {"UINT64", STRATA_HAL_ELEMENT_TYPE_UINT_64},
    {"INT8", STRATA_HAL_ELEMENT_TYPE_SINT_8},
    {"INT16", STRATA_HAL_ELEMENT_TYPE_SINT_16},
    {"INT32", STRATA_HAL_ELEMENT_TYPE_SINT_32},
    {"INT64", STRATA_HAL_ELEMENT_TYPE_SINT_64},
    {"FP16", STRATA_HAL_ELEMENT_TYPE_FLOAT_16},
    {"FP32", STRATA_HAL_ELEMENT_TYPE_FLOAT_32},
    {"FP64", STRATA_HAL_ELEMENT_TYPE_FLOAT_64},
};
constexpr const char* kDatatypeList =
    "BOOL, UINT8, UINT16, UINT32, UINT64, INT8, INT16, INT32, INT64, FP16, "
    "FP32, FP64";

// A signless integer is read and written as a signed one.
strata_hal_element_type_t semanticType(strata_hal_element_type_t type) {
  if ((type >> 24) == STRATA_HAL_NUMERICAL_TYPE_INTEGER) {
    return STRATA_HAL_ELEMENT_TYPE(STRATA_HAL_NUMERICAL_TYPE_INTEGER_SIGNED,
                                   type & 0xFFu);
  }
  return type;
}

strata_hal_element_type_t scalarType(strata_runtime_value_kind_t kind) {
  switch (kind) {
    case STRATA_RUNTIME_VALUE_I32: return STRATA_HAL_ELEMENT_TYPE_SINT_32;
    case STRATA_RUNTIME_VALUE_I64: return STRATA_HAL_ELEMENT_TYPE_SINT_64;
    case STRATA_RUNTIME_VALUE_F32: return STRATA_HAL_ELEMENT_TYPE_FLOAT_32;
    case STRATA_RUNTIME_VALUE_F64: return STRATA_HAL_ELEMENT_TYPE_FLOAT_64;
    default: return STRATA_HAL_ELEMENT_TYPE_NONE;
  }
}

// The protocol type of a tensor: the type it was compiled from when the
// reflection records one (ui8 for a signless i8), else its own.
strata_hal_element_type_t tensorType(strata_runtime_value_kind_t kind,
                                     const ArgumentShape& shape,
                                     strata_hal_element_type_t recorded) {
  if (strata_hal_element_type_t scalar = scalarType(kind)) {
    return scalar;
  }
  if (kind != STRATA_RUNTIME_VALUE_BUFFER_VIEW || !shape.parsed) {
    return STRATA_HAL_ELEMENT_TYPE_NONE;
  }
  if (recorded != STRATA_HAL_ELEMENT_TYPE_NONE &&
      strata_hal_element_byte_size(recorded) ==
          strata_hal_element_byte_size(shape.element_type)) {
    return semanticType(recorded);
  }
  return semanticType(shape.element_type);
}

// {"name", "datatype", "shape"} of one tensor of the metadata.
void appendTensorMetadata(std::string* out, const std::string& name,
                          strata_runtime_value_kind_t kind,
                          const ArgumentShape& shape,
                          strata_hal_element_type_t type) {
  out->append("{\"name\": ");
  appendJsonString(out, name);
  out->append(", \"datatype\": ");
  appendJsonString(out, oipDatatype(type));
  out->append(", \"shape\": [");
  if (kind == STRATA_RUNTIME_VALUE_BUFFER_VIEW) {
    for (size_t d = 0; d < shape.dims.size(); ++d) {
      out->append(d ? ", " : "");
      appendNumber(out, shape.dims[d]);
    }
  }
  out->append("]}");
}

std::string listNames(const std::vector<std::string>& names) {
  std::string out;
  for (const std::string& name : names) {
    out += (out.empty() ? "'" : ", '") + name + "'";
  }
  return out.empty() ? "none" : out;
}

// Reads data (flat, or nested as shape says) into out, count elements of
// type. False with *error naming the element or the level at fault.
struct DataReader {
  const int64_t* shape;
  size_t rank;
  strata_hal_element_type_t type;
  size_t element_size;
  uint8_t* out;
  size_t index = 0;
  std::string* error;

  bool element(simdjson::dom::element value) {
    std::string why;
    if (!decodeElement(value, type, out, &why)) {
      *error = "element " + std::to_string(index) + " " + why;
      return false;
    }
    out += element_size;
    ++index;
    return true;
  }

  bool nested(simdjson::dom::array array, size_t depth) {
    if (depth >= rank) {
      *error = "\"data\" is nested deeper than the shape's rank " +
               std::to_string(rank);
      return false;
    }
    if (static_cast<int64_t>(array.size()) != shape[depth]) {
      *error = "\"data\" has " + std::to_string(array.size()) +
               " entries at depth " + std::to_string(depth) +
               " where the shape has " + std::to_string(shape[depth]);
      return false;
    }
    for (simdjson::dom::element value : array) {
      if (depth + 1 < rank) {
        simdjson::dom::array inner;
        if (value.get_array().get(inner)) {
          *error = "\"data\" holds a value at depth " + std::to_string(depth) +
                   " where the shape needs an array";
          return false;
        }
        if (!nested(inner, depth + 1)) {
          return false;
        }
      } else if (value.type() == element_type::ARRAY) {
        *error = "\"data\" is nested deeper than the shape's rank " +
                 std::to_string(rank);
        return false;
      } else if (!element(value)) {
        return false;
      }
    }
    return true;
  }

  bool read(simdjson::dom::array data, uint64_t count) {
    bool is_nested =
        data.size() > 0 && (*data.begin()).type() == element_type::ARRAY;
    if (is_nested) {
      return nested(data, 0);
    }
    if (data.size() != count) {
      *error = "needs " + std::to_string(count) +
               " elements in \"data\", got " + std::to_string(data.size());
      return false;
    }
    for (simdjson::dom::element value : data) {
      if (value.type() == element_type::ARRAY) {
        *error = "\"data\" mixes arrays and values";
        return false;
      }
      if (!element(value)) {
        return false;
      }
    }
    return true;
  }
};

// An input being decoded.
struct Decoded {
  bool given = false;
  // Binary data: its size, filled from the body's tail once every input
  // is known.
  bool binary = false;
  uint64_t binary_size = 0;
};

bool readBool(simdjson::dom::object parameters, const char* key, bool* out,
              std::string* error, const std::string& where) {
  simdjson::dom::element value;
  if (parameters[key].get(value)) {
    return true;  // absent
  }
  if (value.get_bool().get(*out)) {
    *error = where + " parameter \"" + key + "\" must be true or false";
    return false;
  }
  return true;
}

}  // namespace

std::string oipDatatype(strata_hal_element_type_t type) {
  type = semanticType(type);
  for (const Datatype& datatype : kDatatypes) {
    if (datatype.type == type) {
      return datatype.name;
    }
  }
  return type == kBfloat16 ? "BF16" : "";
}

std::string oipInputName(const Function& function, size_t i) {
  return i < function.argument_names.size() &&
                 !function.argument_names[i].empty()
             ? function.argument_names[i]
             : "input" + std::to_string(i);
}

std::string oipOutputName(const Function& function, size_t i) {
  return i < function.result_names.size() && !function.result_names[i].empty()
             ? function.result_names[i]
             : "output" + std::to_string(i);
}

void oipTensorMetadata(const Function& function, bool output, size_t i,
                       std::string* datatype, std::vector<int64_t>* shape) {
  strata_runtime_value_kind_t kind =
      output ? function.result_kinds[i] : function.argument_kinds[i];
  const ArgumentShape& reflected =
      output ? function.result_shapes[i] : function.argument_shapes[i];
  *datatype = oipDatatype(tensorType(
      kind, reflected,
      output ? function.result_recorded[i] : function.argument_recorded[i]));
  shape->clear();
  if (kind == STRATA_RUNTIME_VALUE_BUFFER_VIEW) {
    *shape = reflected.dims;
  }
}

std::string oipServerMetadata() {
  return "{\"name\": \"strata-serve\", \"version\": \"" STRATA_SERVE_VERSION
         "\", \"extensions\": [\"binary_tensor_data\", "
         "\"model_repository\"]}\n";
}

std::string oipModelMetadata(const std::string& model_name, const Model& model,
                             const Function& function) {
  std::string out = "{\"name\": ";
  appendJsonString(&out, model_name);
  if (!model.version.empty()) {
    out += ", \"versions\": [";
    appendJsonString(&out, model.version);
    out += "]";
  }
  out += ", \"platform\": \"strata\", \"inputs\": [";
  for (size_t i = 0; i < function.argument_kinds.size(); ++i) {
    out += i ? ", " : "";
    appendTensorMetadata(
        &out, oipInputName(function, i), function.argument_kinds[i],
        function.argument_shapes[i],
        tensorType(function.argument_kinds[i], function.argument_shapes[i],
                   function.argument_recorded[i]));
  }
  out += "], \"outputs\": [";
  for (size_t i = 0; i < function.result_kinds.size(); ++i) {
    out += i ? ", " : "";
    appendTensorMetadata(
        &out, oipOutputName(function, i), function.result_kinds[i],
        function.result_shapes[i],
        tensorType(function.result_kinds[i], function.result_shapes[i],
                   function.result_recorded[i]));
  }
  out += "]}\n";
  return out;
}

bool oipDecodeInfer(const Function& function, const std::string& body,
                    size_t json_length, OipRequest* request,
                    std::vector<OipTensor>* inputs_out, std::string* error) {
  const std::string where = function.model + "." + function.name;
  // One parser per thread, its buffers kept between requests up to 1 MiB.
  constexpr size_t kKeptBytes = size_t(1) << 20;
  thread_local simdjson::dom::parser parser;
  struct Trim {
    ~Trim() {
      if (parser.capacity() > kKeptBytes) {
        parser = simdjson::dom::parser();
      }
    }
  } trim;
  if (json_length > body.size()) {
    *error = "Inference-Header-Content-Length is " +
             std::to_string(json_length) + " but the body has only " +
             std::to_string(body.size()) + " bytes";
    return false;
  }
  simdjson::dom::element root;
  simdjson::error_code json_error =
      parser.parse(body.data(), json_length).get(root);
  if (json_error) {
    *error = std::string("the request is not valid JSON (") +
             simdjson::error_message(json_error) + ")";
    return false;
  }
  simdjson::dom::object object;
  if (root.get_object().get(object)) {
    *error = "the request must be a JSON object with \"inputs\"";
    return false;
  }
  simdjson::dom::element id;
  if (!object["id"].get(id)) {
    std::string_view text;
    if (id.get_string().get(text)) {
      *error = "the request's \"id\" must be a string";
      return false;
    }
    request->has_id = true;
    request->id = std::string(text);
  }
  bool binary_output = false;
  simdjson::dom::element parameters_element;
  if (!object["parameters"].get(parameters_element)) {
    simdjson::dom::object parameters;
    if (parameters_element.get_object().get(parameters)) {
      *error = "the request's \"parameters\" must be an object";
      return false;
    }
    if (!readBool(parameters, "binary_data_output", &binary_output, error,
                  "the request's")) {
      return false;
    }
  }

  size_t count = function.argument_kinds.size();
  std::vector<std::string> names(count);
  for (size_t i = 0; i < count; ++i) {
    names[i] = oipInputName(function, i);
  }
  simdjson::dom::array inputs;
  if (object["inputs"].get_array().get(inputs)) {
    *error =
        "the request needs \"inputs\": an array of {\"name\", "
        "\"shape\", \"datatype\", \"data\"}";
    return false;
  }
  std::vector<Decoded> decoded(count);
  std::vector<OipTensor>& tensors = *inputs_out;
  tensors.assign(count, OipTensor());
  // Inputs with binary data, in the order they come in the request.
  std::vector<size_t> binary_order;
  // The first size seen of each named dimension: (input, dim, size).
  struct Seen {
    size_t input;
    size_t dim;
    int64_t size;
  };
  std::map<std::string, Seen, std::less<>> symbols;
  size_t position = 0;
  for (simdjson::dom::element input_element : inputs) {
    std::string label = "input " + std::to_string(position++);
    simdjson::dom::object input;
    if (input_element.get_object().get(input)) {
      *error = label +
               " must be an object with name, shape, datatype and "
               "data";
      return false;
    }
    std::string_view name_view;
    if (input["name"].get_string().get(name_view)) {
      *error = label + " needs \"name\": a string (" + where + " takes " +
               listNames(names) + ")";
      return false;
    }
    std::string name(name_view);
    label = "input '" + name + "'";
    size_t arg = 0;
    while (arg < count && names[arg] != name) {
      ++arg;
    }
    if (arg == count) {
      std::string quoted;
      appendJsonString(&quoted, name);
      *error = where + " has no input " + quoted +
               "; its inputs: " + listNames(names);
      return false;
    }
    Decoded& state = decoded[arg];
    OipTensor& out = tensors[arg];
    out.kind = function.argument_kinds[arg];
    if (state.given) {
      *error = label + " is given twice";
      return false;
    }
    state.given = true;
    std::string_view datatype_view;
    if (input["datatype"].get_string().get(datatype_view)) {
      *error = label + " needs \"datatype\": a string such as \"FP32\"";
      return false;
    }
    std::string datatype(datatype_view);
    strata_runtime_value_kind_t kind = function.argument_kinds[arg];
    const ArgumentShape& expected = function.argument_shapes[arg];
    strata_hal_element_type_t want =
        tensorType(kind, expected, function.argument_recorded[arg]);
    if (datatype == "BYTES") {
      *error = label + " is BYTES, which " + where +
               " cannot take: its input is " +
               (want ? oipDatatype(want) : std::string("not a string")) +
               " (strata-serve serves numeric tensors only)";
      return false;
    }
    strata_hal_element_type_t type = STRATA_HAL_ELEMENT_TYPE_NONE;
    for (const Datatype& entry : kDatatypes) {
      if (datatype == entry.name) {
        type = entry.type;
      }
    }
    if (type == STRATA_HAL_ELEMENT_TYPE_NONE) {
      std::string quoted;
      appendJsonString(&quoted, datatype);
      *error = label + " has an unknown datatype " + quoted + " (" +
               kDatatypeList + ")";
      return false;
    }
    if (kind != STRATA_RUNTIME_VALUE_BUFFER_VIEW && !scalarType(kind)) {
      *error = label + " of " + where + " is a " +
               strata_runtime_value_kind_name(kind) +
               ", which has no tensor form";
      return false;
    }
    if (want != STRATA_HAL_ELEMENT_TYPE_NONE && want != type) {
      *error = label + " of " + where + " must be " + oipDatatype(want) +
               ", got " + datatype;
      return false;
    }
    simdjson::dom::array shape_array;
    if (input["shape"].get_array().get(shape_array)) {
      *error = label + " needs \"shape\": an array of dimensions";
      return false;
    }
    for (simdjson::dom::element dim : shape_array) {
      int64_t d = -1;
      if (dim.type() == element_type::INT64) {
        d = dim.get_int64().value_unsafe();
      }
      if (d < 0 || d > (int64_t{1} << 40)) {
        *error = label +
                 " has a shape that is not an array of non-negative "
                 "integers";
        return false;
      }
      if (out.shape.size() == STRATA_HAL_MAX_RANK) {
        *error = label + " has rank " + std::to_string(shape_array.size()) +
                 ", more than " + std::to_string(STRATA_HAL_MAX_RANK);
        return false;
      }
      out.shape.push_back(d);
    }
    // The buffer's own type: the function's (signless where it was
    // compiled so), else signless integers for INTn and UINTn.
    strata_hal_element_type_t buffer_type =
        expected.parsed ? expected.element_type
        : (type >> 24) == STRATA_HAL_NUMERICAL_TYPE_INTEGER_SIGNED ||
                (type >> 24) == STRATA_HAL_NUMERICAL_TYPE_INTEGER_UNSIGNED
            ? STRATA_HAL_ELEMENT_TYPE(STRATA_HAL_NUMERICAL_TYPE_INTEGER,
                                      type & 0xFFu)
            : type;
    auto actual = [&] {
      return describeTensorType(out.shape, semanticType(type));
    };
    if (scalarType(kind)) {
      if (!out.shape.empty()) {
        *error = label + " of " + where +
                 " is a scalar: its shape must be "
                 "[], got " +
                 actual();
        return false;
      }
    } else if (expected.parsed) {
      bool fits = expected.dims.size() == out.shape.size();
      for (size_t d = 0; fits && d < out.shape.size(); ++d) {
        fits = expected.dims[d] < 0 || expected.dims[d] == out.shape[d];
      }
      if (!fits) {
        std::string shape_text = "[";
        for (size_t d = 0; d < expected.dims.size(); ++d) {
          shape_text += (d ? ", " : "") + std::to_string(expected.dims[d]);
        }
        *error = label + " of " + where + " must have shape " + shape_text +
                 "] (-1: any size), got " + actual();
        return false;
      }
      for (size_t d = 0; d < expected.dim_names.size() && d < out.shape.size();
           ++d) {
        const std::string& symbol = expected.dim_names[d];
        if (symbol.empty()) {
          continue;
        }
        auto [it, inserted] =
            symbols.try_emplace(symbol, Seen{arg, d, out.shape[d]});
        if (!inserted && it->second.size != out.shape[d]) {
          *error = label + " of " + where + " has dimension " +
                   std::to_string(d) + " of size " +
                   std::to_string(out.shape[d]) + " but input '" +
                   names[it->second.input] + "' has dimension " +
                   std::to_string(it->second.dim) + " of size " +
                   std::to_string(it->second.size) +
                   "; the model names both '" + symbol + "'";
          return false;
        }
      }
    }
    size_t element_size = strata_hal_element_byte_size(type);
    uint64_t element_count = 0;
    if (!shapeElementCount(out.shape, element_size, &element_count)) {
      *error = label + " is too large (" + actual() + ")";
      return false;
    }
    out.type = buffer_type;
    uint64_t binary_size = 0;
    bool binary = false;
    simdjson::dom::element input_parameters;
    if (!input["parameters"].get(input_parameters)) {
      simdjson::dom::object parameters;
      if (input_parameters.get_object().get(parameters)) {
        *error = label + "'s \"parameters\" must be an object";
        return false;
      }
      simdjson::dom::element size;
      if (!parameters["binary_data_size"].get(size)) {
        if (size.type() != element_type::INT64 ||
            size.get_int64().value_unsafe() < 0) {
          *error = label +
                   "'s binary_data_size must be a non-negative "
                   "integer";
          return false;
        }
        binary = true;
        binary_size = static_cast<uint64_t>(size.get_int64().value_unsafe());
      }
    }
    simdjson::dom::element data_element;
    bool has_data = !input["data"].get(data_element);
    if (binary) {
      if (has_data) {
        *error = label + " has both \"data\" and binary_data_size";
        return false;
      }
      if (binary_size != element_count * element_size) {
        *error = label + " is " + actual() + ", " +
                 std::to_string(element_count * element_size) +
                 " bytes, but its binary_data_size is " +
                 std::to_string(binary_size);
        return false;
      }
      state.binary = true;
      state.binary_size = binary_size;
      binary_order.push_back(arg);
      continue;
    }
    simdjson::dom::array data;
    if (!has_data || data_element.get_array().get(data)) {
      *error = label +
               " needs \"data\": an array of its elements (flat or "
               "nested), or a binary_data_size parameter";
      return false;
    }
    out.bytes.resize(element_count * element_size);
    std::string why;
    DataReader reader{out.shape.data(),
                      out.shape.size(),
                      type,
                      element_size,
                      out.bytes.data(),
                      0,
                      &why};
    if (!reader.read(data, element_count)) {
      *error = label + " (" + actual() + ") " + why;
      return false;
    }
  }
  for (size_t i = 0; i < count; ++i) {
    if (!decoded[i].given) {
      *error = where + " needs input '" + names[i] + "', which the request " +
               "does not give";
      return false;
    }
  }
  // Binary data follows the JSON, input by input in request order.
  uint64_t binary_total = 0;
  for (size_t arg : binary_order) {
    binary_total += decoded[arg].binary_size;
  }
  if (binary_total != body.size() - json_length) {
    *error = "the inputs' binary_data_size add up to " +
             std::to_string(binary_total) + " bytes, but " +
             std::to_string(body.size() - json_length) +
             " bytes follow the JSON (Inference-Header-Content-Length " +
             "gives the JSON's length)";
    return false;
  }
  size_t offset = json_length;
  for (size_t arg : binary_order) {
    OipTensor& input = tensors[arg];
    uint64_t size = decoded[arg].binary_size;
    const uint8_t* start =
        reinterpret_cast<const uint8_t*>(body.data()) + offset;
    input.bytes.assign(start, start + size);
    offset += size;
    if (function.argument_kinds[arg] == STRATA_RUNTIME_VALUE_BUFFER_VIEW &&
        (tensorType(function.argument_kinds[arg], function.argument_shapes[arg],
                    function.argument_recorded[arg]) ==
         STRATA_HAL_ELEMENT_TYPE_BOOL_8)) {
      for (uint8_t& byte : input.bytes) {
        if (byte > 1) {
          *error = "input '" + names[arg] + "' is BOOL and its binary data " +
                   "holds a byte other than 0 or 1";
          return false;
        }
      }
    }
  }

  // Requested outputs.
  size_t result_count = function.result_kinds.size();
  simdjson::dom::element outputs_element;
  if (!object["outputs"].get(outputs_element)) {
    simdjson::dom::array outputs;
    if (outputs_element.get_array().get(outputs)) {
      *error = "the request's \"outputs\" must be an array of {\"name\"}";
      return false;
    }
    std::vector<std::string> result_names(result_count);
    for (size_t r = 0; r < result_count; ++r) {
      result_names[r] = oipOutputName(function, r);
    }
    for (simdjson::dom::element output_element : outputs) {
      simdjson::dom::object output;
      std::string_view name_view;
      if (output_element.get_object().get(output) ||
          output["name"].get_string().get(name_view)) {
        *error = "each requested output needs \"name\": a string (" + where +
                 " returns " + listNames(result_names) + ")";
        return false;
      }
      std::string name(name_view);
      size_t r = 0;
      while (r < result_count && result_names[r] != name) {
        ++r;
      }
      if (r == result_count) {
        std::string quoted;
        appendJsonString(&quoted, name);
        *error = where + " has no output " + quoted +
                 "; its outputs: " + listNames(result_names);
        return false;
      }
      OipRequest::Output requested{r, binary_output};
      simdjson::dom::element output_parameters;
      if (!output["parameters"].get(output_parameters)) {
        simdjson::dom::object parameters;
        if (output_parameters.get_object().get(parameters)) {
          *error = "output '" + name + "''s \"parameters\" must be an object";
          return false;
        }
        if (!readBool(parameters, "binary_data", &requested.binary, error,
                      "output '" + name + "''s")) {
          return false;
        }
      }
      request->outputs.push_back(requested);
    }
  } else {
    for (size_t r = 0; r < result_count; ++r) {
      request->outputs.push_back({r, binary_output});
    }
  }

  return true;
}

bool oipPushInputs(const Function& function,
                   const std::vector<OipTensor>& inputs,
                   strata_runtime_call_t* call, std::string* error) {
  (void)function;
  for (size_t arg = 0; arg < inputs.size(); ++arg) {
    const OipTensor& input = inputs[arg];
    strata_status_t status = nullptr;
    switch (input.kind) {
      case STRATA_RUNTIME_VALUE_I32: {
        int32_t v;
        std::memcpy(&v, input.bytes.data(), 4);
        status = strata_runtime_call_push_i32(call, v);
        break;
      }
      case STRATA_RUNTIME_VALUE_I64: {
        int64_t v;
        std::memcpy(&v, input.bytes.data(), 8);
        status = strata_runtime_call_push_i64(call, v);
        break;
      }
      case STRATA_RUNTIME_VALUE_F32: {
        float v;
        std::memcpy(&v, input.bytes.data(), 4);
        status = strata_runtime_call_push_f32(call, v);
        break;
      }
      case STRATA_RUNTIME_VALUE_F64: {
        double v;
        std::memcpy(&v, input.bytes.data(), 8);
        status = strata_runtime_call_push_f64(call, v);
        break;
      }
      default: {
        strata_hal_buffer_view_t* view = nullptr;
        status = strata_runtime_buffer_view_from_host(
            input.type, input.shape.data(), input.shape.size(),
            input.bytes.data(), input.bytes.size(), strata_allocator_system(),
            &view);
        if (!status) {
          status = strata_runtime_call_push_buffer_view(call, view);
        }
        strata_hal_buffer_view_release(view);
        break;
      }
    }
    if (status) {
      *error = consumeStatusText(status);
      return false;
    }
  }
  return true;
}

bool oipReadResults(const Function& function, const strata_runtime_call_t* call,
                    std::vector<OipTensor>* results, std::string* error) {
  size_t count = strata_runtime_call_result_count(call);
  results->assign(count, OipTensor());
  for (size_t i = 0; i < count; ++i) {
    OipTensor& result = (*results)[i];
    strata_runtime_value_kind_t kind = strata_runtime_call_result_kind(call, i);
    result.kind = kind;
    result.type = scalarType(kind);
    strata_status_t status = nullptr;
    auto scalar = [&result](const void* value, size_t size) {
      const uint8_t* p = static_cast<const uint8_t*>(value);
      result.bytes.assign(p, p + size);
    };
    switch (kind) {
      case STRATA_RUNTIME_VALUE_I32: {
        int32_t v = 0;
        status = strata_runtime_call_result_i32(call, i, &v);
        scalar(&v, 4);
        break;
      }
      case STRATA_RUNTIME_VALUE_I64: {
        int64_t v = 0;
        status = strata_runtime_call_result_i64(call, i, &v);
        scalar(&v, 8);
        break;
      }
      case STRATA_RUNTIME_VALUE_F32: {
        float v = 0;
        status = strata_runtime_call_result_f32(call, i, &v);
        scalar(&v, 4);
        break;
      }
      case STRATA_RUNTIME_VALUE_F64: {
        double v = 0;
        status = strata_runtime_call_result_f64(call, i, &v);
        scalar(&v, 8);
        break;
      }
      case STRATA_RUNTIME_VALUE_BUFFER_VIEW: {
        strata_hal_buffer_view_t* view = nullptr;
        status = strata_runtime_call_result_buffer_view(call, i, &view);
        const void* data = nullptr;
        size_t length = 0;
        if (!status) {
          status = strata_runtime_buffer_view_data(view, &data, &length);
        }
        if (!status) {
          const uint8_t* bytes = static_cast<const uint8_t*>(data);
          result.bytes.assign(bytes, bytes + length);
          strata_hal_element_type_t own =
              strata_hal_buffer_view_element_type(view);
          strata_hal_element_type_t recorded =
              i < function.result_recorded.size()
                  ? function.result_recorded[i]
                  : STRATA_HAL_ELEMENT_TYPE_NONE;
          result.type = recorded != STRATA_HAL_ELEMENT_TYPE_NONE &&
                                strata_hal_element_byte_size(recorded) ==
                                    strata_hal_element_byte_size(own)
                            ? semanticType(recorded)
                            : semanticType(own);
          for (size_t d = 0; d < strata_hal_buffer_view_rank(view); ++d) {
            result.shape.push_back(strata_hal_buffer_view_dim(view, d));
          }
        }
        strata_hal_buffer_view_release(view);
        break;
      }
      default:
        *error = "output '" + oipOutputName(function, i) + "' is a " +
                 strata_runtime_value_kind_name(kind) +
                 ", which has no tensor form";
        return false;
    }
    if (status) {
      *error = consumeStatusText(status);
      return false;
    }
    std::string datatype = oipDatatype(result.type);
    if (datatype.empty() || datatype == "BF16") {
      *error = "output '" + oipOutputName(function, i) + "' is " +
               runtime::elementTypeName(result.type) +
               ", which the protocol's datatypes cannot carry";
      return false;
    }
  }
  return true;
}

void oipEncodeInfer(const std::string& model_name, const Model& model,
                    const Function& function, const OipRequest& request,
                    const std::vector<OipTensor>& results, std::string* out,
                    size_t* json_length) {
  out->clear();
  *json_length = 0;
  std::string binary;
  out->append("{\"model_name\": ");
  appendJsonString(out, model_name);
  if (!model.version.empty()) {
    out->append(", \"model_version\": ");
    appendJsonString(out, model.version);
  }
  if (request.has_id) {
    out->append(", \"id\": ");
    appendJsonString(out, request.id);
  }
  out->append(", \"outputs\": [");
  bool any_binary = false;
  for (size_t o = 0; o < request.outputs.size(); ++o) {
    const OipRequest::Output& requested = request.outputs[o];
    const OipTensor& result = results[requested.result];
    out->append(o ? ", " : "");
    out->append("{\"name\": ");
    appendJsonString(out, oipOutputName(function, requested.result));
    out->append(", \"datatype\": \"");
    out->append(oipDatatype(result.type));
    out->append("\", \"shape\": [");
    for (size_t d = 0; d < result.shape.size(); ++d) {
      out->append(d ? ", " : "");
      appendNumber(out, result.shape[d]);
    }
    out->append("], ");
    if (requested.binary) {
      any_binary = true;
      out->append("\"parameters\": {\"binary_data_size\": ");
      appendNumber(out, result.bytes.size());
      out->append("}}");
      binary.append(reinterpret_cast<const char*>(result.bytes.data()),
                    result.bytes.size());
    } else {
      out->append("\"data\": [");
      size_t element_size = strata_hal_element_byte_size(result.type);
      size_t elements = element_size ? result.bytes.size() / element_size : 0;
      for (size_t e = 0; e < elements; ++e) {
        out->append(e ? ", " : "");
        if (result.type == STRATA_HAL_ELEMENT_TYPE_BOOL_8) {
          out->append(result.bytes[e] & 1 ? "true" : "false");
        } else {
          appendElementText(out, result.bytes.data(), result.type, e);
        }
      }
      out->append("]}");
    }
  }
  out->append("]}\n");
  if (any_binary) {
    *json_length = out->size();
    out->append(binary);
  }
}

}  // namespace strata::service
