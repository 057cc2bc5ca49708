// context.cpp - linking modules into a context (dependencies, imports,
// per-context state), and the call, invoke and invocation entry points.
#include <cstring>
#include <new>
#include <string>

#include "strata/base/trace.h"
#include "context_impl.h"
#include "format.h"
#include "strata/vm/buffer.h"
#include "strata/vm/list.h"

namespace strata::vm {
namespace {

std::string str(std::string_view s) { return std::string(s); }

// "(i32, i64) -> f32" for error messages.
std::string describeSignature(const Signature& sig) {
  auto name = [](char c) -> const char* {
    switch (c) {
      case 'i': return "i32";
      case 'I': return "i64";
      case 'f': return "f32";
      case 'F': return "f64";
      case 'r': return "ref";
      case 'C': return "variadic(";
      case 'D': return ")";
    }
    return "?";
  };
  std::string out = "(";
  for (size_t i = 0; i < sig.args.size(); ++i) {
    if (i && sig.args[i] != 'D') out += ", ";
    out += name(sig.args[i]);
  }
  out += ") -> (";
  for (size_t i = 0; i < sig.results.size(); ++i) {
    if (i) out += ", ";
    out += name(sig.results[i]);
  }
  out += ")";
  return out;
}

void destroyState(strata_vm_context_t* context, ModuleState* state) {
  for (strata_vm_buffer_t* buffer : state->rodata) {
    strata_vm_buffer_release(buffer);
  }
  if (state->ref_globals) {
    uint32_t count = state->bytecode ? state->bytecode->global_ref_count : 0;
    for (uint32_t i = 0; i < count; ++i) {
      strata_vm_ref_release(state->ref_globals[i]);
    }
    strata_allocator_free(context->allocator, state->ref_globals);
  }
  strata_allocator_free(context->allocator, state->globals);
  if (state->native_state_created && state->module->native->destroy_state) {
    state->module->native->destroy_state(state->module->native_self,
                                         state->native_state);
  }
  if (state->module) {
    strata_vm_module_release(state->module);
  }
  state->~ModuleState();
}

void destroyContext(strata_vm_context_t* context) {
  // Later modules may call into earlier ones: tear down in reverse.
  for (uint32_t i = context->module_count; i-- > 0;) {
    destroyState(context, &context->states[i]);
  }
  strata_allocator_free(context->allocator, context->states);
  strata_vm_instance_t* instance = context->instance;
  strata_allocator_t allocator = context->allocator;
  context->~strata_vm_context_t();
  strata_allocator_free(allocator, context);
  strata_vm_instance_release(instance);
}

strata_status_t checkDependencies(strata_vm_context_t* context, uint32_t index) {
  const strata_vm_module_t* module = context->states[index].module;
  for (const Dependency& dep : module->dependencies) {
    const strata_vm_module_t* found = nullptr;
    for (uint32_t j = index; j-- > 0;) {
      if (context->states[j].module->name == dep.name) {
        found = context->states[j].module;
        break;
      }
    }
    if (!found) {
      if (dep.optional) {
        continue;
      }
      return strata_make_status(
          STRATA_STATUS_NOT_FOUND,
          "module '%s' depends on module '%s' (>= %u), which is not in the "
          "context before it",
          str(module->name).c_str(), str(dep.name).c_str(),
          dep.minimum_version);
    }
    if (found->version < dep.minimum_version) {
      return strata_make_status(
          STRATA_STATUS_FAILED_PRECONDITION,
          "module '%s' needs '%s' >= %u, the context has '%s' version %u",
          str(module->name).c_str(), str(dep.name).c_str(),
          dep.minimum_version, str(dep.name).c_str(), found->version);
    }
  }
  return nullptr;
}

strata_status_t resolveImports(strata_vm_context_t* context, uint32_t index) {
  ModuleState* state = &context->states[index];
  const BytecodeModule& bytecode = *state->bytecode;
  state->imports.resize(bytecode.imports.size());
  for (size_t i = 0; i < bytecode.imports.size(); ++i) {
    const Import& import = bytecode.imports[i];
    ResolvedImport& resolved = state->imports[i];
    resolved.import = &import;
    ModuleState* target = nullptr;
    for (uint32_t j = index; j-- > 0;) {
      if (context->states[j].module->name == import.module_name) {
        target = &context->states[j];
        break;
      }
    }
    if (!target) {
      if (import.optional) {
        continue;
      }
      return strata_make_status(
          STRATA_STATUS_NOT_FOUND,
          "module '%s' imports '%s', but no module named '%s' is in the "
          "context before it",
          str(bytecode.name).c_str(), str(import.full_name).c_str(),
          str(import.module_name).c_str());
    }
    const ModuleExport* found = nullptr;
    for (const ModuleExport& e : target->module->exports) {
      if (e.name == import.function_name) {
        found = &e;
        break;
      }
    }
    if (!found) {
      if (import.optional) {
        continue;
      }
      std::string names;
      for (const ModuleExport& e : target->module->exports) {
        names += names.empty() ? "" : ", ";
        names += str(e.name);
      }
      return strata_make_status(
          STRATA_STATUS_NOT_FOUND,
          "module '%s' imports '%s', but module '%s' has no export '%s' (it "
          "exports: %s)",
          str(bytecode.name).c_str(), str(import.full_name).c_str(),
          str(import.module_name).c_str(), str(import.function_name).c_str(),
          names.empty() ? "nothing" : names.c_str());
    }
    if (found->signature.text != import.signature.text) {
      return strata_make_status(
          STRATA_STATUS_INVALID_ARGUMENT,
          "module '%s' imports '%s' as %s [%s], but '%s' exports it as %s "
          "[%s]",
          str(bytecode.name).c_str(), str(import.full_name).c_str(),
          describeSignature(import.signature).c_str(),
          str(import.signature.text).c_str(), str(import.module_name).c_str(),
          describeSignature(found->signature).c_str(),
          str(found->signature.text).c_str());
    }
    if (target->bytecode) {
      // The verifier rejects variadic bytecode functions, and the strings
      // match, so a variadic import never reaches a bytecode export.
      resolved.kind = ResolvedImport::Kind::kBytecode;
    } else {
      resolved.kind = ResolvedImport::Kind::kNative;
    }
    resolved.target = target;
    resolved.ordinal = found->ordinal;
  }
  return nullptr;
}

strata_status_t createState(strata_vm_context_t* context, uint32_t index,
                            strata_vm_module_t* module) {
  ModuleState* state = new (&context->states[index]) ModuleState();
  state->context = context;
  state->module = module;
  strata_vm_module_retain(module);
  if (module->kind == ModuleKind::kNative) {
    if (module->native->create_state) {
      STRATA_RETURN_IF_ERROR(strata_status_annotate(
          module->native->create_state(module->native_self,
                                       context->allocator,
                                       &state->native_state),
          "creating the state of native module '%s'",
          str(module->name).c_str()));
    }
    state->native_state_created = true;
    return nullptr;
  }
  BytecodeModule* bytecode = module->bytecode;
  state->bytecode = bytecode;
  if (bytecode->global_prim_bytes) {
    state->globals = static_cast<uint8_t*>(strata_allocator_alloc(
        context->allocator, bytecode->global_prim_bytes, 16));
    if (!state->globals) {
      return strata_make_status(STRATA_STATUS_RESOURCE_EXHAUSTED,
                                "out of memory for %u bytes of globals",
                                bytecode->global_prim_bytes);
    }
    std::memset(state->globals, 0, bytecode->global_prim_bytes);
  }
  if (bytecode->global_ref_count) {
    size_t bytes = bytecode->global_ref_count * sizeof(void*);
    state->ref_globals = static_cast<strata_vm_ref_object_t**>(
        strata_allocator_alloc(context->allocator, bytes, alignof(void*)));
    if (!state->ref_globals) {
      return strata_make_status(STRATA_STATUS_RESOURCE_EXHAUSTED,
                                "out of memory for %u ref globals",
                                bytecode->global_ref_count);
    }
    std::memset(state->ref_globals, 0, bytes);
  }
  // Rodata buffers view the module image and keep the module alive.
  state->rodata.reserve(bytecode->rodata.size());
  for (const Span& span : bytecode->rodata) {
    strata_vm_buffer_t* buffer = nullptr;
    STRATA_RETURN_IF_ERROR(strata_vm_buffer_wrap(
        const_cast<uint8_t*>(span.data), span.length, /*writable=*/0,
        &module->header, context->allocator, &buffer));
    state->rodata.push_back(buffer);
  }
  return nullptr;
}

// The earlier of a wait's deadline and the call's.
int64_t effectiveDeadline(const strata_vm_wait_t& wait, int64_t call_deadline) {
  int64_t deadline = wait.deadline_ns ? wait.deadline_ns : INT64_MAX;
  return deadline < call_deadline ? deadline : call_deadline;
}

// A deferring function that defers again after the call's deadline passed
// (and it was told so) would be rerun forever: the call fails instead.
strata_status_t deadlinePassedWhileDeferred() {
  return strata_make_status(STRATA_STATUS_DEADLINE_EXCEEDED,
                            "the call's deadline passed while it waited");
}

// Blocks on a deferral's wait, giving up at the earlier of the wait's and
// the call's deadlines. Returns OK when the call should run again, with
// *timed_out set when a deadline passed first.
strata_status_t blockOn(const strata_vm_wait_t& wait, bool* timed_out,
                        int64_t call_deadline = INT64_MAX) {
  *timed_out = false;
  int64_t deadline = effectiveDeadline(wait, call_deadline);
  strata_status_t status = wait.wait(wait.user, deadline);
  if (strata_status_code(status) == STRATA_STATUS_DEADLINE_EXCEEDED) {
    strata_status_free(status);
    *timed_out = true;
    return nullptr;
  }
  return status;
}

// Runs a stack to completion, blocking on the waits of deferring functions.
strata_status_t runToCompletion(Stack* stack) {
  bool resumed_after_deadline = false;
  for (;;) {
    RunState state;
    STRATA_RETURN_IF_ERROR(stackRun(stack, &state));
    if (state == RunState::kCompleted) {
      return nullptr;
    }
    if (stack->deferred) {
      if (!stack->wait.wait) {
        strata_status_t status = strata_make_status(
            STRATA_STATUS_FAILED_PRECONDITION,
            "a native function deferred without a wait, so a blocking call "
            "cannot resume it; use an invocation instead");
        const Frame& frame = stack->frames[stack->frame_count - 1];
        const BytecodeModule& m = *frame.state->bytecode;
        status = strata_status_annotate(
            status, "at %s.%s (pc %u)", str(m.name).c_str(),
            m.functionDisplayName(frame.function_index).c_str(), frame.pc);
        stackReset(stack);
        return status;
      }
      if (resumed_after_deadline) {
        stackReset(stack);
        return deadlinePassedWhileDeferred();
      }
      bool timed_out = false;
      strata_status_t status =
          blockOn(stack->wait, &timed_out, stack->deadline_ns);
      if (status) {
        stackReset(stack);
        return status;
      }
      stack->timed_out = timed_out;
      resumed_after_deadline =
          timed_out && monotonicNowNs() >= stack->deadline_ns;
    }
    // vm.yield, or the wait is over: resume.
  }
}

inline const ModuleState* stateOf(const strata_vm_context_t* context,
                           strata_vm_function_t function) {
  return &context->states[function.module_index];
}

inline const Signature& signatureOf(const strata_vm_context_t* context,
                             strata_vm_function_t function) {
  const ModuleState* state = stateOf(context, function);
  if (state->bytecode) {
    return state->bytecode->functions[function.ordinal].signature;
  }
  return state->module->native_signatures[function.ordinal];
}

std::string qualifiedName(const strata_vm_context_t* context,
                          strata_vm_function_t function) {
  const ModuleState* state = stateOf(context, function);
  std::string out = str(state->module->name) + ".";
  if (state->bytecode) {
    for (const Export& e : state->bytecode->exports) {
      if (e.function == function.ordinal) {
        return out + str(e.name);
      }
    }
    return out + state->bytecode->functionDisplayName(function.ordinal);
  }
  return out + state->module->native->functions[function.ordinal].name;
}

// Calls function on a stack; results receive owned refs.
inline strata_status_t callOnStack(strata_vm_context_t* context, Stack* stack,
                            strata_vm_function_t function,
                            const strata_vm_value_t* args,
                            strata_vm_value_t* results, size_t result_count) {
  ModuleState* state = &context->states[function.module_index];
  if (!state->bytecode) {
    const Signature& sig = signatureOf(context, function);
    strata_vm_wait_t wait{};
    bool timed_out = false;
    for (;;) {
      strata_status_t status = callNative(
          context, state, function.ordinal, args, sig.args.size(), results,
          result_count, timed_out, &wait, stack->deadline_ns);
      if (strata_status_code(status) != STRATA_STATUS_DEFERRED) {
        return status;
      }
      if (timed_out && monotonicNowNs() >= stack->deadline_ns) {
        return deadlinePassedWhileDeferred();
      }
      if (!wait.wait) {
        return strata_make_status(
            STRATA_STATUS_FAILED_PRECONDITION,
            "%s deferred without a wait; a blocking call cannot resume it",
            qualifiedName(context, function).c_str());
      }
      STRATA_RETURN_IF_ERROR(blockOn(wait, &timed_out, stack->deadline_ns));
    }
  }
  STRATA_RETURN_IF_ERROR(
      stackEnter(stack, state, function.ordinal, args, results));
  return runToCompletion(stack);
}

inline strata_status_t checkCount(const strata_vm_context_t* context,
                           strata_vm_function_t function, size_t arg_count,
                           size_t result_count) {
  const Signature& sig = signatureOf(context, function);
  if (sig.variadic) {
    return strata_make_status(STRATA_STATUS_UNIMPLEMENTED,
                              "%s is variadic; call it from bytecode",
                              qualifiedName(context, function).c_str());
  }
  if (arg_count != sig.args.size() || result_count != sig.results.size()) {
    return strata_make_status(
        STRATA_STATUS_INVALID_ARGUMENT,
        "%s expects %s [%s], got %zu argument(s) and %zu result slot(s)",
        qualifiedName(context, function).c_str(),
        describeSignature(sig).c_str(), str(sig.text).c_str(), arg_count,
        result_count);
  }
  return nullptr;
}

strata_vm_value_type_t typeOfChar(char c) {
  switch (c) {
    case 'i': return STRATA_VM_VALUE_I32;
    case 'I': return STRATA_VM_VALUE_I64;
    case 'f': return STRATA_VM_VALUE_F32;
    case 'F': return STRATA_VM_VALUE_F64;
    default: return STRATA_VM_VALUE_REF;
  }
}

// Checks the input list against the signature and fills args (borrowed),
// which must hold the list's size.
strata_status_t listToArgs(const strata_vm_context_t* context,
                           strata_vm_function_t function,
                           const strata_vm_list_t* inputs,
                           strata_vm_value_t* args) {
  const Signature& sig = signatureOf(context, function);
  size_t count = inputs ? strata_vm_list_size(inputs) : 0;
  STRATA_RETURN_IF_ERROR(
      checkCount(context, function, count, sig.results.size()));
  for (size_t i = 0; i < count; ++i) {
    strata_vm_variant_t v;
    STRATA_RETURN_IF_ERROR(strata_vm_list_get(inputs, i, &v));
    strata_vm_value_type_t expected = typeOfChar(sig.args[i]);
    if (v.type != expected) {
      return strata_make_status(
          STRATA_STATUS_INVALID_ARGUMENT,
          "argument %zu of %s must be %s, got %s; the function expects %s [%s]",
          i, qualifiedName(context, function).c_str(),
          strata_vm_value_type_name(expected),
          strata_vm_value_type_name(v.type), describeSignature(sig).c_str(),
          str(sig.text).c_str());
    }
    args[i] = v.value;
  }
  return nullptr;
}

// Moves results into outputs; on failure the remaining refs are released.
strata_status_t resultsToList(const Signature& sig, strata_vm_value_t* results,
                              strata_vm_list_t* outputs) {
  strata_status_t status = nullptr;
  for (size_t i = 0; i < sig.results.size(); ++i) {
    strata_vm_variant_t v;
    v.type = typeOfChar(sig.results[i]);
    v.value = results[i];
    if (!status && outputs) {
      size_t at = strata_vm_list_size(outputs);
      status = strata_vm_list_resize(outputs, at + 1);
      if (!status) {
        status = strata_vm_list_set_move(outputs, at, v);
        if (!status) {
          continue;
        }
      }
    }
    if (v.type == STRATA_VM_VALUE_REF) {
      strata_vm_ref_release(v.value.ref);
    }
  }
  return status;
}

}  // namespace
}  // namespace strata::vm

