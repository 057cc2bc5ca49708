// model_registry.cpp - models, their functions and call pools, and the JSON
// form of inputs and outputs. Requests are parsed by simdjson's DOM parser
// (one per thread, reused) through its error-code API, never a throwing
// accessor; answers are written with std::to_chars.
#include "model_registry.h"

#include <cfloat>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>

#include <simdjson.h>

#include "strata/runtime.hpp"
#include "strata/tensor_types.hpp"
#include "tensor_json.h"

namespace strata::service {

using runtime::describeTensorType;
using runtime::elementTypeName;
using runtime::halfFromDouble;
using runtime::halfToFloat;
using runtime::shapeElementCount;
namespace {

// Whether shape[0..rank) and type fit expected (from "4x16xf32" or
// "?x16xf32"; see ArgumentShape).
bool fitsType(const ArgumentShape& expected, const int64_t* shape, size_t rank,
              strata_hal_element_type_t type) {
  if (!expected.parsed || expected.element_type != type ||
      expected.dims.size() != rank) {
    return false;
  }
  for (size_t i = 0; i < rank; ++i) {
    if (expected.dims[i] >= 0 && expected.dims[i] != shape[i]) {
      return false;
    }
  }
  return true;
}

const char* scalarName(strata_runtime_value_kind_t kind) {
  switch (kind) {
    case STRATA_RUNTIME_VALUE_I32: return "i32";
    case STRATA_RUNTIME_VALUE_I64: return "i64";
    case STRATA_RUNTIME_VALUE_F32: return "f32";
    case STRATA_RUNTIME_VALUE_F64: return "f64";
    default: return nullptr;
  }
}

}  // namespace

// Reads one JSON number (or boolean) as the element type and stores its
// little-endian bytes at out. False with *error saying what is wrong with it.
// simdjson keeps an integer as INT64 when it fits, else as UINT64.
bool decodeElement(simdjson::dom::element value, strata_hal_element_type_t type,
                   uint8_t* out, std::string* error) {
  using simdjson::dom::element_type;
  uint32_t numerical = type >> 24;
  size_t bits = type & 0xFFu;
  element_type kind = value.type();
  if (numerical == STRATA_HAL_NUMERICAL_TYPE_FLOAT_IEEE) {
    double d;
    if (kind == element_type::DOUBLE) {
      d = value.get_double().value_unsafe();
    } else if (kind == element_type::INT64) {
      d = static_cast<double>(value.get_int64().value_unsafe());
    } else if (kind == element_type::UINT64) {
      d = static_cast<double>(value.get_uint64().value_unsafe());
    } else {
      *error = "is not a number";
      return false;
    }
    // A finite value beyond the type's largest would become infinity.
    double largest = bits == 32   ? static_cast<double>(FLT_MAX)
                     : bits == 16 ? 65519.0  // rounds to f16's 65504
                                  : DBL_MAX;
    if (std::isfinite(d) && std::fabs(d) > largest) {
      *error = "is out of range for " + elementTypeName(type);
      return false;
    }
    if (bits == 32) {
      float f = static_cast<float>(d);
      std::memcpy(out, &f, 4);
    } else if (bits == 64) {
      std::memcpy(out, &d, 8);
    } else {
      uint16_t h = halfFromDouble(d);
      std::memcpy(out, &h, 2);
    }
    return true;
  }
  if (numerical == STRATA_HAL_NUMERICAL_TYPE_BOOLEAN) {
    int64_t i = -1;
    if (kind == element_type::BOOL) {
      i = value.get_bool().value_unsafe() ? 1 : 0;
    } else if (kind == element_type::INT64) {
      i = value.get_int64().value_unsafe();
    }
    if (i != 0 && i != 1) {
      *error = "is not a boolean (true, false, 0 or 1)";
      return false;
    }
    *out = static_cast<uint8_t>(i);
    return true;
  }
  // Integers: signless iN takes -2^(N-1) .. 2^N-1 (as strata-run does),
  // siN the signed range, uiN the unsigned one.
  bool negative = false;
  uint64_t magnitude = 0;
  if (kind == element_type::INT64) {
    int64_t i = value.get_int64().value_unsafe();
    negative = i < 0;
    magnitude =
        negative ? 0 - static_cast<uint64_t>(i) : static_cast<uint64_t>(i);
  } else if (kind == element_type::UINT64) {
    magnitude = value.get_uint64().value_unsafe();
  } else {
    *error = "is not an integer";
    return false;
  }
  bool is_unsigned = numerical == STRATA_HAL_NUMERICAL_TYPE_INTEGER_UNSIGNED;
  bool is_signed = numerical == STRATA_HAL_NUMERICAL_TYPE_INTEGER_SIGNED;
  uint64_t max_unsigned =
      bits == 64 ? std::numeric_limits<uint64_t>::max() : (1ull << bits) - 1;
  uint64_t max_positive = is_signed ? max_unsigned >> 1 : max_unsigned;
  uint64_t max_negative = is_unsigned ? 0 : (max_unsigned >> 1) + 1;
  if ((negative && magnitude > max_negative) ||
      (!negative && magnitude > max_positive)) {
    *error = "is out of range for " + elementTypeName(type);
    return false;
  }
  uint64_t raw = negative ? 0 - magnitude : magnitude;
  std::memcpy(out, &raw, bits / 8);  // little-endian: the low bytes first
  return true;
}

// Appends element i of data (element type type) as a JSON number.
void appendElementText(std::string* out, const uint8_t* data,
                       strata_hal_element_type_t type, size_t i) {
  uint32_t numerical = type >> 24;
  size_t size = strata_hal_element_byte_size(type);
  const uint8_t* p = data + i * size;
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
      appendFloat(out, halfToFloat(h));
    }
    return;
  }
  uint64_t raw = 0;
  std::memcpy(&raw, p, size);  // little-endian
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

