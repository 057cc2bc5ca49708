// session.cpp - instances (device + loop thread), sessions over modules,
// fences, and functions called blocking (GIL released while the function
// runs) or asynchronously (a concurrent.futures.Future resolved on the
// instance's loop thread).
#include "session.h"

#include <climits>
#include <cstring>

#include "calling_convention.h"
#include "errors.h"
#include "tensor_type_match.h"
#include "values.h"

namespace strata::python {

namespace {

/// A vm.list (owned) for a Python value passed where an export records
/// `want` as "list<E>" (a Python list or tuple of E) or "optional<E>"
/// (None, or one E). Elements are numpy arrays (or what numpy.asarray
/// takes), strata.Tensors, or again lists for nested list types.
strata_vm_list_t* listFromPython(const py::handle& value,
                                 const std::string& want, size_t index,
                                 const std::string& function) {
  tools::BoundaryType type = tools::boundaryType(want);
  std::string what = "argument " + std::to_string(index) + " of " + function;
  std::vector<py::object> items;
  if (type.kind == tools::BoundaryType::kOptional) {
    if (!value.is_none()) {
      items.push_back(py::reinterpret_borrow<py::object>(value));
    }
  } else if (PyList_Check(value.ptr()) || PyTuple_Check(value.ptr())) {
    for (py::handle item : value) {
      items.push_back(py::reinterpret_borrow<py::object>(item));
    }
  } else {
    raiseError(
        STRATA_STATUS_INVALID_ARGUMENT,
        what + " is a " + want + ": pass a Python list of arrays, not " +
            std::string(py::str(py::type::handle_of(value).attr("__name__"))));
  }
  strata_vm_list_t* list = nullptr;
  check(strata_vm_list_create(items.size(), strata_allocator_system(), &list));
  struct Guard {
    strata_vm_list_t* list;
    ~Guard() {
      if (list) {
        strata_vm_list_release(list);
      }
    }
  } guard{list};
  tools::BoundaryType element = tools::boundaryType(type.element);
  for (const py::object& item : items) {
    strata_vm_ref_object_t* ref = nullptr;
    if (element.kind != tools::BoundaryType::kTensor) {
      ref = strata_vm_list_as_ref(
          listFromPython(item, type.element, index, function));
    } else if (py::isinstance<Tensor>(item)) {
      Tensor& tensor = item.cast<Tensor&>();
      std::string got = tensor.typeText();
      if (!type.element.empty() &&
          !tools::tensorTypeMatches(type.element, got) &&
          !tools::unsignedFitsSignless(type.element, got)) {
        raiseError(STRATA_STATUS_INVALID_ARGUMENT, "an element of " + what +
                                                       " is a " + type.element +
                                                       " tensor, not " + got);
      }
      strata_hal_buffer_view_t* view = tensor.get();
      strata_hal_element_type_t type =
          strata_hal_buffer_view_element_type(view);
      if ((type >> 24) == STRATA_HAL_NUMERICAL_TYPE_INTEGER_UNSIGNED) {
        // The program holds unsigned tensors signless (fitArgumentType):
        // a view of the same buffer says so.
        strata_hal_buffer_view_t* signless = nullptr;
        check(strata_hal_buffer_view_create(
            strata_hal_buffer_view_buffer(view),
            strata_hal_buffer_view_shape(view),
            strata_hal_buffer_view_rank(view),
            STRATA_HAL_ELEMENT_TYPE(STRATA_HAL_NUMERICAL_TYPE_INTEGER,
                                    strata_hal_element_byte_size(type) * 8),
            strata_allocator_system(), &signless));
        ref = strata_hal_buffer_view_as_ref(signless);
      } else {
        ref = strata_hal_buffer_view_as_ref(view);
        strata_vm_ref_retain(ref);
      }
    } else {
      py::array array = py::reinterpret_borrow<py::array>(
          py::module_::import("numpy").attr("asarray")(item));
      ref = strata_hal_buffer_view_as_ref(
          viewFromArray(array, type.element, index, function));
    }
    strata_status_t status =
        strata_vm_list_push(list, strata_vm_variant_ref(ref));
    strata_vm_ref_release(ref);
    check(status);
  }
  guard.list = nullptr;
  return list;
}

/// A vm.list result as Python: a list of its elements for "list<E>" (or
/// nothing recorded), None or the value for "optional<E>".
py::object listToPython(strata_vm_list_t* list, const std::string& want,
                        bool tensors) {
  tools::BoundaryType type = tools::boundaryType(want);
  size_t size = strata_vm_list_size(list);
  std::string element =
      type.kind == tools::BoundaryType::kTensor ? "" : type.element;
  auto get = [&](size_t k) -> py::object {
    strata_vm_variant_t value;
    check(strata_vm_list_get(list, k, &value));
    strata_vm_list_t* nested = value.type == STRATA_VM_VALUE_REF
                                   ? strata_vm_list_from_ref(value.value.ref)
                                   : nullptr;
    if (nested) {
      return listToPython(nested, element, tensors);
    }
    // An unsigned element ("list<?xui8>") comes back unsigned.
    return fromVariant(value, tools::recordedUnsignedElement(element), tensors);
  };
  if (type.kind == tools::BoundaryType::kOptional && size <= 1) {
    return size == 0 ? py::none() : get(0);
  }
  py::list out;
  for (size_t k = 0; k < size; ++k) {
    out.append(get(k));
  }
  return out;
}

/// The name a capsule of a native module must carry.
constexpr const char kModuleCapsuleName[] = "strata_vm_module_t";

/// How many idle call objects a function keeps for reuse.
constexpr size_t kIdleCalls = 4;

std::mutex registry_mutex;
std::vector<std::weak_ptr<Instance>>* registry =
    new std::vector<std::weak_ptr<Instance>>();

// concurrent.futures.Future, looked up once (leaked: see errors.cpp).
py::handle futureClass() {
  static py::object* future =
      new py::object(py::module_::import("concurrent.futures").attr("Future"));
  return *future;
}

// "str ('abc')", "int (4294967296)", reprs shortened.
std::string describeValue(const py::handle& value) {
  std::string type = py::str(py::type::handle_of(value).attr("__name__"));
  std::string repr = py::repr(value);
  if (repr.size() > 40) {
    repr = repr.substr(0, 37) + "...";
  }
  return type + " (" + repr + ")";
}

// Python ints, bools, numpy integers and 0-d integer arrays; not floats.
bool toInt64(const py::handle& value, int64_t* out) {
  if (PyFloat_Check(value.ptr()) || !PyIndex_Check(value.ptr())) {
    return false;
  }
  PyObject* index = PyNumber_Index(value.ptr());
  if (!index) {
    PyErr_Clear();
    return false;
  }
  int overflow = 0;
  long long v = PyLong_AsLongLongAndOverflow(index, &overflow);
  Py_DECREF(index);
  if (overflow || (v == -1 && PyErr_Occurred())) {
    PyErr_Clear();
    return false;
  }
  *out = v;
  return true;
}

// Python floats and ints, numpy scalars and 0-d arrays.
bool toDouble(const py::handle& value, double* out) {
  if (PyUnicode_Check(value.ptr()) || PyBytes_Check(value.ptr())) {
    return false;
  }
  if (py::isinstance<py::array>(value) &&
      py::reinterpret_borrow<py::array>(value).ndim() != 0) {
    return false;
  }
  double v = PyFloat_AsDouble(value.ptr());
  if (v == -1.0 && PyErr_Occurred()) {
    PyErr_Clear();
    return false;
  }
  *out = v;
  return true;
}

// A module from a .vmfb path, .vmfb bytes or a native module capsule.
// Owned by the caller.
strata_vm_module_t* loadModule(Instance& instance, const py::handle& source) {
  if (PyCapsule_CheckExact(source.ptr())) {
    const char* name = PyCapsule_GetName(source.ptr());
    if (!name || std::strcmp(name, kModuleCapsuleName) != 0) {
      raiseError(STRATA_STATUS_INVALID_ARGUMENT,
                 std::string("a module capsule must be named '") +
                     kModuleCapsuleName +
                     "' and hold a strata_vm_module_t*; "
                     "this one is named '" +
                     (name ? name : "") + "'");
    }
    auto* module = static_cast<strata_vm_module_t*>(
        PyCapsule_GetPointer(source.ptr(), name));
    if (!module) {
      throw py::error_already_set();
    }
    strata_vm_module_retain(module);
    return module;
  }
  strata_vm_module_t* module = nullptr;
  if (py::isinstance<py::str>(source) || py::hasattr(source, "__fspath__")) {
    std::string path =
        py::str(py::module_::import("os").attr("fspath")(source));
    strata_status_t status;
    {
      py::gil_scoped_release release;
      status = strata_runtime_module_load_file(instance.get(), path.c_str(),
                                               &module);
    }
    check(status);
    return module;
  }
  if (PyObject_CheckBuffer(source.ptr())) {
    py::buffer_info info = py::reinterpret_borrow<py::buffer>(source).request();
    check(strata_runtime_module_load_memory(
        instance.get(), info.ptr,
        static_cast<size_t>(info.size * info.itemsize), &module));
    return module;
  }
  raiseError(STRATA_STATUS_INVALID_ARGUMENT,
             "a module is a .vmfb path, .vmfb bytes or a capsule of a native "
             "module, not " +
                 describeValue(source));
}

}  // namespace

//===--------------------------------------------------------------------===//
// Instance
//===--------------------------------------------------------------------===//

std::shared_ptr<Instance> Instance::create(const std::string& device,
                                           uint32_t task_workers) {
  auto instance = std::make_shared<Instance>(device, task_workers);
  std::lock_guard<std::mutex> lock(registry_mutex);
  registry->push_back(instance);
  return instance;
}

Instance::Instance(const std::string& device, uint32_t task_workers)
    : device_(device), task_workers_(task_workers) {
  strata_runtime_instance_options_t options;
  strata_runtime_instance_options_initialize(&options);
  options.device = device_.c_str();
  options.task_worker_count = task_workers;
  check(strata_runtime_instance_create(&options, strata_allocator_system(),
                                       &instance_));
}

Instance::~Instance() {
  shutdown();
  if (PyGILState_Check()) {
    py::gil_scoped_release release;  // the device joins its workers
    strata_runtime_instance_release(instance_);
  } else {
    strata_runtime_instance_release(instance_);
  }
}

strata_status_t Instance::submit(
    const std::function<strata_status_t(strata_hal_loop_t*)>& submit_fn) {
  strata_status_t status = nullptr;
  bool submitted = false;
  {
    // The loop thread never takes this mutex, so holding it (and the GIL)
    // while submitting cannot block a callback.
    std::lock_guard<std::mutex> lock(mutex_);
    if (!shut_down_) {
      if (!loop_) {
        loop_ = std::make_unique<LoopThread>();
      }
      submitted = loop_->submit(submit_fn, &status);
    }
  }
  if (!submitted) {
    raiseError(STRATA_STATUS_CANCELLED,
               "the instance is shut down: no more asynchronous calls");
  }
  return status;
}

void Instance::shutdown() {
  std::unique_ptr<LoopThread> loop;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    shut_down_ = true;
    loop = std::move(loop_);
  }
  if (!loop) {
    return;
  }
  if (PyGILState_Check()) {
    py::gil_scoped_release release;  // cancelled callbacks take the GIL
    loop.reset();
  } else {
    loop.reset();
  }
}

