// native_module.hpp - write native VM modules as C++ classes: RAII refs,
// Result<T>, and a builder that derives each function's calling convention
// from its member function signature at compile time.
//
// Header-only C++17; works without exceptions and without RTTI. The value
// types a signature is made of are in native_values.hpp, the mapping from a
// signature to its calling convention and the marshalling of a call in
// native_signature.hpp, the call in progress and its errors in
// native_call.hpp; this header has the module builder and includes all
// three.
//
// Overview
// --------
//
// A native module is a set of member functions of a per-context State class.
// Each context that links the module gets its own State (created with the
// context's allocator, destroyed with the context), so functions may keep
// mutable state without locking as long as the host does not invoke one
// context from several threads at once.
//
//   struct Counter {
//     int32_t total = 0;
//     int32_t add(int32_t amount) { return total += amount; }        // "0i_i"
//     strata::vm::Result<strata::vm::Ref<strata_vm_buffer_t>> snapshot(
//         strata_vm_native_call_t* call, int64_t length);             // "0I_r"
//   };
//
//   strata::vm::NativeModuleBuilder<Counter> builder("counter", /*version=*/1);
//   builder.function<&Counter::add>("add")
//       .function<&Counter::snapshot>("snapshot");
//   strata_vm_module_t* module = nullptr;
//   STRATA_RETURN_IF_ERROR(builder.build(allocator, &module));
//
// Bytecode then imports "counter.add" with calling convention "0i_i".
//
// Parameters (each maps to calling-convention characters)
// --------------------------------------------------------
//
//   int32_t, uint32_t, bool (and other 4-byte integers)   i
//   int64_t, uint64_t, size_t (and other 8-byte integers) I
//   float                                                 f
//   double                                                F
//   NonNegative<int32_t>, NonNegative<int64_t>            i, I  checked >= 0
//   T*, const T*  for a ref type T                        r  borrowed for the
//                 (strata_vm_buffer_t, strata_vm_list_t,     call; never null
//                 strata_vm_ref_object_t = any type, or a
//                 type declared with STRATA_VM_DECLARE_REF_TYPE)
//   Ref<T>, const Ref<T>&                                 r  retained copy;
//                                                            never null
//   Nullable<T>                                           r  borrowed; may be
//                                                            null
//   Variadic<Ts...>                                       C..D  a span of
//                                                            repetitions of Ts
//   strata_vm_native_call_t*                              (none) the call
//   const NativeCall&                                     (none) the call,
//                                                            its name, fail()
//
// A function may take several Variadic<> parameters: each span's count is
// checked against the arguments that are left.
//
// A ref argument that is null (unless Nullable) or of the wrong type, and a
// NonNegative argument that is negative, fail the call with INVALID_ARGUMENT
// before the member function runs; the message names the function, the
// argument index, the argument's name when function() was given names, and
// what was expected:
//   native function 'counter.fill': argument 0 (target) must be a vm.buffer,
//   got a vm.list
//   native function 'hal.buffer.subspan': argument 2 (length) is -1; it must
//   not be negative
// Argument indices count calling-convention slots from 0; a variadic span's
// element count occupies one slot (see strata_vm_native_fn_t). Errors of the
// function's own (NativeCall::fail) read the same way.
//
// Results
// -------
//
// Either return them:
//   void                    no results, cannot fail
//   V                       one result, cannot fail
//   std::tuple<V...>        several results, cannot fail
//   Result<V>, Result<std::tuple<V...>>   may fail
// where V is one of the scalar types above or Ref<T> (an owned reference that
// is transferred to the caller). Raw pointers are not results: return Ref<T>
// so that ownership is explicit.
//
// Or return strata_status_t and write out-params, which may appear anywhere
// among the parameters and become results in their order:
//   int32_t*, int64_t*, float*, double*, bool*, ...   i I f F i
//   Ref<T>*                                            r (owned; transferred)
// A function may not both return values and take out-params.
//
// Out-params start zero/null. Results are written back only when the call
// succeeds; on failure, Refs left in out-params are released.
//
// Failure and deferral
// --------------------
//
// A failed status (or Result holding one) is returned to the interpreter as
// is. Returning strata_status_deferred() suspends the invocation: the same
// function is called again, with the same arguments, when the invocation
// resumes, so a deferring function must not have consumed anything it needs
// for the retry. To tell a blocking invoke how to wait, take a
// strata_vm_native_call_t* parameter and call strata_vm_native_call_set_wait
// before deferring. (When a trampoline is called directly, as tests do, the
// call pointer is whatever the caller passed, possibly NULL.)
//
// Thread-safety: a built module is immutable and may be shared by contexts on
// any threads. A State is touched only by calls made through its context.
// Ref<T> and Result<T> are plain values: not synchronized.
#ifndef STRATA_VM_NATIVE_MODULE_HPP_
#define STRATA_VM_NATIVE_MODULE_HPP_