ArgumentShape parseArgumentShape(const std::string& text) {
  ArgumentShape out;
  size_t start = 0;
  for (;;) {
    size_t x = text.find('x', start);
    if (x == std::string::npos) {
      break;
    }
    std::string dim = text.substr(start, x - start);
    if (dim == "?") {
      out.dims.push_back(-1);
    } else {
      int64_t value = 0;
      auto [end, ec] =
          std::from_chars(dim.data(), dim.data() + dim.size(), value);
      if (ec != std::errc() || end != dim.data() + dim.size() || value < 0) {
        return ArgumentShape();
      }
      out.dims.push_back(value);
    }
    start = x + 1;
  }
  out.element_type =
      strata_hal_element_type_parse(text.data() + start, text.size() - start);
  out.parsed = out.element_type != STRATA_HAL_ELEMENT_TYPE_NONE;
  return out;
}

// Whether a recorded type is a list's: "list<E>" (an ONNX sequence) or
// "optional<E>".
static bool isListType(const std::string& recorded) {
  return recorded.compare(0, 5, "list<") == 0 ||
         recorded.compare(0, 9, "optional<") == 0;
}

std::vector<std::string> parseDimNames(const std::string& text) {
  std::vector<std::string> names;
  size_t start = 0;
  for (;;) {
    size_t comma = text.find(',', start);
    std::string name = text.substr(
        start, comma == std::string::npos ? std::string::npos : comma - start);
    // Static sizes and unnamed dims ("?") take part in no equality.
    bool symbolic = !name.empty() && name != "?" &&
                    name.find_first_not_of("0123456789") != std::string::npos;
    names.push_back(symbolic ? name : std::string());
    if (comma == std::string::npos) {
      break;
    }
    start = comma + 1;
  }
  return names;
}

std::string consumeStatusText(strata_status_t status) {
  return strata::runtime::Status(status).toString();
}

void appendJsonString(std::string* out, const std::string& text) {
  *out += '"';
  const char* p = text.data();
  const char* end = p + text.size();
  while (p < end) {
    unsigned char c = static_cast<unsigned char>(*p);
    if (c == '"' || c == '\\') {
      *out += '\\';
      *out += static_cast<char>(c);
    } else if (c == '\n') {
      *out += "\\n";
    } else if (c < 0x20 || c == 0x7F) {
      char escape[8];
      std::snprintf(escape, sizeof(escape), "\\u%04x", c);
      *out += escape;
    } else if (c >= 0x80) {
      // One UTF-8 sequence, kept when valid, else U+FFFD for its first byte.
      size_t length = c >= 0xF0 ? 4 : c >= 0xE0 ? 3 : 2;
      if (length <= static_cast<size_t>(end - p) &&
          simdjson::validate_utf8(p, length)) {
        out->append(p, length);
        p += length;
        continue;
      }
      *out += "\xEF\xBF\xBD";
    } else {
      *out += static_cast<char>(c);
    }
    ++p;
  }
  *out += '"';
}

std::string errorBody(const std::string& message) {
  std::string out = "{\"error\": ";
  appendJsonString(&out, message);
  out += "}\n";
  return out;
}

namespace {

void onKeepAliveDone(void*, strata_status_t status) {
  strata_status_free(status);
}

}  // namespace

Model::~Model() {
  for (std::unique_ptr<ModelInstance>& instance : instances) {
    if (instance->keep_alive) {
      strata_status_t status = strata_hal_fence_signal(instance->keep_alive);
      if (status) {
        strata_status_free(status);
      }
    }
  }
  for (std::unique_ptr<ModelInstance>& instance : instances) {
    if (instance->thread.joinable()) {
      instance->thread.join();
    }
    strata_hal_loop_destroy(instance->loop);
    strata_hal_fence_release(instance->keep_alive);
  }
  for (auto& [function_name, function] : functions) {
    for (std::vector<strata_runtime_call_t*>& pool : function->free_calls) {
      for (strata_runtime_call_t* call : pool) {
        strata_runtime_call_destroy(call);
      }
    }
  }
  for (std::unique_ptr<ModelInstance>& instance : instances) {
    strata_runtime_session_release(instance->session);
  }
}

