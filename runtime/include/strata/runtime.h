/* runtime.h - the embedding API: an instance (VM instance + one device), a
 * session (a VM context with the hal module and the user's modules) and
 * calls (arguments in, results out; blocking or completed on a loop).
 *
 * Everything an embedder needs is reachable from this header: it includes
 * the status, allocator, VM, buffer view, fence and loop headers it builds
 * on, and adds helpers that make buffer views from host data and read them
 * back.
 *
 * Conventions (as in the rest of the runtime):
 *   - Every function that can fail returns a strata_status_t: NULL is OK;
 *     anything else is owned by the caller and names what is at fault (the
 *     function, the argument position, both sides of a mismatch).
 *   - Objects are created with an explicit allocator, which must outlive
 *     them. Instances and sessions are reference counted (retain/release);
 *     calls have a single owner (create/destroy).
 *   - "Borrowed" pointers are not retained: the caller keeps them alive for
 *     the duration of the call. "Retained" means the callee adds a reference
 *     and the caller may release its own right away. Out-parameters marked
 *     "owned" hand the caller a reference it must release.
 *
 * Thread-safety: instances and sessions are thread-safe once created (any
 * number of threads may make calls in one session at once; module globals
 * are then not synchronized, exactly as for strata_vm_context_t). A call is
 * used by one thread at a time, and not at all while an asynchronous
 * invocation of it is in flight (until its callback runs).
 *
 * C11 and C++.
 */
#ifndef STRATA_RUNTIME_H_
#define STRATA_RUNTIME_H_

#include <stddef.h>
#include <stdint.h>

#include "strata/base/allocator.h"
#include "strata/base/status.h"
#include "strata/hal/buffer.h"
#include "strata/hal/device.h"
#include "strata/hal/loop.h"
#include "strata/hal/semaphore.h"
#include "strata/vm/context.h"
#include "strata/vm/list.h"
#include "strata/vm/module.h"
#include "strata/vm/value.h"

