// service_fuzzer.cpp - libFuzzer target for strata-serve's request path
// (tools/strata-serve) without sockets: the bytes after the first are what a
// client sends on one connection, fed to the server's RequestParser in
// pieces of the first byte's size (0: all at once); each whole request is
// routed (routeRequest) and, when it invokes a function, its JSON body goes
// through pushInputs into a call that is invoked (with a deadline) and
// whose results are encoded (encodeOutputs), as the server does. Model "m"
// is the HAL sample module (add); model "x" holds functions that share its
// call but declare other argument kinds and reflection types, so that every
// check of pushInputs is reached. The same bytes also go to the model
// repository's config.json reader. Every refusal must say why; nothing may
// crash, leak or hang.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "model_registry.h"
#include "oip.h"
#include "request_parser.h"
#include "strata/runtime.h"

namespace {

using strata::service::ArgumentShape;
using strata::service::Function;
using strata::service::ModelRegistry;
using strata::service::RequestEvents;
using strata::service::RequestParser;
using strata::service::Route;

constexpr size_t kMaxBody = 1 << 16;
constexpr size_t kMaxPipeline = 8;

struct Request {
  std::string url;
  std::string body;
  http_method method;
  bool too_large;
  size_t header_length;  // Inference-Header-Content-Length, as parsed
};

// Collects whole requests, pausing as the server does past a bound of
// queued answers or on a body that is too large.
struct Collector : RequestEvents {
  RequestParser* parser = nullptr;
  std::vector<Request> requests;
  bool headers_seen = false;
  bool refused = false;
  void onHeadersComplete(bool) override { headers_seen = true; }
  void onTooLarge() override {
    refused = true;
    parser->pause(true);
  }
  void onRequest() override {
    requests.push_back({parser->url(), parser->body(), parser->method(),
                        parser->tooLarge(), parser->inferenceHeaderLength()});
    if (requests.size() >= kMaxPipeline) parser->pause(true);
  }
};

struct Models {
  strata_runtime_instance_t* instance = nullptr;
  ModelRegistry registry;
  // Functions of model "x", all driving the sample's add.
  std::map<std::string, std::unique_ptr<Function>> extra;
};

std::unique_ptr<Function> extraFunction(
    const std::vector<strata_runtime_value_kind_t>& kinds,
    const std::vector<std::string>& types) {
  auto function = std::make_unique<Function>();
  function->model = "x";
  function->name = "add";
  function->argument_kinds = kinds;
  function->argument_types = types;
  // Names and recorded types as the registry reads them from reflection:
  // "a" and "b", the second recorded as ui16.
  for (size_t i = 0; i < kinds.size(); ++i) {
    function->argument_names.push_back(i ? "b" : "a");
    function->argument_recorded.push_back(i ? STRATA_HAL_ELEMENT_TYPE_UINT_16
                                            : STRATA_HAL_ELEMENT_TYPE_NONE);
  }
  function->result_kinds = {STRATA_RUNTIME_VALUE_BUFFER_VIEW};
  function->result_shapes = {strata::service::parseArgumentShape("?xf32")};
  function->result_names = {"sum"};
  function->result_recorded = {STRATA_HAL_ELEMENT_TYPE_NONE};
  for (const std::string& type : types) {
    function->argument_shapes.push_back(
        strata::service::parseArgumentShape(type));
  }
  return function;
}

Models& models() {
  static Models* made = [] {
    auto* m = new Models;
    strata_runtime_instance_options_t options;
    strata_runtime_instance_options_initialize(&options);
    options.device = "local-sync";
    strata_status_t status = strata_runtime_instance_create(
        &options, strata_allocator_system(), &m->instance);
    if (!status) {
      status = m->registry.add(m->instance, "m", STRATA_FUZZ_HAL_SAMPLE_PATH);
    }
    if (status) {
      std::fprintf(stderr, "service_fuzzer: cannot load %s\n",
                   STRATA_FUZZ_HAL_SAMPLE_PATH);
      std::abort();
    }
    using K = strata_runtime_value_kind_t;
    const K view = STRATA_RUNTIME_VALUE_BUFFER_VIEW;
    m->extra["typed"] = extraFunction({view, view}, {"2x?xf32", "?xf32"});
    m->extra["ints"] = extraFunction({view, view}, {"3xi8", "2x2xui16"});
    m->extra["bools"] = extraFunction({view, view}, {"?xi1", "f64"});
    m->extra["odd"] = extraFunction({view, view}, {"4x!xf32", "x?f16"});
    m->extra["scalars"] = extraFunction(
        {STRATA_RUNTIME_VALUE_I32, STRATA_RUNTIME_VALUE_F64}, {"i32", "f64"});
    m->extra["wide"] = extraFunction(
        {STRATA_RUNTIME_VALUE_I64, STRATA_RUNTIME_VALUE_F32}, {"", ""});
    m->extra["ref"] =
        extraFunction({STRATA_RUNTIME_VALUE_REF, view}, {"", "si64"});
    return m;
  }();
  return *made;
}

void expectMessage(const std::string& error) {
  if (error.empty()) __builtin_trap();  // every refusal says why
}

// What the server does with a request once routed to an invocation.
void invoke(Function* function, const std::string& body) {
  Models& m = models();
  const strata::service::Model* model = m.registry.findModel("m");
  Function* sample = model->functions.at("add").get();
  strata_runtime_call_t* call = nullptr;
  strata_status_t status = m.registry.takeCall(sample, &call);
  if (status) {
    expectMessage(strata::service::consumeStatusText(status));
    return;
  }
  std::string error;
  if (!strata::service::pushInputs(*function, body, call, &error)) {
    expectMessage(error);
    // The answer's body escapes the message.
    (void)strata::service::errorBody(error);
    ModelRegistry::returnCall(sample, call);
    return;
  }
  strata_runtime_call_set_deadline(call,
                                   strata_hal_deadline_after_ns(50000000));
  status = strata_runtime_call_invoke(call);
  if (status) {
    expectMessage(strata::service::consumeStatusText(status));
  } else {
    std::string out;
    if (!strata::service::encodeOutputs(call, &out, &error)) {
      expectMessage(error);
    }
  }
  ModelRegistry::returnCall(sample, call);
}

// What the server does with an Open Inference Protocol request: the
// metadata, or the request decoded (JSON and binary data), its inputs
// pushed into a call of the sample that runs, and the answer encoded with
// the outputs asked for.
void infer(Function* function, const Request& request, bool metadata) {
  Models& m = models();
  const strata::service::Model* model = m.registry.findModel("m");
  if (metadata) {
    (void)strata::service::oipModelMetadata("m", *model, *function);
    return;
  }
  size_t json_length = request.header_length;
  if (json_length == RequestParser::kBadLength) return;  // refused: 400
  if (json_length == RequestParser::kNoLength) {
    json_length = request.body.size();
  }
  strata::service::OipRequest oip;
  std::vector<strata::service::OipTensor> inputs;
  std::string error;
  if (!strata::service::oipDecodeInfer(*function, request.body, json_length,
                                       &oip, &inputs, &error)) {
    expectMessage(error);
    (void)strata::service::errorBody(error);
    return;
  }
  if (inputs.size() != function->argument_kinds.size()) __builtin_trap();
  for (const strata::service::OipTensor& input : inputs) {
    if (input.kind == STRATA_RUNTIME_VALUE_BUFFER_VIEW) {
      size_t count = 1;
      for (int64_t d : input.shape) count *= static_cast<size_t>(d);
      if (count * strata_hal_element_byte_size(input.type) !=
          input.bytes.size()) {
        __builtin_trap();  // a decoded tensor holds exactly its bytes
      }
    }
  }
  Function* sample = model->functions.at("add").get();
  strata_runtime_call_t* call = nullptr;
  strata_status_t status = m.registry.takeCall(sample, &call);
  if (status) {
    expectMessage(strata::service::consumeStatusText(status));
    return;
  }
  if (!strata::service::oipPushInputs(*function, inputs, call, &error)) {
    expectMessage(error);
    ModelRegistry::returnCall(sample, call);
    return;
  }
  strata_runtime_call_set_deadline(call,
                                   strata_hal_deadline_after_ns(50000000));
  status = strata_runtime_call_invoke(call);
  if (status) {
    expectMessage(strata::service::consumeStatusText(status));
  } else {
    std::vector<strata::service::OipTensor> results;
    if (!strata::service::oipReadResults(*function, call, &results, &error)) {
      expectMessage(error);
    } else {
      for (const auto& output : oip.outputs) {
        if (output.result >= results.size()) __builtin_trap();
      }
      std::string out;
      size_t header = 0;
      strata::service::oipEncodeInfer("m", *model, *function, oip, results,
                                      &out, &header);
      if (header > out.size()) __builtin_trap();
    }
  }
  ModelRegistry::returnCall(sample, call);
}

void handle(const Request& request) {
  Route route = strata::service::routeRequest(request.url);
  if (!request.too_large &&
      (route.kind == Route::kInfer || route.kind == Route::kModelMetadata)) {
    // "m" (the sample's add) or "x.<name>" (the functions of model "x").
    Models& m = models();
    Function* function = nullptr;
    if (route.model == "m") {
      function = m.registry.findModel("m")->functions.at("add").get();
    } else if (route.model.compare(0, 2, "x.") == 0) {
      auto it = m.extra.find(route.model.substr(2));
      if (it != m.extra.end()) function = it->second.get();
    }
    if (function) {
      infer(function, request, route.kind == Route::kModelMetadata);
    }
    return;
  }
  (void)strata::service::oipServerMetadata();
  if (request.too_large || route.kind != Route::kInvoke ||
      request.method != HTTP_POST) {
    // The 404 answer names the path.
    (void)strata::service::errorBody("no such endpoint: " + route.path);
    return;
  }
  Models& m = models();
  Function* function = nullptr;
  if (route.model == "m") {
    const strata::service::Model* model = m.registry.findModel("m");
    auto it = model->functions.find(route.function);
    if (it != model->functions.end()) function = it->second.get();
  } else if (route.model == "x") {
    auto it = m.extra.find(route.function);
    if (it != m.extra.end()) function = it->second.get();
  }
  if (function) invoke(function, request.body);
}

}  // namespace

