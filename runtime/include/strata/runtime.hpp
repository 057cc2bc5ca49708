// runtime.hpp - a header-only C++17 wrapper over strata/runtime.h: move-only
// owners (Status, Instance, Session, Call, Tensor, Loop) and Result<T> for
// values that may fail. No exceptions (it builds with -fno-exceptions) and
// no RTTI; every error is a Status carrying the C API's message.
//
// Ownership follows the C API: each wrapper owns one reference (or, for
// Call, the object) and releases it in its destructor; get() borrows the
// C handle, release() hands the reference over. Thread-safety is the C
// API's: Instance and Session may be shared across threads, a Call is used
// by one thread at a time and not while an asynchronous invocation of it
// is in flight.
#ifndef STRATA_RUNTIME_HPP_
#define STRATA_RUNTIME_HPP_

#include <cstdint>
#include <cstdlib>
#include <memory>
#include <new>
#include <string>
#include <utility>
#include <vector>

#include "strata/runtime.h"

namespace strata::runtime {

/// An owned strata_status_t; OK when empty. Move-only.
class [[nodiscard]] Status {
 public:
  Status() = default;
  /// Takes ownership of status (NULL is OK).
  explicit Status(strata_status_t status) : status_(status) {}
  Status(Status&& other) noexcept : status_(other.status_) {
    other.status_ = nullptr;
  }
  Status& operator=(Status&& other) noexcept {
    if (this != &other) {
      strata_status_free(status_);
      status_ = other.status_;
      other.status_ = nullptr;
    }
    return *this;
  }
  Status(const Status&) = delete;
  Status& operator=(const Status&) = delete;
  ~Status() { strata_status_free(status_); }

  bool ok() const { return status_ == nullptr; }
  explicit operator bool() const { return ok(); }
  strata_status_code_t code() const { return strata_status_code(status_); }
  /// The message without the code or annotations; "" when OK.
  std::string message() const { return strata_status_message(status_); }
  /// "CODE: message" plus one indented line per annotation; "OK" when OK.
  std::string toString() const {
    if (!status_) {
      return "OK";
    }
    char* text = strata_status_to_string(status_);
    std::string out = text ? text : strata_status_code_name(code());
    std::free(text);
    return out;
  }
  /// Borrows the C status.
  strata_status_t get() const { return status_; }
  /// Hands the C status to the caller.
  strata_status_t release() {
    strata_status_t status = status_;
    status_ = nullptr;
    return status;
  }

 private:
  strata_status_t status_ = nullptr;
};

/// A value or the Status saying why there is none. Move-only when T is.
template <typename T>
class [[nodiscard]] Result {
 public:
  Result(T value) : value_(std::move(value)) {}  // NOLINT: implicit
  Result(Status status) : status_(std::move(status)) {}  // NOLINT: implicit
  bool ok() const { return status_.ok(); }
  explicit operator bool() const { return ok(); }
  const Status& status() const { return status_; }
  /// Moves the status out (OK when there is a value).
  Status takeStatus() { return std::move(status_); }
  /// The value; only when ok().
  T& value() & { return value_; }
  const T& value() const& { return value_; }
  T&& value() && { return std::move(value_); }
  T* operator->() { return &value_; }
  T& operator*() & { return value_; }

 private:
  Status status_;
  T value_{};
};

namespace detail {

// A move-only owner of one reference to a C handle; Traits::release drops
// it. (Traits types rather than function pointers: several release
// functions are static inline, which would give the wrappers internal
// linkage.)
template <typename Handle, typename Traits>
class Owner {
 public:
  Owner() = default;
  explicit Owner(Handle* handle) : handle_(handle) {}
  Owner(Owner&& other) noexcept : handle_(other.handle_) {
    other.handle_ = nullptr;
  }
  Owner& operator=(Owner&& other) noexcept {
    if (this != &other) {
      reset();
      handle_ = other.handle_;
      other.handle_ = nullptr;
    }
    return *this;
  }
  Owner(const Owner&) = delete;
  Owner& operator=(const Owner&) = delete;
  ~Owner() { reset(); }

