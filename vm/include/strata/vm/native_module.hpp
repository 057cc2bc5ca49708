// native_module.hpp - write native VM modules as C++ classes: RAII refs,
// Result<T>, and a builder that derives each function's calling convention
// from its member function signature at compile time.
//
// Header-only C++17; works without exceptions and without RTTI.
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
//   T*, const T*  for a ref type T                        r  borrowed for the
//                 (strata_vm_buffer_t, strata_vm_list_t,     call; never null
//                 strata_vm_ref_object_t = any type, or a
//                 type declared with STRATA_VM_DECLARE_REF_TYPE)
//   Ref<T>, const Ref<T>&                                 r  retained copy;
//                                                            never null
//   Nullable<T>                                           r  borrowed; may be
//                                                            null
//   Variadic<Ts...>                                       C..D  one span of
//                                                            repetitions of Ts
//   strata_vm_native_call_t*                              (none) the call
//
// A ref argument that is null (unless Nullable) or of the wrong type fails the
// call with INVALID_ARGUMENT before the member function runs; the message
// names the function, the argument index and the expected type:
//   native function 'counter.fill': argument 0 must be a vm.buffer, got a
//   vm.list
// Argument indices count calling-convention slots from 0; a variadic span's
// element count occupies one slot (see strata_vm_native_fn_t).
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
#include "strata/vm/ref.h"
#include "strata/vm/value.h"

namespace strata::vm {

//===----------------------------------------------------------------------===//
// Ref types
//===----------------------------------------------------------------------===//

/// Maps a C ref object type to its registered strata_vm_ref_type_t. A
/// specialization provides `static const strata_vm_ref_type_t* type()`;
/// returning NULL means "any ref type". Declare your own with
/// STRATA_VM_DECLARE_REF_TYPE.
template <typename T>
struct RefTraits {};

template <>
struct RefTraits<strata_vm_ref_object_t> {
  static const strata_vm_ref_type_t* type() { return nullptr; }
};
template <>
struct RefTraits<strata_vm_buffer_t> {
  static const strata_vm_ref_type_t* type() { return strata_vm_buffer_type(); }
};
template <>
struct RefTraits<strata_vm_list_t> {
  static const strata_vm_ref_type_t* type() { return strata_vm_list_type(); }
};

/// Declares CType (whose first member is a strata_vm_ref_object_t) as a ref
/// type whose registered type is the strata_vm_ref_type_t* expression
/// type_expr. Use at global namespace scope.
#define STRATA_VM_DECLARE_REF_TYPE(CType, type_expr)                   \
  namespace strata::vm {                                                \
  template <>                                                           \
  struct RefTraits<CType> {                                             \
    static const strata_vm_ref_type_t* type() { return (type_expr); } \
  };                                                                    \
  }

template <typename T, typename = void>
struct IsRefType : std::false_type {};
template <typename T>
struct IsRefType<T, std::void_t<decltype(RefTraits<T>::type())>>
    : std::true_type {};
/// Whether T has a RefTraits specialization.
template <typename T>
inline constexpr bool kIsRefType = IsRefType<T>::value;

namespace detail {

template <typename T>
strata_vm_ref_object_t* asObject(T* pointer) {
  return reinterpret_cast<strata_vm_ref_object_t*>(
      const_cast<std::remove_const_t<T>*>(pointer));
}

}  // namespace detail

/// An owning reference to a ref object of type T: copies retain, destruction
/// releases. Not synchronized (the count itself is atomic, so different Refs
/// to one object may live on different threads).
template <typename T>
class Ref {
  static_assert(kIsRefType<T>,
                "Ref<T> needs a ref type: strata_vm_buffer_t, "
                "strata_vm_list_t, strata_vm_ref_object_t, or a type declared "
                "with STRATA_VM_DECLARE_REF_TYPE");

