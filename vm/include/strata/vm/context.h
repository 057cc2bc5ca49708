/* context.h - contexts and invocations.
 *
 * A context links modules: each module's imports resolve, by full name and
 * calling convention, to the exports of modules before it. A context holds the
 * per-context state (globals, native module state). Contexts may be invoked
 * from several threads at once; module globals are then not synchronized.
 *
 * C99 and C++.
 */
#ifndef STRATA_VM_CONTEXT_H_
#define STRATA_VM_CONTEXT_H_

#include <stddef.h>
#include <stdint.h>

#include "strata/base/allocator.h"
#include "strata/base/status.h"
#include "strata/vm/list.h"
#include "strata/vm/module.h"
#include "strata/vm/value.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct strata_vm_context_t strata_vm_context_t;

typedef struct strata_vm_context_options_t {
  /* Nested call limit per invocation; 0 means STRATA_DEFAULT_MAX_CALL_DEPTH. */
  uint32_t max_call_depth;
  /* Receives vm.print output; NULL prints to stderr. */
  void (*print)(void* user, const char* text, size_t length);
  void* print_user;
  /* Receives vm.trace events; NULL ignores them. */
  void (*trace)(void* user, const char* event, size_t length,
                const strata_vm_variant_t* values, size_t value_count);
  void* trace_user;
} strata_vm_context_options_t;

/* Creates a context from modules in order (each is retained), resolving
 * imports and checking dependencies, then runs every module's initializer.
 * options may be NULL. Errors name the module and import at fault, and both
 * sides of any mismatch. */
strata_status_t strata_vm_context_create(
    strata_vm_instance_t* instance, strata_vm_module_t* const* modules,
    size_t module_count, const strata_vm_context_options_t* options,
    strata_allocator_t allocator, strata_vm_context_t** out_context);
void strata_vm_context_retain(strata_vm_context_t* context);
void strata_vm_context_release(strata_vm_context_t* context);

/* An exported function of a module in a context. Valid while the context is. */
typedef struct strata_vm_function_t {
  uint32_t module_index;
  uint32_t ordinal; /* module-specific */
} strata_vm_function_t;

/* Finds "module.function". NOT_FOUND names what was looked for and lists the
 * exports of the module when it exists. */
strata_status_t strata_vm_context_lookup(const strata_vm_context_t* context,
                                         const char* full_name,
                                         strata_vm_function_t* out_function);
/* Calling convention of a function (borrowed). */
const char* strata_vm_function_calling_convention(
    const strata_vm_context_t* context, strata_vm_function_t function);
/* A function's calling convention as the VM keeps it, parsed once when the
 * module was loaded (or the native module created). Every pointer is
 * borrowed and valid while the context is. */
typedef struct strata_vm_function_signature_t {
  const char* calling_convention; /* the whole string, e.g. "0ri_r" */
  /* Argument characters (i I f F r, and C...D spans when variadic), not
   * NUL-terminated. */
  const char* args;
  size_t args_length;
  /* Result characters (i I f F r), not NUL-terminated. */
  const char* results;
  size_t results_length;
  /* 1 when args holds variadic spans (native imports only). */
  int variadic;
} strata_vm_function_signature_t;
strata_vm_function_signature_t strata_vm_function_signature(
    const strata_vm_context_t* context, strata_vm_function_t function);
/* Export name, e.g. "main" (borrowed). */
const char* strata_vm_function_name(const strata_vm_context_t* context,
                                    strata_vm_function_t function);

/* The fast path: calls function with raw values and blocks until it returns.
 * arg_count/result_count must match the calling convention. Refs in args are
 * borrowed; refs in results are owned by the caller. Performs no allocation
 * when the context's cached stack is free. */
strata_status_t strata_vm_call(strata_vm_context_t* context,
                               strata_vm_function_t function,
                               const strata_vm_value_t* args, size_t arg_count,
                               strata_vm_value_t* results, size_t result_count);

