/* module.h - instances, modules (bytecode or native) and the native module
 * C API.
 *
 * An instance owns the ref type registry. Modules are immutable, reference
 * counted and may be shared by many contexts on many threads. Per-context
 * mutable state (globals, a native module's counters) lives in the context.
 *
 * C99 and C++.
 */
#ifndef STRATA_VM_MODULE_H_
#define STRATA_VM_MODULE_H_

#include <stddef.h>
#include <stdint.h>

#include "strata/base/allocator.h"
#include "strata/base/status.h"
#include "strata/vm/ref.h"
#include "strata/vm/value.h"

#ifdef __cplusplus
extern "C" {
#endif

/*===------------------------------------------------------------------===*
 * Instance
 *===------------------------------------------------------------------===*/

typedef struct strata_vm_instance_t strata_vm_instance_t;

/* Creates an instance with the builtin types (vm.buffer, vm.list). */
strata_status_t strata_vm_instance_create(strata_allocator_t allocator,
                                          strata_vm_instance_t** out_instance);
void strata_vm_instance_retain(strata_vm_instance_t* instance);
void strata_vm_instance_release(strata_vm_instance_t* instance);

/* Registers a ref type by its name. type must outlive the instance.
 * Registering the same pointer twice is fine; another type with a taken name
 * is ALREADY_EXISTS. Not thread-safe with concurrent loads. */
strata_status_t strata_vm_instance_register_type(
    strata_vm_instance_t* instance, const strata_vm_ref_type_t* type);
/* The registered type with this name, or NULL. Thread-safe. */
const strata_vm_ref_type_t* strata_vm_instance_lookup_type(
    const strata_vm_instance_t* instance, const char* name, size_t name_length);

/*===------------------------------------------------------------------===*
 * Modules
 *===------------------------------------------------------------------===*/

typedef struct strata_vm_module_t strata_vm_module_t;

void strata_vm_module_retain(strata_vm_module_t* module);
void strata_vm_module_release(strata_vm_module_t* module);

/* Name and version of a module. The name is borrowed from the module. */
const char* strata_vm_module_name(const strata_vm_module_t* module);
uint32_t strata_vm_module_version(const strata_vm_module_t* module);

/* Exported functions. Strings are borrowed from the module. */
size_t strata_vm_module_export_count(const strata_vm_module_t* module);
typedef struct strata_vm_export_info_t {
  const char* name;               /* short name, "main" */
  const char* calling_convention; /* "0iI_f" */
  size_t attr_count;              /* reflection attributes */
} strata_vm_export_info_t;
strata_status_t strata_vm_module_export_info(const strata_vm_module_t* module,
                                             size_t i,
                                             strata_vm_export_info_t* out_info);
/* The i-th reflection attribute of export e (key/value, borrowed). */
strata_status_t strata_vm_module_export_attr(const strata_vm_module_t* module,
                                             size_t e, size_t i,
                                             const char** out_key,
                                             const char** out_value);
/* The index of the export named name (short name, "main"). NOT_FOUND names
 * the module and the export. */
strata_status_t strata_vm_module_find_export(const strata_vm_module_t* module,
                                             const char* name,
                                             size_t* out_index);
/* The value of reflection attribute key of export export_name (borrowed), or
 * NULL when the module has no such export or the export no such attribute.
 * The one lookup of export attributes (the embedding API, the tools and the
 * Python package use it). */
const char* strata_vm_module_export_attr_value(const strata_vm_module_t* module,
                                               const char* export_name,
                                               const char* key);

/*===------------------------------------------------------------------===*
 * Bytecode modules
 *===------------------------------------------------------------------===*/

/* Called when a module that borrowed its bytes is destroyed. */
typedef void (*strata_vm_release_fn_t)(void* user, const uint8_t* data,
                                       size_t size);

/* Loads and fully verifies a .vmfb image.
 *
 * When release is NULL the bytes are copied and data may be freed right
 * after. Otherwise the module borrows data and calls release exactly once:
 * when the module dies, or at once if the bytes had to be copied (data not
 * 64-byte aligned) or loading failed. Every failure is a status naming what
 * is malformed. Types named by the module must already be registered with
 * instance. */
strata_status_t strata_vm_bytecode_module_load(
    strata_vm_instance_t* instance, const uint8_t* data, size_t size,
    strata_vm_release_fn_t release, void* release_user,
    strata_allocator_t allocator, strata_vm_module_t** out_module);

/* Largest module read from a file that is not a regular file (a pipe, a
 * device): its header's declared size is trusted only up to here. */
#define STRATA_MAX_STREAMED_MODULE_SIZE ((uint64_t)1 << 30)

/* Reads the module file at path into 64-byte aligned memory from allocator
 * (free it with strata_allocator_free). The 64-byte header is read and its
 * magic and declared extent checked before anything else is read or
 * allocated; then exactly that extent is read. Directories are refused, a
 * regular file shorter than its header declares is refused before any
 * allocation, other files are read up to STRATA_MAX_STREAMED_MODULE_SIZE.
 * Errors name the path: NOT_FOUND, PERMISSION_DENIED, INVALID_ARGUMENT (not
 * a module, truncated, over a limit), RESOURCE_EXHAUSTED (allocation),
 * DATA_LOSS (read error). Thread-safe. */
strata_status_t strata_vm_module_file_read(const char* path,
                                           strata_allocator_t allocator,
                                           uint8_t** out_data,
                                           size_t* out_size);

/* Checks a module image's Ed25519 signature (Module.signature, format 1.1;
 * docs/security.md) against public_key, STRATA_VM_MODULE_PUBLIC_KEY_SIZE (32)
 * bytes, before anything else reads the image. PERMISSION_DENIED when the
 * module is unsigned or its signature does not match the key,
 * INVALID_ARGUMENT when it is malformed, UNIMPLEMENTED when this build has
 * no libsodium. Borrows everything; thread-safe. */
strata_status_t strata_vm_module_verify_signature(const uint8_t* data,
                                                  size_t size,
                                                  const uint8_t* public_key,
                                                  size_t public_key_size);

/* Ed25519 key sizes (libsodium's forms) for module signatures. */
#define STRATA_VM_MODULE_PUBLIC_KEY_SIZE 32
#define STRATA_VM_MODULE_SECRET_KEY_SIZE 64

/* Reads a key file into out_key: key_size raw bytes, or 2 * key_size
 * hexadecimal digits and an optional newline (what strata-keygen writes).
 * Errors name the path. Thread-safe. */
strata_status_t strata_vm_key_file_read(const char* path, uint8_t* out_key,
                                        size_t key_size);

/* strata_vm_module_file_read, then (when required_public_key is not NULL)
 * strata_vm_module_verify_signature with that 32-byte key, then
 * strata_vm_bytecode_module_load on the bytes, which the module keeps (no
 * copy) until it dies. Errors after the read are prefixed with
 * "module file '<path>': ". Thread-safe. */
strata_status_t strata_vm_bytecode_module_load_file(
    strata_vm_instance_t* instance, const char* path,
    const uint8_t* required_public_key, strata_allocator_t allocator,
    strata_vm_module_t** out_module);

/*===------------------------------------------------------------------===*
 * Native modules
 *===------------------------------------------------------------------===*/

/* Per-call context handed to native functions. */
typedef struct strata_vm_native_call_t strata_vm_native_call_t;

/* A native function. args holds one value per calling-convention argument;
 * a variadic span contributes an i32 count followed by its elements. Refs in
 * args are borrowed. The function stores owned refs in results (all zeroed on
 * entry); on failure the interpreter releases any refs left in results.
 *
 * Returning strata_status_deferred() suspends the invocation; the same call
 * is made again, with the same arguments, when the invocation resumes. */
typedef strata_status_t (*strata_vm_native_fn_t)(
    strata_vm_native_call_t* call, void* module_self, void* module_state,
    const strata_vm_value_t* args, size_t arg_count,
    strata_vm_value_t* results, size_t result_count);

typedef struct strata_vm_native_function_t {
  const char* name;               /* short name; the import is "module.name" */
  const char* calling_convention; /* format.h; may hold C..D spans */
  strata_vm_native_fn_t fn;
} strata_vm_native_function_t;

typedef struct strata_vm_module_dependency_t {
  const char* name;
  uint32_t minimum_version;
  int optional;
} strata_vm_module_dependency_t;

typedef struct strata_vm_native_module_descriptor_t {
  const char* name;
  uint32_t version;
  const strata_vm_module_dependency_t* dependencies;
  size_t dependency_count;
  const strata_vm_native_function_t* functions;
  size_t function_count;
  /* Optional: makes the per-context state passed to every call. */
  strata_status_t (*create_state)(void* self, strata_allocator_t allocator,
                                  void** out_state);
  /* Optional: frees a state from create_state. */
  void (*destroy_state)(void* self, void* state);
  /* Optional: called once when the module is destroyed. */
  void (*destroy)(void* self);
} strata_vm_native_module_descriptor_t;

/* Creates a module backed by native functions. descriptor (borrowed) and
 * everything it points to must outlive the module; self is passed to every
 * callback. Calling conventions are validated here. */
strata_status_t strata_vm_native_module_create(
    const strata_vm_native_module_descriptor_t* descriptor, void* self,
    strata_allocator_t allocator, strata_vm_module_t** out_module);

/* What a deferring function waits for. A blocking host calls wait(); an
 * async host calls subscribe() and resumes the invocation when notified.
 * Either way the deferring call runs again on resume; if the deadline passed
 * first, strata_vm_native_call_timed_out() is 1 during that call, so the
 * function can report the timeout its own way. */
typedef void (*strata_vm_notify_fn_t)(void* notify_user);
typedef struct strata_vm_wait_t {
  /* Blocks until the wait is over (OK), deadline_ns passes
   * (DEADLINE_EXCEEDED) or the wait itself breaks (any other error, which
   * fails the invocation). Required. */
  strata_status_t (*wait)(void* user, int64_t deadline_ns);
  void* user;
  /* Optional: arranges for notify(notify_user) to run exactly once, on any
   * thread, when the wait is over; *out_token identifies the subscription. */
  strata_status_t (*subscribe)(void* user, strata_vm_notify_fn_t notify,
                               void* notify_user, void** out_token);
  /* With subscribe: cancels a subscription. Returns 1 when notify will never
   * run, 0 when it has run or is running. */
  int (*unsubscribe)(void* user, void* token);
  /* Absolute CLOCK_MONOTONIC nanoseconds when the call gives up; 0 is read
   * as INT64_MAX (no deadline). */
  int64_t deadline_ns;
} strata_vm_wait_t;
void strata_vm_native_call_set_wait(strata_vm_native_call_t* call,
                                    strata_vm_wait_t wait);
/* 1 when the invocation resumed because the deadline of this call's earlier
 * deferral passed before its wait was over. */
int strata_vm_native_call_timed_out(const strata_vm_native_call_t* call);
/* The deadline of the invocation making the call (absolute CLOCK_MONOTONIC
 * ns; INT64_MAX: none): a deferring function that finds it passed when it
 * runs timed out ends the call its own way (the hal module's fence.await
 * fails with DEADLINE_EXCEEDED and marks the device lost). */
int64_t strata_vm_native_call_deadline_ns(const strata_vm_native_call_t* call);
/* Allocator of the context making the call. */
strata_allocator_t strata_vm_native_call_allocator(
    const strata_vm_native_call_t* call);
/* Instance of the context making the call. */
strata_vm_instance_t* strata_vm_native_call_instance(
    const strata_vm_native_call_t* call);

#ifdef __cplusplus
}  // extern "C"
#endif

#endif /* STRATA_VM_MODULE_H_ */