#include <algorithm>
#include <array>
#include <cstdarg>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <new>
#include <optional>
#include <string>
#include <string_view>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

#include "strata/base/allocator.h"
#include "strata/base/status.h"
#include "strata/vm/buffer.h"
#include "strata/vm/list.h"
#include "strata/vm/module.h"
#include "strata/vm/native_call.hpp"
#include "strata/vm/native_signature.hpp"
#include "strata/vm/native_values.hpp"
#include "strata/vm/ref.h"
#include "strata/vm/value.h"

namespace strata::vm {

//===----------------------------------------------------------------------===//
// Modules
//===----------------------------------------------------------------------===//

template <typename State>
class NativeModuleBuilder;

/// The tables behind one native module: the descriptor, its strings and the
/// state factory, in one allocation from the builder's allocator. It is the
/// module's `self`: a module built by NativeModuleBuilder::build frees it
/// through descriptor()->destroy when the module dies. Immutable after
/// creation; thread-safe to read.
template <typename State>
class NativeModuleDefinition {
 public:
  /// Makes a State for one context with the context's allocator.
  using CreateStateFn = strata_status_t (*)(void* user,
                                            strata_allocator_t allocator,
                                            State** out_state);
  /// Frees a State made by the matching CreateStateFn.
  using DestroyStateFn = void (*)(void* user, State* state);

  /// The descriptor to pass to strata_vm_native_module_create, with this
  /// definition as self. Borrowed: valid while the definition lives.
  const strata_vm_native_module_descriptor_t* descriptor() const {
    return &descriptor_;
  }
  /// Frees a definition that was never handed to a module.
  void destroy() { destroyThunk(this); }
  /// Per function of the descriptor: its argument names (comma-separated) or
  /// NULL. Borrowed: valid while the definition lives.
  const char* const* argumentNames() const { return argument_names_; }

  NativeModuleDefinition(const NativeModuleDefinition&) = delete;
  NativeModuleDefinition& operator=(const NativeModuleDefinition&) = delete;

 private:
  friend class NativeModuleBuilder<State>;
  NativeModuleDefinition() = default;
  ~NativeModuleDefinition() = default;

  static strata_status_t createStateThunk(void* self,
                                          strata_allocator_t allocator,
                                          void** out_state) {
    auto* definition = static_cast<NativeModuleDefinition*>(self);
    State* state = nullptr;
    strata_status_t status =
        definition->create_state_(definition->user_, allocator, &state);
    *out_state = status ? nullptr : state;
    return status;
  }
  static void destroyStateThunk(void* self, void* state) {
    auto* definition = static_cast<NativeModuleDefinition*>(self);
    if (state) {
      definition->destroy_state_(definition->user_,
                                 static_cast<State*>(state));
    }
  }
  static void destroyThunk(void* self) {
    auto* definition = static_cast<NativeModuleDefinition*>(self);
    if (definition->release_user_) {
      definition->release_user_(definition->user_);
    }
    strata_allocator_t allocator = definition->allocator_;
    definition->~NativeModuleDefinition();
    strata_allocator_free(allocator, definition);
  }