  Handle* get() const { return handle_; }
  Handle* release() {
    Handle* handle = handle_;
    handle_ = nullptr;
    return handle;
  }
  explicit operator bool() const { return handle_ != nullptr; }

 protected:
  void reset() {
    if (handle_) {
      Traits::release(handle_);
      handle_ = nullptr;
    }
  }
  Handle* handle_ = nullptr;
};

struct ViewTraits {
  static void release(strata_hal_buffer_view_t* view) {
    strata_hal_buffer_view_release(view);
  }
};
struct InstanceTraits {
  static void release(strata_runtime_instance_t* instance) {
    strata_runtime_instance_release(instance);
  }
};
struct SessionTraits {
  static void release(strata_runtime_session_t* session) {
    strata_runtime_session_release(session);
  }
};
struct LoopTraits {
  static void release(strata_hal_loop_t* loop) {
    strata_hal_loop_destroy(loop);
  }
};
struct CallTraits {
  static void release(strata_runtime_call_t* call) {
    strata_runtime_call_destroy(call);
  }
};

}  // namespace detail

/// The element type code of a C++ scalar type (f32 for float...).
template <typename T>
constexpr strata_hal_element_type_t elementTypeOf();
template <>
constexpr strata_hal_element_type_t elementTypeOf<float>() {
  return STRATA_HAL_ELEMENT_TYPE_FLOAT_32;
}
template <>
constexpr strata_hal_element_type_t elementTypeOf<double>() {
  return STRATA_HAL_ELEMENT_TYPE_FLOAT_64;
}
template <>
constexpr strata_hal_element_type_t elementTypeOf<int8_t>() {
  return STRATA_HAL_ELEMENT_TYPE_INT_8;
}
template <>
constexpr strata_hal_element_type_t elementTypeOf<int16_t>() {
  return STRATA_HAL_ELEMENT_TYPE_INT_16;
}
template <>
constexpr strata_hal_element_type_t elementTypeOf<int32_t>() {
  return STRATA_HAL_ELEMENT_TYPE_INT_32;
}
template <>
constexpr strata_hal_element_type_t elementTypeOf<int64_t>() {
  return STRATA_HAL_ELEMENT_TYPE_INT_64;
}

/// A buffer view (a tensor: shape, element type, host bytes). Owns one
/// reference.
class Tensor
    : public detail::Owner<strata_hal_buffer_view_t, detail::ViewTraits> {
 public:
  using Owner::Owner;

  /// A tensor holding a copy of data, whose size must match the shape.
  template <typename T>
  static Result<Tensor> fromHost(const std::vector<int64_t>& shape,
                                 const std::vector<T>& data,
                                 strata_allocator_t allocator =
                                     strata_allocator_system()) {
    strata_hal_buffer_view_t* view = nullptr;
    Status status(strata_runtime_buffer_view_from_host(
        elementTypeOf<T>(), shape.data(), shape.size(), data.data(),
        data.size() * sizeof(T), allocator, &view));
    if (!status.ok()) {
      return {std::move(status)};
    }
    return Tensor(view);
  }

  std::vector<int64_t> shape() const {
    const int64_t* dims = strata_hal_buffer_view_shape(get());
    size_t rank = strata_hal_buffer_view_rank(get());
    return rank ? std::vector<int64_t>(dims, dims + rank)
                : std::vector<int64_t>();
  }
  strata_hal_element_type_t elementType() const {
    return strata_hal_buffer_view_element_type(get());
  }
  /// "2x3xf32".
  std::string typeString() const {
    char text[256];
    strata_runtime_buffer_view_format_type(get(), text, sizeof(text));
    return text;
  }
  /// A copy of the contents as T; the element type must be T's.
  template <typename T>
  Result<std::vector<T>> toVector() const {
    if (elementType() != elementTypeOf<T>()) {
      return Status(strata_make_status(
          STRATA_STATUS_INVALID_ARGUMENT,
          "tensor %s cannot be read as elements of type %s",
          typeString().c_str(),
          strata_hal_element_type_name(elementTypeOf<T>())));
    }
    std::vector<T> out(strata_hal_buffer_view_byte_length(get()) / sizeof(T));
    Status status(strata_runtime_buffer_view_to_host(get(), out.data(),
                                                     out.size() * sizeof(T)));
    if (!status.ok()) {
      return {std::move(status)};
    }
    return out;
  }
};

/// The instance: a VM instance and one device. Owns one reference.
class Instance
    : public detail::Owner<strata_runtime_instance_t, detail::InstanceTraits> {
 public:
  using Owner::Owner;

  /// device: "local-task" or "local-sync"; workers: 0 is one per core.
  static Result<Instance> create(
      const char* device = "local-task", uint32_t task_worker_count = 0,
      strata_allocator_t allocator = strata_allocator_system()) {
    strata_runtime_instance_options_t options;
    strata_runtime_instance_options_initialize(&options);
    options.device = device;
    options.task_worker_count = task_worker_count;
    strata_runtime_instance_t* instance = nullptr;
    Status status(
        strata_runtime_instance_create(&options, allocator, &instance));
    if (!status.ok()) {
      return {std::move(status)};
    }
    return Instance(instance);
  }

  strata_allocator_t allocator() const {
    return strata_runtime_instance_allocator(get());
  }
};

class Call;

/// A session: the hal module and the user's modules in one context. Owns
/// one reference.
class Session
    : public detail::Owner<strata_runtime_session_t, detail::SessionTraits> {
 public:
  using Owner::Owner;

  /// One .vmfb file as the main module.
  static Result<Session> fromFile(const Instance& instance,
                                  const std::string& path) {
    strata_runtime_session_t* session = nullptr;
    Status status(strata_runtime_session_create_from_file(
        instance.get(), path.c_str(), &session));
    if (!status.ok()) {
      return {std::move(status)};
    }
    return Session(session);
  }

  /// modules (borrowed, each retained by the session), the last one main:
  /// bytecode modules (strata_runtime_module_load_*) and native ones.
  static Result<Session> fromModules(
      const Instance& instance, const std::vector<strata_vm_module_t*>& modules,
      const strata_runtime_session_options_t* options = nullptr) {
    strata_runtime_session_t* session = nullptr;
    Status status(strata_runtime_session_create(
        instance.get(), options, modules.data(), modules.size(),
        instance.allocator(), &session));
    if (!status.ok()) {
      return {std::move(status)};
    }
    return Session(session);
  }

  /// A call to "fn" (main module) or "module.fn".
  inline Result<Call> call(const char* function_name) const;
};

/// An event loop (strata_hal_loop_t) for asynchronous calls; owns it. Run
/// it on the thread that should receive completions.
class Loop : public detail::Owner<strata_hal_loop_t, detail::LoopTraits> {
 public:
  using Owner::Owner;
  static Result<Loop> create(
      strata_allocator_t allocator = strata_allocator_system()) {
    strata_hal_loop_t* loop = nullptr;
    Status status(strata_hal_loop_create(allocator, &loop));
    if (!status.ok()) {
      return {std::move(status)};
    }
    return Loop(loop);
  }
  /// Runs until nothing is in flight.
  Status run() { return Status(strata_hal_loop_run(get())); }
};

/// One function, its arguments and its results. Owns the call object.
class Call : public detail::Owner<strata_runtime_call_t, detail::CallTraits> {
 public:
  using Owner::Owner;

