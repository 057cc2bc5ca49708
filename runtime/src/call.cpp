// call.cpp - the embedding API's calls: name resolution, checked argument
// pushes, typed result reads, the blocking invocation and the asynchronous
// one (through the function's "fn$async" entry point when the module has
// one, else a suspending VM invocation on the loop).
#include <atomic>
#include <cstring>
#include <string>

#include "calling_convention.h"
#include "runtime_impl.h"
#include "strata/modules/hal/loop_invoke.h"

using namespace strata::runtime;

struct strata_runtime_call_t {
  strata_allocator_t allocator{};
  strata_runtime_session_t* session = nullptr;  // retained
  strata_vm_function_t function{};
  std::string full_name;  // "module.fn"
  std::string cconv;
  std::string args;     // argument characters of the calling convention
  std::string results;  // result characters
  // "fn$async", when the module exports it (its convention is checked when
  // it is used).
  bool has_async = false;
  strata_vm_function_t async_function{};
  std::string async_cconv;

  strata_vm_list_t* inputs = nullptr;
  strata_vm_list_t* outputs = nullptr;

  // The asynchronous invocation in flight (set by the submitting thread
  // before anything reaches the loop, then read on the loop thread).
  std::atomic<bool> in_flight{false};
  strata_hal_loop_t* loop = nullptr;
  strata_hal_fence_t* wait_fence = nullptr;    // retained while in flight
  strata_hal_fence_t* signal_fence = nullptr;  // retained until replaced
  strata_runtime_call_callback_t callback = nullptr;
  void* user = nullptr;
  // strata_runtime_call_set_deadline; 0: none.
  int64_t deadline_ns = 0;
};

namespace strata::runtime {

strata_runtime_value_kind_t kindOfVariant(const strata_vm_variant_t& value) {
  switch (value.type) {
  case STRATA_VM_VALUE_I32: return STRATA_RUNTIME_VALUE_I32;
  case STRATA_VM_VALUE_I64: return STRATA_RUNTIME_VALUE_I64;
  case STRATA_VM_VALUE_F32: return STRATA_RUNTIME_VALUE_F32;
  case STRATA_VM_VALUE_F64: return STRATA_RUNTIME_VALUE_F64;
  case STRATA_VM_VALUE_REF:
    return strata_hal_buffer_view_from_ref(value.value.ref)
               ? STRATA_RUNTIME_VALUE_BUFFER_VIEW
               : STRATA_RUNTIME_VALUE_REF;
  default: return STRATA_RUNTIME_VALUE_NONE;
  }
}

}  // namespace strata::runtime