  strata_vm_native_module_descriptor_t descriptor_{};
  strata_allocator_t allocator_{};
  CreateStateFn create_state_ = nullptr;
  DestroyStateFn destroy_state_ = nullptr;
  void* user_ = nullptr;
  void (*release_user_)(void* user) = nullptr;
  const char* const* argument_names_ = nullptr;
};

namespace detail {

// The trampoline of one member function: a strata_vm_native_fn_t.
template <typename State, auto Method>
struct Trampoline {
  using Traits = MethodTraits<decltype(Method)>;
  static_assert(std::is_base_of_v<typename Traits::Class, State>,
                "function<&C::method>() needs a method of State or a base");

  static strata_status_t call(strata_vm_native_call_t* call, void* self,
                              void* module_state,
                              const strata_vm_value_t* args, size_t arg_count,
                              strata_vm_value_t* results,
                              size_t result_count) {
    auto* definition = static_cast<NativeModuleDefinition<State>*>(self);
    Frame frame{definition ? definition->descriptor() : nullptr,
                definition ? definition->argumentNames() : nullptr,
                &Trampoline::call, call, args};
    if (!module_state) {
      return fail(frame, STRATA_STATUS_FAILED_PRECONDITION,
                  "called without a module state");
    }
    return Invoker<typename Traits::Fn>::template run<State, Method>(
        frame, static_cast<State*>(module_state), arg_count, results,
        result_count);
  }
};

// The default per-context state: a value-initialized State placed after a
// copy of the allocator that made it, so that destroy can free it.
template <typename State>
struct DefaultState {
  static constexpr size_t kAlignment = alignof(State) > alignof(strata_allocator_t)
                                           ? alignof(State)
                                           : alignof(strata_allocator_t);
  static constexpr size_t kOffset =
      (sizeof(strata_allocator_t) + alignof(State) - 1) &
      ~(alignof(State) - 1);

  static strata_status_t create(void*, strata_allocator_t allocator,
                                State** out_state) {
    *out_state = nullptr;
    void* memory =
        strata_allocator_alloc(allocator, kOffset + sizeof(State), kAlignment);
    if (!memory) {
      return strata_make_status(STRATA_STATUS_RESOURCE_EXHAUSTED,
                                "out of memory creating a native module "
                                "state of %zu bytes",
                                sizeof(State));
    }
    new (memory) strata_allocator_t(allocator);
    *out_state = new (static_cast<char*>(memory) + kOffset) State();
    return nullptr;
  }
  static void destroy(void*, State* state) {
    char* base = reinterpret_cast<char*>(state) - kOffset;
    strata_allocator_t allocator = *reinterpret_cast<strata_allocator_t*>(base);
    state->~State();
    strata_allocator_free(allocator, base);
  }
};

constexpr size_t alignUp(size_t value, size_t alignment) {
  return (value + alignment - 1) & ~(alignment - 1);
}

}  // namespace detail

/// Collects the functions of a native module whose per-context state is a
/// State, then builds modules from them. Building copies everything, so a
/// builder may be reused or dropped right after. Not thread-safe.
template <typename State>
class NativeModuleBuilder {
 public:
  using Definition = NativeModuleDefinition<State>;
  using CreateStateFn = typename Definition::CreateStateFn;
  using DestroyStateFn = typename Definition::DestroyStateFn;

  /// name is the module name that imports are prefixed with ("counter").
  /// By default each context gets a value-initialized State (when State is
  /// default-constructible); see stateFactory.
  explicit NativeModuleBuilder(std::string_view name, uint32_t version = 0)
      : name_(name), version_(version) {
    if constexpr (std::is_default_constructible_v<State>) {
      create_state_ = &detail::DefaultState<State>::create;
      destroy_state_ = &detail::DefaultState<State>::destroy;
    }
  }