  /// "module.fn".
  const char* functionName() const {
    return strata_runtime_call_function_name(get());
  }

  Status push(int32_t value) {
    return Status(strata_runtime_call_push_i32(get(), value));
  }
  Status push(int64_t value) {
    return Status(strata_runtime_call_push_i64(get(), value));
  }
  Status push(float value) {
    return Status(strata_runtime_call_push_f32(get(), value));
  }
  Status push(double value) {
    return Status(strata_runtime_call_push_f64(get(), value));
  }
  /// The call retains the tensor.
  Status push(const Tensor& tensor) {
    return Status(strata_runtime_call_push_buffer_view(get(), tensor.get()));
  }

  void reset() { strata_runtime_call_reset(get()); }

  /// Blocks until the function returns.
  Status invoke() { return Status(strata_runtime_call_invoke(get())); }

  /// Invokes without blocking; done(Call&, Status) runs on loop's thread.
  /// This Call must stay where it is (not moved or destroyed) until then;
  /// done may destroy it. wait_fence is optional.
  template <typename Done>
  Status invokeAsync(Loop& loop, Done done,
                     strata_hal_fence_t* wait_fence = nullptr) {
    struct Holder {
      Call* call;
      Done done;
      static void callback(void* user, strata_runtime_call_t*,
                           strata_status_t status) {
        std::unique_ptr<Holder> holder(static_cast<Holder*>(user));
        holder->done(*holder->call, Status(status));
      }
    };
    auto* holder = new (std::nothrow) Holder{this, std::move(done)};
    if (!holder) {
      return Status(strata_make_status(STRATA_STATUS_RESOURCE_EXHAUSTED,
                                       "out of memory invoking %s",
                                       functionName()));
    }
    Status status(strata_runtime_call_invoke_async(
        get(), loop.get(), wait_fence, &Holder::callback, holder));
    if (!status.ok()) {
      delete holder;
    }
    return status;
  }