void shutdownAllInstances() {
  std::vector<std::shared_ptr<Instance>> live;
  {
    std::lock_guard<std::mutex> lock(registry_mutex);
    for (const auto& weak : *registry) {
      if (auto instance = weak.lock()) {
        live.push_back(std::move(instance));
      }
    }
    registry->clear();
  }
  for (const auto& instance : live) {
    instance->shutdown();
  }
}

//===--------------------------------------------------------------------===//
// Fence
//===--------------------------------------------------------------------===//

Fence::Fence() {
  check(strata_hal_fence_create_pending(strata_allocator_system(), &fence_));
}

Fence::Fence(strata_hal_fence_t* fence) : fence_(fence) {
  strata_hal_fence_retain(fence);
}

Fence::~Fence() {
  strata_hal_fence_release(fence_);
}

void Fence::signal() {
  check(strata_hal_fence_signal(fence_));
}

void Fence::fail(const std::string& message) {
  strata_hal_fence_fail(
      fence_, strata_make_status(STRATA_STATUS_ABORTED, "%s", message.c_str()));
}

bool Fence::reached() {
  int reached = 0;
  check(strata_hal_fence_query(fence_, &reached));
  return reached != 0;
}

void Fence::wait(const py::object& timeout) {
  int64_t deadline = STRATA_HAL_INFINITE_FUTURE;
  if (!timeout.is_none()) {
    double seconds = timeout.cast<double>();
    deadline = strata_hal_deadline_after_ns(
        static_cast<int64_t>(seconds > 0 ? seconds * 1e9 : 0));
  }
  strata_status_t status;
  {
    py::gil_scoped_release release;
    status = strata_hal_fence_wait(fence_, deadline);
  }
  check(status);
}