/* strata_vm_call with a deadline (absolute CLOCK_MONOTONIC nanoseconds; 0
 * or INT64_MAX: none). The interpreter looks at the clock every 1024
 * backward branches and calls, and deferred waits give up at it, so the
 * call returns DEADLINE_EXCEEDED soon after it passes (with the VM
 * backtrace of where it was) however the bytecode loops. A native function
 * that ignores the deadline runs to its end. */
strata_status_t strata_vm_call_until(strata_vm_context_t* context,
                                     strata_vm_function_t function,
                                     const strata_vm_value_t* args,
                                     size_t arg_count,
                                     strata_vm_value_t* results,
                                     size_t result_count, int64_t deadline_ns);

/* Calls function with a list of inputs (borrowed, types checked against the
 * calling convention) and appends the results to outputs. Blocks through
 * deferrals using the functions' waits. */
strata_status_t strata_vm_invoke(strata_vm_context_t* context,
                                 strata_vm_function_t function,
                                 const strata_vm_list_t* inputs,
                                 strata_vm_list_t* outputs);

/* strata_vm_invoke with a deadline, as strata_vm_call_until. */
strata_status_t strata_vm_invoke_until(strata_vm_context_t* context,
                                       strata_vm_function_t function,
                                       const strata_vm_list_t* inputs,
                                       strata_vm_list_t* outputs,
                                       int64_t deadline_ns);

/* An invocation that may suspend (deferred imports, vm.yield) and be resumed
 * later, possibly on another thread. Not thread-safe itself. */
typedef struct strata_vm_invocation_t strata_vm_invocation_t;

typedef enum strata_vm_invocation_state_e {
  STRATA_VM_INVOCATION_READY = 0,     /* created, not run yet */
  STRATA_VM_INVOCATION_SUSPENDED = 1, /* waiting to be resumed */
  STRATA_VM_INVOCATION_COMPLETED = 2, /* results available */
  STRATA_VM_INVOCATION_FAILED = 3,    /* run returned the error */
} strata_vm_invocation_state_t;

/* Prepares an invocation; inputs are copied (refs retained). */
strata_status_t strata_vm_invocation_create(
    strata_vm_context_t* context, strata_vm_function_t function,
    const strata_vm_list_t* inputs, strata_allocator_t allocator,
    strata_vm_invocation_t** out_invocation);
/* Runs until the function returns, fails or suspends. A failure is returned
 * once, with the VM backtrace, and leaves the invocation FAILED. */
strata_status_t strata_vm_invocation_run(strata_vm_invocation_t* invocation);
strata_vm_invocation_state_t strata_vm_invocation_state(
    const strata_vm_invocation_t* invocation);
/* The wait a deferring function registered, if any (wait.wait may be NULL). */
strata_vm_wait_t strata_vm_invocation_wait(
    const strata_vm_invocation_t* invocation);
/* 1 when a SUSPENDED invocation was suspended by a deferring native call,
 * 0 when by vm.yield (or when not suspended). */
int strata_vm_invocation_is_deferred(const strata_vm_invocation_t* invocation);
/* Sets the invocation's deadline (absolute CLOCK_MONOTONIC ns; 0 or
 * INT64_MAX: none), as strata_vm_call_until: running bytecode fails with
 * DEADLINE_EXCEEDED once it passes, strata_vm_invocation_wait reports the
 * earlier of the wait's deadline and this one, and a run after the
 * deadline passed during a wait fails unless the deferred function ended
 * the call itself. */
void strata_vm_invocation_set_deadline(strata_vm_invocation_t* invocation,
                                       int64_t deadline_ns);
/* Marks a SUSPENDED invocation as timed out: the deferred call that runs on
 * the next strata_vm_invocation_run sees strata_vm_native_call_timed_out. */
void strata_vm_invocation_set_timed_out(strata_vm_invocation_t* invocation);
/* Moves the results into outputs (appended). Only when COMPLETED. */
strata_status_t strata_vm_invocation_take_outputs(
    strata_vm_invocation_t* invocation, strata_vm_list_t* outputs);
/* Frees the invocation, releasing its frames and refs in any state. */
void strata_vm_invocation_destroy(strata_vm_invocation_t* invocation);

#ifdef __cplusplus
}  // extern "C"
#endif

#endif /* STRATA_VM_CONTEXT_H_ */
