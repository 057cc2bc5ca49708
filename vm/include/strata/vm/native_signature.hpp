// native_signature.hpp - how a native function's C++ signature maps to its
// calling convention and how a call's arguments and results are marshalled
// (native_module.hpp documents the mapping; this is its implementation),
// plus callingConvention<Fn>() and methodCallingConvention<&C::f>(). The
// call in progress and the errors that name it are native_call.hpp's.
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
#include "strata/vm/native_call.hpp"
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

// Scalars: how a C++ arithmetic type travels in a strata_vm_value_t.
template <typename T, typename = void>
struct Scalar {
  static constexpr bool kSupported = false;
};
struct PlainScalar {
  static constexpr bool kSupported = true;
  static constexpr bool kNonNegative = false;
};
template <>
struct Scalar<bool> : PlainScalar {
  static constexpr char kChar = 'i';
  static bool read(const strata_vm_value_t& v) { return v.i32 != 0; }
  static void write(bool x, strata_vm_value_t* v) {
    v->bits = 0;
    v->i32 = x ? 1 : 0;
  }
};
template <typename T>
struct Scalar<T, std::enable_if_t<std::is_integral_v<T> &&
                                  !std::is_same_v<T, bool> && sizeof(T) == 4>>
    : PlainScalar {
  static constexpr char kChar = 'i';
  static T read(const strata_vm_value_t& v) { return static_cast<T>(v.i32); }
  static void write(T x, strata_vm_value_t* v) {
    v->bits = 0;
    v->i32 = static_cast<int32_t>(x);
  }
};
template <typename T>
struct Scalar<T, std::enable_if_t<std::is_integral_v<T> &&
                                  !std::is_same_v<T, bool> && sizeof(T) == 8>>
    : PlainScalar {
  static constexpr char kChar = 'I';
  static T read(const strata_vm_value_t& v) { return static_cast<T>(v.i64); }
  static void write(T x, strata_vm_value_t* v) {
    v->i64 = static_cast<int64_t>(x);
  }
};
template <>
struct Scalar<float> : PlainScalar {
  static constexpr char kChar = 'f';
  static float read(const strata_vm_value_t& v) { return v.f32; }
  static void write(float x, strata_vm_value_t* v) {
    v->bits = 0;
    v->f32 = x;
  }
};
template <>
struct Scalar<double> : PlainScalar {
  static constexpr char kChar = 'F';
  static double read(const strata_vm_value_t& v) { return v.f64; }
  static void write(double x, strata_vm_value_t* v) { v->f64 = x; }
};
template <typename T>
struct Scalar<NonNegative<T>> {
  static constexpr bool kSupported = true;
  static constexpr bool kNonNegative = true;
  static constexpr char kChar = Scalar<T>::kChar;
  using Unsigned = typename NonNegative<T>::Unsigned;
  static long long signedValue(const strata_vm_value_t& v) {
    return Scalar<T>::read(v);
  }
  static NonNegative<T> read(const strata_vm_value_t& v) {
    return NonNegative<T>(static_cast<Unsigned>(Scalar<T>::read(v)));
  }
  static void write(NonNegative<T> x, strata_vm_value_t* v) {
    Scalar<T>::write(static_cast<T>(x.get()), v);
  }
};

// Checks a scalar argument: only NonNegative<T> has something to check.
template <typename T>
strata_status_t checkScalar(const Frame& frame, size_t slot, size_t arg,
                            long element) {
  if constexpr (Scalar<T>::kNonNegative) {
    long long value = Scalar<T>::signedValue(frame.args[slot]);
    if (value < 0) {
      return fail(frame, STRATA_STATUS_INVALID_ARGUMENT,
                  "argument %zu%s is %lld; it must not be negative", slot,
                  ArgumentLabel(frame, arg, element).text, value);
    }
  }
  (void)frame;
  (void)slot;
  (void)arg;
  (void)element;
  return nullptr;
}