//===--------------------------------------------------------------------===//
// Function
//===--------------------------------------------------------------------===//

struct Function::AsyncCall {
  std::shared_ptr<Function> function;
  strata_runtime_call_t* call;
  py::object future;
  bool tensors = false;
};

Function::Function(std::shared_ptr<Instance> instance,
                   strata_runtime_session_t* session, const std::string& name,
                   std::vector<std::pair<std::string, std::string>> attributes)
    : instance_(std::move(instance)),
      session_(session),
      attributes_(std::move(attributes)) {
  strata_runtime_session_retain(session_);
  strata_runtime_call_t* call = nullptr;
  check(strata_runtime_call_create(session_, name.c_str(),
                                   strata_allocator_system(), &call));
  full_name_ = strata_runtime_call_function_name(call);
  size_t dot = full_name_.find('.');
  name_ = dot == std::string::npos ? full_name_ : full_name_.substr(dot + 1);
  has_async_ = strata_runtime_call_has_async_entry(call) != 0;
  strata_vm_context_t* context = strata_runtime_session_context(session_);
  strata_vm_function_t function;
  strata_status_t status =
      strata_vm_context_lookup(context, full_name_.c_str(), &function);
  if (status) {
    strata_runtime_call_destroy(call);
    raiseStatus(status);
  }
  strata_vm_function_signature_t signature =
      strata_vm_function_signature(context, function);
  cconv_ = signature.calling_convention;
  args_.assign(signature.args, signature.args_length);
  results_.assign(signature.results, signature.results_length);
  for (size_t i = 0; i < args_.size(); ++i) {
    arg_types_.push_back(attribute("arg" + std::to_string(i)));
  }
  for (size_t i = 0; i < results_.size(); ++i) {
    result_types_.push_back(attribute("result" + std::to_string(i)));
    result_element_types_.push_back(
        attribute("result" + std::to_string(i) + ".element_type"));
  }
  idle_calls_.push_back(call);
}

