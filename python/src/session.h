// session.h - the objects behind strata.Instance, strata.Session,
// strata.Function and strata.Fence: an instance with its device and its
// loop thread, a session over modules, and the functions of a session,
// called blocking or asynchronously on numpy arrays and Python numbers.
#ifndef STRATA_PYTHON_SESSION_H_
#define STRATA_PYTHON_SESSION_H_

#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>

#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "loop_thread.h"
#include "strata/runtime.h"

namespace strata::python {

namespace py = pybind11;

class Tensor;

/// strata.Instance: a VM instance and its device ("local-task" or
/// "local-sync"), shared by the sessions made from it. The loop thread on
/// which asynchronous calls complete starts with the first such call.
/// Thread-safe.
class Instance {
 public:
  /// A new instance, registered for shutdownAllInstances(). Raises
  /// strata.InvalidArgumentError for an unknown device.
  static std::shared_ptr<Instance> create(const std::string& device,
                                          uint32_t task_workers);
  /// Use create().
  Instance(const std::string& device, uint32_t task_workers);
  Instance(const Instance&) = delete;
  Instance& operator=(const Instance&) = delete;
  /// Stops the loop thread and releases the instance (without the GIL).
  ~Instance();

  strata_runtime_instance_t* get() const { return instance_; }
  const std::string& device() const { return device_; }
  uint32_t taskWorkers() const { return task_workers_; }

  /// Runs submit_fn(loop) on this instance's loop (starting its thread),
  /// which must not block. Raises strata.CancelledError after shutdown().
  /// Needs the GIL.
  strata_status_t submit(
      const std::function<strata_status_t(strata_hal_loop_t*)>& submit_fn);

  /// Stops the loop thread: asynchronous calls in flight fail with
  /// CANCELLED and later ones are refused. Releases the GIL while it waits.
  void shutdown();

 private:
  std::string device_;
  uint32_t task_workers_;
  strata_runtime_instance_t* instance_ = nullptr;
  std::mutex mutex_;
  std::unique_ptr<LoopThread> loop_;
  bool shut_down_ = false;
};

/// Stops the loop threads of every live instance (atexit: before the
/// interpreter goes away). Needs the GIL.
void shutdownAllInstances();

/// strata.Fence: a fence the host signals or fails, to gate asynchronous
/// calls (their wait=), or the signal fence of a call.
class Fence {
 public:
  /// A new pending fence.
  Fence();
  /// Takes a reference to fence.
  explicit Fence(strata_hal_fence_t* fence);
  Fence(const Fence&) = delete;
  Fence& operator=(const Fence&) = delete;
  ~Fence();
  strata_hal_fence_t* get() const { return fence_; }
  void signal();
  void fail(const std::string& message);
  /// True when reached; raises the failure of a failed fence.
  bool reached();
  /// Waits (without the GIL) up to timeout seconds (None: forever); raises
  /// the failure, or strata.DeadlineExceededError.
  void wait(const py::object& timeout);

 private:
  strata_hal_fence_t* fence_ = nullptr;
};

/// strata.Function: one function of a session. Calls made through it
/// reuse runtime call objects. Thread-safe (with the GIL).
class Function : public std::enable_shared_from_this<Function> {
 public:
  /// Resolves name ("fn" or "module.fn"); raises strata.NotFoundError.
  /// attributes: the export's reflection attributes (argN, resultN, ...).
  Function(std::shared_ptr<Instance> instance,
           strata_runtime_session_t* session, const std::string& name,
           std::vector<std::pair<std::string, std::string>> attributes);
  Function(const Function&) = delete;
  Function& operator=(const Function&) = delete;
  ~Function();

  /// Calls the function and blocks (without the GIL) until it returns.
  /// tensors: tensor results come back as strata.Tensor (no copy) instead
  /// of numpy arrays.
  py::object call(const py::args& args, bool tensors);
  /// Starts the call and returns a concurrent.futures.Future of its
  /// results, resolved on the instance's loop thread. wait: a Fence the
  /// call's work waits for, or None. tensors as for call.
  py::object callAsync(const py::args& args, const py::object& wait,
                       bool tensors);

  const std::string& name() const { return name_; }
  const std::string& fullName() const { return full_name_; }
  const std::string& callingConvention() const { return cconv_; }
  std::vector<std::string> argumentTypes() const;
  std::vector<std::string> resultTypes() const;
  /// "(tensor<2x3xf32>, i32) -> tensor<2x3xf32>"
  std::string signature() const;
  bool hasAsyncEntry() const { return has_async_; }
  py::dict attributes() const;

 private:
  struct AsyncCall;
  static void onAsyncDone(void* user, strata_runtime_call_t* call,
                          strata_status_t status);

  strata_runtime_call_t* takeCall();
  void returnCall(strata_runtime_call_t* call);
  void pushArguments(strata_runtime_call_t* call, const py::args& args);
  void pushArray(strata_runtime_call_t* call, size_t i, const py::array& array);
  void pushTensor(strata_runtime_call_t* call, size_t i, const Tensor& tensor);
  py::object readResults(strata_runtime_call_t* call, bool tensors);
  std::string attribute(const std::string& key) const;
  std::string typeOf(char kind, const std::string& reflected) const;
  [[noreturn]] void raiseArgument(size_t i, const std::string& want,
                                  const py::handle& got) const;

  std::shared_ptr<Instance> instance_;
  strata_runtime_session_t* session_;  // retained
  std::string name_;
  std::string full_name_;
  std::string cconv_;
  std::string args_;     // argument characters of the calling convention
  std::string results_;  // result characters
  std::vector<std::string> arg_types_;     // reflection "argN" ("" if none)
  std::vector<std::string> result_types_;  // reflection "resultN"
  // reflection "resultN.element_type" ("" if none)
  std::vector<std::string> result_element_types_;
  std::vector<std::pair<std::string, std::string>> attributes_;
  bool has_async_ = false;
  std::vector<strata_runtime_call_t*> idle_calls_;  // guarded by the GIL
};

/// strata.Session: the hal module, then the user's modules (each a .vmfb
/// path, .vmfb bytes or a capsule of a native strata_vm_module_t*), the
/// last being the main module.
class Session {
 public:
  Session(std::shared_ptr<Instance> instance, const py::list& modules);
  Session(const Session&) = delete;
  Session& operator=(const Session&) = delete;
  ~Session();

  std::shared_ptr<Instance> instance() const { return instance_; }
  /// The main module's name.
  std::string name() const;
  /// "fn" or "module.fn"; cached. Raises strata.NotFoundError.
  std::shared_ptr<Function> function(const std::string& name);
  /// Every export of the main module except the async twins (fn$async),
  /// by name.
  py::dict functions();
  bool contains(const std::string& name);

 private:
  std::vector<std::pair<std::string, std::string>> exportAttributes(
      const std::string& name) const;

  std::shared_ptr<Instance> instance_;
  strata_runtime_session_t* session_ = nullptr;
  std::vector<strata_vm_module_t*> modules_;  // retained
  std::map<std::string, std::shared_ptr<Function>> functions_;
};

}  // namespace strata::python

#endif  // STRATA_PYTHON_SESSION_H_
