// native_call.hpp - a native function's call in progress, as the module
// builder (native_module.hpp) sees it: the frame of one call, the errors
// that name the function and the argument ("native function 'hal.buffer.
// load': argument 1 (offset) is -4; ..."), the ref type check, and
// NativeCall, which a function takes to fail the same way.
//
// Header-only C++17; works without exceptions and without RTTI.
#ifndef STRATA_VM_NATIVE_CALL_HPP_
#define STRATA_VM_NATIVE_CALL_HPP_

#include <cstdarg>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <string_view>

#include "strata/base/status.h"
#include "strata/vm/module.h"
#include "strata/vm/native_values.hpp"
#include "strata/vm/ref.h"
#include "strata/vm/value.h"

namespace strata::vm {
namespace detail {

// The function being called, for error messages and argument access.
struct Frame {
  const strata_vm_native_module_descriptor_t* descriptor;
  // Per function of the descriptor, in its order: the names of the
  // arguments, comma-separated ("buffer, offset, length"); NULL when the
  // module or the function has none.
  const char* const* argument_names;
  strata_vm_native_fn_t fn;
  strata_vm_native_call_t* call;
  const strata_vm_value_t* args;
};

// The index of frame.fn in its descriptor, or SIZE_MAX.
inline size_t functionIndex(const Frame& frame) {
  if (frame.descriptor) {
    for (size_t i = 0; i < frame.descriptor->function_count; ++i) {
      if (frame.descriptor->functions[i].fn == frame.fn) {
        return i;
      }
    }
  }
  return SIZE_MAX;
}

inline const char* moduleName(const Frame& frame) {
  return frame.descriptor && frame.descriptor->name ? frame.descriptor->name
                                                    : "?";
}

inline const char* functionName(const Frame& frame) {
  size_t index = functionIndex(frame);
  return index == SIZE_MAX ? "?" : frame.descriptor->functions[index].name;
}

// Makes "native function 'module.fn': <detail>".
inline strata_status_t failV(const Frame& frame, strata_status_code_t code,
                             const char* format, va_list args) {
  char detail[512];
  std::vsnprintf(detail, sizeof(detail), format, args);
  return strata_make_status(code, "native function '%s.%s': %s",
                            moduleName(frame), functionName(frame), detail);
}
inline strata_status_t fail(const Frame& frame, strata_status_code_t code,
                            const char* format, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;
inline strata_status_t fail(const Frame& frame, strata_status_code_t code,
                            const char* format, ...) {
  va_list args;
  va_start(args, format);
  strata_status_t status = failV(frame, code, format, args);
  va_end(args);
  return status;
}

// The name of argument `arg` (parameters that take arguments, counted from
// 0), or "" when it has none.
inline std::string_view argumentName(const Frame& frame, size_t arg) {
  size_t index = functionIndex(frame);
  if (index == SIZE_MAX || !frame.argument_names ||
      !frame.argument_names[index]) {
    return {};
  }
  std::string_view names = frame.argument_names[index];
  for (size_t i = 0;; ++i) {
    size_t comma = names.find(',');
    std::string_view name = names.substr(0, comma);
    while (!name.empty() && name.front() == ' ') {
      name.remove_prefix(1);
    }
    while (!name.empty() && name.back() == ' ') {
      name.remove_suffix(1);
    }
    if (i == arg) {
      return name;
    }
    if (comma == std::string_view::npos) {
      return {};
    }
    names.remove_prefix(comma + 1);
  }
}

// What an error says after "argument <slot>": " (name)", " (element 2 of
// name)", " (element 2 of the variadic span)", or "". element < 0 means the
// argument is not inside a variadic span.
struct ArgumentLabel {
  char text[96] = "";
  ArgumentLabel(const Frame& frame, size_t arg, long element) {
    std::string_view name = argumentName(frame, arg);
    int length = static_cast<int>(name.size() > 64 ? 64 : name.size());
    if (element >= 0) {
      if (name.empty()) {
        std::snprintf(text, sizeof(text), " (element %ld of the variadic span)",
                      element);
      } else {
        std::snprintf(text, sizeof(text), " (element %ld of %.*s)", element,
                      length, name.data());
      }
    } else if (!name.empty()) {
      std::snprintf(text, sizeof(text), " (%.*s)", length, name.data());
    }
  }
};

// Checks a ref argument against T's registered type.
template <typename T>
strata_status_t checkRef(const Frame& frame, size_t slot, size_t arg,
                         long element, bool nullable) {
  const strata_vm_ref_object_t* ref = frame.args[slot].ref;
  const strata_vm_ref_type_t* type = RefTraits<T>::type();
  if (ref ? (!type || ref->type == type) : nullable) {
    return nullptr;
  }
  const char* expected = type ? type->name : "non-null ref";
  const char* got = !ref                           ? "null"
                    : ref->type && ref->type->name ? ref->type->name
                                                   : "ref of an unnamed type";
  return fail(frame, STRATA_STATUS_INVALID_ARGUMENT,
              "argument %zu%s must be a %s%s, got %s%s", slot,
              ArgumentLabel(frame, arg, element).text, expected,
              nullable ? " or null" : "", ref ? "a " : "", got);
}

}  // namespace detail

/// The call in progress, for a native function that takes a
/// `const NativeCall&` parameter (which maps to no calling-convention
/// character): a way to fail that names the function, and the VM's handle of
/// the call. Valid during the call only; not synchronized.
class NativeCall {
 public:
  explicit NativeCall(const detail::Frame& frame) noexcept : frame_(&frame) {}

  /// The VM's handle of this call, for strata_vm_native_call_set_wait and
  /// deadlines; whatever a direct caller of the trampoline passed (possibly
  /// NULL).
  strata_vm_native_call_t* raw() const noexcept { return frame_->call; }
  /// The module's name ("hal"), borrowed.
  const char* moduleName() const noexcept {
    return detail::moduleName(*frame_);
  }
  /// The function's name after the module's ("buffer.load"), borrowed.
  const char* functionName() const noexcept {
    return detail::functionName(*frame_);
  }
  /// A failed status reading "native function '<module>.<function>':
  /// <detail>", the form of the builder's own argument errors. The caller
  /// owns it.
#if defined(__GNUC__)
  __attribute__((format(printf, 3, 4)))
#endif
  strata_status_t fail(strata_status_code_t code, const char* format,
                       ...) const {
    va_list args;
    va_start(args, format);
    strata_status_t status = detail::failV(*frame_, code, format, args);
    va_end(args);
    return status;
  }

 private:
  const detail::Frame* frame_;
};

}  // namespace strata::vm

#endif  // STRATA_VM_NATIVE_CALL_HPP_