 public:
  Ref() noexcept = default;
  Ref(const Ref& other) noexcept : ptr_(other.ptr_) {
    strata_vm_ref_retain(detail::asObject(ptr_));
  }
  Ref(Ref&& other) noexcept : ptr_(other.ptr_) { other.ptr_ = nullptr; }
  /// Any Ref converts to a Ref<strata_vm_ref_object_t> (moving or retaining).
  template <typename U,
            typename = std::enable_if_t<
                std::is_same_v<T, strata_vm_ref_object_t> &&
                !std::is_same_v<U, strata_vm_ref_object_t>>>
  Ref(Ref<U>&& other) noexcept  // NOLINT: implicit upcast
      : ptr_(detail::asObject(other.detach())) {}
  template <typename U,
            typename = std::enable_if_t<
                std::is_same_v<T, strata_vm_ref_object_t> &&
                !std::is_same_v<U, strata_vm_ref_object_t>>>
  Ref(const Ref<U>& other) noexcept  // NOLINT: implicit upcast
      : ptr_(other.asRef()) {
    strata_vm_ref_retain(ptr_);
  }
  ~Ref() { reset(); }

  Ref& operator=(const Ref& other) noexcept {
    strata_vm_ref_retain(detail::asObject(other.ptr_));
    reset(other.ptr_);
    return *this;
  }
  Ref& operator=(Ref&& other) noexcept {
    if (this != &other) {
      reset(other.detach());
    }
    return *this;
  }

  /// Takes over the caller's reference to pointer (which may be NULL).
  static Ref adopt(T* pointer) noexcept {
    Ref out;
    out.ptr_ = pointer;
    return out;
  }
  /// Adds a reference to pointer (which may be NULL).
  static Ref retain(T* pointer) noexcept {
    strata_vm_ref_retain(detail::asObject(pointer));
    return adopt(pointer);
  }

  /// The object, borrowed; NULL for an empty Ref.
  T* get() const noexcept { return ptr_; }
  /// The object as a generic ref, borrowed.
  strata_vm_ref_object_t* asRef() const noexcept {
    return detail::asObject(ptr_);
  }
  explicit operator bool() const noexcept { return ptr_ != nullptr; }

  /// Gives the reference to the caller and leaves this Ref empty.
  [[nodiscard]] T* detach() noexcept {
    T* out = ptr_;
    ptr_ = nullptr;
    return out;
  }
  /// Releases the current object and adopts pointer.
  void reset(T* pointer = nullptr) noexcept {
    T* old = ptr_;
    ptr_ = pointer;
    strata_vm_ref_release(detail::asObject(old));
  }
  /// Releases the current object and returns the slot for a create function
  /// to store a new reference in: strata_vm_buffer_create(..., ref.out()).
  T** out() noexcept {
    reset();
    return &ptr_;
  }
  /// The object's reference count, for tests and debugging.
  uint32_t useCount() const noexcept {
    return strata_vm_ref_count(detail::asObject(ptr_));
  }

  friend bool operator==(const Ref& a, const Ref& b) noexcept {
    return a.ptr_ == b.ptr_;
  }
  friend bool operator!=(const Ref& a, const Ref& b) noexcept {
    return a.ptr_ != b.ptr_;
  }

 private:
  T* ptr_ = nullptr;
};

/// Ref::adopt with T deduced.
template <typename T>
Ref<T> adoptRef(T* pointer) noexcept {
  return Ref<T>::adopt(pointer);
}
/// Ref::retain with T deduced.
template <typename T>
Ref<T> retainRef(T* pointer) noexcept {
  return Ref<T>::retain(pointer);
}
/// A new reference to object if it is a T, else an empty Ref. object is
/// borrowed.
template <typename T>
Ref<T> refCast(strata_vm_ref_object_t* object) noexcept {
  const strata_vm_ref_type_t* type = RefTraits<T>::type();
  if (!object || (type && object->type != type)) {
    return Ref<T>();
  }
  return Ref<T>::retain(reinterpret_cast<T*>(object));
}

/// A borrowed ref argument that may be null; when not null it is a T.
template <typename T>
class Nullable {
  static_assert(kIsRefType<T>, "Nullable<T> needs a ref type");

 public:
  explicit Nullable(T* pointer = nullptr) noexcept : ptr_(pointer) {}
  T* get() const noexcept { return ptr_; }
  explicit operator bool() const noexcept { return ptr_ != nullptr; }