#ifdef __cplusplus
extern "C" {
#endif

/*===------------------------------------------------------------------===*
 * Instance
 *===------------------------------------------------------------------===*/

/// A VM instance with the HAL ref types registered, and the one device that
/// every session of the instance runs on. Reference counted; thread-safe.
typedef struct strata_runtime_instance_t strata_runtime_instance_t;

typedef struct strata_runtime_instance_options_t {
  /// "local-task" (a pool of worker threads) or "local-sync" (dispatches
  /// run inline on the thread that submits them or reaches their wait).
  /// NULL means "local-task". Borrowed: copied during create.
  const char* device;
  /// local-task worker threads; 0 means one per core.
  uint32_t task_worker_count;
  /// The signature policy (docs/security.md). When not NULL, every module
  /// loaded through this instance (strata_runtime_module_load_memory and
  /// _file, strata_runtime_session_create_from_file) must carry an Ed25519
  /// signature by this public key (STRATA_RUNTIME_PUBLIC_KEY_SIZE bytes);
  /// an unsigned or wrongly signed module is refused with
  /// PERMISSION_DENIED before it is loaded, so none of its kernel libraries
  /// is ever mapped. Modules the embedder loads itself through strata_vm_*
  /// are its own choice. NULL (the default): no policy. Borrowed: copied
  /// during create.
  const uint8_t* required_public_key;
  /// The native-code policy. Non-zero: no kernel library of native code
  /// ("embedded-elf-*", "static") is loaded; hal.executable.create refuses
  /// it with PERMISSION_DENIED naming the format and this policy, and only
  /// modules compiled with --target=portable (kernel bytecode that the
  /// runtime verifies at load and interprets) run. An untrusted module can
  /// then run with nothing to trust but the runtime. 0 (the default):
  /// native kernels load.
  int no_native_kernels;
} strata_runtime_instance_options_t;

/// Size of an Ed25519 public key (required_public_key).
#define STRATA_RUNTIME_PUBLIC_KEY_SIZE 32

/// Fills options with the defaults (local-task, one worker per core).
void strata_runtime_instance_options_initialize(
    strata_runtime_instance_options_t* out_options);

/// Creates an instance. options may be NULL (the defaults). allocator serves
/// the instance, its device and every session and call made from it unless
/// they are given their own; it must outlive them all. An unknown device is
/// INVALID_ARGUMENT naming it and the known ones. *out_instance is owned.
strata_status_t strata_runtime_instance_create(
    const strata_runtime_instance_options_t* options,
    strata_allocator_t allocator, strata_runtime_instance_t** out_instance);
/// Adds a reference. NULL is fine.
void strata_runtime_instance_retain(strata_runtime_instance_t* instance);
/// Drops a reference; the last one frees the instance, its device and its
/// VM instance (sessions hold references, so this never pulls the device
/// out from under a live session). NULL is fine.
void strata_runtime_instance_release(strata_runtime_instance_t* instance);

/// The VM instance (borrowed, valid while the instance is): register your
/// own ref types here before loading modules that name them, or pass it to
/// strata_vm_* functions.
strata_vm_instance_t* strata_runtime_instance_vm_instance(
    const strata_runtime_instance_t* instance);
/// The device (borrowed, valid while the instance is).
strata_hal_device_t* strata_runtime_instance_device(
    const strata_runtime_instance_t* instance);
/// The allocator given at create.
strata_allocator_t strata_runtime_instance_allocator(
    const strata_runtime_instance_t* instance);

/*===------------------------------------------------------------------===*
 * Modules
 *===------------------------------------------------------------------===*/

/// Loads and verifies a .vmfb image from memory; the bytes are copied, so
/// data may be freed when this returns. Errors name what is malformed. The
/// instance's signature policy applies (required_public_key).
/// *out_module is owned (strata_vm_module_release).
strata_status_t strata_runtime_module_load_memory(
    strata_runtime_instance_t* instance, const void* data, size_t size,
    strata_vm_module_t** out_module);
/// Loads and verifies a .vmfb file, reading its header before the rest
/// (strata_vm_module_file_read: no endless or oversized read). Errors name
/// the path. The instance's signature policy applies. *out_module is
/// owned.
strata_status_t strata_runtime_module_load_file(
    strata_runtime_instance_t* instance, const char* path,
    strata_vm_module_t** out_module);

/*===------------------------------------------------------------------===*
 * Session
 *===------------------------------------------------------------------===*/

/// A VM context holding, in order, the hal module (over the instance's
/// device) and the user's modules: bytecode modules and any native modules
/// the user made (strata_vm_native_module_create or
/// strata/vm/native_module.hpp). Each module may import from the modules
/// before it; the last module is the main module, whose exports calls may
/// name without a module prefix. Reference counted; thread-safe. A session
/// retains its instance and modules.
typedef struct strata_runtime_session_t strata_runtime_session_t;

typedef struct strata_runtime_session_options_t {
  /// Options of the VM context (call depth, vm.print and vm.trace sinks);
  /// NULL for the defaults. Borrowed: copied during create.
  const strata_vm_context_options_t* context_options;
} strata_runtime_session_options_t;

/// Creates a session over modules[0..module_count) (each borrowed and
/// retained by the session; at least one). options may be NULL. Linking
/// runs every module's initializer; failures name the module and import at
/// fault. *out_session is owned.
strata_status_t strata_runtime_session_create(
    strata_runtime_instance_t* instance,
    const strata_runtime_session_options_t* options,
    strata_vm_module_t* const* modules, size_t module_count,
    strata_allocator_t allocator, strata_runtime_session_t** out_session);
/// Shorthand: loads one .vmfb file and creates a session with it as the
/// main module, with the instance's allocator and default options.
strata_status_t strata_runtime_session_create_from_file(
    strata_runtime_instance_t* instance, const char* path,
    strata_runtime_session_t** out_session);
/// Adds a reference. NULL is fine.
void strata_runtime_session_retain(strata_runtime_session_t* session);
/// Drops a reference. Calls hold references too, so a session outlives its
/// calls, including asynchronous ones still in flight. NULL is fine.
void strata_runtime_session_release(strata_runtime_session_t* session);

/// The VM context (borrowed, valid while the session is).
strata_vm_context_t* strata_runtime_session_context(
    const strata_runtime_session_t* session);
/// The main module (borrowed, valid while the session is).
strata_vm_module_t* strata_runtime_session_main_module(
    const strata_runtime_session_t* session);
/// The instance (borrowed, valid while the session is).
strata_runtime_instance_t* strata_runtime_session_instance(
    const strata_runtime_session_t* session);

/*===------------------------------------------------------------------===*
 * Calls
 *===------------------------------------------------------------------===*/

/// One function of a session, its arguments and, after an invocation, its
/// results. Create it once and reuse it (strata_runtime_call_reset) for
/// repeated calls. A call retains its session. Not thread-safe.
///
/// Values: arguments and results are buffer views (hal.buffer_view refs)
/// and i32, i64, f32, f64 scalars, checked against the function's calling
/// convention as they are pushed. The underlying strata_vm_list_t of each
/// side is reachable (strata_runtime_call_inputs/outputs) for other ref
/// types. A sequence or optional argument (an export's reflection
/// "argN" = "list<...>" or "optional<...>") is a vm.list of buffer views
/// (an empty optional: an empty list): create it (strata_vm_list_create),
/// push each view (strata_vm_variant_ref(strata_hal_buffer_view_as_ref(v))),
/// then push it onto strata_runtime_call_inputs(call) as
/// strata_vm_variant_ref(strata_vm_list_as_ref(list)) in its place. Such a
/// result is a list ref in strata_runtime_call_outputs(call)
/// (strata_vm_list_from_ref).
typedef struct strata_runtime_call_t strata_runtime_call_t;

/// What a result (or argument) of a function is.
typedef enum strata_runtime_value_kind_e {
  STRATA_RUNTIME_VALUE_NONE = 0,
  STRATA_RUNTIME_VALUE_I32 = 1,
  STRATA_RUNTIME_VALUE_I64 = 2,
  STRATA_RUNTIME_VALUE_F32 = 3,
  STRATA_RUNTIME_VALUE_F64 = 4,
  /// A hal.buffer_view.
  STRATA_RUNTIME_VALUE_BUFFER_VIEW = 5,
  /// Any other ref, or a null ref.
  STRATA_RUNTIME_VALUE_REF = 6,
} strata_runtime_value_kind_t;

/// Readable name of a kind: "i32", "buffer view", "ref"...
const char* strata_runtime_value_kind_name(strata_runtime_value_kind_t kind);

/// Resolves function_name, "fn" (an export of the main module) or
/// "module.fn", and creates a call to it with no arguments. An unknown
/// function is NOT_FOUND naming it and listing the main module's exports.
/// A function whose calling convention the call API cannot drive (variadic)
/// is UNIMPLEMENTED. allocator serves the call and its invocations.
/// *out_call is owned (strata_runtime_call_destroy).
strata_status_t strata_runtime_call_create(strata_runtime_session_t* session,
                                           const char* function_name,
                                           strata_allocator_t allocator,
                                           strata_runtime_call_t** out_call);
/// Frees the call: its arguments, results and its reference to the session.
/// Must not be called while an asynchronous invocation is in flight (before
/// its callback runs; destroying the call from inside its own callback is
/// fine). NULL is fine.
void strata_runtime_call_destroy(strata_runtime_call_t* call);

/// "module.fn" (borrowed, valid while the call is).
const char* strata_runtime_call_function_name(const strata_runtime_call_t* call);
/// The number of arguments and results the function takes and returns.
size_t strata_runtime_call_argument_count(const strata_runtime_call_t* call);
size_t strata_runtime_call_result_count(const strata_runtime_call_t* call);
/// The kind the function expects for argument i (BUFFER_VIEW for every ref
/// argument; NONE past the end).
strata_runtime_value_kind_t strata_runtime_call_argument_kind(
    const strata_runtime_call_t* call, size_t i);

/// Appends the next argument. The kind must be what the function takes at
/// that position: INVALID_ARGUMENT otherwise, naming the function, the
/// position, both kinds and the signature; also when every argument is
/// already pushed. A buffer view is retained by the call (it must not be
/// NULL).
strata_status_t strata_runtime_call_push_i32(strata_runtime_call_t* call,
                                             int32_t value);
strata_status_t strata_runtime_call_push_i64(strata_runtime_call_t* call,
                                             int64_t value);
strata_status_t strata_runtime_call_push_f32(strata_runtime_call_t* call,
                                             float value);
strata_status_t strata_runtime_call_push_f64(strata_runtime_call_t* call,
                                             double value);
strata_status_t strata_runtime_call_push_buffer_view(
    strata_runtime_call_t* call, strata_hal_buffer_view_t* view);

/// Drops the arguments, results and signal fence, so the call can be made
/// again. Does nothing while an asynchronous invocation is in flight.
void strata_runtime_call_reset(strata_runtime_call_t* call);

/// Sets the deadline of the call's next invocations (invoke, invoke_async,
/// submit) until it is set again: absolute CLOCK_MONOTONIC nanoseconds
/// (strata_hal_deadline_after_ns(timeout_ns) makes one); 0 for none, the
/// default. Once it passes, the invocation ends with DEADLINE_EXCEEDED
/// soon after, whatever it is doing: bytecode that loops or recurses
/// (checked at backward branches and calls), a wait for a fence, or device
/// work that does not finish - a kernel that never returns included (on
/// local-task; on local-sync kernels run on the calling thread). When
/// device work was in flight, the device is then lost
/// (strata_hal_device_lose): every later call on the instance fails
/// naming it, since that work may still be running or half done.
void strata_runtime_call_set_deadline(strata_runtime_call_t* call,
                                      int64_t deadline_ns);

/// Invokes the function and blocks until it returns (waiting for its device
/// work on the calling thread). Fewer arguments than the function takes is
/// INVALID_ARGUMENT naming the count; a failure inside the function is
/// returned with its VM backtrace. On success the results replace any
/// earlier ones. Not to be called on a loop's thread from inside a loop
/// callback when the module waits for device work: it would block that loop.
strata_status_t strata_runtime_call_invoke(strata_runtime_call_t* call);

/// Receives the outcome of strata_runtime_call_invoke_async, on the loop
/// thread, exactly once. status is OK (the results are in the call) or the
/// error (owned by the callback). The call is the caller's again: it may be
/// read, reset, invoked again or destroyed here.
typedef void (*strata_runtime_call_callback_t)(void* user,
                                               strata_runtime_call_t* call,
                                               strata_status_t status);

/// Invokes the function without blocking; the callback runs on the thread
/// that runs loop (strata_hal_loop_run*), once the results are ready.
///
/// When the function's module also exports "fn$async" (the async-external
/// entry point: fn's arguments, then a wait fence that may be null and a
/// signal fence; fn's results), the call creates a signal fence, invokes
/// fn$async on the loop thread with wait_fence and that fence - fn$async
/// submits the device work, which waits for wait_fence, and returns with
/// results whose contents are ready when the signal fence is reached (an
/// entry point that awaits inside, to read tensor data on the host,
/// suspends on the loop like any invocation) - and completes when the
/// signal fence is reached (OK) or failed (its error). A fn$async whose
/// calling convention does not follow the contract is INVALID_ARGUMENT
/// naming both conventions. strata-compile --async-exports writes such
/// entry points.
///
/// Otherwise the call falls back to an asynchronous VM invocation of fn on
/// the loop thread (strata_hal_loop_invoke, strata/modules/hal/
/// loop_invoke.h: it suspends where fn awaits a fence and resumes when the
/// fence is reached, never blocking the loop),
/// started after wait_fence is reached when one is given.
///
/// Either way, strata_runtime_call_signal_fence returns a fence that is
/// reached when the results are ready, or failed with the call's error, so
/// another call can wait for this one (pass it as that call's wait_fence).
///
/// wait_fence (optional, retained until the callback) delays the call's
/// work until it is reached; if it fails, the call fails with its error.
/// loop (borrowed) must outlive the callback; destroying the loop first
/// runs the callback with CANCELLED. Missing arguments or a call already in
/// flight are returned at once and the callback never runs.
strata_status_t strata_runtime_call_invoke_async(
    strata_runtime_call_t* call, strata_hal_loop_t* loop,
    strata_hal_fence_t* wait_fence, strata_runtime_call_callback_t callback,
    void* user);

/// Submits the function's work and returns with its results, whose contents
/// are ready only once strata_runtime_call_signal_fence is reached (failed:
/// the work failed, with its error). This is how calls are chained without
/// a round trip through the host: push this call's result views into the
/// next call and submit it with this call's signal fence as its wait_fence;
/// then wait for the last signal fence (strata_hal_loop_wait_fence on a
/// loop, or strata_hal_fence_wait).
///
/// With "fn$async" (see strata_runtime_call_invoke_async) the entry point
/// runs on the calling thread with wait_fence (optional, may be NULL) and
/// the call's new signal fence, and returns as soon as the work is
/// submitted (it blocks only where the entry point itself awaits). Without it, submit blocks: it waits for wait_fence, runs fn
/// to completion and then signals the signal fence. An error returned here
/// also fails the signal fence.
strata_status_t strata_runtime_call_submit(strata_runtime_call_t* call,
                                           strata_hal_fence_t* wait_fence);

/// 1 when the function has an async-external entry point ("fn$async") that
/// strata_runtime_call_invoke_async uses, 0 when it falls back.
int strata_runtime_call_has_async_entry(const strata_runtime_call_t* call);

/// The signal fence of the latest strata_runtime_call_invoke_async or
/// strata_runtime_call_submit (borrowed, valid until the call is reset, invoked again or destroyed;
/// retain it to keep it longer), or NULL before the first one.
strata_hal_fence_t* strata_runtime_call_signal_fence(
    const strata_runtime_call_t* call);

/// The kind of result i after a successful invocation (NONE past the end).
strata_runtime_value_kind_t strata_runtime_call_result_kind(
    const strata_runtime_call_t* call, size_t i);
/// Reads result i. A result of another kind is INVALID_ARGUMENT, an index
/// past the last result OUT_OF_RANGE, and a call without results (never
/// invoked, or its last invocation failed) FAILED_PRECONDITION; each names
/// the function, the index and the kinds. A
/// buffer view comes back retained (owned by the caller).
strata_status_t strata_runtime_call_result_i32(const strata_runtime_call_t* call,
                                               size_t i, int32_t* out_value);
strata_status_t strata_runtime_call_result_i64(const strata_runtime_call_t* call,
                                               size_t i, int64_t* out_value);
strata_status_t strata_runtime_call_result_f32(const strata_runtime_call_t* call,
                                               size_t i, float* out_value);
strata_status_t strata_runtime_call_result_f64(const strata_runtime_call_t* call,
                                               size_t i, double* out_value);
strata_status_t strata_runtime_call_result_buffer_view(
    const strata_runtime_call_t* call, size_t i,
    strata_hal_buffer_view_t** out_view);

/// The argument and result lists (borrowed, valid while the call is), for
/// values this API has no push or result function for. Whatever is pushed
/// directly is checked when the call is invoked.
strata_vm_list_t* strata_runtime_call_inputs(strata_runtime_call_t* call);
strata_vm_list_t* strata_runtime_call_outputs(strata_runtime_call_t* call);

/*===------------------------------------------------------------------===*
 * Buffer views from and to host memory
 *===------------------------------------------------------------------===*/

/// Creates a buffer view of shape[0..rank) and element_type holding a copy
/// of data[0..data_length), which must be exactly the view's byte size
/// (product of the dims times the element size; the error names both). A
/// negative dim, a rank above STRATA_HAL_MAX_RANK, an unknown element type
/// or an overflowing size is INVALID_ARGUMENT. data may be NULL when
/// data_length is 0. *out_view is owned (strata_hal_buffer_view_release).
strata_status_t strata_runtime_buffer_view_from_host(
    strata_hal_element_type_t element_type, const int64_t* shape, size_t rank,
    const void* data, size_t data_length, strata_allocator_t allocator,
    strata_hal_buffer_view_t** out_view);

/// Copies the view's contents into data[0..data_length), which must be
/// exactly the view's byte size (the error names both). The contents are
/// whatever the buffer holds now: read results after their call completed.
strata_status_t strata_runtime_buffer_view_to_host(
    const strata_hal_buffer_view_t* view, void* data, size_t data_length);

/// The view's contents in place: *out_data (borrowed, valid while the view
/// lives) and *out_length (its byte size).
strata_status_t strata_runtime_buffer_view_data(
    const strata_hal_buffer_view_t* view, const void** out_data,
    size_t* out_length);

/// Writes "2x3xf32" (the shape and element type as strata-run prints them)
/// into buffer[0..capacity), NUL-terminated and truncated if needed. Returns
/// the length of the whole text (as snprintf does).
size_t strata_runtime_buffer_view_format_type(
    const strata_hal_buffer_view_t* view, char* buffer, size_t capacity);

#ifdef __cplusplus
}  /* extern "C" */
#endif

#endif /* STRATA_RUNTIME_H_ */