template <typename T>
struct IsRefHandle : std::false_type {};
template <typename T>
struct IsRefHandle<Ref<T>> : std::true_type {
  using Object = T;
};
template <typename T>
struct IsVariadic : std::false_type {};
template <typename... Ts>
struct IsVariadic<Variadic<Ts...>> : std::true_type {};
template <typename T>
struct IsResult : std::false_type {};
template <typename T>
struct IsResult<Result<T>> : std::true_type {
  using Value = T;
};

// What a ref parameter or span element is: T* (borrowed, non-null), Ref<T>
// (retained, non-null) or Nullable<T> (borrowed, may be null).
template <typename D, typename = void>
struct RefArg {
  static constexpr bool kSupported = false;
};
template <typename T>
struct RefArg<T*, std::enable_if_t<kIsRefType<std::remove_const_t<T>>>> {
  static constexpr bool kSupported = true;
  static constexpr bool kNullable = false;
  using Object = std::remove_const_t<T>;
  static T* read(const strata_vm_value_t& v) {
    return reinterpret_cast<T*>(v.ref);
  }
};
template <typename T>
struct RefArg<Ref<T>> {
  static constexpr bool kSupported = true;
  static constexpr bool kNullable = false;
  using Object = T;
  static Ref<T> read(const strata_vm_value_t& v) {
    return Ref<T>::retain(reinterpret_cast<T*>(v.ref));
  }
};
template <typename T>
struct RefArg<Nullable<T>> {
  static constexpr bool kSupported = true;
  static constexpr bool kNullable = true;
  using Object = T;
  static Nullable<T> read(const strata_vm_value_t& v) {
    return Nullable<T>(reinterpret_cast<T*>(v.ref));
  }
};

// Elements of a variadic span: scalars, T* for ref types, Nullable<T>.
template <typename T, typename>
struct Element {
  static_assert(kAlwaysFalse<T>,
                "Variadic<> elements must be scalars (int32_t, int64_t, float, "
                "double, NonNegative<T>, ...), T* for a ref type, or "
                "Nullable<T>");
};
template <typename T>
struct Element<T, std::enable_if_t<Scalar<T>::kSupported>> {
  static constexpr char kChar = Scalar<T>::kChar;
  static strata_status_t check(const Frame& frame, size_t slot, size_t arg,
                               long element) {
    return checkScalar<T>(frame, slot, arg, element);
  }
  static T read(const strata_vm_value_t& v) { return Scalar<T>::read(v); }
};
template <typename T>
struct Element<
    T, std::enable_if_t<RefArg<T>::kSupported && !IsRefHandle<T>::value>> {
  static constexpr char kChar = 'r';
  static strata_status_t check(const Frame& frame, size_t slot, size_t arg,
                               long element) {
    return checkRef<typename RefArg<T>::Object>(frame, slot, arg, element,
                                                RefArg<T>::kNullable);
  }
  static T read(const strata_vm_value_t& v) { return RefArg<T>::read(v); }
};

// How a parameter type maps onto arguments and results.
enum class Kind {
  kUnsupported,
  kCall,      // strata_vm_native_call_t*
  kCallInfo,  // const NativeCall&
  kScalar,
  kRef,  // T*, Ref<T>, Nullable<T>
  kVariadic,
  kOutScalar,
  kOutRef,
};