Function::~Function() {
  for (strata_runtime_call_t* call : idle_calls_) {
    strata_runtime_call_destroy(call);
  }
  strata_runtime_session_release(session_);
}

std::string Function::attribute(const std::string& key) const {
  for (const auto& [k, v] : attributes_) {
    if (k == key) {
      return v;
    }
  }
  return "";
}

std::string Function::typeOf(char kind, const std::string& reflected) const {
  switch (kind) {
  case 'i': return "i32";
  case 'I': return "i64";
  case 'f': return "f32";
  case 'F': return "f64";
  case 'r': return reflected.empty() ? "ref" : "tensor<" + reflected + ">";
  default: return std::string(1, kind);
  }
}

std::vector<std::string> Function::argumentTypes() const {
  std::vector<std::string> out;
  for (size_t i = 0; i < args_.size(); ++i) {
    out.push_back(typeOf(args_[i], arg_types_[i]));
  }
  return out;
}

std::vector<std::string> Function::resultTypes() const {
  std::vector<std::string> out;
  for (size_t i = 0; i < results_.size(); ++i) {
    out.push_back(typeOf(results_[i], result_types_[i]));
  }
  return out;
}

std::string Function::signature() const {
  auto join = [](const std::vector<std::string>& types) {
    std::string out;
    for (const std::string& type : types) {
      out += (out.empty() ? "" : ", ") + type;
    }
    return out;
  };
  std::vector<std::string> results = resultTypes();
  std::string result_text = join(results);
  if (results.size() != 1) {
    result_text = "(" + result_text + ")";
  }
  return "(" + join(argumentTypes()) + ") -> " + result_text;
}

py::dict Function::attributes() const {
  py::dict out;
  for (const auto& [k, v] : attributes_) {
    out[py::str(k)] = py::str(v);
  }
  return out;
}

strata_runtime_call_t* Function::takeCall() {
  if (!idle_calls_.empty()) {
    strata_runtime_call_t* call = idle_calls_.back();
    idle_calls_.pop_back();
    return call;
  }
  strata_runtime_call_t* call = nullptr;
  check(strata_runtime_call_create(session_, full_name_.c_str(),
                                   strata_allocator_system(), &call));
  return call;
}

void Function::returnCall(strata_runtime_call_t* call) {
  // With the GIL: the arguments' arrays are released here.
  strata_runtime_call_reset(call);
  if (idle_calls_.size() < kIdleCalls) {
    idle_calls_.push_back(call);
  } else {
    strata_runtime_call_destroy(call);
  }
}

