// model_registry.h - the models a service serves: one session per .vmfb
// and instance of the model, its exported functions with their argument kinds
// and reflection types, pools of reusable calls, and the JSON <-> tensor
// conversion of requests
// ({"inputs": [{"shape": [4, 16], "dtype": "f32", "data": [...]}]}) and
// responses ({"outputs": [...]} in the same form).
//
// Threading: the registry and its functions are built before serving and
// read-only after, except the call pools, which only the HTTP loop thread
// touches. A call taken from a pool belongs to one request until it is
// returned; it may travel to the compute thread and back in between.
#ifndef STRATA_TOOLS_STRATA_SERVE_MODEL_REGISTRY_H_
#define STRATA_TOOLS_STRATA_SERVE_MODEL_REGISTRY_H_

#include <map>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "strata/runtime.h"

namespace strata::service {

/// An argument's reflection type, parsed: dims (-1 for "?") and element
/// type. Not parsed when the type has no JSON form.
struct ArgumentShape {
  bool parsed = false;
  std::vector<int64_t> dims;
  strata_hal_element_type_t element_type = STRATA_HAL_ELEMENT_TYPE_NONE;
  /// The symbolic name of each dimension from the reflection's argN.dims
  /// ("N,3,224,224": {"N", "", "", ""}); empty when absent. Two arguments'
  /// dimensions of one name must be equal in a call.
  std::vector<std::string> dim_names;
};

/// One exported function of a model (not its "fn$async" entry point).
struct Function {
  std::string model;
  std::string name;
  /// "4x16xf32" from the export's reflection attribute argN, "" when absent.
  std::vector<std::string> argument_types;
  /// argument_types parsed, for checking requests.
  std::vector<ArgumentShape> argument_shapes;
  std::vector<strata_runtime_value_kind_t> argument_kinds;
  /// The reflection's argN.name ("" when absent).
  std::vector<std::string> argument_names;
  /// The reflection's argN.element_type ("ui8" for a tensor compiled to
  /// signless i8 from an unsigned one); NONE when absent.
  std::vector<strata_hal_element_type_t> argument_recorded;
  /// The same for results: kinds (from the signature), resultN parsed,
  /// resultN.name and resultN.element_type.
  std::vector<strata_runtime_value_kind_t> result_kinds;
  std::vector<ArgumentShape> result_shapes;
  std::vector<std::string> result_names;
  std::vector<strata_hal_element_type_t> result_recorded;
  bool has_async_entry = false;
  /// Calls ready for reuse (reset, no arguments), per instance of the
  /// model (a call belongs to its instance's session). Owned.
  std::vector<std::vector<strata_runtime_call_t*>> free_calls;
  /// The model the function belongs to (borrowed).
  struct Model* owner = nullptr;
};

/// A model's serving configuration: its repository config.json, or the
/// defaults for a model given by --model.
struct ModelConfig {
  /// The largest batch (rows along dimension 0) a call takes; 0: requests
  /// are never batched.
  size_t max_batch_size = 0;
  /// Requests arriving within max_queue_delay_us of the first one waiting
  /// are concatenated into one call (when dynamic_batching).
  bool dynamic_batching = false;
  uint64_t max_queue_delay_us = 0;
  /// A batch of one of these sizes is sent at once, without waiting.
  std::vector<size_t> preferred_batch_sizes;
  /// Instances of the model: each its own device, session, compute loop
  /// and thread (1..kMaxInstanceCount).
  size_t instance_count = 1;
  /// A call's deadline (0: the server's --request-timeout).
  uint64_t request_timeout_ms = 0;
  /// "inputs": entry i describes argument i of the model's function
  /// (main, or its only export): the name the protocol gives it (empty:
  /// the module's) and a shape that narrows the module's (empty: the
  /// module's; -1: any size the module takes there).
  struct Input {
    std::string name;
    std::vector<int64_t> shape;
  };
  std::vector<Input> inputs;
};

/// The most instances config.json may ask for.
constexpr size_t kMaxInstanceCount = 64;
/// The most dimensions a shape of config.json's "inputs" may have.
constexpr size_t kMaxConfigRank = 32;

/// Reads a model's config.json ({"max_batch_size": 8, "dynamic_batching":
/// {"max_queue_delay_microseconds": 500, "preferred_batch_size": [4, 8]},
/// "instance_count": 1, "request_timeout_ms": 1000, "inputs": [{"name":
/// "image", "shape": [-1, 3, 224, 224]}]}). False with *error naming the
/// key at fault; unknown keys are errors too.
bool parseModelConfig(const std::string& text, ModelConfig* config,
                      std::string* error);

/// One instance of a model: its own runtime instance (device and task
/// workers), session, compute loop and the thread that runs it.
struct ModelInstance {
  strata_runtime_session_t* session = nullptr;  // owned
  /// The compute loop and its thread (owned; null for a model made by
  /// add() alone).
  strata_hal_loop_t* loop = nullptr;
  strata_hal_fence_t* keep_alive = nullptr;
  std::thread thread;
  /// Calls submitted to this instance and not yet answered (HTTP loop
  /// thread only).
  size_t running = 0;
  /// A call of it failed UNAVAILABLE: its device was lost (a kernel
  /// passed its deadline) and it cannot run until restarted (HTTP loop
  /// thread only).
  bool lost = false;
};

struct Model {
  Model() = default;
  Model(const Model&) = delete;
  Model& operator=(const Model&) = delete;
  /// Stops the compute threads (their loops must be idle: no call in
  /// flight), then frees the calls and the sessions.
  ~Model();

