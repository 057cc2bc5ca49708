// model_registry.cpp - models, their functions and call pools, and the JSON
// form of inputs and outputs (parsed by nlohmann::json without exceptions:
// json::parse(text, nullptr, false) and typed pointers, never a throwing
// accessor).
#include "model_registry.h"

#include <charconv>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <limits>

#include <nlohmann/json.hpp>

#include "tensor_io.h"

namespace strata::service {
namespace {

using json = nlohmann::json;

// "4x16xf32" -> dims {"4", "16"} and type "f32"; "f32" -> no dims.
void splitType(const std::string &text, std::vector<std::string> *dims,
               std::string *type) {
  size_t start = 0;
  for (;;) {
    size_t x = text.find('x', start);
    if (x == std::string::npos) {
      *type = text.substr(start);
      return;
    }
    dims->push_back(text.substr(start, x - start));
    start = x + 1;
  }
}

// Whether shape/element_type fit expected ("4x16xf32", "?x16xf32").
bool fitsType(const std::string &expected, const std::vector<int64_t> &shape,
              const std::string &dtype) {
  std::vector<std::string> dims;
  std::string type;
  splitType(expected, &dims, &type);
  if (type != dtype || dims.size() != shape.size()) {
    return false;
  }
  for (size_t i = 0; i < dims.size(); ++i) {
    if (dims[i] != "?" && dims[i] != std::to_string(shape[i])) {
      return false;
    }
  }
  return true;
}

const char *scalarName(strata_runtime_value_kind_t kind) {
  switch (kind) {
  case STRATA_RUNTIME_VALUE_I32:
    return "i32";
  case STRATA_RUNTIME_VALUE_I64:
    return "i64";
  case STRATA_RUNTIME_VALUE_F32:
    return "f32";
  case STRATA_RUNTIME_VALUE_F64:
    return "f64";
  default:
    return nullptr;
  }
}

// Reads one JSON number (or boolean) as the element type and appends its
// little-endian bytes. False with *error naming the element.
bool appendElement(const json &value, strata_hal_element_type_t type,
                   std::vector<uint8_t> *bytes, std::string *error) {
  uint32_t numerical = type >> 24;
  size_t bits = type & 0xFFu;
  const auto *as_int = value.get_ptr<const json::number_integer_t *>();
  const auto *as_uint = value.get_ptr<const json::number_unsigned_t *>();
  const auto *as_float = value.get_ptr<const json::number_float_t *>();
  const auto *as_bool = value.get_ptr<const json::boolean_t *>();
  auto append = [&](const void *p, size_t n) {
    const uint8_t *b = static_cast<const uint8_t *>(p);
    bytes->insert(bytes->end(), b, b + n);
  };
  if (numerical == STRATA_HAL_NUMERICAL_TYPE_FLOAT_IEEE) {
    double d;
    if (as_float) {
      d = *as_float;
    } else if (as_int) {
      d = static_cast<double>(*as_int);
    } else if (as_uint) {
      d = static_cast<double>(*as_uint);
    } else {
      *error = "is not a number";
      return false;
    }
    if (bits == 64) {
      append(&d, 8);
    } else if (bits == 32) {
      float f = static_cast<float>(d);
      append(&f, 4);
    } else {
      uint16_t h = tools::halfFromDouble(d);
      append(&h, 2);
    }
    return true;
  }
  if (numerical == STRATA_HAL_NUMERICAL_TYPE_BOOLEAN) {
    uint8_t b;
    if (as_bool) {
      b = *as_bool ? 1 : 0;
    } else if ((as_int && (*as_int == 0 || *as_int == 1)) ||
               (as_uint && *as_uint <= 1)) {
      b = as_int ? static_cast<uint8_t>(*as_int)
                 : static_cast<uint8_t>(*as_uint);
    } else {
      *error = "is not a boolean (true, false, 0 or 1)";
      return false;
    }
    append(&b, 1);
    return true;
  }
  // Integers: signless iN takes -2^(N-1) .. 2^N-1 (as strata-run does),
  // siN the signed range, uiN the unsigned one.
  if (!as_int && !as_uint) {
    *error = "is not an integer";
    return false;
  }
  bool is_unsigned = numerical == STRATA_HAL_NUMERICAL_TYPE_INTEGER_UNSIGNED;
  bool is_signed = numerical == STRATA_HAL_NUMERICAL_TYPE_INTEGER_SIGNED;
  // nlohmann keeps non-negative integers as unsigned.
  bool negative = as_int && *as_int < 0;
  uint64_t magnitude =
      negative ? 0 - static_cast<uint64_t>(*as_int)
               : (as_uint ? *as_uint : static_cast<uint64_t>(*as_int));
  uint64_t max_unsigned =
      bits == 64 ? std::numeric_limits<uint64_t>::max() : (1ull << bits) - 1;
  uint64_t max_positive = is_signed ? max_unsigned >> 1 : max_unsigned;
  uint64_t max_negative = is_unsigned ? 0 : (max_unsigned >> 1) + 1;
  if ((negative && magnitude > max_negative) ||
      (!negative && magnitude > max_positive)) {
    *error = "is out of range for " + tools::elementTypeName(type);
    return false;
  }
  uint64_t raw = negative ? 0 - magnitude : magnitude;
  append(&raw, bits / 8); // little-endian: the low bytes come first
  return true;
}

template <typename T> void appendNumber(std::string *out, T value) {
  char buffer[64];
  std::to_chars_result r =
      std::to_chars(buffer, buffer + sizeof(buffer), value);
  out->append(buffer, r.ptr);
}

template <typename T> void appendFloat(std::string *out, T value) {
  if (!std::isfinite(value)) {
    out->append("null"); // JSON has no NaN or infinity
    return;
  }
  appendNumber(out, value);
}

// Appends element i of data (element type type) as a JSON number.
void appendElementText(std::string *out, const uint8_t *data,
                       strata_hal_element_type_t type, size_t i) {
  uint32_t numerical = type >> 24;
  size_t size = strata_hal_element_byte_size(type);
  const uint8_t *p = data + i * size;
  if (numerical == STRATA_HAL_NUMERICAL_TYPE_FLOAT_IEEE) {
    if (size == 4) {
      float f;
      std::memcpy(&f, p, 4);
      appendFloat(out, f);
    } else if (size == 8) {
      double d;
      std::memcpy(&d, p, 8);
      appendFloat(out, d);
    } else {
      uint16_t h;
      std::memcpy(&h, p, 2);
      appendFloat(out, tools::halfToFloat(h));
    }
    return;
  }
  uint64_t raw = 0;
  std::memcpy(&raw, p, size); // little-endian
  bool is_signed = numerical == STRATA_HAL_NUMERICAL_TYPE_INTEGER ||
                   numerical == STRATA_HAL_NUMERICAL_TYPE_INTEGER_SIGNED;
  if (numerical == STRATA_HAL_NUMERICAL_TYPE_BOOLEAN) {
    appendNumber(out, raw & 1);
  } else if (is_signed && size < 8 && (raw >> (size * 8 - 1)) & 1) {
    appendNumber(out, static_cast<int64_t>(raw | (~0ull << (size * 8))));
  } else if (is_signed) {
    appendNumber(out, static_cast<int64_t>(raw));
  } else {
    appendNumber(out, raw);
  }
}

} // namespace

std::string consumeStatusText(strata_status_t status) {
  char *text = strata_status_to_string(status);
  std::string out = text ? text : "unknown error";
  std::free(text);
  strata_status_free(status);
  return out;
}

std::string errorBody(const std::string &message) {
  json body = {{"error", message}};
  return body.dump(-1, ' ', false, json::error_handler_t::replace) + "\n";
}

ModelRegistry::~ModelRegistry() {
  for (auto &[name, model] : models_) {
    for (auto &[function_name, function] : model->functions) {
      for (strata_runtime_call_t *call : function->free_calls) {
        strata_runtime_call_destroy(call);
      }
    }
    strata_runtime_session_release(model->session);
  }
}

strata_status_t ModelRegistry::add(strata_runtime_instance_t *instance,
                                   const std::string &name,
                                   const std::string &path) {
  if (models_.count(name)) {
    return strata_make_status(STRATA_STATUS_ALREADY_EXISTS,
                              "model '%s' is given twice", name.c_str());
  }
  strata_vm_module_t *module = nullptr;
  STRATA_RETURN_IF_ERROR(
      strata_runtime_module_load_file(instance, path.c_str(), &module));
  auto model = std::make_unique<Model>();
  model->name = name;
  model->path = path;
  strata_status_t status = strata_runtime_session_create(
      instance, nullptr, &module, 1,
      strata_runtime_instance_allocator(instance), &model->session);
  if (status) {
    strata_vm_module_release(module);
    return status;
  }
  size_t export_count = strata_vm_module_export_count(module);
  for (size_t e = 0; e < export_count && !status; ++e) {
    strata_vm_export_info_t info;
    status = strata_vm_module_export_info(module, e, &info);
    if (status) {
      break;
    }
    std::string export_name = info.name;
    if (export_name.find('$') != std::string::npos ||
        export_name.find("__") == 0) {
      continue; // fn$async entry points and internal initializers
    }
    auto function = std::make_unique<Function>();
    function->model = name;
    function->name = export_name;
    // One call to learn the argument kinds; it seeds the pool.
    strata_runtime_call_t *call = nullptr;
    status = strata_runtime_call_create(
        model->session, export_name.c_str(),
        strata_runtime_instance_allocator(instance), &call);
    if (status) {
      // A function the call API cannot drive (variadic) is not served.
      strata_status_free(status);
      status = nullptr;
      continue;
    }
    size_t argument_count = strata_runtime_call_argument_count(call);
    function->argument_kinds.resize(argument_count);
    function->argument_types.resize(argument_count);
    for (size_t i = 0; i < argument_count; ++i) {
      function->argument_kinds[i] = strata_runtime_call_argument_kind(call, i);
    }
    function->has_async_entry = strata_runtime_call_has_async_entry(call) != 0;
    function->free_calls.push_back(call);
    for (size_t a = 0; a < info.attr_count; ++a) {
      const char *key = nullptr;
      const char *value = nullptr;
      if (strata_vm_module_export_attr(module, e, a, &key, &value)) {
        continue;
      }
      std::string k = key;
      if (k.size() > 3 && k.compare(0, 3, "arg") == 0) {
        size_t index = std::strtoul(k.c_str() + 3, nullptr, 10);
        if (index < argument_count) {
          function->argument_types[index] = value;
        }
      }
    }
    model->functions[export_name] = std::move(function);
  }
  strata_vm_module_release(module);
  if (status) {
    return status;
  }
  models_[name] = std::move(model);
  return nullptr;
}

const Model *ModelRegistry::findModel(const std::string &name) const {
  auto it = models_.find(name);
  return it == models_.end() ? nullptr : it->second.get();
}

std::string ModelRegistry::modelNames() const {
  std::string out;
  for (const auto &[name, model] : models_) {
    out += (out.empty() ? "" : ", ") + name;
  }
  return out;
}

std::string ModelRegistry::functionNames(const Model &model) {
  std::string out;
  for (const auto &[name, function] : model.functions) {
    out += (out.empty() ? "" : ", ") + name;
  }
  return out;
}

strata_status_t ModelRegistry::takeCall(Function *function,
                                        strata_runtime_call_t **out) {
  if (!function->free_calls.empty()) {
    *out = function->free_calls.back();
    function->free_calls.pop_back();
    return nullptr;
  }
  const Model *model = models_.at(function->model).get();
  return strata_runtime_call_create(
      model->session, function->name.c_str(),
      strata_runtime_instance_allocator(
          strata_runtime_session_instance(model->session)),
      out);
}

void ModelRegistry::returnCall(Function *function,
                               strata_runtime_call_t *call) {
  strata_runtime_call_reset(call);
  function->free_calls.push_back(call);
}

bool pushInputs(const Function &function, const std::string &body,
                strata_runtime_call_t *call, std::string *error) {
  std::string where = function.model + "." + function.name;
  json request = json::parse(body, nullptr, /*allow_exceptions=*/false);
  if (request.is_discarded()) {
    *error = "the request body is not valid JSON";
    return false;
  }
  if (!request.is_object()) {
    *error = "the request body must be a JSON object with \"inputs\"";
    return false;
  }
  auto inputs_it = request.find("inputs");
  if (inputs_it == request.end() || !inputs_it->is_array()) {
    *error = "the request needs \"inputs\": an array of "
             "{\"shape\", \"dtype\", \"data\"}";
    return false;
  }
  const json &inputs = *inputs_it;
  size_t count = function.argument_kinds.size();
  if (inputs.size() != count) {
    *error = where + " takes " + std::to_string(count) + " input" +
             (count == 1 ? "" : "s") + ", got " + std::to_string(inputs.size());
    return false;
  }
  for (size_t i = 0; i < count; ++i) {
    const json &input = inputs[i];
    std::string name = "input " + std::to_string(i);
    if (!input.is_object()) {
      *error = name + " must be an object with shape, dtype and data";
      return false;
    }
    auto shape_it = input.find("shape");
    auto dtype_it = input.find("dtype");
    auto data_it = input.find("data");
    if (shape_it == input.end() || !shape_it->is_array()) {
      *error = name + " needs \"shape\": an array of dimensions";
      return false;
    }
    if (dtype_it == input.end() || !dtype_it->is_string()) {
      *error = name + " needs \"dtype\": a string such as \"f32\"";
      return false;
    }
    if (data_it == input.end() || !data_it->is_array()) {
      *error = name + " needs \"data\": a flat array of its elements";
      return false;
    }
    std::vector<int64_t> shape;
    for (const json &dim : *shape_it) {
      const auto *d = dim.get_ptr<const json::number_unsigned_t *>();
      if (!d || *d > (1ull << 40)) {
        *error = name + " has a shape that is not an array of non-negative "
                        "integers";
        return false;
      }
      shape.push_back(static_cast<int64_t>(*d));
    }
    if (shape.size() > STRATA_HAL_MAX_RANK) {
      *error = name + " has rank " + std::to_string(shape.size()) +
               ", more than " + std::to_string(STRATA_HAL_MAX_RANK);
      return false;
    }
    const std::string &dtype = *dtype_it->get_ptr<const json::string_t *>();
    strata_hal_element_type_t type =
        strata_hal_element_type_parse(dtype.data(), dtype.size());
    if (type == STRATA_HAL_ELEMENT_TYPE_NONE) {
      *error = name + " has an unknown dtype '" + dtype +
               "' (f16, f32, f64, i1, i8, i16, i32, i64, si8.., ui8..)";
      return false;
    }
    std::string actual = tools::describeTensorType(shape, type);
    uint64_t element_count = 0;
    if (!tools::shapeElementCount(shape, strata_hal_element_byte_size(type),
                                  &element_count)) {
      *error = name + " is too large (" + actual + ")";
      return false;
    }
    strata_runtime_value_kind_t kind = function.argument_kinds[i];
    if (const char *scalar = scalarName(kind)) {
      if (!shape.empty() || dtype != scalar) {
        *error = name + " of " + where + " must be a " + scalar +
                 " scalar (shape [], dtype \"" + scalar + "\"), got " + actual;
        return false;
      }
    } else if (kind != STRATA_RUNTIME_VALUE_BUFFER_VIEW) {
      *error = "input " + std::to_string(i) + " of " + where + " is a " +
               strata_runtime_value_kind_name(kind) +
               ", which has no JSON form";
      return false;
    } else if (!function.argument_types[i].empty() &&
               !fitsType(function.argument_types[i], shape, dtype)) {
      *error = name + " of " + where + " must be " +
               function.argument_types[i] + ", got " + actual;
      return false;
    }
    if (data_it->size() != element_count) {
      *error = name + " is " + actual + " and needs " +
               std::to_string(element_count) + " elements in \"data\", got " +
               std::to_string(data_it->size());
      return false;
    }
    std::vector<uint8_t> bytes;
    bytes.reserve(element_count * strata_hal_element_byte_size(type));
    size_t index = 0;
    for (const json &value : *data_it) {
      std::string why;
      if (!appendElement(value, type, &bytes, &why)) {
        *error = name + " element " + std::to_string(index) + " " + why;
        return false;
      }
      ++index;
    }
    strata_status_t status = nullptr;
    switch (kind) {
    case STRATA_RUNTIME_VALUE_I32: {
      int32_t v;
      std::memcpy(&v, bytes.data(), 4);
      status = strata_runtime_call_push_i32(call, v);
      break;
    }
    case STRATA_RUNTIME_VALUE_I64: {
      int64_t v;
      std::memcpy(&v, bytes.data(), 8);
      status = strata_runtime_call_push_i64(call, v);
      break;
    }
    case STRATA_RUNTIME_VALUE_F32: {
      float v;
      std::memcpy(&v, bytes.data(), 4);
      status = strata_runtime_call_push_f32(call, v);
      break;
    }
    case STRATA_RUNTIME_VALUE_F64: {
      double v;
      std::memcpy(&v, bytes.data(), 8);
      status = strata_runtime_call_push_f64(call, v);
      break;
    }
    default: {
      strata_hal_buffer_view_t *view = nullptr;
      status = strata_runtime_buffer_view_from_host(
          type, shape.data(), shape.size(), bytes.data(), bytes.size(),
          strata_allocator_system(), &view);
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

bool encodeOutputs(const strata_runtime_call_t *call, std::string *out,
                   std::string *error) {
  out->clear();
  out->append("{\"outputs\": [");
  size_t count = strata_runtime_call_result_count(call);
  for (size_t i = 0; i < count; ++i) {
    if (i) {
      out->append(", ");
    }
    strata_runtime_value_kind_t kind = strata_runtime_call_result_kind(call, i);
    strata_status_t status = nullptr;
    switch (kind) {
    case STRATA_RUNTIME_VALUE_I32: {
      int32_t v = 0;
      status = strata_runtime_call_result_i32(call, i, &v);
      out->append("{\"shape\": [], \"dtype\": \"i32\", \"data\": [");
      appendNumber(out, v);
      out->append("]}");
      break;
    }
    case STRATA_RUNTIME_VALUE_I64: {
      int64_t v = 0;
      status = strata_runtime_call_result_i64(call, i, &v);
      out->append("{\"shape\": [], \"dtype\": \"i64\", \"data\": [");
      appendNumber(out, v);
      out->append("]}");
      break;
    }
    case STRATA_RUNTIME_VALUE_F32: {
      float v = 0;
      status = strata_runtime_call_result_f32(call, i, &v);
      out->append("{\"shape\": [], \"dtype\": \"f32\", \"data\": [");
      appendFloat(out, v);
      out->append("]}");
      break;
    }
    case STRATA_RUNTIME_VALUE_F64: {
      double v = 0;
      status = strata_runtime_call_result_f64(call, i, &v);
      out->append("{\"shape\": [], \"dtype\": \"f64\", \"data\": [");
      appendFloat(out, v);
      out->append("]}");
      break;
    }
    case STRATA_RUNTIME_VALUE_BUFFER_VIEW: {
      strata_hal_buffer_view_t *view = nullptr;
      status = strata_runtime_call_result_buffer_view(call, i, &view);
      const void *data = nullptr;
      size_t length = 0;
      if (!status) {
        status = strata_runtime_buffer_view_data(view, &data, &length);
      }
      if (!status) {
        strata_hal_element_type_t type =
            strata_hal_buffer_view_element_type(view);
        const char *type_name = strata_hal_element_type_name(type);
        size_t rank = strata_hal_buffer_view_rank(view);
        out->append("{\"shape\": [");
        for (size_t d = 0; d < rank; ++d) {
          if (d) {
            out->append(", ");
          }
          appendNumber(out, strata_hal_buffer_view_dim(view, d));
        }
        out->append("], \"dtype\": \"");
        out->append(type_name ? type_name : "?");
        out->append("\", \"data\": [");
        size_t element_size = strata_hal_element_byte_size(type);
        size_t elements = element_size ? length / element_size : 0;
        const uint8_t *bytes = static_cast<const uint8_t *>(data);
        for (size_t e = 0; e < elements; ++e) {
          if (e) {
            out->append(", ");
          }
          appendElementText(out, bytes, type, e);
        }
        out->append("]}");
      }
      strata_hal_buffer_view_release(view);
      break;
    }
    default:
      *error = std::string("result ") + std::to_string(i) + " is a " +
               strata_runtime_value_kind_name(kind) +
               ", which has no JSON form";
      return false;
    }
    if (status) {
      *error = consumeStatusText(status);
      return false;
    }
  }
  out->append("]}\n");
  return true;
}

} // namespace strata::service