void Function::raiseArgument(size_t i, const std::string& want,
                             const py::handle& got) const {
  raiseError(STRATA_STATUS_INVALID_ARGUMENT,
             "argument " + std::to_string(i) + " of " + full_name_ + " is " +
                 want + ", not " + describeValue(got) + "; " + full_name_ +
                 " takes " + signature());
}

void Function::pushArguments(strata_runtime_call_t* call,
                             const py::args& args) {
  if (args.size() != args_.size()) {
    raiseError(STRATA_STATUS_INVALID_ARGUMENT,
               full_name_ + " takes " + std::to_string(args_.size()) +
                   (args_.size() == 1 ? " argument" : " arguments") + ", got " +
                   std::to_string(args.size()) + "; " + full_name_ + " takes " +
                   signature());
  }
  for (size_t i = 0; i < args_.size(); ++i) {
    py::handle value = args[i];
    int64_t integer = 0;
    double real = 0;
    switch (args_[i]) {
    case 'i':
      if (!toInt64(value, &integer) || integer < INT32_MIN ||
          integer > INT32_MAX) {
        raiseArgument(i, "i32", value);
      }
      check(strata_runtime_call_push_i32(call, static_cast<int32_t>(integer)));
      break;
    case 'I':
      if (!toInt64(value, &integer)) {
        raiseArgument(i, "i64", value);
      }
      check(strata_runtime_call_push_i64(call, integer));
      break;
    case 'f':
      if (!toDouble(value, &real)) {
        raiseArgument(i, "f32", value);
      }
      check(strata_runtime_call_push_f32(call, static_cast<float>(real)));
      break;
    case 'F':
      if (!toDouble(value, &real)) {
        raiseArgument(i, "f64", value);
      }
      check(strata_runtime_call_push_f64(call, real));
      break;
    default: {
      // A list the export records as a sequence or an optional: a vm.list
      // of buffer views (None: an empty optional).
      if (tools::boundaryType(arg_types_[i]).kind !=
          tools::BoundaryType::kTensor) {
        strata_vm_list_t* list =
            listFromPython(value, arg_types_[i], i, full_name_);
        strata_status_t status = strata_vm_list_push(
            strata_runtime_call_inputs(call),
            strata_vm_variant_ref(strata_vm_list_as_ref(list)));
        strata_vm_list_release(list);
        check(status);
        break;
      }
      // A ref: arrays become buffer views; strata.Tensor, strata.Ref,
      // bytes (vm.buffer) and None (a null ref) go into the argument list as
      // they are.
      if (py::isinstance<py::array>(value)) {
        pushArray(call, i, py::reinterpret_borrow<py::array>(value));
        break;
      }
      if (py::isinstance<Tensor>(value)) {
        pushTensor(call, i, value.cast<Tensor&>());
        break;
      }
      strata_vm_list_t* inputs = strata_runtime_call_inputs(call);
      if (py::isinstance<Ref>(value)) {
        check(strata_vm_list_push(
            inputs, strata_vm_variant_ref(value.cast<Ref&>().get())));
        break;
      }
      if (value.is_none()) {
        check(strata_vm_list_push(inputs, strata_vm_variant_ref(nullptr)));
        break;
      }
      if (PyBytes_Check(value.ptr()) || PyByteArray_Check(value.ptr()) ||
          PyMemoryView_Check(value.ptr())) {
        strata_vm_buffer_t* buffer =
            bufferFromBytes(py::reinterpret_borrow<py::buffer>(value));
        strata_status_t status = strata_vm_list_push(
            inputs, strata_vm_variant_ref(strata_vm_buffer_as_ref(buffer)));
        strata_vm_buffer_release(buffer);
        check(status);
        break;
      }
      // Lists, numbers, numpy scalars: numpy's conversion.
      py::object converted =
          py::module_::import("numpy").attr("asarray")(value);
      py::array array = py::reinterpret_borrow<py::array>(converted);
      char kind = array.dtype().kind();
      if (kind != 'b' && kind != 'i' && kind != 'u' && kind != 'f') {
        raiseArgument(i, "a tensor (a numpy array)", value);
      }
      pushArray(call, i, array);
      break;
    }
    }
  }
}

