// context_impl.h - the layout behind strata_vm_context_t and the interpreter
// stack. Shared by context.cpp (linking, invocation API) and interpreter.cpp.
#ifndef STRATA_VM_SRC_CONTEXT_IMPL_H_
#define STRATA_VM_SRC_CONTEXT_IMPL_H_

#include <atomic>
#include <cstdint>
#include <vector>

#include "bytecode_module.h"
#include "format.h"
#include "module_impl.h"
#include "strata/vm/buffer.h"
#include "strata/vm/context.h"

namespace strata::vm {

struct ModuleState;

// What an import of a bytecode module resolved to in one context.
struct ResolvedImport {
  enum class Kind : uint8_t { kNull, kBytecode, kNative };
  Kind kind = Kind::kNull;
  ModuleState* target = nullptr;  // the callee module's state
  uint32_t ordinal = 0;           // function index in the callee module
  const Import* import = nullptr;  // the caller's declaration
};

// Per-context state of one module.
struct ModuleState {
  strata_vm_context_t* context = nullptr;
  strata_vm_module_t* module = nullptr;  // retained
  BytecodeModule* bytecode = nullptr;    // null for native modules
  void* native_state = nullptr;          // from create_state
  bool native_state_created = false;
  uint8_t* globals = nullptr;            // global_prim_bytes, zeroed
  strata_vm_ref_object_t** ref_globals = nullptr;  // global_ref_count
  std::vector<strata_vm_buffer_t*> rodata;         // owned references
  std::vector<ResolvedImport> imports;
};

// One activation of a bytecode function.
struct Frame {
  ModuleState* state;
  const Function* function;
  uint32_t function_index;
  // Caller frames: offset of the instruction after the call, where execution
  // goes on; the call's result registers are the bytes right before it.
  // The top frame, while suspended: offset of the instruction to run next.
  uint32_t pc;
  // Offset of the instruction that is running or made the call (backtraces).
  uint32_t call_pc;
  uint32_t prim_base;
  uint32_t ref_base;
};

// The frames and registers of one invocation. Calls between bytecode
// functions push frames here instead of recursing on the C stack. Fields are
// left uninitialized on purpose: stackInitialize sets every one, and a host
// call constructs a Stack each time.
struct Stack {
  strata_vm_context_t* context;
  strata_allocator_t allocator;
  uint32_t max_depth;

  Frame* frames;
  uint32_t frame_count;
  uint32_t frame_capacity;

  uint64_t* prims;
  uint32_t prim_top;
  uint32_t prim_capacity;

  strata_vm_ref_object_t** refs;
  uint32_t ref_top;
  uint32_t ref_capacity;

  // Marshalling space for native calls.
  strata_vm_value_t* scratch;
  uint32_t scratch_capacity;

  // Where the entry function's results go; owned refs end up here.
  strata_vm_value_t* host_results;

  // Caller-provided storage the arrays start in; never freed by the stack.
  const uint8_t* inline_begin;
  const uint8_t* inline_end;

  // Set by a deferring native function; cleared on resume.
  strata_vm_wait_t wait;
  bool deferred;  // suspended by a deferral (else by vm.yield)
  bool timed_out;  // the next deferred call sees a timeout
  bool heap_arrays;  // some array moved to the heap

  // The call's deadline, absolute CLOCK_MONOTONIC ns (INT64_MAX: none).
  // The interpreter looks at the clock once every kInterruptInterval
  // backward branches and calls (interrupt_countdown), so an endless loop
  // or recursion ends with DEADLINE_EXCEEDED; deferred waits give up at it.
  int64_t deadline_ns;
  uint32_t interrupt_countdown;
};

// Backward branches and calls between two looks at the clock: a look costs
// ~20 ns (vDSO clock_gettime), a loop iteration a few ns, so a deadline is
// noticed within microseconds and the look costs well under 1%.
constexpr uint32_t kInterruptInterval = 1024;

// CLOCK_MONOTONIC in nanoseconds, the clock of every deadline.
int64_t monotonicNowNs();

// Outcome of running a stack.
enum class RunState { kCompleted, kSuspended };

// Bytes of C stack a blocking call lends its Stack, so that shallow calls
// never touch the heap.
constexpr size_t kInlineStackStorage = 6144;

// Prepares an empty stack. storage (may be null) is an aligned block the
// arenas start in; it must outlive the stack.
void stackInitialize(Stack* stack, strata_vm_context_t* context,
                     strata_allocator_t allocator, void* storage,
                     size_t storage_size);
// Releases every frame's refs and frees the arenas.
void stackDeinitialize(Stack* stack);
// Releases every frame's refs and empties the stack; keeps the arenas.
void stackReset(Stack* stack);

// Pushes the entry frame of a bytecode function. Refs in args are borrowed
// (retained into registers). args must match the function's signature.
strata_status_t stackEnter(Stack* stack, ModuleState* state,
                           uint32_t function_index,
                           const strata_vm_value_t* args,
                           strata_vm_value_t* results);

// Runs the stack until the entry function returns or the invocation
// suspends. On failure the stack is unwound (all refs released) and the
// status carries the VM backtrace.
strata_status_t stackRun(Stack* stack, RunState* out_state);

// Calls a native function of a native module directly from the host.
strata_status_t callNative(strata_vm_context_t* context, ModuleState* state,
                           uint32_t ordinal, const strata_vm_value_t* args,
                           size_t arg_count, strata_vm_value_t* results,
                           size_t result_count, bool timed_out,
                           strata_vm_wait_t* out_wait,
                           int64_t deadline_ns);

}  // namespace strata::vm

struct strata_vm_native_call_t {
  strata_vm_context_t* context;
  strata::vm::Stack* stack;  // null when the host calls a native export
  strata_vm_wait_t wait;
  bool timed_out;
  int64_t deadline_ns;  // the invocation's (INT64_MAX: none)
};

struct strata_vm_context_t {
  std::atomic<int32_t> refs{1};
  strata_allocator_t allocator{};
  strata_vm_instance_t* instance = nullptr;  // retained
  strata_vm_context_options_t options{};
  strata::vm::ModuleState* states = nullptr;  // module_count entries
  uint32_t module_count = 0;
};

#endif  // STRATA_VM_SRC_CONTEXT_IMPL_H_