 private:
  T* ptr_;
};

//===----------------------------------------------------------------------===//
// Result<T>
//===----------------------------------------------------------------------===//

/// A value or a failed status. Owns the status until takeStatus(); an
/// unconsumed status is freed on destruction. Construct from a value or from
/// a non-OK strata_status_t (an OK status becomes INTERNAL, since a Result
/// without a value is a bug).
template <typename T>
class [[nodiscard]] Result {
 public:
  template <typename U = T,
            typename = std::enable_if_t<
                std::is_constructible_v<T, U&&> &&
                !std::is_same_v<std::decay_t<U>, Result> &&
                !std::is_convertible_v<U&&, strata_status_t>>>
  Result(U&& value)  // NOLINT: implicit, so functions can `return value;`
      : value_(std::in_place, std::forward<U>(value)) {}
  Result(strata_status_t status)  // NOLINT: implicit, for `return status;`
      : status_(status ? status
                       : strata_make_status(STRATA_STATUS_INTERNAL,
                                            "Result made from an OK status "
                                            "without a value")) {}
  Result(Result&& other) noexcept
      : status_(other.status_), value_(std::move(other.value_)) {
    other.status_ = nullptr;
  }
  Result& operator=(Result&& other) noexcept {
    if (this != &other) {
      strata_status_free(status_);
      status_ = other.status_;
      other.status_ = nullptr;
      value_ = std::move(other.value_);
    }
    return *this;
  }
  Result(const Result&) = delete;
  Result& operator=(const Result&) = delete;
  ~Result() { strata_status_free(status_); }

  bool ok() const noexcept { return status_ == nullptr && value_.has_value(); }
  /// The failure, borrowed; NULL when ok().
  strata_status_t status() const noexcept { return status_; }
  /// Gives the failure to the caller (NULL when ok()).
  [[nodiscard]] strata_status_t takeStatus() noexcept {
    strata_status_t out = status_;
    status_ = nullptr;
    return out;
  }
  /// The value. Precondition: ok().
  T& value() & noexcept { return *value_; }
  const T& value() const& noexcept { return *value_; }
  T&& value() && noexcept { return std::move(*value_); }
  T& operator*() & noexcept { return *value_; }
  T* operator->() noexcept { return &*value_; }

 private:
  strata_status_t status_ = nullptr;
  std::optional<T> value_;
};

//===----------------------------------------------------------------------===//
// Variadic spans
//===----------------------------------------------------------------------===//

namespace detail {
template <typename T, typename = void>
struct Element;
}  // namespace detail

/// A variadic span argument: size() repetitions of the element types Ts,
/// e.g. Variadic<strata_vm_buffer_t*, int64_t> is "CrID". Element types are
/// scalars, T* for ref types (borrowed, checked non-null and typed) or
/// Nullable<T>. Views the call's arguments: valid during the call only.
template <typename... Ts>
class Variadic {
  static_assert(sizeof...(Ts) >= 1, "a variadic span needs element types");

 public:
  static constexpr size_t kWidth = sizeof...(Ts);
  template <size_t J>
  using ElementType = std::tuple_element_t<J, std::tuple<Ts...>>;

  Variadic(const strata_vm_value_t* values, size_t count) noexcept
      : values_(values), count_(count) {}

  /// Number of repetitions.
  size_t size() const noexcept { return count_; }
  bool empty() const noexcept { return count_ == 0; }
  /// Element J of repetition i. Precondition: i < size().
  template <size_t J>
  ElementType<J> get(size_t i) const noexcept {
    return detail::Element<ElementType<J>>::read(values_[i * kWidth + J]);
  }
  /// Repetition i of a single-type span.
  template <size_t W = kWidth, typename = std::enable_if_t<W == 1>>
  ElementType<0> operator[](size_t i) const noexcept {
    return get<0>(i);
  }