size_t Model::pickInstance() const {
  size_t best = 0;
  for (size_t i = 1; i < instances.size(); ++i) {
    const ModelInstance& candidate = *instances[i];
    const ModelInstance& chosen = *instances[best];
    if (candidate.lost != chosen.lost ? chosen.lost
                                      : candidate.running < chosen.running) {
      best = i;
    }
  }
  return best;
}

ModelRegistry::~ModelRegistry() = default;

namespace {

// Starts instance's compute loop on its own thread; it runs until
// keep_alive is signalled (~Model): without an operation in flight
// strata_hal_loop_run would return at once.
strata_status_t startComputeThread(ModelInstance* instance,
                                   const std::string& label) {
  strata_allocator_t allocator = strata_allocator_system();
  STRATA_RETURN_IF_ERROR(strata_hal_loop_create(allocator, &instance->loop));
  STRATA_RETURN_IF_ERROR(
      strata_hal_fence_create_pending(allocator, &instance->keep_alive));
  STRATA_RETURN_IF_ERROR(strata_hal_loop_wait_fence(
      instance->loop, instance->keep_alive, 0, onKeepAliveDone, nullptr));
  strata_hal_loop_t* loop = instance->loop;
  instance->thread = std::thread([loop, label] {
    strata_status_t run_status = strata_hal_loop_run(loop);
    if (run_status) {
      std::fprintf(stderr, "strata-serve: model '%s': compute loop: %s\n",
                   label.c_str(), consumeStatusText(run_status).c_str());
    }
  });
  return nullptr;
}

}  // namespace

strata_status_t ModelRegistry::load(const std::string& name,
                                    const std::string& path,
                                    const std::string& version,
                                    const ModelConfig& config) {
  if (config.instance_count < 1 || config.instance_count > kMaxInstanceCount) {
    return strata_make_status(
        STRATA_STATUS_INVALID_ARGUMENT,
        "model '%s': instance_count %zu is not within 1..%zu", name.c_str(),
        config.instance_count, kMaxInstanceCount);
  }
  strata_allocator_t allocator = strata_allocator_system();
  strata_runtime_instance_t* instance = nullptr;
  STRATA_RETURN_IF_ERROR(
      strata_runtime_instance_create(&instance_options_, allocator, &instance));
  strata_status_t status = add(instance, name, path);
  // The model's session holds the instance.
  strata_runtime_instance_release(instance);
  STRATA_RETURN_IF_ERROR(status);
  Model* model = models_.at(name).get();
  model->version = version;
  model->config = config;
  std::string config_error;
  if (!applyInputConfig(model, &config_error)) {
    models_.erase(name);
    return strata_make_status(STRATA_STATUS_INVALID_ARGUMENT, "model '%s': %s",
                              name.c_str(), config_error.c_str());
  }
  // The other instances: each its own runtime instance (device and
  // workers) and session of the same module, with a call of each function
  // to seed its pool.
  for (size_t k = 1; k < config.instance_count && !status; ++k) {
    auto extra = std::make_unique<ModelInstance>();
    strata_runtime_instance_t* runtime = nullptr;
    status =
        strata_runtime_instance_create(&instance_options_, allocator, &runtime);
    if (!status) {
      status = strata_runtime_session_create_from_file(runtime, path.c_str(),
                                                       &extra->session);
      strata_runtime_instance_release(runtime);
    }
    for (auto it = model->functions.begin();
         !status && it != model->functions.end(); ++it) {
      Function* function = it->second.get();
      strata_runtime_call_t* call = nullptr;
      status = strata_runtime_call_create(
          extra->session, function->name.c_str(),
          strata_runtime_instance_allocator(
              strata_runtime_session_instance(extra->session)),
          &call);
      function->free_calls.resize(k + 1);
      if (!status) {
        function->free_calls[k].push_back(call);
      }
    }
    model->instances.push_back(std::move(extra));
  }
  for (size_t k = 0; k < model->instances.size() && !status; ++k) {
    status = startComputeThread(
        model->instances[k].get(),
        config.instance_count > 1 ? name + "#" + std::to_string(k) : name);
  }
  if (status) {
    models_.erase(name);
    return status;
  }
  for (auto& [function_name, function] : model->functions) {
    function->free_calls.resize(model->instances.size());
  }
  return nullptr;
}

void ModelRegistry::retire(const std::string& name) {
  auto it = models_.find(name);
  if (it == models_.end()) {
    return;
  }
  retired_.push_back(std::move(it->second));
  models_.erase(it);
  releaseRetired();
}