namespace {

strata_runtime_value_kind_t kindOfChar(char c) {
  switch (c) {
  case 'i': return STRATA_RUNTIME_VALUE_I32;
  case 'I': return STRATA_RUNTIME_VALUE_I64;
  case 'f': return STRATA_RUNTIME_VALUE_F32;
  case 'F': return STRATA_RUNTIME_VALUE_F64;
  case 'r': return STRATA_RUNTIME_VALUE_BUFFER_VIEW;
  default: return STRATA_RUNTIME_VALUE_NONE;
  }
}

// "(buffer view, i32) -> buffer view [0ri_r]"
std::string describeSignature(const strata_runtime_call_t* call) {
  auto list = [](const std::string& chars) {
    std::string out;
    for (char c : chars) {
      if (!out.empty()) {
        out += ", ";
      }
      out += strata_runtime_value_kind_name(kindOfChar(c));
    }
    return out;
  };
  std::string results = list(call->results);
  if (call->results.size() != 1) {
    results = "(" + results + ")";
  }
  return "(" + list(call->args) + ") -> " + results + " [" + call->cconv + "]";
}

const char* article(strata_runtime_value_kind_t kind) {
  return kind == STRATA_RUNTIME_VALUE_BUFFER_VIEW ||
                 kind == STRATA_RUNTIME_VALUE_REF
             ? "a "
             : "";
}

const char* ordinalSuffix(size_t n) {
  if (n % 100 >= 11 && n % 100 <= 13) {
    return "th";
  }
  switch (n % 10) {
  case 1: return "st";
  case 2: return "nd";
  case 3: return "rd";
  default: return "th";
  }
}

strata_status_t checkNotInFlight(const strata_runtime_call_t* call,
                                 const char* what) {
  if (call->in_flight.load(std::memory_order_acquire)) {
    return strata_make_status(
        STRATA_STATUS_FAILED_PRECONDITION,
        "cannot %s %s: an asynchronous invocation of it is in flight", what,
        call->full_name.c_str());
  }
  return nullptr;
}

strata_status_t push(strata_runtime_call_t* call, strata_vm_variant_t value) {
  STRATA_RETURN_IF_ERROR(checkNotInFlight(call, "push an argument to"));
  size_t index = strata_vm_list_size(call->inputs);
  strata_runtime_value_kind_t got = kindOfVariant(value);
  if (index >= call->args.size()) {
    return strata_make_status(
        STRATA_STATUS_INVALID_ARGUMENT,
        "%s takes %zu argument%s; a %zu%s (%s%s) is one too many; %s takes "
        "%s",
        call->full_name.c_str(), call->args.size(),
        call->args.size() == 1 ? "" : "s", index + 1, ordinalSuffix(index + 1),
        article(got), strata_runtime_value_kind_name(got),
        call->full_name.c_str(), describeSignature(call).c_str());
  }
  strata_runtime_value_kind_t want = kindOfChar(call->args[index]);
  if (got != want) {
    return strata_make_status(
        STRATA_STATUS_INVALID_ARGUMENT,
        "argument %zu of %s is %s%s, not %s%s; %s takes %s", index,
        call->full_name.c_str(), article(want),
        strata_runtime_value_kind_name(want), article(got),
        strata_runtime_value_kind_name(got), call->full_name.c_str(),
        describeSignature(call).c_str());
  }
  return strata_vm_list_push(call->inputs, value);
}

strata_status_t checkArgumentCount(const strata_runtime_call_t* call) {
  size_t count = strata_vm_list_size(call->inputs);
  if (count != call->args.size()) {
    return strata_make_status(
        STRATA_STATUS_INVALID_ARGUMENT,
        "%s takes %zu argument%s, %zu %s pushed; %s takes %s",
        call->full_name.c_str(), call->args.size(),
        call->args.size() == 1 ? "" : "s", count, count == 1 ? "was" : "were",
        call->full_name.c_str(), describeSignature(call).c_str());
  }
  return nullptr;
}

strata_status_t getResult(const strata_runtime_call_t* call, size_t i,
                          strata_runtime_value_kind_t want,
                          strata_vm_variant_t* out) {
  STRATA_RETURN_IF_ERROR(checkNotInFlight(call, "read a result of"));
  size_t count = strata_vm_list_size(call->outputs);
  if (count == 0 && !call->results.empty()) {
    return strata_make_status(STRATA_STATUS_FAILED_PRECONDITION,
                              "%s has no results: it was not invoked, or its last "
                              "invocation failed",
                              call->full_name.c_str());
  }
  if (i >= count) {
    return strata_make_status(STRATA_STATUS_OUT_OF_RANGE,
                              "%s returned %zu result%s; there is no result %zu",
                              call->full_name.c_str(), count,
                              count == 1 ? "" : "s", i);
  }
  STRATA_RETURN_IF_ERROR(strata_vm_list_get(call->outputs, i, out));
  strata_runtime_value_kind_t got = kindOfVariant(*out);
  if (got != want) {
    return strata_make_status(STRATA_STATUS_INVALID_ARGUMENT,
                              "result %zu of %s is %s%s, not %s%s", i,
                              call->full_name.c_str(), article(got),
                              strata_runtime_value_kind_name(got),
                              article(want),
                              strata_runtime_value_kind_name(want));
  }
  return nullptr;
}

//===--------------------------------------------------------------------===//
// Asynchronous invocation
//===--------------------------------------------------------------------===//

// Loop thread: ends the invocation and hands the call back to its owner.
void complete(strata_runtime_call_t* call, strata_status_t status) {
  if (status) {
    strata_vm_list_clear(call->outputs);
  }
  strata_hal_fence_release(call->wait_fence);
  call->wait_fence = nullptr;
  strata_runtime_call_callback_t callback = call->callback;
  void* user = call->user;
  call->callback = nullptr;
  call->user = nullptr;
  call->in_flight.store(false, std::memory_order_release);
  callback(user, call, status);  // may destroy the call
}

// Fails the call's signal fence with a copy of status (kept by the caller),
// so whoever waits on it sees the error instead of waiting forever.
void failSignal(strata_runtime_call_t* call, strata_status_t status) {
  if (call->signal_fence) {
    strata_hal_fence_fail(call->signal_fence, strata_status_clone(status));
  }
}

// Moves the invocation's results into the call's outputs (the list itself
// stays the one strata_runtime_call_outputs returned).
strata_status_t takeOutputs(strata_runtime_call_t* call,
                            strata_vm_list_t* outputs) {
  strata_vm_list_clear(call->outputs);
  strata_status_t status = nullptr;
  size_t count = strata_vm_list_size(outputs);
  for (size_t i = 0; !status && i < count; ++i) {
    strata_vm_variant_t value;
    status = strata_vm_list_get(outputs, i, &value);
    if (!status) {
      status = strata_vm_list_push(call->outputs, value);
    }
  }
  strata_vm_list_release(outputs);
  return status;
}

// The call's deadline passed while its device work ran: that work may
// never end (a kernel that does not return), so the device is lost and the
// caller is answered now.
strata_status_t loseDeviceAtDeadline(strata_runtime_call_t* call,
                                     strata_status_t status) {
  if (strata_status_code(status) != STRATA_STATUS_DEADLINE_EXCEEDED ||
      !call->deadline_ns) {
    return status;
  }
  strata_status_free(status);
  strata_hal_device_t* device =
      strata_runtime_instance_device(call->session->instance);
  strata_hal_device_lose(device,
                         "a call's deadline passed while its device work ran");
  return strata_make_status(STRATA_STATUS_DEADLINE_EXCEEDED,
                            "%s passed its deadline while its device work "
                            "ran; device '%s' is now lost",
                            call->full_name.c_str(),
                            strata_hal_device_name(device));
}

void onSignalReached(void* user, strata_status_t status) {
  auto* call = static_cast<strata_runtime_call_t*>(user);
  status = loseDeviceAtDeadline(call, status);
  if (status) {
    status = strata_status_annotate(status, "at %s$async (its signal fence)",
                                    call->full_name.c_str());
  }
  complete(call, status);
}

// fn$async returned: its work is submitted; wait for its signal fence.
void onAsyncEntryReturned(void* user, strata_status_t status,
                          strata_vm_list_t* outputs) {
  auto* call = static_cast<strata_runtime_call_t*>(user);
  if (status) {
    failSignal(call, status);
    complete(call, status);
    return;
  }
  status = takeOutputs(call, outputs);
  if (!status) {
    status = strata_hal_loop_wait_fence(call->loop, call->signal_fence,
                                        call->deadline_ns, onSignalReached,
                                        call);
  }
  if (status) {
    failSignal(call, status);
    complete(call, status);
  }
}

// The fallback's invocation of fn completed.
void onFallbackReturned(void* user, strata_status_t status,
                        strata_vm_list_t* outputs) {
  auto* call = static_cast<strata_runtime_call_t*>(user);
  if (status) {
    failSignal(call, status);
    complete(call, status);
    return;
  }
  status = takeOutputs(call, outputs);
  if (status) {
    failSignal(call, status);
  } else {
    status = strata_hal_fence_signal(call->signal_fence);
  }
  complete(call, status);
}

strata_status_t startFallback(strata_runtime_call_t* call) {
  return strata_hal_loop_invoke_until(
      call->loop, call->session->context, call->function, call->inputs,
      call->deadline_ns, call->allocator, onFallbackReturned, call);
}

// The fallback's wait fence resolved.
void onWaitReached(void* user, strata_status_t status) {
  auto* call = static_cast<strata_runtime_call_t*>(user);
  if (status) {
    status = strata_status_annotate(status, "waiting for the wait fence of %s",
                                    call->full_name.c_str());
  } else {
    status = startFallback(call);
  }
  if (status) {
    failSignal(call, status);
    complete(call, status);
  }
}

// Checks fn$async against the contract: fn's arguments, then two refs (the
// wait and signal fences); fn's results.
strata_status_t checkAsyncContract(const strata_runtime_call_t* call) {
  strata::cconv::Parsed fn;
  fn.args = call->args;
  fn.results = call->results;
  std::string want = strata::cconv::asyncConvention(fn);
  if (call->async_cconv != want) {
    return strata_make_status(
        STRATA_STATUS_INVALID_ARGUMENT,
        "%s$async has the calling convention %s, but the async entry point "
        "of %s [%s] must take its arguments, a wait fence and a signal fence "
        "and return its results: %s",
        call->full_name.c_str(), call->async_cconv.c_str(),
        call->full_name.c_str(), call->cconv.c_str(), want.c_str());
  }
  return nullptr;
}

// The arguments of fn$async: fn's, then the wait fence (may be null) and
// the signal fence. *out_inputs is owned.
strata_status_t makeAsyncInputs(const strata_runtime_call_t* call,
                                strata_hal_fence_t* wait_fence,
                                strata_vm_list_t** out_inputs) {
  *out_inputs = nullptr;
  strata_vm_list_t* inputs = nullptr;
  STRATA_RETURN_IF_ERROR(
      strata_vm_list_create(call->args.size() + 2, call->allocator, &inputs));
  strata_status_t status = nullptr;
  for (size_t i = 0; !status && i < call->args.size(); ++i) {
    strata_vm_variant_t value;
    status = strata_vm_list_get(call->inputs, i, &value);
    if (!status) {
      status = strata_vm_list_push(inputs, value);
    }
  }
  if (!status) {
    status = strata_vm_list_push(
        inputs, strata_vm_variant_ref(
                    wait_fence ? strata_hal_fence_as_ref(wait_fence) : nullptr));
  }
  if (!status) {
    status = strata_vm_list_push(
        inputs,
        strata_vm_variant_ref(strata_hal_fence_as_ref(call->signal_fence)));
  }
  if (status) {
    strata_vm_list_release(inputs);
    return status;
  }
  *out_inputs = inputs;
  return nullptr;
}

// Checks what every invocation needs, and for the asynchronous ones the
// entry point's contract, then gives the call a new signal fence.
strata_status_t prepareAsync(strata_runtime_call_t* call) {
  STRATA_RETURN_IF_ERROR(checkNotInFlight(call, "invoke"));
  STRATA_RETURN_IF_ERROR(checkArgumentCount(call));
  if (call->has_async) {
    STRATA_RETURN_IF_ERROR(checkAsyncContract(call));
  }
  strata_hal_fence_t* signal = nullptr;
  STRATA_RETURN_IF_ERROR(
      strata_hal_fence_create_pending(call->allocator, &signal));
  strata_hal_fence_release(call->signal_fence);
  call->signal_fence = signal;
  strata_vm_list_clear(call->outputs);
  return nullptr;
}

// Submits the asynchronous invocation; on failure nothing is in flight.
strata_status_t startAsync(strata_runtime_call_t* call) {
  if (call->has_async) {
    strata_vm_list_t* inputs = nullptr;
    STRATA_RETURN_IF_ERROR(makeAsyncInputs(call, call->wait_fence, &inputs));
    strata_status_t status = strata_hal_loop_invoke_until(
        call->loop, call->session->context, call->async_function, inputs,
        call->deadline_ns, call->allocator, onAsyncEntryReturned, call);
    strata_vm_list_release(inputs);
    return status;
  }
  if (call->wait_fence) {
    return strata_hal_loop_wait_fence(call->loop, call->wait_fence,
                                      call->deadline_ns, onWaitReached, call);
  }
  return startFallback(call);
}

}  // namespace