using namespace strata::vm;

// An invocation is one allocation: this header, then its arguments, its
// results and the storage its stack starts in (kInvocationStackStorage),
// so that an asynchronous call of a shallow function allocates nothing
// else in the VM. A deeper function moves its stack arrays to the heap as
// a blocking call does.
struct strata_vm_invocation_t {
  strata_vm_context_t* context;
  strata_allocator_t allocator;
  strata_vm_function_t function;
  strata_vm_invocation_state_t state;
  Stack stack;
  strata_vm_value_t* args;  // arg_count values after the header; refs retained
  size_t arg_count;
  strata_vm_value_t* results;  // result_count values after the arguments
  size_t result_count;
  std::string_view arg_chars;  // the signature's, owned by the module
  strata_vm_wait_t native_wait{};
};

namespace {
constexpr size_t kInvocationStackStorage = 4096;
}  // namespace

extern "C" {

strata_status_t strata_vm_context_create(
    strata_vm_instance_t* instance, strata_vm_module_t* const* modules,
    size_t module_count, const strata_vm_context_options_t* options,
    strata_allocator_t allocator, strata_vm_context_t** out_context) {
  *out_context = nullptr;
  void* memory = strata_allocator_alloc(allocator, sizeof(strata_vm_context_t),
                                        alignof(strata_vm_context_t));
  if (!memory) {
    return strata_make_status(STRATA_STATUS_RESOURCE_EXHAUSTED,
                              "out of memory creating a context");
  }
  auto* context = new (memory) strata_vm_context_t();
  context->allocator = allocator;
  context->instance = instance;
  strata_vm_instance_retain(instance);
  if (options) {
    context->options = *options;
  }
  context->states = static_cast<ModuleState*>(strata_allocator_alloc(
      allocator, sizeof(ModuleState) * (module_count ? module_count : 1),
      alignof(ModuleState)));
  if (!context->states) {
    destroyContext(context);
    return strata_make_status(STRATA_STATUS_RESOURCE_EXHAUSTED,
                              "out of memory creating a context");
  }
  strata_status_t status = nullptr;
  for (size_t i = 0; i < module_count && !status; ++i) {
    if (!modules[i]) {
      status = strata_make_status(STRATA_STATUS_INVALID_ARGUMENT,
                                  "module %zu of the context is null", i);
      break;
    }
    for (size_t j = 0; j < i; ++j) {
      if (modules[j]->name == modules[i]->name) {
        status = strata_make_status(
            STRATA_STATUS_ALREADY_EXISTS,
            "two modules named '%s' in one context",
            std::string(modules[i]->name).c_str());
      }
    }
    if (status) {
      break;
    }
    status = createState(context, static_cast<uint32_t>(i), modules[i]);
    context->module_count = static_cast<uint32_t>(i + 1);
    if (!status) {
      status = checkDependencies(context, static_cast<uint32_t>(i));
    }
    if (!status && modules[i]->kind == ModuleKind::kBytecode) {
      status = resolveImports(context, static_cast<uint32_t>(i));
    }
  }
  // Initializers run in module order, after everything is linked.
  for (uint32_t i = 0; i < context->module_count && !status; ++i) {
    ModuleState* state = &context->states[i];
    if (!state->bytecode || state->bytecode->initializer < 0) {
      continue;
    }
    alignas(16) uint8_t storage[kInlineStackStorage];
    Stack stack;
    stackInitialize(&stack, context, context->allocator, storage,
                    sizeof(storage));
    strata_vm_function_t init{i, static_cast<uint32_t>(
                                     state->bytecode->initializer)};
    status = callOnStack(context, &stack, init, nullptr, nullptr, 0);
    stackDeinitialize(&stack);
    if (status) {
      status = strata_status_annotate(
          status, "while initializing module '%s'",
          std::string(state->module->name).c_str());
    }
  }
  if (status) {
    destroyContext(context);
    return status;
  }
  *out_context = context;
  return nullptr;
}

void strata_vm_context_retain(strata_vm_context_t* context) {
  if (context) {
    context->refs.fetch_add(1, std::memory_order_relaxed);
  }
}

void strata_vm_context_release(strata_vm_context_t* context) {
  if (context && context->refs.fetch_sub(1, std::memory_order_acq_rel) == 1) {
    destroyContext(context);
  }
}

strata_status_t strata_vm_context_lookup(const strata_vm_context_t* context,
                                         const char* full_name,
                                         strata_vm_function_t* out_function) {
  std::string_view name(full_name);
  size_t dot = name.find('.');
  if (dot == std::string_view::npos) {
    return strata_make_status(STRATA_STATUS_INVALID_ARGUMENT,
                              "function name '%s' must be 'module.function'",
                              full_name);
  }
  std::string_view module_name = name.substr(0, dot);
  std::string_view function_name = name.substr(dot + 1);
  for (uint32_t i = context->module_count; i-- > 0;) {
    const ModuleState& state = context->states[i];
    if (state.module->name != module_name) {
      continue;
    }
    std::string names;
    for (const ModuleExport& e : state.module->exports) {
      if (e.name == function_name) {
        *out_function = strata_vm_function_t{i, e.ordinal};
        return nullptr;
      }
      names += names.empty() ? "" : ", ";
      names += std::string(e.name);
    }
    return strata_make_status(
        STRATA_STATUS_NOT_FOUND,
        "module '%.*s' has no export '%.*s' (it exports: %s)",
        static_cast<int>(module_name.size()), module_name.data(),
        static_cast<int>(function_name.size()), function_name.data(),
        names.empty() ? "nothing" : names.c_str());
  }
  return strata_make_status(STRATA_STATUS_NOT_FOUND,
                            "no module named '%.*s' in the context",
                            static_cast<int>(module_name.size()),
                            module_name.data());
}

const char* strata_vm_function_calling_convention(
    const strata_vm_context_t* context, strata_vm_function_t function) {
  return signatureOf(context, function).text.data();
}

strata_vm_function_signature_t strata_vm_function_signature(
    const strata_vm_context_t* context, strata_vm_function_t function) {
  const Signature& sig = signatureOf(context, function);
  strata_vm_function_signature_t out{};
  out.calling_convention = sig.text.data();
  out.args = sig.args.data();
  out.args_length = sig.args.size();
  out.results = sig.results.data();
  out.results_length = sig.results.size();
  out.variadic = sig.variadic ? 1 : 0;
  return out;
}

const char* strata_vm_function_name(const strata_vm_context_t* context,
                                    strata_vm_function_t function) {
  const ModuleState* state = stateOf(context, function);
  for (const ModuleExport& e : state->module->exports) {
    if (e.ordinal == function.ordinal) {
      return e.name.data();
    }
  }
  return "";
}

strata_status_t strata_vm_call(strata_vm_context_t* context,
                               strata_vm_function_t function,
                               const strata_vm_value_t* args, size_t arg_count,
                               strata_vm_value_t* results,
                               size_t result_count) {
  return strata_vm_call_until(context, function, args, arg_count, results,
                              result_count, INT64_MAX);
}

strata_status_t strata_vm_call_until(strata_vm_context_t* context,
                                     strata_vm_function_t function,
                                     const strata_vm_value_t* args,
                                     size_t arg_count,
                                     strata_vm_value_t* results,
                                     size_t result_count,
                                     int64_t deadline_ns) {
  STRATA_RETURN_IF_ERROR(checkCount(context, function, arg_count, result_count));
  // Tracing: one event per invocation, on the host track.
  strata_trace_t* trace = strata_trace_installed();
  int64_t trace_start = trace ? strata_trace_now_ns() : 0;
  // The stack lives on the C stack: no allocation and no shared state.
  alignas(16) uint8_t storage[kInlineStackStorage];
  Stack stack;
  stackInitialize(&stack, context, context->allocator, storage,
                  sizeof(storage));
  stack.deadline_ns = deadline_ns > 0 ? deadline_ns : INT64_MAX;
  strata_status_t status =
      callOnStack(context, &stack, function, args, results, result_count);
  stackDeinitialize(&stack);
  if (trace) {
    strata_trace_record(trace, "invocation",
                        strata_vm_function_name(context, function),
                        STRATA_TRACE_TRACK_HOST, trace_start,
                        strata_trace_now_ns(),
                        status ? "\"ok\": false" : "\"ok\": true");
  }
  return status;
}

strata_status_t strata_vm_invoke(strata_vm_context_t* context,
                                 strata_vm_function_t function,
                                 const strata_vm_list_t* inputs,
                                 strata_vm_list_t* outputs) {
  return strata_vm_invoke_until(context, function, inputs, outputs,
                                INT64_MAX);
}

strata_status_t strata_vm_invoke_until(strata_vm_context_t* context,
                                       strata_vm_function_t function,
                                       const strata_vm_list_t* inputs,
                                       strata_vm_list_t* outputs,
                                       int64_t deadline_ns) {
  // Argument and result slots live on the C stack for the usual arities, so
  // an invoke allocates only what the outputs list needs.
  constexpr size_t kInlineValues = 16;
  strata_vm_value_t inline_args[kInlineValues];
  strata_vm_value_t inline_results[kInlineValues];
  std::vector<strata_vm_value_t> heap_args, heap_results;
  size_t arg_count = inputs ? strata_vm_list_size(inputs) : 0;
  const Signature& sig = signatureOf(context, function);
  size_t result_count = sig.results.size();
  strata_vm_value_t* args = inline_args;
  strata_vm_value_t* results = inline_results;
  if (arg_count > kInlineValues) {
    heap_args.resize(arg_count);
    args = heap_args.data();
  }
  if (result_count > kInlineValues) {
    heap_results.resize(result_count);
    results = heap_results.data();
  }
  STRATA_RETURN_IF_ERROR(listToArgs(context, function, inputs, args));
  STRATA_RETURN_IF_ERROR(strata_vm_call_until(context, function, args,
                                              arg_count, results, result_count,
                                              deadline_ns));
  return resultsToList(sig, results, outputs);
}

strata_status_t strata_vm_invocation_create(
    strata_vm_context_t* context, strata_vm_function_t function,
    const strata_vm_list_t* inputs, strata_allocator_t allocator,
    strata_vm_invocation_t** out_invocation) {
  *out_invocation = nullptr;
  const Signature& sig = signatureOf(context, function);
  size_t arg_count = inputs ? strata_vm_list_size(inputs) : 0;
  size_t result_count = sig.results.size();
  constexpr size_t kHeader = (sizeof(strata_vm_invocation_t) + 15) & ~size_t(15);
  size_t values = ((arg_count + result_count) * sizeof(strata_vm_value_t) +
                   15) & ~size_t(15);
  void* memory = strata_allocator_alloc(
      allocator, kHeader + values + kInvocationStackStorage, 16);
  if (!memory) {
    return strata_make_status(STRATA_STATUS_RESOURCE_EXHAUSTED,
                              "out of memory creating an invocation");
  }
  auto* base = static_cast<uint8_t*>(memory);
  auto* args = reinterpret_cast<strata_vm_value_t*>(base + kHeader);
  strata_status_t status = listToArgs(context, function, inputs, args);
  if (status) {
    strata_allocator_free(allocator, memory);
    return status;
  }
  auto* invocation = new (memory) strata_vm_invocation_t();
  invocation->context = context;
  strata_vm_context_retain(context);
  invocation->allocator = allocator;
  invocation->function = function;
  invocation->state = STRATA_VM_INVOCATION_READY;
  invocation->arg_chars = sig.args;
  invocation->args = args;
  invocation->arg_count = arg_count;
  for (size_t i = 0; i < arg_count; ++i) {
    if (sig.args[i] == 'r') {
      strata_vm_ref_retain(args[i].ref);
    }
  }
  invocation->results = args + arg_count;
  invocation->result_count = result_count;
  for (size_t i = 0; i < result_count; ++i) {
    invocation->results[i].bits = 0;
  }
  stackInitialize(&invocation->stack, context, allocator,
                  base + kHeader + values, kInvocationStackStorage);
  *out_invocation = invocation;
  return nullptr;
}

strata_status_t strata_vm_invocation_run(strata_vm_invocation_t* invocation) {
  strata_vm_context_t* context = invocation->context;
  ModuleState* state = &context->states[invocation->function.module_index];
  switch (invocation->state) {
    case STRATA_VM_INVOCATION_COMPLETED:
    case STRATA_VM_INVOCATION_FAILED:
      return strata_make_status(STRATA_STATUS_FAILED_PRECONDITION,
                                "the invocation has already finished");
    default:
      break;
  }
  strata_status_t status = nullptr;
  RunState run_state = RunState::kCompleted;
  if (!state->bytecode) {
    // A native export called directly: deferral means "call again".
    bool resumed_after_deadline =
        invocation->stack.timed_out &&
        monotonicNowNs() >= invocation->stack.deadline_ns;
    status = callNative(context, state, invocation->function.ordinal,
                        invocation->args, invocation->arg_count,
                        invocation->results, invocation->result_count,
                        invocation->stack.timed_out, &invocation->native_wait,
                        invocation->stack.deadline_ns);
    invocation->stack.timed_out = false;
    if (strata_status_code(status) == STRATA_STATUS_DEFERRED) {
      if (resumed_after_deadline) {
        invocation->state = STRATA_VM_INVOCATION_FAILED;
        return deadlinePassedWhileDeferred();
      }
      invocation->state = STRATA_VM_INVOCATION_SUSPENDED;
      return nullptr;
    }
  } else {
    if (invocation->state == STRATA_VM_INVOCATION_READY) {
      status = stackEnter(&invocation->stack, state,
                          invocation->function.ordinal,
                          invocation->args, invocation->results);
    }
    bool resumed_after_deadline =
        invocation->stack.timed_out &&
        monotonicNowNs() >= invocation->stack.deadline_ns;
    if (!status) {
      status = stackRun(&invocation->stack, &run_state);
    }
    if (!status && run_state == RunState::kSuspended &&
        resumed_after_deadline && invocation->stack.deferred) {
      stackReset(&invocation->stack);
      status = deadlinePassedWhileDeferred();
    }
  }
  if (status) {
    invocation->state = STRATA_VM_INVOCATION_FAILED;
    return status;
  }
  invocation->state = run_state == RunState::kCompleted
                          ? STRATA_VM_INVOCATION_COMPLETED
                          : STRATA_VM_INVOCATION_SUSPENDED;
  return nullptr;
}

strata_vm_invocation_state_t strata_vm_invocation_state(
    const strata_vm_invocation_t* invocation) {
  return invocation->state;
}

strata_vm_wait_t strata_vm_invocation_wait(
    const strata_vm_invocation_t* invocation) {
  if (invocation->state != STRATA_VM_INVOCATION_SUSPENDED) {
    return strata_vm_wait_t{};
  }
  const ModuleState* state =
      &invocation->context->states[invocation->function.module_index];
  strata_vm_wait_t wait =
      state->bytecode ? invocation->stack.wait : invocation->native_wait;
  // Hosts give up at the wait's deadline: make it the call's when earlier.
  wait.deadline_ns = effectiveDeadline(wait, invocation->stack.deadline_ns);
  if (wait.deadline_ns == INT64_MAX) {
    wait.deadline_ns = 0;
  }
  return wait;
}

void strata_vm_invocation_set_deadline(strata_vm_invocation_t* invocation,
                                       int64_t deadline_ns) {
  invocation->stack.deadline_ns = deadline_ns > 0 ? deadline_ns : INT64_MAX;
}

strata_status_t strata_vm_invocation_take_outputs(
    strata_vm_invocation_t* invocation, strata_vm_list_t* outputs) {
  if (invocation->state != STRATA_VM_INVOCATION_COMPLETED) {
    return strata_make_status(STRATA_STATUS_FAILED_PRECONDITION,
                              "the invocation has not completed");
  }
  const Signature& sig =
      signatureOf(invocation->context, invocation->function);
  strata_status_t status =
      resultsToList(sig, invocation->results, outputs);
  // Results were moved or released either way.
  for (size_t i = 0; i < invocation->result_count; ++i) {
    invocation->results[i].bits = 0;
  }
  return status;
}

void strata_vm_invocation_destroy(strata_vm_invocation_t* invocation) {
  if (!invocation) {
    return;
  }
  stackDeinitialize(&invocation->stack);
  for (size_t i = 0; i < invocation->arg_count; ++i) {
    if (invocation->arg_chars[i] == 'r') {
      strata_vm_ref_release(invocation->args[i].ref);
    }
  }
  if (invocation->state == STRATA_VM_INVOCATION_COMPLETED) {
    const Signature& sig =
        signatureOf(invocation->context, invocation->function);
    for (size_t i = 0; i < sig.results.size(); ++i) {
      if (sig.results[i] == 'r') {
        strata_vm_ref_release(invocation->results[i].ref);
      }
    }
  }
  strata_vm_context_t* context = invocation->context;
  strata_allocator_t allocator = invocation->allocator;
  invocation->~strata_vm_invocation_t();
  strata_allocator_free(allocator, invocation);
  strata_vm_context_release(context);
}

int strata_vm_invocation_is_deferred(const strata_vm_invocation_t* invocation) {
  if (invocation->state != STRATA_VM_INVOCATION_SUSPENDED) {
    return 0;
  }
  const ModuleState* state =
      &invocation->context->states[invocation->function.module_index];
  // A native export called directly only suspends by deferring.
  return !state->bytecode || invocation->stack.deferred ? 1 : 0;
}

void strata_vm_invocation_set_timed_out(strata_vm_invocation_t* invocation) {
  if (invocation->state == STRATA_VM_INVOCATION_SUSPENDED) {
    invocation->stack.timed_out = true;
  }
}

int strata_vm_native_call_timed_out(const strata_vm_native_call_t* call) {
  return call->timed_out ? 1 : 0;
}

int64_t strata_vm_native_call_deadline_ns(const strata_vm_native_call_t* call) {
  return call->deadline_ns;
}

void strata_vm_native_call_set_wait(strata_vm_native_call_t* call,
                                    strata_vm_wait_t wait) {
  call->wait = wait;
}

strata_allocator_t strata_vm_native_call_allocator(
    const strata_vm_native_call_t* call) {
  return call->context->allocator;
}

strata_vm_instance_t* strata_vm_native_call_instance(
    const strata_vm_native_call_t* call) {
  return call->context->instance;
}

}  // extern "C"