void Function::pushArray(strata_runtime_call_t* call, size_t i,
                         const py::array& array) {
  strata_hal_buffer_view_t* view =
      viewFromArray(array, arg_types_[i], i, full_name_);
  strata_status_t status = strata_runtime_call_push_buffer_view(call, view);
  strata_hal_buffer_view_release(view);
  check(status);
}

void Function::pushTensor(strata_runtime_call_t* call, size_t i,
                          const Tensor& tensor) {
  const std::string& want = arg_types_[i];
  if (!want.empty()) {
    std::string got = tensor.typeText();
    if (!tools::tensorTypeMatches(want, got) &&
        !tools::unsignedFitsSignless(want, got)) {
      raiseError(STRATA_STATUS_INVALID_ARGUMENT,
                 "argument " + std::to_string(i) + " of " + full_name_ +
                     " is a " + want + " tensor, not " + got);
    }
  }
  check(strata_runtime_call_push_buffer_view(call, tensor.get()));
}

py::object Function::readResults(strata_runtime_call_t* call, bool tensors) {
  strata_vm_list_t* outputs = strata_runtime_call_outputs(call);
  size_t count = strata_vm_list_size(outputs);
  auto get = [&](size_t i) {
    strata_vm_variant_t value;
    check(strata_vm_list_get(outputs, i, &value));
    strata_vm_list_t* list = value.type == STRATA_VM_VALUE_REF
                                 ? strata_vm_list_from_ref(value.value.ref)
                                 : nullptr;
    if (list) {
      return listToPython(
          list, i < result_types_.size() ? result_types_[i] : std::string(),
          tensors);
    }
    return fromVariant(value,
                       i < result_element_types_.size()
                           ? result_element_types_[i]
                           : std::string(),
                       tensors);
  };
  if (count == 0) {
    return py::none();
  }
  if (count == 1) {
    return get(0);
  }
  py::tuple out(count);
  for (size_t i = 0; i < count; ++i) {
    out[i] = get(i);
  }
  return out;
}

py::object Function::call(const py::args& args, bool tensors) {
  releaseDeferredReferences();
  strata_runtime_call_t* call = takeCall();
  struct Return {
    Function* function;
    strata_runtime_call_t* call;
    ~Return() { function->returnCall(call); }
  } give_back{this, call};
  pushArguments(call, args);
  strata_status_t status;
  {
    py::gil_scoped_release release;
    status = strata_runtime_call_invoke(call);
  }
  check(status);
  return readResults(call, tensors);
}

py::object Function::callAsync(const py::args& args, const py::object& wait,
                               bool tensors) {
  releaseDeferredReferences();
  Fence* wait_fence = wait.is_none() ? nullptr : wait.cast<Fence*>();
  strata_runtime_call_t* call = takeCall();
  auto op = std::make_unique<AsyncCall>();
  op->function = shared_from_this();
  op->call = call;
  op->tensors = tensors;
  strata_status_t status = nullptr;
  try {
    pushArguments(call, args);
    op->future = futureClass()();
    op->future.attr("set_running_or_notify_cancel")();
    status = instance_->submit([&](strata_hal_loop_t* loop) {
      return strata_runtime_call_invoke_async(
          call, loop, wait_fence ? wait_fence->get() : nullptr, onAsyncDone,
          op.get());
    });
  } catch (...) {
    returnCall(call);
    throw;
  }
  if (status) {
    returnCall(call);
    raiseStatus(status);
  }
  py::object future = op->future;
  op.release();  // onAsyncDone owns it now
  return future;
}

void Function::onAsyncDone(void* user, strata_runtime_call_t* call,
                           strata_status_t status) {
  if (_Py_IsFinalizing()) {
    // Too late to touch Python objects; the interpreter is going away.
    strata_status_free(status);
    return;
  }
  py::gil_scoped_acquire gil;
  std::unique_ptr<AsyncCall> op(static_cast<AsyncCall*>(user));
  try {
    py::object result;
    py::object error;
    if (status) {
      error = exceptionFromStatus(status);
    } else {
      try {
        result = op->function->readResults(call, op->tensors);
      } catch (py::error_already_set& e) {
        error = e.value();
      }
    }
    op->function->returnCall(call);
    if (error) {
      op->future.attr("set_exception")(error);
    } else {
      op->future.attr("set_result")(result);
    }
    releaseDeferredReferences();
  } catch (py::error_already_set& e) {
    e.discard_as_unraisable("strata: completing an asynchronous call");
  } catch (const std::exception& e) {
    PyErr_SetString(PyExc_RuntimeError, e.what());
    PyErr_WriteUnraisable(nullptr);
  }
}