  /// Submits the work and returns with results whose contents are ready
  /// once signalFence() is reached (strata_runtime_call_submit).
  Status submit(strata_hal_fence_t* wait_fence = nullptr) {
    return Status(strata_runtime_call_submit(get(), wait_fence));
  }

  /// Reached when the latest asynchronous invocation's results are ready
  /// (borrowed; see strata_runtime_call_signal_fence).
  strata_hal_fence_t* signalFence() const {
    return strata_runtime_call_signal_fence(get());
  }

  size_t resultCount() const { return strata_runtime_call_result_count(get()); }
  strata_runtime_value_kind_t resultKind(size_t i) const {
    return strata_runtime_call_result_kind(get(), i);
  }
  Result<Tensor> resultTensor(size_t i) const {
    strata_hal_buffer_view_t* view = nullptr;
    Status status(strata_runtime_call_result_buffer_view(get(), i, &view));
    if (!status.ok()) {
      return {std::move(status)};
    }
    return Tensor(view);
  }
  Result<int32_t> resultI32(size_t i) const {
    int32_t value = 0;
    Status status(strata_runtime_call_result_i32(get(), i, &value));
    return status.ok() ? Result<int32_t>(value)
                       : Result<int32_t>(std::move(status));
  }
  Result<int64_t> resultI64(size_t i) const {
    int64_t value = 0;
    Status status(strata_runtime_call_result_i64(get(), i, &value));
    return status.ok() ? Result<int64_t>(value)
                       : Result<int64_t>(std::move(status));
  }
  Result<float> resultF32(size_t i) const {
    float value = 0;
    Status status(strata_runtime_call_result_f32(get(), i, &value));
    return status.ok() ? Result<float>(value)
                       : Result<float>(std::move(status));
  }
  Result<double> resultF64(size_t i) const {
    double value = 0;
    Status status(strata_runtime_call_result_f64(get(), i, &value));
    return status.ok() ? Result<double>(value)
                       : Result<double>(std::move(status));
  }
};

inline Result<Call> Session::call(const char* function_name) const {
  strata_runtime_call_t* call = nullptr;
  Status status(strata_runtime_call_create(
      get(), function_name,
      strata_runtime_instance_allocator(strata_runtime_session_instance(get())),
      &call));
  if (!status.ok()) {
    return {std::move(status)};
  }
  return Call(call);
}

}  // namespace strata::runtime

#endif  // STRATA_RUNTIME_HPP_