  std::string name;
  /// The version served ("" for a model given by --model, which has none).
  std::string version;
  std::string path;
  ModelConfig config;
  /// config.instance_count of them (one for a model made by add() alone).
  std::vector<std::unique_ptr<ModelInstance>> instances;
  std::map<std::string, std::unique_ptr<Function>> functions;
  /// Calls of the model submitted or queued and not yet answered (HTTP
  /// loop thread only).
  size_t in_flight = 0;

  /// The instance with the fewest calls running (the lowest index of
  /// those): a free one when there is one. Instances whose device was lost
  /// are taken only when every one was.
  size_t pickInstance() const;
};

class ModelRegistry {
 public:
  ModelRegistry() = default;
  ModelRegistry(const ModelRegistry&) = delete;
  ModelRegistry& operator=(const ModelRegistry&) = delete;
  ~ModelRegistry();

  /// Loads path as the model called name and makes a session for it (no
  /// compute thread: see load()).
  strata_status_t add(strata_runtime_instance_t* instance,
                      const std::string& name, const std::string& path);

  /// The options load() creates each model's instance with (copied; the
  /// device name and public key are borrowed and must outlive the
  /// registry).
  void setInstanceOptions(const strata_runtime_instance_options_t& options) {
    instance_options_ = options;
  }
  /// Loads path as model name (version, config): config.instance_count
  /// instances, each its own runtime instance (device and workers),
  /// session, compute loop and thread, started here.
  strata_status_t load(const std::string& name, const std::string& path,
                       const std::string& version, const ModelConfig& config);
  /// Takes model name out of service: it is no longer found; it is freed
  /// (its compute thread stopped) by releaseRetired once its calls are
  /// answered.
  void retire(const std::string& name);
  /// Frees the retired models whose calls are all answered.
  void releaseRetired();

  const Model* findModel(const std::string& name) const;
  /// Comma-separated names, for error messages.
  std::string modelNames() const;
  static std::string functionNames(const Model& model);

  /// A call of function with no arguments on the model's instance
  /// `instance`: from its pool, or new.
  strata_status_t takeCall(Function* function, strata_runtime_call_t** out,
                           size_t instance = 0);
  /// Returns a call (reset here) to function's pool of its instance.
  static void returnCall(Function* function, strata_runtime_call_t* call,
                         size_t instance = 0);

  const std::map<std::string, std::unique_ptr<Model>>& models() const {
    return models_;
  }

 private:
  std::map<std::string, std::unique_ptr<Model>> models_;
  std::vector<std::unique_ptr<Model>> retired_;
  strata_runtime_instance_options_t instance_options_{};
};

/// Parses a reflection type: "4x16xf32" -> dims {4, 16} and f32;
/// "?x16xf32" -> {-1, 16}; "f32" -> no dims. Anything else (a type the JSON
/// form cannot express) stays unparsed, and no input fits it.
ArgumentShape parseArgumentShape(const std::string& text);

/// Parses a reflection's argN.dims ("N,3,224,224") into one name per
/// dimension, "" for a static or unnamed ("?") one.
std::vector<std::string> parseDimNames(const std::string& text);

/// Decodes body (the request JSON) and pushes its inputs into call,
/// checking them against function's argument kinds and reflection types,
/// and the dimensions two arguments share by name against each other.
/// False with *error (a message for a 400 answer) when the body is not
/// valid JSON, not of the expected form, or does not fit the function.
bool pushInputs(const Function& function, const std::string& body,
                strata_runtime_call_t* call, std::string* error);

/// Encodes the results of a completed call as {"outputs": [...]}. False with
/// *error when a result cannot be read or has no JSON form.
bool encodeOutputs(const strata_runtime_call_t* call, std::string* out,
                   std::string* error);

/// {"error": message}, with message escaped (invalid UTF-8 replaced).
std::string errorBody(const std::string& message);

/// The text of a status (consumed): strata::runtime::Status::toString.
std::string consumeStatusText(strata_status_t status);

/// Applies model->config.inputs to the model's function (main, or its
/// only export): the names the protocol gives its arguments and the shapes
/// that narrow the module's (checked against them: the same rank, a static
/// size kept, dimension 0 left -1 when the model batches). False with
/// *error naming the entry and dimension at fault.
bool applyInputConfig(Model* model, std::string* error);

}  // namespace strata::service

#endif  // STRATA_TOOLS_STRATA_SERVE_MODEL_REGISTRY_H_