 private:
  const strata_vm_value_t* values_;
  size_t count_;
};

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
  const char* module = frame.descriptor && frame.descriptor->name
                           ? frame.descriptor->name
                           : "?";
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
  const char* got = !ref ? "null"
                    : ref->type && ref->type->name ? ref->type->name
                                                    : "ref of an unnamed type";
  return fail(frame, STRATA_STATUS_INVALID_ARGUMENT,
              "argument %zu%s must be a %s%s, got %s%s", slot, where,
              expected, nullable ? " or null" : "", ref ? "a " : "", got);
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
      strata_status_t status =
          checkRepetition(frame, slot + 1 + i * kWidth, i,
                          std::make_index_sequence<kWidth>());
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
    ((s[p++] = Element<typename Storage::template ElementType<J>>::kChar),
     ...);
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

  static constexpr size_t kArgChars = (size_t{0} + ... + Param<Args>::kArgChars);
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
                             strata_vm_value_t* results,
                             size_t result_count) {
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
                  "returns %zu results (%s), caller expects %zu",
                  L::kResults, kCConv<R, Args...>.data(), result_count);
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
    (void)((status = Param<Args>::check(frame,
                                        slotOf(P, frame.span_values))) ||
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
    strata_allocator_t allocator = definition->allocator_;
    definition->~NativeModuleDefinition();
    strata_allocator_free(allocator, definition);
  }

  strata_vm_native_module_descriptor_t descriptor_{};
  strata_allocator_t allocator_{};
  CreateStateFn create_state_ = nullptr;
  DestroyStateFn destroy_state_ = nullptr;
  void* user_ = nullptr;
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
                &Trampoline::call, call, args, 0};
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
  template <auto Method>
  NativeModuleBuilder& function(std::string_view name) {
    functions_.push_back(
        {std::string(name), methodCallingConvention<Method>().data(),
         &detail::Trampoline<State, Method>::call});
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
  /// allocator; destroy frees what create made. user (borrowed) is passed to
  /// both and must outlive every module built.
  NativeModuleBuilder& stateFactory(CreateStateFn create,
                                    DestroyStateFn destroy,
                                    void* user = nullptr) {
    create_state_ = create;
    destroy_state_ = destroy;
    factory_user_ = user;
    return *this;
  }

  /// Number of functions added so far.
  size_t functionCount() const { return functions_.size(); }

  /// Creates the module's tables without creating a module; the caller owns
  /// the definition (free it with destroy(), or pass its descriptor and it
  /// to strata_vm_native_module_create, which then owns it). Useful to call
  /// trampolines directly in tests.
  [[nodiscard]] strata_status_t createDefinition(
      strata_allocator_t allocator, Definition** out_definition) const {
    *out_definition = nullptr;
    if (!create_state_ || !destroy_state_) {
      return strata_make_status(
          STRATA_STATUS_INVALID_ARGUMENT,
          "native module '%s': State is not default-constructible; call "
          "stateFactory() with a create and a destroy function",
          name_.c_str());
    }
    // One block: definition, function table, dependency table, strings.
    using detail::alignUp;
    size_t functions_offset =
        alignUp(sizeof(Definition), alignof(strata_vm_native_function_t));
    size_t dependencies_offset =
        alignUp(functions_offset +
                    functions_.size() * sizeof(strata_vm_native_function_t),
                alignof(strata_vm_module_dependency_t));
    size_t strings_offset =
        dependencies_offset +
        dependencies_.size() * sizeof(strata_vm_module_dependency_t);
    size_t total = strings_offset + name_.size() + 1;
    for (const auto& f : functions_) {
      total += f.name.size() + 1;
    }
    for (const auto& d : dependencies_) {
      total += d.name.size() + 1;
    }
    size_t alignment = alignof(Definition);
    alignment = std::max(alignment, alignof(strata_vm_native_function_t));
    alignment = std::max(alignment, alignof(strata_vm_module_dependency_t));
    void* memory = strata_allocator_alloc(allocator, total, alignment);
    if (!memory) {
      return strata_make_status(STRATA_STATUS_RESOURCE_EXHAUSTED,
                                "out of memory creating native module '%s'",
                                name_.c_str());
    }
    char* base = static_cast<char*>(memory);
    auto* definition = new (memory) Definition();
    auto* functions = reinterpret_cast<strata_vm_native_function_t*>(
        base + functions_offset);
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
};

}  // namespace strata::vm

#endif  // STRATA_VM_NATIVE_MODULE_HPP_