  /// Adds the member function Method as the export `name` (bytecode imports
  /// "<module>.<name>"). Its calling convention is derived from its type.
  /// Method is a template argument so that each function gets its own
  /// trampoline (the C ABI passes no per-function data); registering one
  /// method under two names works, but errors then name the first.
  ///
  /// argument_names, when given, names the parameters that take arguments,
  /// in order and comma-separated ("buffer, offset, byte width"); the
  /// builder's errors then say "argument 1 (offset) is -4; ..." and, for a
  /// span, "argument 3 (element 0 of fences) must be ...". Parameters that
  /// take no argument (out-params, the call) are not named.
  template <auto Method>
  NativeModuleBuilder& function(std::string_view name,
                                std::string_view argument_names = {}) {
    functions_.push_back({std::string(name),
                          methodCallingConvention<Method>().data(),
                          &detail::Trampoline<State, Method>::call,
                          std::string(argument_names)});
    return *this;
  }

  /// Declares a module this one needs in the same context.
  NativeModuleBuilder& dependency(std::string_view name,
                                  uint32_t minimum_version = 0,
                                  bool optional = false) {
    dependencies_.push_back({std::string(name), minimum_version, optional});
    return *this;
  }

  /// Replaces the default State construction. create gets the context's
  /// allocator; destroy frees what create made. user is passed to both.
  /// Without release_user, user is borrowed and must outlive every module
  /// built. With it, the definition owns user: release_user(user) runs when
  /// the definition dies (with its module, or when build fails), so such a
  /// builder builds one module.
  NativeModuleBuilder& stateFactory(CreateStateFn create,
                                    DestroyStateFn destroy,
                                    void* user = nullptr,
                                    void (*release_user)(void*) = nullptr) {
    create_state_ = create;
    destroy_state_ = destroy;
    factory_user_ = user;
    release_user_ = release_user;
    return *this;
  }

  /// Number of functions added so far.
  size_t functionCount() const { return functions_.size(); }