template <typename D>
constexpr Kind classify() {
  if constexpr (std::is_same_v<D, NativeCall>) {
    return Kind::kCallInfo;
  } else if constexpr (Scalar<D>::kSupported) {
    return Kind::kScalar;
  } else if constexpr (RefArg<D>::kSupported) {
    return Kind::kRef;
  } else if constexpr (IsVariadic<D>::value) {
    return Kind::kVariadic;
  } else if constexpr (std::is_pointer_v<D>) {
    using U = std::remove_pointer_t<D>;
    if constexpr (std::is_same_v<std::remove_cv_t<U>,
                                 strata_vm_native_call_t>) {
      return Kind::kCall;
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

// Rejects non-const lvalue references, which look like out-params but are not.
template <typename A>
inline constexpr bool kIsMutableReference =
    std::is_lvalue_reference_v<A> &&
    !std::is_const_v<std::remove_reference_t<A>>;

// Common defaults: a parameter that takes no argument and gives no result.
struct NoParam {
  static constexpr size_t kArgChars = 0;
  static constexpr size_t kFixedArgSlots = 0;
  static constexpr size_t kResultChars = 0;
  static constexpr bool kIsVariadic = false;
  static constexpr size_t kSpanWidth = 0;
  template <typename S>
  static constexpr void appendArgs(S&, size_t&) {}
  template <typename S>
  static constexpr void appendResults(S&, size_t&) {}
  static strata_status_t check(const Frame&, size_t, size_t) { return nullptr; }
  template <typename Storage>
  static void emit(Storage&, strata_vm_value_t*) {}
};
// A parameter that takes one argument slot of char C.
template <char C>
struct InParam : NoParam {
  static constexpr size_t kArgChars = 1;
  static constexpr size_t kFixedArgSlots = 1;
  template <typename S>
  static constexpr void appendArgs(S& s, size_t& p) {
    s[p++] = C;
  }
};
// A parameter that becomes one result of char C and takes no argument.
template <char C>
struct OutParam : NoParam {
  static constexpr size_t kResultChars = 1;
  template <typename S>
  static constexpr void appendResults(S& s, size_t& p) {
    s[p++] = C;
  }
};

template <typename A, Kind K = classify<Decayed<A>>()>
struct Param {
  static_assert(kAlwaysFalse<A>,
                "unsupported native function parameter type: use int32_t, "
                "int64_t, float, double, bool, NonNegative<T>, T* / Ref<T> / "
                "Nullable<T> for refs, Variadic<...>, strata_vm_native_call_t* "
                "or const NativeCall&, or out-params int32_t*, int64_t*, "
                "float*, double*, Ref<T>*");
};

template <typename A>
struct Param<A, Kind::kCall> : NoParam {
  using Storage = strata_vm_native_call_t*;
  static Storage make(const Frame& frame, size_t) { return frame.call; }
  static Storage pass(Storage& s) { return s; }
};

template <typename A>
struct Param<A, Kind::kCallInfo> : NoParam {
  static_assert(!kIsMutableReference<A>, "take const NativeCall&");
  using Storage = NativeCall;
  static Storage make(const Frame& frame, size_t) { return NativeCall(frame); }
  static const NativeCall& pass(Storage& s) { return s; }
};

template <typename A>
struct Param<A, Kind::kScalar> : InParam<Scalar<Decayed<A>>::kChar> {
  static_assert(!kIsMutableReference<A>,
                "take scalars by value; use a pointer for an out-param");
  using Storage = Decayed<A>;
  static strata_status_t check(const Frame& frame, size_t slot, size_t arg) {
    return checkScalar<Storage>(frame, slot, arg, -1);
  }
  static Storage make(const Frame& frame, size_t slot) {
    return Scalar<Storage>::read(frame.args[slot]);
  }
  static A&& pass(Storage& s) { return static_cast<A&&>(s); }
};

template <typename A>
struct Param<A, Kind::kRef> : InParam<'r'> {
  static_assert(!kIsMutableReference<A>,
                "take refs by value or const&; use Ref<T>* for an out-param");
  using Storage = Decayed<A>;
  static strata_status_t check(const Frame& frame, size_t slot, size_t arg) {
    return checkRef<typename RefArg<Storage>::Object>(
        frame, slot, arg, -1, RefArg<Storage>::kNullable);
  }
  static Storage make(const Frame& frame, size_t slot) {
    return RefArg<Storage>::read(frame.args[slot]);
  }
  static A&& pass(Storage& s) { return static_cast<A&&>(s); }
};

template <typename A>
struct Param<A, Kind::kVariadic> : NoParam {
  using Storage = Decayed<A>;
  static constexpr size_t kWidth = Storage::kWidth;
  static constexpr size_t kArgChars = 2 + kWidth;
  static constexpr size_t kFixedArgSlots = 1;  // the count
  static constexpr bool kIsVariadic = true;
  static constexpr size_t kSpanWidth = kWidth;

  template <typename S>
  static constexpr void appendArgs(S& s, size_t& p) {
    s[p++] = 'C';
    appendElements(s, p, std::make_index_sequence<kWidth>());
    s[p++] = 'D';
  }
  // The count at slot was checked against the argument count.
  static strata_status_t check(const Frame& frame, size_t slot, size_t arg) {
    size_t count = static_cast<size_t>(frame.args[slot].i32);
    for (size_t i = 0; i < count; ++i) {
      strata_status_t status =
          checkRepetition(frame, slot + 1 + i * kWidth, arg, i,
                          std::make_index_sequence<kWidth>());
      if (status) {
        return status;
      }
    }
    return nullptr;
  }
  static Storage make(const Frame& frame, size_t slot) {
    return Storage(frame.args + slot + 1,
                   static_cast<size_t>(frame.args[slot].i32));
  }
  static const Storage& pass(Storage& s) { return s; }

 private:
  template <typename S, size_t... J>
  static constexpr void appendElements(S& s, size_t& p,
                                       std::index_sequence<J...>) {
    ((s[p++] = Element<typename Storage::template ElementType<J>>::kChar), ...);
  }
  template <size_t... J>
  static strata_status_t checkRepetition(const Frame& frame, size_t first,
                                         size_t arg, size_t index,
                                         std::index_sequence<J...>) {
    strata_status_t status = nullptr;
    (void)((status = Element<typename Storage::template ElementType<J>>::check(
                frame, first + J, arg,
                static_cast<long>(index * kWidth + J))) ||
           ...);
    return status;
  }
};

template <typename A>
struct Param<A, Kind::kOutScalar>
    : OutParam<Scalar<std::remove_pointer_t<Decayed<A>>>::kChar> {
  using Value = std::remove_pointer_t<Decayed<A>>;
  using Storage = Value;
  static Storage make(const Frame&, size_t) { return Value{}; }
  static Value* pass(Storage& s) { return &s; }
  static void emit(Storage& s, strata_vm_value_t* result) {
    Scalar<Value>::write(s, result);
  }
};

template <typename A>
struct Param<A, Kind::kOutRef> : OutParam<'r'> {
  using Storage = std::remove_pointer_t<Decayed<A>>;  // Ref<T>
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

// Prefix sums over per-parameter counts.
template <size_t N>
constexpr size_t sumBefore(const std::array<size_t, N>& values, size_t end) {
  size_t sum = 0;
  for (size_t i = 0; i < end; ++i) {
    sum += values[i];
  }
  return sum;
}
template <size_t N>
constexpr std::array<size_t, N> countBefore(const std::array<bool, N>& values) {
  std::array<size_t, N> out{};
  size_t count = 0;
  for (size_t i = 0; i < N; ++i) {
    out[i] = count;
    count += values[i] ? 1 : 0;
  }
  return out;
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
  static constexpr std::array<size_t, kParams + 1> kSpanWidths = {
      Param<Args>::kSpanWidth..., 0};
  // Argument index (for names) of each parameter: those that take
  // arguments, counted.
  static constexpr std::array<size_t, kParams + 1> kArgIndex = countBefore(
      std::array<bool, kParams + 1>{(Param<Args>::kArgChars != 0)..., false});

  static constexpr size_t kSpanCount =
      (size_t{0} + ... + (Param<Args>::kIsVariadic ? 1 : 0));
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
  static constexpr size_t argumentCount() {
    return Layout<R, Args...>::kArgIndex[Layout<R, Args...>::kParams];
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
  using Slots = std::array<size_t, L::kParams + 1>;

  // Finds each parameter's first argument slot. Spans make them known only
  // at run time: each span's count is checked against the arguments left.
  static strata_status_t locate(const Frame& frame, size_t arg_count,
                                Slots* slots) {
    if constexpr (L::kSpanCount == 0) {
      if (arg_count != L::kFixedArgs) {
        return fail(frame, STRATA_STATUS_INVALID_ARGUMENT,
                    "expects %zu arguments (%s), got %zu", L::kFixedArgs,
                    kCConv<R, Args...>.data(), arg_count);
      }
    } else if (arg_count < L::kFixedArgs) {
      return fail(frame, STRATA_STATUS_INVALID_ARGUMENT,
                  "expects at least %zu arguments (%s), got %zu", L::kFixedArgs,
                  kCConv<R, Args...>.data(), arg_count);
    }
    size_t slot = 0;
    size_t spans_left = L::kSpanCount;
    for (size_t p = 0; p < L::kParams; ++p) {
      (*slots)[p] = slot;
      if (!L::kIsSpan[p]) {
        slot += L::kFixedSlots[p];
        continue;
      }
      // Values this span may use: all but the fixed slots after its count.
      size_t fixed_after = L::kFixedArgs - sumBefore(L::kFixedSlots, p + 1);
      size_t available = arg_count - slot - 1 - fixed_after;
      int32_t count = frame.args[slot].i32;
      size_t values =
          count < 0 ? 0 : static_cast<size_t>(count) * L::kSpanWidths[p];
      --spans_left;
      if (count < 0 ||
          (spans_left == 0 ? values != available : values > available)) {
        return fail(frame, STRATA_STATUS_INVALID_ARGUMENT,
                    "variadic span count %d (argument %zu) does not match "
                    "the %zu argument values after the fixed ones (%s)",
                    count, slot, available, kCConv<R, Args...>.data());
      }
      slot += 1 + values;
    }
    return nullptr;
  }

  // Checks counts and argument values, then unpacks, calls and packs
  // results.
  template <typename State, auto Method>
  static strata_status_t run(const Frame& frame, State* state, size_t arg_count,
                             strata_vm_value_t* results, size_t result_count) {
    Slots slots{};
    strata_status_t status = locate(frame, arg_count, &slots);
    if (status) {
      return status;
    }
    if (result_count != L::kResults) {
      return fail(frame, STRATA_STATUS_INVALID_ARGUMENT,
                  "returns %zu results (%s), caller expects %zu", L::kResults,
                  kCConv<R, Args...>.data(), result_count);
    }
    return unpackAndCall<State, Method>(frame, state, slots, results,
                                        std::index_sequence_for<Args...>());
  }

 private:
  template <typename State, auto Method, size_t... P>
  static strata_status_t unpackAndCall(const Frame& frame, State* state,
                                       const Slots& slots,
                                       strata_vm_value_t* results,
                                       std::index_sequence<P...>) {
    strata_status_t status = nullptr;
    (void)((status = Param<Args>::check(frame, slots[P], L::kArgIndex[P])) ||
           ...);
    if (status) {
      return status;
    }
    std::tuple<typename Param<Args>::Storage...> storage{
        Param<Args>::make(frame, slots[P])...};
    (void)storage;
    (void)slots;
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

/// How many parameters of member function Method take arguments: the names
/// NativeModuleBuilder::function may be given (a span counts as one).
template <auto Method>
constexpr size_t methodArgumentCount() {
  return detail::FunctionTraits<
      typename detail::MethodTraits<decltype(Method)>::Fn>::argumentCount();
}

}  // namespace strata::vm

#endif  // STRATA_VM_NATIVE_SIGNATURE_HPP_