// The repository's config.json reader (parseModelConfig) on the same
// bytes: a refusal names the key at fault; what it accepts is in range.
void parseConfig(const uint8_t* data, size_t size) {
  strata::service::ModelConfig config;
  std::string error;
  std::string text(reinterpret_cast<const char*>(data), size);
  if (!strata::service::parseModelConfig(text, &config, &error)) {
    expectMessage(error);
    return;
  }
  if (config.instance_count < 1 ||
      config.instance_count > strata::service::kMaxInstanceCount) {
    __builtin_trap();
  }
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 1) return 0;
  parseConfig(data, size);
  size_t piece = data[0] ? data[0] : size;
  const char* bytes = reinterpret_cast<const char*>(data + 1);
  size_t length = size - 1;
  Collector collector;
  RequestParser parser(kMaxBody, &collector);
  collector.parser = &parser;
  size_t at = 0;
  while (at < length) {
    size_t n = std::min(piece, length - at);
    size_t parsed = 0;
    std::string error;
    RequestParser::Result result = parser.feed(bytes + at, n, &parsed, &error);
    if (parsed > n) __builtin_trap();
    if (result == RequestParser::Result::kMalformed) {
      expectMessage(error);
      break;
    }
    if (result == RequestParser::Result::kPaused) {
      if (collector.refused) break;  // the server answers 413 and closes
      // The server answers what is queued, then resumes with the rest.
      for (const Request& request : collector.requests) handle(request);
      collector.requests.clear();
      parser.pause(false);
      at += parsed;
      continue;
    }
    at += n;
  }
  for (const Request& request : collector.requests) handle(request);
  return 0;
}