  /// Creates the module's tables without creating a module; the caller owns
  /// the definition (free it with destroy(), or pass its descriptor and it
  /// to strata_vm_native_module_create, which then owns it). Useful to call
  /// trampolines directly in tests. On failure a release_user given to
  /// stateFactory has run.
  [[nodiscard]] strata_status_t createDefinition(
      strata_allocator_t allocator, Definition** out_definition) const {
    *out_definition = nullptr;
    if (!create_state_ || !destroy_state_) {
      releaseUser();
      return strata_make_status(
          STRATA_STATUS_INVALID_ARGUMENT,
          "native module '%s': State is not default-constructible; call "
          "stateFactory() with a create and a destroy function",
          name_.c_str());
    }
    // One block: definition, function table, argument names, dependency
    // table, strings.
    using detail::alignUp;
    size_t functions_offset =
        alignUp(sizeof(Definition), alignof(strata_vm_native_function_t));
    size_t names_offset =
        alignUp(functions_offset +
                    functions_.size() * sizeof(strata_vm_native_function_t),
                alignof(const char*));
    size_t dependencies_offset =
        alignUp(names_offset + functions_.size() * sizeof(const char*),
                alignof(strata_vm_module_dependency_t));
    size_t strings_offset =
        dependencies_offset +
        dependencies_.size() * sizeof(strata_vm_module_dependency_t);
    size_t total = strings_offset + name_.size() + 1;
    for (const auto& f : functions_) {
      total += f.name.size() + 1 + f.argument_names.size() + 1;
    }
    for (const auto& d : dependencies_) {
      total += d.name.size() + 1;
    }
    size_t alignment = alignof(Definition);
    alignment = std::max(alignment, alignof(strata_vm_native_function_t));
    alignment = std::max(alignment, alignof(strata_vm_module_dependency_t));
    void* memory = strata_allocator_alloc(allocator, total, alignment);
    if (!memory) {
      releaseUser();
      return strata_make_status(STRATA_STATUS_RESOURCE_EXHAUSTED,
                                "out of memory creating native module '%s'",
                                name_.c_str());
    }
    char* base = static_cast<char*>(memory);
    auto* definition = new (memory) Definition();
    auto* functions = reinterpret_cast<strata_vm_native_function_t*>(
        base + functions_offset);
    auto* argument_names = reinterpret_cast<const char**>(base + names_offset);
    auto* dependencies = reinterpret_cast<strata_vm_module_dependency_t*>(
        base + dependencies_offset);
    char* strings = base + strings_offset;
    auto copyString = [&strings](const std::string& text) {
      char* out = strings;
      std::memcpy(out, text.c_str(), text.size() + 1);
      strings += text.size() + 1;
      return out;
    };

    for (size_t i = 0; i < functions_.size(); ++i) {
      functions[i].name = copyString(functions_[i].name);
      functions[i].calling_convention = functions_[i].calling_convention;
      functions[i].fn = functions_[i].fn;
      argument_names[i] = functions_[i].argument_names.empty()
                              ? nullptr
                              : copyString(functions_[i].argument_names);
    }
    for (size_t i = 0; i < dependencies_.size(); ++i) {
      dependencies[i].name = copyString(dependencies_[i].name);
      dependencies[i].minimum_version = dependencies_[i].minimum_version;
      dependencies[i].optional = dependencies_[i].optional ? 1 : 0;
    }
    strata_vm_native_module_descriptor_t& d = definition->descriptor_;
    d.name = copyString(name_);
    d.version = version_;
    d.dependencies = dependencies_.empty() ? nullptr : dependencies;
    d.dependency_count = dependencies_.size();
    d.functions = functions_.empty() ? nullptr : functions;
    d.function_count = functions_.size();
    d.create_state = &Definition::createStateThunk;
    d.destroy_state = &Definition::destroyStateThunk;
    d.destroy = &Definition::destroyThunk;
    definition->allocator_ = allocator;
    definition->create_state_ = create_state_;
    definition->destroy_state_ = destroy_state_;
    definition->user_ = factory_user_;
    definition->release_user_ = release_user_;
    definition->argument_names_ = argument_names;
    *out_definition = definition;
    return nullptr;
  }

  /// Creates a module (the caller owns the returned reference). The module
  /// owns its definition and frees it when it dies. Errors from
  /// strata_vm_native_module_create (bad names, duplicates) are returned.
  [[nodiscard]] strata_status_t build(strata_allocator_t allocator,
                                      strata_vm_module_t** out_module) const {
    *out_module = nullptr;
    Definition* definition = nullptr;
    STRATA_RETURN_IF_ERROR(createDefinition(allocator, &definition));
    strata_status_t status = strata_vm_native_module_create(
        definition->descriptor(), definition, allocator, out_module);
    if (status) {
      definition->destroy();
    }
    return status;
  }

 private:
  struct PendingFunction {
    std::string name;
    const char* calling_convention;  // static storage
    strata_vm_native_fn_t fn;
    std::string argument_names;  // "" for none
  };
  struct PendingDependency {
    std::string name;
    uint32_t minimum_version;
    bool optional;
  };

  std::string name_;
  uint32_t version_;
  std::vector<PendingFunction> functions_;
  std::vector<PendingDependency> dependencies_;
  CreateStateFn create_state_ = nullptr;
  DestroyStateFn destroy_state_ = nullptr;
  void* factory_user_ = nullptr;
  void (*release_user_)(void*) = nullptr;

  void releaseUser() const {
    if (release_user_) {
      release_user_(factory_user_);
    }
  }
};

}  // namespace strata::vm

#endif  // STRATA_VM_NATIVE_MODULE_HPP_