extern "C" {

const char* strata_runtime_value_kind_name(strata_runtime_value_kind_t kind) {
  switch (kind) {
  case STRATA_RUNTIME_VALUE_I32: return "i32";
  case STRATA_RUNTIME_VALUE_I64: return "i64";
  case STRATA_RUNTIME_VALUE_F32: return "f32";
  case STRATA_RUNTIME_VALUE_F64: return "f64";
  case STRATA_RUNTIME_VALUE_BUFFER_VIEW: return "buffer view";
  case STRATA_RUNTIME_VALUE_REF: return "ref";
  default: return "none";
  }
}

strata_status_t strata_runtime_call_create(strata_runtime_session_t* session,
                                           const char* function_name,
                                           strata_allocator_t allocator,
                                           strata_runtime_call_t** out_call) {
  *out_call = nullptr;
  if (!function_name || !*function_name) {
    return strata_make_status(STRATA_STATUS_INVALID_ARGUMENT,
                              "a call needs a function name ('fn' or "
                              "'module.fn')");
  }
  // "fn" names an export of the main module; "module.fn" any module's.
  std::string name = function_name;
  std::string main_name =
      strata_vm_module_name(strata_runtime_session_main_module(session));
  std::string full_name = main_name + "." + name;
  strata_vm_function_t function;
  strata_status_t status =
      strata_vm_context_lookup(session->context, full_name.c_str(), &function);
  if (status && name.find('.') != std::string::npos) {
    strata_status_t second =
        strata_vm_context_lookup(session->context, name.c_str(), &function);
    if (!second) {
      strata_status_free(status);
      status = nullptr;
      full_name = name;
    } else {
      strata_status_free(second);
    }
  }
  if (status) {
    strata_status_t named = strata_make_status(
        STRATA_STATUS_NOT_FOUND, "no function '%s' in the session: %s",
        function_name, strata_status_message(status));
    strata_status_free(status);
    return named;
  }
  strata_vm_function_signature_t signature =
      strata_vm_function_signature(session->context, function);
  auto* call = allocateObject<strata_runtime_call_t>(allocator);
  if (!call) {
    return strata_make_status(STRATA_STATUS_RESOURCE_EXHAUSTED,
                              "out of memory creating a call to %s",
                              full_name.c_str());
  }
  call->allocator = allocator;
  call->session = session;
  strata_runtime_session_retain(session);
  call->function = function;
  call->full_name = full_name;
  call->cconv = signature.calling_convention;
  call->args.assign(signature.args, signature.args_length);
  call->results.assign(signature.results, signature.results_length);
  if (signature.variadic) {
    status = strata_make_status(
        STRATA_STATUS_UNIMPLEMENTED,
        "%s has the calling convention '%s', which the call API cannot "
        "drive (only i32, i64, f32, f64 and ref arguments and results)",
        full_name.c_str(), call->cconv.c_str());
  }
  if (!status) {
    std::string async_name =
        full_name + std::string(strata::cconv::kAsyncSuffix);
    strata_status_t lookup = strata_vm_context_lookup(
        session->context, async_name.c_str(), &call->async_function);
    call->has_async = lookup == nullptr;
    strata_status_free(lookup);
    if (call->has_async) {
      const char* async_cconv = strata_vm_function_calling_convention(
          session->context, call->async_function);
      call->async_cconv = async_cconv ? async_cconv : "";
    }
  }
  if (!status) {
    status = strata_vm_list_create(call->args.size(), allocator, &call->inputs);
  }
  if (!status) {
    status =
        strata_vm_list_create(call->results.size(), allocator, &call->outputs);
  }
  if (status) {
    strata_runtime_call_destroy(call);
    return status;
  }
  *out_call = call;
  return nullptr;
}

void strata_runtime_call_destroy(strata_runtime_call_t* call) {
  if (!call) {
    return;
  }
  strata_vm_list_release(call->inputs);
  strata_vm_list_release(call->outputs);
  strata_hal_fence_release(call->wait_fence);
  strata_hal_fence_release(call->signal_fence);
  strata_runtime_session_t* session = call->session;
  freeObject(call->allocator, call);
  strata_runtime_session_release(session);
}

const char* strata_runtime_call_function_name(
    const strata_runtime_call_t* call) {
  return call->full_name.c_str();
}

size_t strata_runtime_call_argument_count(const strata_runtime_call_t* call) {
  return call->args.size();
}

size_t strata_runtime_call_result_count(const strata_runtime_call_t* call) {
  return call->results.size();
}

strata_runtime_value_kind_t strata_runtime_call_argument_kind(
    const strata_runtime_call_t* call, size_t i) {
  return i < call->args.size() ? kindOfChar(call->args[i])
                               : STRATA_RUNTIME_VALUE_NONE;
}

strata_status_t strata_runtime_call_push_i32(strata_runtime_call_t* call,
                                             int32_t value) {
  return push(call, strata_vm_variant_i32(value));
}

strata_status_t strata_runtime_call_push_i64(strata_runtime_call_t* call,
                                             int64_t value) {
  return push(call, strata_vm_variant_i64(value));
}

strata_status_t strata_runtime_call_push_f32(strata_runtime_call_t* call,
                                             float value) {
  return push(call, strata_vm_variant_f32(value));
}

strata_status_t strata_runtime_call_push_f64(strata_runtime_call_t* call,
                                             double value) {
  return push(call, strata_vm_variant_f64(value));
}

strata_status_t strata_runtime_call_push_buffer_view(
    strata_runtime_call_t* call, strata_hal_buffer_view_t* view) {
  if (!view) {
    return strata_make_status(
        STRATA_STATUS_INVALID_ARGUMENT,
        "argument %zu of %s: the buffer view is NULL",
        strata_vm_list_size(call->inputs), call->full_name.c_str());
  }
  return push(call, strata_vm_variant_ref(strata_hal_buffer_view_as_ref(view)));
}

void strata_runtime_call_reset(strata_runtime_call_t* call) {
  if (call->in_flight.load(std::memory_order_acquire)) {
    return;  // documented: not while in flight; never tear live state
  }
  strata_vm_list_clear(call->inputs);
  strata_vm_list_clear(call->outputs);
  strata_hal_fence_release(call->signal_fence);
  call->signal_fence = nullptr;
}

strata_status_t strata_runtime_call_invoke(strata_runtime_call_t* call) {
  STRATA_RETURN_IF_ERROR(checkNotInFlight(call, "invoke"));
  STRATA_RETURN_IF_ERROR(checkArgumentCount(call));
  strata_vm_list_clear(call->outputs);
  strata_status_t status =
      strata_vm_invoke_until(call->session->context, call->function,
                             call->inputs, call->outputs, call->deadline_ns);
  if (status) {
    strata_vm_list_clear(call->outputs);
  }
  return status;
}

void strata_runtime_call_set_deadline(strata_runtime_call_t* call,
                                      int64_t deadline_ns) {
  call->deadline_ns = deadline_ns > 0 && deadline_ns != INT64_MAX
                          ? deadline_ns
                          : 0;
}

strata_status_t strata_runtime_call_invoke_async(
    strata_runtime_call_t* call, strata_hal_loop_t* loop,
    strata_hal_fence_t* wait_fence, strata_runtime_call_callback_t callback,
    void* user) {
  if (!loop || !callback) {
    return strata_make_status(
        STRATA_STATUS_INVALID_ARGUMENT,
        "an asynchronous invocation of %s needs a loop and a callback",
        call->full_name.c_str());
  }
  STRATA_RETURN_IF_ERROR(prepareAsync(call));
  call->loop = loop;
  call->wait_fence = wait_fence;
  strata_hal_fence_retain(wait_fence);
  call->callback = callback;
  call->user = user;
  call->in_flight.store(true, std::memory_order_release);
  strata_status_t status = startAsync(call);
  if (status) {
    call->in_flight.store(false, std::memory_order_release);
    strata_hal_fence_release(call->wait_fence);
    call->wait_fence = nullptr;
    call->callback = nullptr;
    call->user = nullptr;
    failSignal(call, status);
  }
  return status;
}

strata_status_t strata_runtime_call_submit(strata_runtime_call_t* call,
                                           strata_hal_fence_t* wait_fence) {
  STRATA_RETURN_IF_ERROR(prepareAsync(call));
  strata_vm_context_t* context = call->session->context;
  strata_status_t status = nullptr;
  if (call->has_async) {
    strata_vm_list_t* inputs = nullptr;
    status = makeAsyncInputs(call, wait_fence, &inputs);
    if (!status) {
      status = strata_vm_invoke_until(context, call->async_function, inputs,
                                      call->outputs, call->deadline_ns);
    }
    strata_vm_list_release(inputs);
  } else {
    if (wait_fence) {
      status = strata_hal_fence_wait(
          wait_fence,
          call->deadline_ns ? call->deadline_ns : STRATA_HAL_INFINITE_FUTURE);
      if (status) {
        status = strata_status_annotate(
            status, "waiting for the wait fence of %s", call->full_name.c_str());
      }
    }
    if (!status) {
      status = strata_vm_invoke_until(context, call->function, call->inputs,
                                      call->outputs, call->deadline_ns);
    }
    if (!status) {
      status = strata_hal_fence_signal(call->signal_fence);
    }
  }
  if (status) {
    strata_vm_list_clear(call->outputs);
    failSignal(call, status);
  }
  return status;
}

int strata_runtime_call_has_async_entry(const strata_runtime_call_t* call) {
  return call->has_async ? 1 : 0;
}

strata_hal_fence_t* strata_runtime_call_signal_fence(
    const strata_runtime_call_t* call) {
  return call->signal_fence;
}

strata_runtime_value_kind_t strata_runtime_call_result_kind(
    const strata_runtime_call_t* call, size_t i) {
  strata_vm_variant_t value;
  if (call->in_flight.load(std::memory_order_acquire) ||
      i >= strata_vm_list_size(call->outputs)) {
    return STRATA_RUNTIME_VALUE_NONE;
  }
  strata_status_t status = strata_vm_list_get(call->outputs, i, &value);
  if (status) {
    strata_status_free(status);
    return STRATA_RUNTIME_VALUE_NONE;
  }
  return kindOfVariant(value);
}

strata_status_t strata_runtime_call_result_i32(
    const strata_runtime_call_t* call, size_t i, int32_t* out_value) {
  strata_vm_variant_t value;
  STRATA_RETURN_IF_ERROR(getResult(call, i, STRATA_RUNTIME_VALUE_I32, &value));
  *out_value = value.value.i32;
  return nullptr;
}

strata_status_t strata_runtime_call_result_i64(
    const strata_runtime_call_t* call, size_t i, int64_t* out_value) {
  strata_vm_variant_t value;
  STRATA_RETURN_IF_ERROR(getResult(call, i, STRATA_RUNTIME_VALUE_I64, &value));
  *out_value = value.value.i64;
  return nullptr;
}

strata_status_t strata_runtime_call_result_f32(
    const strata_runtime_call_t* call, size_t i, float* out_value) {
  strata_vm_variant_t value;
  STRATA_RETURN_IF_ERROR(getResult(call, i, STRATA_RUNTIME_VALUE_F32, &value));
  *out_value = value.value.f32;
  return nullptr;
}

strata_status_t strata_runtime_call_result_f64(
    const strata_runtime_call_t* call, size_t i, double* out_value) {
  strata_vm_variant_t value;
  STRATA_RETURN_IF_ERROR(getResult(call, i, STRATA_RUNTIME_VALUE_F64, &value));
  *out_value = value.value.f64;
  return nullptr;
}

strata_status_t strata_runtime_call_result_buffer_view(
    const strata_runtime_call_t* call, size_t i,
    strata_hal_buffer_view_t** out_view) {
  *out_view = nullptr;
  strata_vm_variant_t value;
  STRATA_RETURN_IF_ERROR(
      getResult(call, i, STRATA_RUNTIME_VALUE_BUFFER_VIEW, &value));
  strata_vm_ref_retain(value.value.ref);
  *out_view = strata_hal_buffer_view_from_ref(value.value.ref);
  return nullptr;
}

strata_vm_list_t* strata_runtime_call_inputs(strata_runtime_call_t* call) {
  return call->inputs;
}

strata_vm_list_t* strata_runtime_call_outputs(strata_runtime_call_t* call) {
  return call->outputs;
}

}  // extern "C"
