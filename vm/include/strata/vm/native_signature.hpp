// native_signature.hpp - how a native function's C++ signature maps to its
// calling convention and how a call's arguments and results are marshalled
// (native_module.hpp documents the mapping; this is its implementation),
// plus callingConvention<Fn>() and methodCallingConvention<&C::f>().
//
// Header-only C++17; works without exceptions and without RTTI.
#ifndef STRATA_VM_NATIVE_SIGNATURE_HPP_
#define STRATA_VM_NATIVE_SIGNATURE_HPP_

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
#include "strata/vm/native_values.hpp"
#include "strata/vm/ref.h"
#include "strata/vm/value.h"

namespace strata::vm {

//===----------------------------------------------------------------------===//
// Signature mapping (implementation)
//===----------------------------------------------------------------------===//

namespace detail {

template <typename T>
inline constexpr bool kAlwaysFalse = false;

// The function being called, for error messages and argument access.
struct Frame {
  const strata_vm_native_module_descriptor_t* descriptor;
  strata_vm_native_fn_t fn;
  strata_vm_native_call_t* call;
  const strata_vm_value_t* args;
  size_t span_values;  // values inside the variadic span (count * width)
};

// Makes "native function 'module.fn': <detail>".
inline strata_status_t fail(const Frame& frame, strata_status_code_t code,
                            const char* format, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;
inline strata_status_t fail(const Frame& frame, strata_status_code_t code,
                            const char* format, ...) {
  char detail[256];
  va_list args;
  va_start(args, format);
  std::vsnprintf(detail, sizeof(detail), format, args);
  va_end(args);
  const char* module =
      frame.descriptor && frame.descriptor->name ? frame.descriptor->name : "?";
  const char* function = "?";
  if (frame.descriptor) {
    for (size_t i = 0; i < frame.descriptor->function_count; ++i) {
      if (frame.descriptor->functions[i].fn == frame.fn) {
        function = frame.descriptor->functions[i].name;
        break;
      }
    }
  }
  return strata_make_status(code, "native function '%s.%s': %s", module,
                            function, detail);
}

// Checks a ref argument against T's registered type. element < 0 means the
// argument is not inside a variadic span.
template <typename T>
strata_status_t checkRef(const Frame& frame, size_t slot, long element,
                         bool nullable) {
  const strata_vm_ref_object_t* ref = frame.args[slot].ref;
  const strata_vm_ref_type_t* type = RefTraits<T>::type();
  if (ref ? (!type || ref->type == type) : nullable) {
    return nullptr;
  }
  char where[64] = "";
  if (element >= 0) {
    std::snprintf(where, sizeof(where), " (element %ld of the variadic span)",
                  element);
  }
  const char* expected = type ? type->name : "non-null ref";
  const char* got = !ref                           ? "null"
                    : ref->type && ref->type->name ? ref->type->name
                                                   : "ref of an unnamed type";
  return fail(frame, STRATA_STATUS_INVALID_ARGUMENT,
              "argument %zu%s must be a %s%s, got %s%s", slot, where, expected,
              nullable ? " or null" : "", ref ? "a " : "", got);
}

// Scalars: how a C++ arithmetic type travels in a strata_vm_value_t.
template <typename T, typename = void>
struct Scalar {
  static constexpr bool kSupported = false;
};
template <>
struct Scalar<bool> {
  static constexpr bool kSupported = true;
  static constexpr char kChar = 'i';
  static bool read(const strata_vm_value_t& v) { return v.i32 != 0; }
  static void write(bool x, strata_vm_value_t* v) {
    v->bits = 0;
    v->i32 = x ? 1 : 0;
  }
};
template <typename T>
struct Scalar<T, std::enable_if_t<std::is_integral_v<T> &&
                                  !std::is_same_v<T, bool> && sizeof(T) == 4>> {
  static constexpr bool kSupported = true;
  static constexpr char kChar = 'i';
  static T read(const strata_vm_value_t& v) { return static_cast<T>(v.i32); }
  static void write(T x, strata_vm_value_t* v) {
    v->bits = 0;
    v->i32 = static_cast<int32_t>(x);
  }
};
template <typename T>
struct Scalar<T, std::enable_if_t<std::is_integral_v<T> &&
                                  !std::is_same_v<T, bool> && sizeof(T) == 8>> {
  static constexpr bool kSupported = true;
  static constexpr char kChar = 'I';
  static T read(const strata_vm_value_t& v) { return static_cast<T>(v.i64); }
  static void write(T x, strata_vm_value_t* v) {
    v->i64 = static_cast<int64_t>(x);
  }
};
template <>
struct Scalar<float> {
  static constexpr bool kSupported = true;
  static constexpr char kChar = 'f';
  static float read(const strata_vm_value_t& v) { return v.f32; }
  static void write(float x, strata_vm_value_t* v) {
    v->bits = 0;
    v->f32 = x;
  }
};
template <>
struct Scalar<double> {
  static constexpr bool kSupported = true;
  static constexpr char kChar = 'F';
  static double read(const strata_vm_value_t& v) { return v.f64; }
  static void write(double x, strata_vm_value_t* v) { v->f64 = x; }
};

template <typename T>
struct IsRefHandle : std::false_type {};
template <typename T>
struct IsRefHandle<Ref<T>> : std::true_type {
  using Object = T;
};
template <typename T>
struct IsNullable : std::false_type {};
template <typename T>
struct IsNullable<Nullable<T>> : std::true_type {
  using Object = T;
};
template <typename T>
struct IsVariadic : std::false_type {};
template <typename... Ts>
struct IsVariadic<Variadic<Ts...>> : std::true_type {};
template <typename T>
struct IsTuple : std::false_type {};
template <typename... Ts>
struct IsTuple<std::tuple<Ts...>> : std::true_type {};
template <typename T>
struct IsResult : std::false_type {};
template <typename T>
struct IsResult<Result<T>> : std::true_type {
  using Value = T;
};

// Elements of a variadic span: scalars, T* for ref types, Nullable<T>.
template <typename T, typename>
struct Element {
  static_assert(kAlwaysFalse<T>,
                "Variadic<> elements must be scalars (int32_t, int64_t, float, "
                "double, ...), T* for a ref type, or Nullable<T>");
};
template <typename T>
struct Element<T, std::enable_if_t<Scalar<T>::kSupported>> {
  static constexpr char kChar = Scalar<T>::kChar;
  static strata_status_t check(const Frame&, size_t, long) { return nullptr; }
  static T read(const strata_vm_value_t& v) { return Scalar<T>::read(v); }
};
template <typename T>
struct Element<T*> {
  static_assert(kIsRefType<std::remove_const_t<T>>,
                "Variadic<T*> needs a ref type T");
  static constexpr char kChar = 'r';
  static strata_status_t check(const Frame& frame, size_t slot, long element) {
    return checkRef<std::remove_const_t<T>>(frame, slot, element, false);
  }
  static T* read(const strata_vm_value_t& v) {
    return reinterpret_cast<T*>(v.ref);
  }
};
template <typename T>
struct Element<Nullable<T>> {
  static constexpr char kChar = 'r';
  static strata_status_t check(const Frame& frame, size_t slot, long element) {
    return checkRef<T>(frame, slot, element, true);
  }
  static Nullable<T> read(const strata_vm_value_t& v) {
    return Nullable<T>(reinterpret_cast<T*>(v.ref));
  }
};

// How a parameter type maps onto arguments and results.
enum class Kind {
  kUnsupported,
  kCall,
  kScalar,
  kRefPointer,
  kRefHandle,
  kNullable,
  kVariadic,
  kOutScalar,
  kOutRef,
};

template <typename D>
constexpr Kind classify() {
  if constexpr (Scalar<D>::kSupported) {
    return Kind::kScalar;
  } else if constexpr (IsRefHandle<D>::value) {
    return Kind::kRefHandle;
  } else if constexpr (IsNullable<D>::value) {
    return Kind::kNullable;
  } else if constexpr (IsVariadic<D>::value) {
    return Kind::kVariadic;
  } else if constexpr (std::is_pointer_v<D>) {
    using U = std::remove_pointer_t<D>;
    if constexpr (std::is_same_v<std::remove_cv_t<U>,
                                 strata_vm_native_call_t>) {
      return Kind::kCall;
    } else if constexpr (kIsRefType<std::remove_const_t<U>>) {
      return Kind::kRefPointer;
    } else if constexpr (!std::is_const_v<U> && Scalar<U>::kSupported) {
      return Kind::kOutScalar;
    } else if constexpr (!std::is_const_v<U> && IsRefHandle<U>::value) {
      return Kind::kOutRef;
    } else {
      return Kind::kUnsupported;
    }
  } else {
    return Kind::kUnsupported;
  }
}

template <typename A>
using Decayed = std::remove_cv_t<std::remove_reference_t<A>>;

// Common defaults: a parameter that takes one argument slot and no result.
struct InParam {
  static constexpr size_t kArgChars = 1;
  static constexpr size_t kFixedArgSlots = 1;
  static constexpr size_t kResultChars = 0;
  static constexpr bool kIsVariadic = false;
  static constexpr size_t kSpanWidth = 0;
  template <typename S>
  static constexpr void appendResults(S&, size_t&) {}
  template <typename Storage>
  static void emit(Storage&, strata_vm_value_t*) {}
};
// A parameter that becomes one result and takes no argument.
struct OutParam {
  static constexpr size_t kArgChars = 0;
  static constexpr size_t kFixedArgSlots = 0;
  static constexpr size_t kResultChars = 1;
  static constexpr bool kIsVariadic = false;
  static constexpr size_t kSpanWidth = 0;
  template <typename S>
  static constexpr void appendArgs(S&, size_t&) {}
  static strata_status_t check(const Frame&, size_t) { return nullptr; }
};

template <typename A, Kind K = classify<Decayed<A>>()>
struct Param {
  static_assert(kAlwaysFalse<A>,
                "unsupported native function parameter type: use int32_t, "
                "int64_t, float, double, bool, T* / Ref<T> / Nullable<T> for "
                "refs, Variadic<...>, strata_vm_native_call_t*, or out-params "
                "int32_t*, int64_t*, float*, double*, Ref<T>*");
};

template <typename A>
struct Param<A, Kind::kCall> {
  static constexpr size_t kArgChars = 0;
  static constexpr size_t kFixedArgSlots = 0;
  static constexpr size_t kResultChars = 0;
  static constexpr bool kIsVariadic = false;
  static constexpr size_t kSpanWidth = 0;
  using Storage = strata_vm_native_call_t*;
  template <typename S>
  static constexpr void appendArgs(S&, size_t&) {}
  template <typename S>
  static constexpr void appendResults(S&, size_t&) {}
  static strata_status_t check(const Frame&, size_t) { return nullptr; }
  static Storage make(const Frame& frame, size_t) { return frame.call; }
  static Storage pass(Storage& s) { return s; }
  static void emit(Storage&, strata_vm_value_t*) {}
};

// Rejects non-const lvalue references, which look like out-params but are not.
template <typename A>
inline constexpr bool kIsMutableReference =
    std::is_lvalue_reference_v<A> &&
    !std::is_const_v<std::remove_reference_t<A>>;

template <typename A>
struct Param<A, Kind::kScalar> : InParam {
  static_assert(!kIsMutableReference<A>,
                "take scalars by value; use a pointer for an out-param");
  using Storage = Decayed<A>;
  template <typename S>
  static constexpr void appendArgs(S& s, size_t& p) {
    s[p++] = Scalar<Storage>::kChar;
  }
  static strata_status_t check(const Frame&, size_t) { return nullptr; }
  static Storage make(const Frame& frame, size_t slot) {
    return Scalar<Storage>::read(frame.args[slot]);
  }
  static A&& pass(Storage& s) { return static_cast<A&&>(s); }
};

template <typename A>
struct Param<A, Kind::kRefPointer> : InParam {
  using Storage = Decayed<A>;  // T* or const T*
  using Object = std::remove_const_t<std::remove_pointer_t<Storage>>;
  template <typename S>
  static constexpr void appendArgs(S& s, size_t& p) {
    s[p++] = 'r';
  }
  static strata_status_t check(const Frame& frame, size_t slot) {
    return checkRef<Object>(frame, slot, -1, false);
  }
  static Storage make(const Frame& frame, size_t slot) {
    return reinterpret_cast<Object*>(frame.args[slot].ref);
  }
  static Storage pass(Storage& s) { return s; }
};

template <typename A>
struct Param<A, Kind::kRefHandle> : InParam {
  static_assert(!kIsMutableReference<A>,
                "take Ref<T> by value or const&; use Ref<T>* for an "
                "out-param");
  using Storage = Decayed<A>;
  using Object = typename IsRefHandle<Storage>::Object;
  template <typename S>
  static constexpr void appendArgs(S& s, size_t& p) {
    s[p++] = 'r';
  }
  static strata_status_t check(const Frame& frame, size_t slot) {
    return checkRef<Object>(frame, slot, -1, false);
  }
  static Storage make(const Frame& frame, size_t slot) {
    return Storage::retain(reinterpret_cast<Object*>(frame.args[slot].ref));
  }
  static A&& pass(Storage& s) { return static_cast<A&&>(s); }
};

template <typename A>
struct Param<A, Kind::kNullable> : InParam {
  using Storage = Decayed<A>;
  using Object = typename IsNullable<Storage>::Object;
  template <typename S>
  static constexpr void appendArgs(S& s, size_t& p) {
    s[p++] = 'r';
  }
  static strata_status_t check(const Frame& frame, size_t slot) {
    return checkRef<Object>(frame, slot, -1, true);
  }
  static Storage make(const Frame& frame, size_t slot) {
    return Storage(reinterpret_cast<Object*>(frame.args[slot].ref));
  }
  static Storage pass(Storage& s) { return s; }
};

template <typename A>
struct Param<A, Kind::kVariadic> {
  using Storage = Decayed<A>;
  static constexpr size_t kWidth = Storage::kWidth;
  static constexpr size_t kArgChars = 2 + kWidth;
  static constexpr size_t kFixedArgSlots = 1;  // the count
  static constexpr size_t kResultChars = 0;
  static constexpr bool kIsVariadic = true;
  static constexpr size_t kSpanWidth = kWidth;

  template <typename S>
  static constexpr void appendArgs(S& s, size_t& p) {
    s[p++] = 'C';
    appendElements(s, p, std::make_index_sequence<kWidth>());
    s[p++] = 'D';
  }
  template <typename S>
  static constexpr void appendResults(S&, size_t&) {}
  static strata_status_t check(const Frame& frame, size_t slot) {
    size_t count = frame.span_values / kWidth;
    for (size_t i = 0; i < count; ++i) {
      strata_status_t status = checkRepetition(
          frame, slot + 1 + i * kWidth, i, std::make_index_sequence<kWidth>());
      if (status) {
        return status;
      }
    }
    return nullptr;
  }
  static Storage make(const Frame& frame, size_t slot) {
    return Storage(frame.args + slot + 1, frame.span_values / kWidth);
  }
  static const Storage& pass(Storage& s) { return s; }
  static void emit(Storage&, strata_vm_value_t*) {}

 private:
  template <typename S, size_t... J>
  static constexpr void appendElements(S& s, size_t& p,
                                       std::index_sequence<J...>) {
    ((s[p++] = Element<typename Storage::template ElementType<J>>::kChar), ...);
  }
  template <size_t... J>
  static strata_status_t checkRepetition(const Frame& frame, size_t first,
                                         size_t index,
                                         std::index_sequence<J...>) {
    strata_status_t status = nullptr;
    (void)((status = Element<typename Storage::template ElementType<J>>::check(
                frame, first + J, static_cast<long>(index * kWidth + J))) ||
           ...);
    return status;
  }
};

template <typename A>
struct Param<A, Kind::kOutScalar> : OutParam {
  using Value = std::remove_pointer_t<Decayed<A>>;
  using Storage = Value;
  template <typename S>
  static constexpr void appendResults(S& s, size_t& p) {
    s[p++] = Scalar<Value>::kChar;
  }
  static Storage make(const Frame&, size_t) { return Value{}; }
  static Value* pass(Storage& s) { return &s; }
  static void emit(Storage& s, strata_vm_value_t* result) {
    Scalar<Value>::write(s, result);
  }
};

template <typename A>
struct Param<A, Kind::kOutRef> : OutParam {
  using Storage = std::remove_pointer_t<Decayed<A>>;  // Ref<T>
  template <typename S>
  static constexpr void appendResults(S& s, size_t& p) {
    s[p++] = 'r';
  }
  static Storage make(const Frame&, size_t) { return Storage(); }
  static Storage* pass(Storage& s) { return &s; }
  static void emit(Storage& s, strata_vm_value_t* result) {
    result->ref = detail::asObject(s.detach());
  }
};

// Returned values (V or std::tuple<V...>).
template <typename V, typename = void>
struct Value {
  static_assert(kAlwaysFalse<V>,
                "native function results must be int32_t, int64_t, float, "
                "double, bool, Ref<T>, or a std::tuple of those; return "
                "Ref<T> rather than T* so that ownership is explicit");
};
template <typename V>
struct Value<V, std::enable_if_t<Scalar<V>::kSupported>> {
  static constexpr size_t kCount = 1;
  template <typename S>
  static constexpr void append(S& s, size_t& p) {
    s[p++] = Scalar<V>::kChar;
  }
  static void emit(V& v, strata_vm_value_t* results) {
    Scalar<V>::write(v, results);
  }
};
template <typename V>
struct Value<V, std::enable_if_t<IsRefHandle<V>::value>> {
  static constexpr size_t kCount = 1;
  template <typename S>
  static constexpr void append(S& s, size_t& p) {
    s[p++] = 'r';
  }
  static void emit(V& v, strata_vm_value_t* results) {
    results->ref = detail::asObject(v.detach());
  }
};
template <typename... Vs>
struct Value<std::tuple<Vs...>> {
  static_assert(((Scalar<Vs>::kSupported || IsRefHandle<Vs>::value) && ...),
                "std::tuple results hold scalars or Ref<T>");
  static constexpr size_t kCount = sizeof...(Vs);
  template <typename S>
  static constexpr void append(S& s, size_t& p) {
    (Value<Vs>::append(s, p), ...);
  }
  static void emit(std::tuple<Vs...>& v, strata_vm_value_t* results) {
    emitEach(v, results, std::index_sequence_for<Vs...>());
  }

 private:
  template <size_t... I>
  static void emitEach(std::tuple<Vs...>& v, strata_vm_value_t* results,
                       std::index_sequence<I...>) {
    (Value<Vs>::emit(std::get<I>(v), results + I), ...);
  }
};

// Return types: void, strata_status_t, Result<V>, or V.
template <typename R, typename = void>
struct Return : Value<R> {
  static constexpr bool kFallible = false;
};
template <>
struct Return<void> {
  static constexpr bool kFallible = false;
  static constexpr size_t kCount = 0;
  template <typename S>
  static constexpr void append(S&, size_t&) {}
};
template <>
struct Return<strata_status_t> {
  static constexpr bool kFallible = true;
  static constexpr size_t kCount = 0;
  template <typename S>
  static constexpr void append(S&, size_t&) {}
};
template <typename V>
struct Return<Result<V>> : Value<V> {
  static constexpr bool kFallible = true;
};

// Prefix sums over per-parameter slot counts.
template <size_t N>
constexpr size_t sumBefore(const std::array<size_t, N>& values, size_t end) {
  size_t sum = 0;
  for (size_t i = 0; i < end; ++i) {
    sum += values[i];
  }
  return sum;
}
template <size_t N>
constexpr bool anyBefore(const std::array<bool, N>& values, size_t end) {
  for (size_t i = 0; i < end; ++i) {
    if (values[i]) {
      return true;
    }
  }
  return false;
}
template <size_t N>
constexpr size_t firstTrue(const std::array<bool, N>& values) {
  for (size_t i = 0; i < N; ++i) {
    if (values[i]) {
      return i;
    }
  }
  return N;
}

// Everything known at compile time about a signature R(Args...).
template <typename R, typename... Args>
struct Layout {
  static constexpr size_t kParams = sizeof...(Args);
  static constexpr std::array<size_t, kParams + 1> kFixedSlots = {
      Param<Args>::kFixedArgSlots..., 0};
  static constexpr std::array<size_t, kParams + 1> kResultSlots = {
      Param<Args>::kResultChars..., 0};
  static constexpr std::array<bool, kParams + 1> kIsSpan = {
      Param<Args>::kIsVariadic..., false};

  static constexpr size_t kSpanCount =
      (size_t{0} + ... + (Param<Args>::kIsVariadic ? 1 : 0));
  static_assert(kSpanCount <= 1,
                "a native function takes at most one Variadic<> parameter "
                "(calling conventions allow one span)");
  static constexpr size_t kSpanWidth =
      (size_t{0} + ... + Param<Args>::kSpanWidth);
  static constexpr size_t kSpanSlot =
      sumBefore(kFixedSlots, firstTrue(kIsSpan));
  static constexpr size_t kFixedArgs = sumBefore(kFixedSlots, kParams);
  static constexpr size_t kOutResults = sumBefore(kResultSlots, kParams);
  static_assert(Return<R>::kCount == 0 || kOutResults == 0,
                "a native function either returns its results or writes "
                "out-params, not both");
  static constexpr size_t kResults = Return<R>::kCount + kOutResults;

  static constexpr size_t kArgChars =
      (size_t{0} + ... + Param<Args>::kArgChars);
  static constexpr size_t kLength = 1 + kArgChars + 1 + kResults;
};

template <typename R, typename... Args>
constexpr std::array<char, Layout<R, Args...>::kLength + 1> buildCConv() {
  std::array<char, Layout<R, Args...>::kLength + 1> s{};
  size_t p = 0;
  s[p++] = '0';
  (Param<Args>::appendArgs(s, p), ...);
  s[p++] = '_';
  Return<R>::append(s, p);
  (Param<Args>::appendResults(s, p), ...);
  s[p] = '\0';
  return s;
}

template <typename R, typename... Args>
inline constexpr std::array<char, Layout<R, Args...>::kLength + 1> kCConv =
    buildCConv<R, Args...>();

template <typename Fn>
struct FunctionTraits;
template <typename R, typename... Args>
struct FunctionTraits<R(Args...)> {
  static constexpr std::string_view callingConvention() {
    return std::string_view(kCConv<R, Args...>.data(),
                            Layout<R, Args...>::kLength);
  }
};

template <typename M>
struct MethodTraits {
  static_assert(kAlwaysFalse<M>,
                "function<&State::method>() needs a pointer to a member "
                "function");
};
template <typename C, typename R, typename... Args>
struct MethodTraits<R (C::*)(Args...)> {
  using Class = C;
  using Fn = R(Args...);
};
template <typename C, typename R, typename... Args>
struct MethodTraits<R (C::*)(Args...) const> {
  using Class = C;
  using Fn = R(Args...);
};
template <typename C, typename R, typename... Args>
struct MethodTraits<R (C::*)(Args...) noexcept> {
  using Class = C;
  using Fn = R(Args...);
};
template <typename C, typename R, typename... Args>
struct MethodTraits<R (C::*)(Args...) const noexcept> {
  using Class = C;
  using Fn = R(Args...);
};

template <typename Fn>
struct Invoker;

template <typename R, typename... Args>
struct Invoker<R(Args...)> {
  using L = Layout<R, Args...>;

  static size_t slotOf(size_t param, size_t span_values) {
    return sumBefore(L::kFixedSlots, param) +
           (anyBefore(L::kIsSpan, param) ? span_values : 0);
  }

  // Checks counts and ref types, then unpacks, calls and packs results.
  template <typename State, auto Method>
  static strata_status_t run(Frame& frame, State* state, size_t arg_count,
                             strata_vm_value_t* results, size_t result_count) {
    if constexpr (L::kSpanCount != 0) {
      if (arg_count < L::kFixedArgs) {
        return fail(frame, STRATA_STATUS_INVALID_ARGUMENT,
                    "expects at least %zu arguments (%s), got %zu",
                    L::kFixedArgs, kCConv<R, Args...>.data(), arg_count);
      }
      int32_t count = frame.args[L::kSpanSlot].i32;
      size_t extra = arg_count - L::kFixedArgs;
      if (count < 0 || extra != static_cast<size_t>(count) * L::kSpanWidth) {
        return fail(frame, STRATA_STATUS_INVALID_ARGUMENT,
                    "variadic span count %d (argument %zu) does not match "
                    "the %zu argument values after the fixed ones (%s)",
                    count, L::kSpanSlot, extra, kCConv<R, Args...>.data());
      }
      frame.span_values = extra;
    } else if (arg_count != L::kFixedArgs) {
      return fail(frame, STRATA_STATUS_INVALID_ARGUMENT,
                  "expects %zu arguments (%s), got %zu", L::kFixedArgs,
                  kCConv<R, Args...>.data(), arg_count);
    }
    if (result_count != L::kResults) {
      return fail(frame, STRATA_STATUS_INVALID_ARGUMENT,
                  "returns %zu results (%s), caller expects %zu", L::kResults,
                  kCConv<R, Args...>.data(), result_count);
    }
    return unpackAndCall<State, Method>(frame, state, results,
                                        std::index_sequence_for<Args...>());
  }

 private:
  template <typename State, auto Method, size_t... P>
  static strata_status_t unpackAndCall(const Frame& frame, State* state,
                                       strata_vm_value_t* results,
                                       std::index_sequence<P...>) {
    strata_status_t status = nullptr;
    (void)((status = Param<Args>::check(frame, slotOf(P, frame.span_values))) ||
           ...);
    if (status) {
      return status;
    }
    std::tuple<typename Param<Args>::Storage...> storage{
        Param<Args>::make(frame, slotOf(P, frame.span_values))...};
    (void)storage;
    if constexpr (std::is_void_v<R>) {
      (state->*Method)(Param<Args>::pass(std::get<P>(storage))...);
    } else if constexpr (std::is_same_v<R, strata_status_t>) {
      status = (state->*Method)(Param<Args>::pass(std::get<P>(storage))...);
      if (status) {
        return status;
      }
    } else if constexpr (IsResult<R>::value) {
      R result = (state->*Method)(Param<Args>::pass(std::get<P>(storage))...);
      if (!result.ok()) {
        return result.takeStatus();
      }
      Return<R>::emit(result.value(), results);
    } else {
      R result = (state->*Method)(Param<Args>::pass(std::get<P>(storage))...);
      Return<R>::emit(result, results);
    }
    (Param<Args>::emit(std::get<P>(storage),
                       results + sumBefore(L::kResultSlots, P)),
     ...);
    (void)results;
    return nullptr;
  }
};

}  // namespace detail

/// The calling convention of a native function with C++ type Fn (for example
/// `Result<int32_t>(int32_t)` gives "0i_i"). A NUL-terminated constant.
template <typename Fn>
constexpr std::string_view callingConvention() {
  return detail::FunctionTraits<Fn>::callingConvention();
}

/// The calling convention of a member function registered as a native
/// function: methodCallingConvention<&Counter::add>().
template <auto Method>
constexpr std::string_view methodCallingConvention() {
  return callingConvention<
      typename detail::MethodTraits<decltype(Method)>::Fn>();
}

}  // namespace strata::vm

#endif  // STRATA_VM_NATIVE_SIGNATURE_HPP_