void ModelRegistry::releaseRetired() {
  for (size_t i = 0; i < retired_.size();) {
    if (retired_[i]->in_flight == 0) {
      retired_.erase(retired_.begin() + static_cast<std::ptrdiff_t>(i));
    } else {
      ++i;
    }
  }
}

strata_status_t ModelRegistry::add(strata_runtime_instance_t* instance,
                                   const std::string& name,
                                   const std::string& path) {
  if (models_.count(name)) {
    return strata_make_status(STRATA_STATUS_ALREADY_EXISTS,
                              "model '%s' is given twice", name.c_str());
  }
  strata_vm_module_t* module = nullptr;
  STRATA_RETURN_IF_ERROR(
      strata_runtime_module_load_file(instance, path.c_str(), &module));
  auto model = std::make_unique<Model>();
  model->name = name;
  model->path = path;
  model->instances.push_back(std::make_unique<ModelInstance>());
  strata_runtime_session_t* session = nullptr;
  strata_status_t status = strata_runtime_session_create(
      instance, nullptr, &module, 1,
      strata_runtime_instance_allocator(instance), &session);
  model->instances[0]->session = session;
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
      continue;  // fn$async entry points and internal initializers
    }
    auto function = std::make_unique<Function>();
    function->model = name;
    function->owner = model.get();
    function->name = export_name;
    // One call to learn the argument kinds; it seeds the pool.
    strata_runtime_call_t* call = nullptr;
    status = strata_runtime_call_create(
        session, export_name.c_str(),
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
    function->argument_shapes.resize(argument_count);
    function->argument_names.resize(argument_count);
    function->argument_recorded.resize(argument_count,
                                       STRATA_HAL_ELEMENT_TYPE_NONE);
    for (size_t i = 0; i < argument_count; ++i) {
      function->argument_kinds[i] = strata_runtime_call_argument_kind(call, i);
    }
    // Result kinds come from the calling convention ("0rr_r": after '_').
    size_t result_count = strata_runtime_call_result_count(call);
    std::string convention = info.calling_convention;
    size_t underscore = convention.find('_');
    for (size_t i = 0; i < result_count; ++i) {
      char c = underscore != std::string::npos &&
                       underscore + 1 + i < convention.size()
                   ? convention[underscore + 1 + i]
                   : 'r';
      function->result_kinds.push_back(c == 'i'   ? STRATA_RUNTIME_VALUE_I32
                                       : c == 'I' ? STRATA_RUNTIME_VALUE_I64
                                       : c == 'f' ? STRATA_RUNTIME_VALUE_F32
                                       : c == 'F'
                                           ? STRATA_RUNTIME_VALUE_F64
                                           : STRATA_RUNTIME_VALUE_BUFFER_VIEW);
    }
    function->result_shapes.resize(result_count);
    function->result_names.resize(result_count);
    function->result_recorded.resize(result_count,
                                     STRATA_HAL_ELEMENT_TYPE_NONE);
    function->has_async_entry = strata_runtime_call_has_async_entry(call) != 0;
    function->free_calls.resize(1);
    function->free_calls[0].push_back(call);
    std::vector<std::pair<size_t, std::string>> list_arguments;
    std::vector<std::pair<size_t, std::string>> list_results;
    for (size_t a = 0; a < info.attr_count; ++a) {
      const char* key = nullptr;
      const char* value = nullptr;
      if (strata_vm_module_export_attr(module, e, a, &key, &value)) {
        continue;
      }
      // "argN" is the type ("?x3x224x224xf32"), "argN.dims" the names
      // of its dimensions ("N,3,224,224"), "argN.name" its name and
      // "argN.element_type" the type it was compiled from; "resultN..."
      // the same for results. Other keys are not read here.
      std::string k = key;
      bool is_result = k.compare(0, 6, "result") == 0;
      size_t prefix = is_result ? 6 : k.compare(0, 3, "arg") == 0 ? 3 : 0;
      if (prefix == 0) {
        continue;
      }
      size_t digits = k.find_first_not_of("0123456789", prefix);
      std::string suffix =
          digits == std::string::npos ? std::string() : k.substr(digits);
      if (digits == prefix) {
        continue;
      }
      size_t index = std::strtoul(k.c_str() + prefix, nullptr, 10);
      if (index >= (is_result ? result_count : argument_count)) {
        continue;
      }
      ArgumentShape& shape = is_result ? function->result_shapes[index]
                                       : function->argument_shapes[index];
      if (suffix.empty()) {
        if (isListType(value)) {
          (is_result ? list_results : list_arguments).push_back({index, value});
        }
        if (!is_result) {
          function->argument_types[index] = value;
        }
        std::vector<std::string> names = std::move(shape.dim_names);
        shape = parseArgumentShape(value);
        shape.dim_names = std::move(names);
      } else if (suffix == ".dims") {
        shape.dim_names = parseDimNames(value);
      } else if (suffix == ".name") {
        (is_result ? function->result_names : function->argument_names)[index] =
            value;
      } else if (suffix == ".element_type") {
        // The presented type: the unsigned type named, or what a float8
        // or 4-bit tensor is presented as (schemas/ element_types.h).
        strata_hal_element_type_t presented =
            strata_hal_element_type_parse(value, std::strlen(value));
#define STRATA_RECORDED_TYPE_CASE(name, type) \
  if (std::strcmp(value, name) == 0) {        \
    presented = type;                         \
  }
        STRATA_RECORDED_ELEMENT_TYPES(STRATA_RECORDED_TYPE_CASE)
#undef STRATA_RECORDED_TYPE_CASE
        (is_result ? function->result_recorded
                   : function->argument_recorded)[index] = presented;
      }
    }
    // An ONNX sequence or optional (a vm.list, recorded "list<E>" or
    // "optional<E>") has no form in the Open Inference Protocol, whose
    // inputs and outputs are tensors: such a model is refused at load, the
    // reason naming the value, rather than failing each request.
    if (!list_arguments.empty() || !list_results.empty()) {
      bool is_result = list_arguments.empty();
      auto [index, type] =
          is_result ? list_results.front() : list_arguments.front();
      const std::string& value_name =
          (is_result ? function->result_names
                     : function->argument_names)[index];
      status = strata_make_status(
          STRATA_STATUS_UNIMPLEMENTED,
          "model '%s': function '%s' %s %s %zu%s%s%s, %s (an ONNX %s); the "
          "Open Inference Protocol has tensors only, so strata-serve does "
          "not serve it",
          name.c_str(), export_name.c_str(), is_result ? "returns" : "takes",
          is_result ? "result" : "argument", index,
          value_name.empty() ? "" : " ('", value_name.c_str(),
          value_name.empty() ? "" : "')", type.c_str(),
          type.compare(0, 5, "list<") == 0 ? "sequence" : "optional");
      // The function joins the model only for ~Model to free its call.
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

const Model* ModelRegistry::findModel(const std::string& name) const {
  auto it = models_.find(name);
  return it == models_.end() ? nullptr : it->second.get();
}

std::string ModelRegistry::modelNames() const {
  std::string out;
  for (const auto& [name, model] : models_) {
    out += (out.empty() ? "" : ", ") + name;
  }
  return out;
}

std::string ModelRegistry::functionNames(const Model& model) {
  std::string out;
  for (const auto& [name, function] : model.functions) {
    out += (out.empty() ? "" : ", ") + name;
  }
  return out;
}

strata_status_t ModelRegistry::takeCall(Function* function,
                                        strata_runtime_call_t** out,
                                        size_t instance) {
  std::vector<strata_runtime_call_t*>& pool = function->free_calls[instance];
  if (!pool.empty()) {
    *out = pool.back();
    pool.pop_back();
    return nullptr;
  }
  strata_runtime_session_t* session =
      function->owner->instances[instance]->session;
  return strata_runtime_call_create(
      session, function->name.c_str(),
      strata_runtime_instance_allocator(
          strata_runtime_session_instance(session)),
      out);
}

void ModelRegistry::returnCall(Function* function, strata_runtime_call_t* call,
                               size_t instance) {
  strata_runtime_call_reset(call);
  function->free_calls[instance].push_back(call);
}

bool pushInputs(const Function& function, const std::string& body,
                strata_runtime_call_t* call, std::string* error) {
  using simdjson::dom::element_type;
  auto where = [&] { return function.model + "." + function.name; };
  // One parser per thread: it keeps its buffers between requests, up to
  // kKeptBytes; the buffers of a larger body are let go when it is done.
  constexpr size_t kKeptBytes = size_t(1) << 20;
  thread_local simdjson::dom::parser parser;
  thread_local std::vector<uint8_t> bytes;
  struct Trim {
    ~Trim() {
      if (parser.capacity() > kKeptBytes) {
        parser = simdjson::dom::parser();
      }
      if (bytes.capacity() > kKeptBytes) {
        std::vector<uint8_t>().swap(bytes);
      }
    }
  } trim;
  simdjson::dom::element request;
  simdjson::error_code json_error =
      parser.parse(body.data(), body.size()).get(request);
  if (json_error) {
    *error = std::string("the request body is not valid JSON (") +
             simdjson::error_message(json_error) + ")";
    return false;
  }
  simdjson::dom::array inputs;
  if (request.type() != element_type::OBJECT) {
    *error = "the request body must be a JSON object with \"inputs\"";
    return false;
  }
  if (request["inputs"].get_array().get(inputs)) {
    *error =
        "the request needs \"inputs\": an array of "
        "{\"shape\", \"dtype\", \"data\"}";
    return false;
  }
  size_t count = function.argument_kinds.size();
  size_t given = inputs.size();
  if (given != count) {
    *error = where() + " takes " + std::to_string(count) + " input" +
             (count == 1 ? "" : "s") + ", got " + std::to_string(given);
    return false;
  }
  // The first size seen of each named dimension: (input, dim, size).
  struct Seen {
    size_t input;
    size_t dim;
    int64_t size;
  };
  std::map<std::string, Seen, std::less<>> symbols;
  size_t i = 0;
  for (simdjson::dom::element input : inputs) {
    auto name = [i] { return "input " + std::to_string(i); };
    simdjson::dom::object object;
    if (input.get_object().get(object)) {
      *error = name() + " must be an object with shape, dtype and data";
      return false;
    }
    simdjson::dom::array shape_array;
    std::string_view dtype;
    simdjson::dom::array data;
    if (object["shape"].get_array().get(shape_array)) {
      *error = name() + " needs \"shape\": an array of dimensions";
      return false;
    }
    if (object["dtype"].get_string().get(dtype)) {
      *error = name() + " needs \"dtype\": a string such as \"f32\"";
      return false;
    }
    if (object["data"].get_array().get(data)) {
      *error = name() + " needs \"data\": a flat array of its elements";
      return false;
    }
    int64_t shape[STRATA_HAL_MAX_RANK];
    size_t rank = 0;
    for (simdjson::dom::element dim : shape_array) {
      int64_t d = -1;
      if (dim.type() == element_type::INT64) {
        d = dim.get_int64().value_unsafe();
      }
      if (d < 0 || d > (int64_t{1} << 40)) {
        *error = name() +
                 " has a shape that is not an array of "
                 "non-negative integers";
        return false;
      }
      if (rank == STRATA_HAL_MAX_RANK) {
        *error = name() + " has rank " + std::to_string(shape_array.size()) +
                 ", more than " + std::to_string(STRATA_HAL_MAX_RANK);
        return false;
      }
      shape[rank++] = d;
    }
    strata_hal_element_type_t type =
        strata_hal_element_type_parse(dtype.data(), dtype.size());
    if (type == STRATA_HAL_ELEMENT_TYPE_NONE) {
      *error = name() + " has an unknown dtype '" + std::string(dtype) +
               "' (f16, f32, f64, i1, i8, i16, i32, i64, si8.., ui8..)";
      return false;
    }
    auto actual = [&] { return describeTensorType(shape, rank, type); };
    size_t element_size = strata_hal_element_byte_size(type);
    uint64_t element_count = 0;
    if (!shapeElementCount(std::vector<int64_t>(shape, shape + rank),
                           element_size, &element_count)) {
      *error = name() + " is too large (" + actual() + ")";
      return false;
    }
    strata_runtime_value_kind_t kind = function.argument_kinds[i];
    if (const char* scalar = scalarName(kind)) {
      if (rank != 0 || dtype != scalar) {
        *error = name() + " of " + where() + " must be a " + scalar +
                 " scalar (shape [], dtype \"" + scalar + "\"), got " +
                 actual();
        return false;
      }
    } else if (kind != STRATA_RUNTIME_VALUE_BUFFER_VIEW) {
      *error = name() + " of " + where() + " is a " +
               strata_runtime_value_kind_name(kind) +
               ", which has no JSON form";
      return false;
    } else if (!function.argument_types[i].empty() &&
               !fitsType(function.argument_shapes[i], shape, rank, type)) {
      *error = name() + " of " + where() + " must be " +
               function.argument_types[i] + ", got " + actual();
      return false;
    } else {
      const std::vector<std::string>& names =
          function.argument_shapes[i].dim_names;
      for (size_t d = 0; d < names.size() && d < rank; ++d) {
        if (names[d].empty()) {
          continue;
        }
        auto [it, inserted] =
            symbols.try_emplace(names[d], Seen{i, d, shape[d]});
        if (!inserted && it->second.size != shape[d]) {
          *error = name() + " of " + where() + " has dimension " +
                   std::to_string(d) + " of size " + std::to_string(shape[d]) +
                   " but input " + std::to_string(it->second.input) +
                   " has dimension " + std::to_string(it->second.dim) +
                   " of size " + std::to_string(it->second.size) +
                   "; the model names both '" + names[d] + "'";
          return false;
        }
      }
    }
    size_t data_size = data.size();
    if (data_size != element_count) {
      *error = name() + " is " + actual() + " and needs " +
               std::to_string(element_count) + " elements in \"data\", got " +
               std::to_string(data_size);
      return false;
    }
    bytes.resize(element_count * element_size);
    uint8_t* out = bytes.data();
    size_t index = 0;
    for (simdjson::dom::element value : data) {
      std::string why;
      if (!decodeElement(value, type, out, &why)) {
        *error = name() + " element " + std::to_string(index) + " " + why;
        return false;
      }
      out += element_size;
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
        strata_hal_buffer_view_t* view = nullptr;
        status = strata_runtime_buffer_view_from_host(
            type, shape, rank, bytes.data(), bytes.size(),
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
    ++i;
  }
  return true;
}

bool encodeOutputs(const strata_runtime_call_t* call, std::string* out,
                   std::string* error) {
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
        strata_hal_buffer_view_t* view = nullptr;
        status = strata_runtime_call_result_buffer_view(call, i, &view);
        const void* data = nullptr;
        size_t length = 0;
        if (!status) {
          status = strata_runtime_buffer_view_data(view, &data, &length);
        }
        if (!status) {
          strata_hal_element_type_t type =
              strata_hal_buffer_view_element_type(view);
          const char* type_name = strata_hal_element_type_name(type);
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
          const uint8_t* bytes = static_cast<const uint8_t*>(data);
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

namespace {

bool readCount(simdjson::dom::element value, const std::string& key,
               uint64_t* out, std::string* error) {
  if (value.type() == simdjson::dom::element_type::INT64 &&
      value.get_int64().value_unsafe() >= 0) {
    *out = static_cast<uint64_t>(value.get_int64().value_unsafe());
    return true;
  }
  *error = "\"" + key + "\" must be a non-negative integer";
  return false;
}

// config.json's "inputs": [{"name": "...", "shape": [-1, 3, ...]}, ...].
bool readInputs(simdjson::dom::element value,
                std::vector<ModelConfig::Input>* out, std::string* error) {
  simdjson::dom::array entries;
  if (value.get_array().get(entries)) {
    *error = "\"inputs\" must be an array of {\"name\", \"shape\"} objects";
    return false;
  }
  for (simdjson::dom::element entry : entries) {
    std::string where = "inputs[" + std::to_string(out->size()) + "]";
    simdjson::dom::object object;
    if (entry.get_object().get(object)) {
      *error = "\"" + where + "\" must be an object";
      return false;
    }
    ModelConfig::Input input;
    for (auto [key_view, field] : object) {
      std::string key(key_view);
      if (key == "name") {
        std::string_view name;
        if (field.get_string().get(name) || name.empty()) {
          *error = "\"" + where + ".name\" must be a non-empty string";
          return false;
        }
        input.name = std::string(name);
      } else if (key == "shape") {
        simdjson::dom::array dims;
        if (field.get_array().get(dims)) {
          *error = "\"" + where + ".shape\" must be an array of sizes";
          return false;
        }
        for (simdjson::dom::element dim : dims) {
          if (dim.type() != simdjson::dom::element_type::INT64 ||
              dim.get_int64().value_unsafe() < -1 ||
              input.shape.size() == kMaxConfigRank) {
            *error = "\"" + where + ".shape\" must be at most " +
                     std::to_string(kMaxConfigRank) +
                     " sizes, each -1 (any) or >= 0, got " +
                     std::string(simdjson::minify(field));
            return false;
          }
          input.shape.push_back(dim.get_int64().value_unsafe());
        }
      } else {
        *error = "unknown key \"" + where + "." + key + "\" (name, shape)";
        return false;
      }
    }
    out->push_back(std::move(input));
  }
  return true;
}

}  // namespace

bool applyInputConfig(Model* model, std::string* error) {
  const std::vector<ModelConfig::Input>& inputs = model->config.inputs;
  if (inputs.empty()) {
    return true;
  }
  auto main = model->functions.find("main");
  if (main == model->functions.end() && model->functions.size() != 1) {
    *error =
        "config.json: \"inputs\" describes the model's function, and "
        "the module has several and none is 'main': " +
        ModelRegistry::functionNames(*model);
    return false;
  }
  Function* function = main != model->functions.end()
                           ? main->second.get()
                           : model->functions.begin()->second.get();
  size_t count = function->argument_kinds.size();
  if (inputs.size() > count) {
    *error = "config.json lists " + std::to_string(inputs.size()) +
             " inputs; function '" + function->name + "' takes " +
             std::to_string(count);
    return false;
  }
  for (size_t i = 0; i < inputs.size(); ++i) {
    const ModelConfig::Input& input = inputs[i];
    std::string label = "config.json inputs[" + std::to_string(i) +
                        "] (argument " + std::to_string(i) +
                        (function->argument_names[i].empty()
                             ? std::string()
                             : " '" + function->argument_names[i] + "'") +
                        ")";
    if (!input.shape.empty()) {
      ArgumentShape& shape = function->argument_shapes[i];
      if (!shape.parsed) {
        *error = label + ": the module gives no tensor shape to narrow";
        return false;
      }
      if (shape.dims.size() != input.shape.size()) {
        *error = label + ": shape has " + std::to_string(input.shape.size()) +
                 " dimensions, the module's " +
                 std::to_string(shape.dims.size()) + " (" +
                 function->argument_types[i] + ")";
        return false;
      }
      std::vector<int64_t> dims = shape.dims;
      for (size_t d = 0; d < dims.size(); ++d) {
        int64_t want = input.shape[d];
        if (want < 0) {
          continue;
        }
        if (dims[d] >= 0 && dims[d] != want) {
          *error = label + ": dimension " + std::to_string(d) + " is " +
                   std::to_string(want) + ", the module's is " +
                   std::to_string(dims[d]) + " (" +
                   function->argument_types[i] + ")";
          return false;
        }
        dims[d] = want;
      }
      if (model->config.max_batch_size > 0 && dims[0] >= 0) {
        *error = label + ": dimension 0 is the batch (max_batch_size " +
                 std::to_string(model->config.max_batch_size) +
                 "): it must stay -1";
        return false;
      }
      shape.dims = std::move(dims);
    }
    if (!input.name.empty()) {
      function->argument_names[i] = input.name;
    }
  }
  for (size_t i = 0; i < count; ++i) {
    for (size_t j = 0; j < i; ++j) {
      if (!function->argument_names[i].empty() &&
          function->argument_names[i] == function->argument_names[j]) {
        *error = "config.json: arguments " + std::to_string(j) + " and " +
                 std::to_string(i) + " of function '" + function->name +
                 "' are both named '" + function->argument_names[i] + "'";
        return false;
      }
    }
  }
  return true;
}

bool parseModelConfig(const std::string& text, ModelConfig* config,
                      std::string* error) {
  simdjson::dom::parser parser;
  simdjson::dom::element root;
  simdjson::error_code json_error =
      parser.parse(text.data(), text.size()).get(root);
  if (json_error) {
    *error = std::string("not valid JSON (") +
             simdjson::error_message(json_error) + ")";
    return false;
  }
  simdjson::dom::object object;
  if (root.get_object().get(object)) {
    *error = "not a JSON object";
    return false;
  }
  ModelConfig out;
  uint64_t value = 0;
  for (auto [key_view, element] : object) {
    std::string key(key_view);
    if (key == "max_batch_size") {
      if (!readCount(element, key, &value, error)) {
        return false;
      }
      out.max_batch_size = value;
    } else if (key == "instance_count") {
      if (element.type() != simdjson::dom::element_type::INT64 ||
          element.get_int64().value_unsafe() < 1 ||
          element.get_int64().value_unsafe() >
              static_cast<int64_t>(kMaxInstanceCount)) {
        *error = "\"instance_count\" must be an integer within 1.." +
                 std::to_string(kMaxInstanceCount) + ", got " +
                 std::string(simdjson::minify(element));
        return false;
      }
      out.instance_count =
          static_cast<size_t>(element.get_int64().value_unsafe());
    } else if (key == "request_timeout_ms") {
      if (!readCount(element, key, &value, error)) {
        return false;
      }
      out.request_timeout_ms = value;
    } else if (key == "dynamic_batching") {
      simdjson::dom::object batching;
      if (element.get_object().get(batching)) {
        *error = "\"dynamic_batching\" must be an object";
        return false;
      }
      out.dynamic_batching = true;
      for (auto [inner_view, inner] : batching) {
        std::string inner_key(inner_view);
        if (inner_key == "max_queue_delay_microseconds") {
          if (!readCount(inner, inner_key, &out.max_queue_delay_us, error)) {
            return false;
          }
        } else if (inner_key == "preferred_batch_size") {
          simdjson::dom::array sizes;
          if (inner.get_array().get(sizes)) {
            *error = "\"preferred_batch_size\" must be an array of sizes";
            return false;
          }
          for (simdjson::dom::element size : sizes) {
            if (!readCount(size, "preferred_batch_size", &value, error)) {
              return false;
            }
            out.preferred_batch_sizes.push_back(value);
          }
        } else {
          *error = "unknown key \"dynamic_batching." + inner_key +
                   "\" (max_queue_delay_microseconds, preferred_batch_size)";
          return false;
        }
      }
    } else if (key == "inputs") {
      if (!readInputs(element, &out.inputs, error)) {
        return false;
      }
    } else {
      *error = "unknown key \"" + key +
               "\" (max_batch_size, dynamic_batching, instance_count, "
               "request_timeout_ms, inputs)";
      return false;
    }
  }
  if (out.dynamic_batching && out.max_batch_size == 0) {
    *error = "\"dynamic_batching\" needs a \"max_batch_size\" above 0";
    return false;
  }
  for (size_t size : out.preferred_batch_sizes) {
    if (size == 0 || size > out.max_batch_size) {
      *error = "preferred_batch_size " + std::to_string(size) +
               " is not within 1.." + std::to_string(out.max_batch_size) +
               " (max_batch_size)";
      return false;
    }
  }
  *config = out;
  return true;
}

}  // namespace strata::service