//===--------------------------------------------------------------------===//
// Session
//===--------------------------------------------------------------------===//

Session::Session(std::shared_ptr<Instance> instance, const py::list& modules)
    : instance_(std::move(instance)) {
  if (modules.empty()) {
    raiseError(STRATA_STATUS_INVALID_ARGUMENT, "a session needs a module");
  }
  try {
    for (const py::handle& source : modules) {
      modules_.push_back(loadModule(*instance_, source));
    }
  } catch (...) {
    for (strata_vm_module_t* module : modules_) {
      strata_vm_module_release(module);
    }
    throw;
  }
  strata_status_t status;
  {
    // Linking runs the modules' initializers, which may run kernels.
    py::gil_scoped_release release;
    status = strata_runtime_session_create(
        instance_->get(), nullptr, modules_.data(), modules_.size(),
        strata_allocator_system(), &session_);
  }
  if (status) {
    for (strata_vm_module_t* module : modules_) {
      strata_vm_module_release(module);
    }
    modules_.clear();
    raiseStatus(status);
  }
}

Session::~Session() {
  functions_.clear();
  strata_runtime_session_release(session_);
  for (strata_vm_module_t* module : modules_) {
    strata_vm_module_release(module);
  }
}

std::string Session::name() const {
  return strata_vm_module_name(strata_runtime_session_main_module(session_));
}

std::vector<std::pair<std::string, std::string>> Session::exportAttributes(
    const std::string& name) const {
  // "fn" is the main module's; "module.fn" any user module's.
  const strata_vm_module_t* module = modules_.back();
  std::string short_name = name;
  size_t dot = name.find('.');
  if (dot != std::string::npos) {
    std::string module_name = name.substr(0, dot);
    short_name = name.substr(dot + 1);
    module = nullptr;
    for (const strata_vm_module_t* m : modules_) {
      if (module_name == strata_vm_module_name(m)) {
        module = m;
      }
    }
  }
  std::vector<std::pair<std::string, std::string>> out;
  if (!module) {
    return out;
  }
  size_t e = 0;
  strata_status_t status =
      strata_vm_module_find_export(module, short_name.c_str(), &e);
  strata_vm_export_info_t info{};
  if (!status) {
    status = strata_vm_module_export_info(module, e, &info);
  }
  if (status) {
    strata_status_free(status);
    return out;
  }
  for (size_t i = 0; i < info.attr_count; ++i) {
    const char* key = nullptr;
    const char* value = nullptr;
    status = strata_vm_module_export_attr(module, e, i, &key, &value);
    if (status) {
      strata_status_free(status);
      continue;
    }
    out.emplace_back(key ? key : "", value ? value : "");
  }
  return out;
}

std::shared_ptr<Function> Session::function(const std::string& name) {
  auto it = functions_.find(name);
  if (it != functions_.end()) {
    return it->second;
  }
  auto function = std::make_shared<Function>(instance_, session_, name,
                                             exportAttributes(name));
  functions_[name] = function;
  return function;
}

bool Session::contains(const std::string& name) {
  if (functions_.count(name)) {
    return true;
  }
  strata_vm_function_t function;
  std::string full_name =
      name.find('.') == std::string::npos ? this->name() + "." + name : name;
  strata_status_t status = strata_vm_context_lookup(
      strata_runtime_session_context(session_), full_name.c_str(), &function);
  bool found = status == nullptr;
  strata_status_free(status);
  return found;
}

py::dict Session::functions() {
  py::dict out;
  const strata_vm_module_t* module = modules_.back();
  size_t count = strata_vm_module_export_count(module);
  for (size_t e = 0; e < count; ++e) {
    strata_vm_export_info_t info;
    strata_status_t status = strata_vm_module_export_info(module, e, &info);
    if (status) {
      strata_status_free(status);
      continue;
    }
    std::string name = info.name;
    if (strata::cconv::isAsyncName(name)) {
      continue;
    }
    try {
      out[py::str(name)] = py::cast(function(name));
    } catch (py::error_already_set& e) {
      // A function the call API cannot drive (variadic): left out.
      if (!e.matches(py::module_::import("strata._errors")
                         .attr("UnimplementedError"))) {
        throw;
      }
    }
  }
  return out;
}

}  // namespace strata::python
