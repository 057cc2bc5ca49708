// native_values.hpp - the C++ types a native function's signature is made
// of (native_module.hpp): Ref<T> and Nullable<T> for ref arguments,
// Result<T> for results that may fail, Span<T> for variadic spans, and the
// RefTraits that map a C ref object type to its registered type.
//
// Header-only C++17; works without exceptions and without RTTI. Ref<T> and
// Result<T> are plain values: not synchronized.
#ifndef STRATA_VM_NATIVE_VALUES_HPP_
#define STRATA_VM_NATIVE_VALUES_HPP_

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
#define STRATA_VM_DECLARE_REF_TYPE(CType, type_expr)                  \
  namespace strata::vm {                                              \
  template <>                                                         \
  struct RefTraits<CType> {                                           \
    static const strata_vm_ref_type_t* type() { return (type_expr); } \
  };                                                                  \
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
  template <typename U, typename = std::enable_if_t<
                            std::is_same_v<T, strata_vm_ref_object_t> &&
                            !std::is_same_v<U, strata_vm_ref_object_t>>>
  Ref(Ref<U>&& other) noexcept  // NOLINT: implicit upcast
      : ptr_(detail::asObject(other.detach())) {}
  template <typename U, typename = std::enable_if_t<
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
// Checked scalars
//===----------------------------------------------------------------------===//

/// An int32_t or int64_t argument that must not be negative (an offset, a
/// length, a count), read as its unsigned twin. It travels as T does ('i' or
/// 'I'); a negative value fails the call with INVALID_ARGUMENT before the
/// function runs, naming the argument:
///   native function 'hal.buffer.subspan': argument 2 (length) is -1; it
///   must not be negative
template <typename T>
class NonNegative {
  static_assert(std::is_same_v<T, int32_t> || std::is_same_v<T, int64_t>,
                "NonNegative<T> needs int32_t or int64_t");

 public:
  using Unsigned = std::make_unsigned_t<T>;
  explicit NonNegative(Unsigned value = 0) noexcept : value_(value) {}
  Unsigned get() const noexcept { return value_; }
  operator Unsigned() const noexcept { return value_; }  // NOLINT: implicit

 private:
  Unsigned value_;
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
  template <typename U = T, typename = std::enable_if_t<
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

}  // namespace strata::vm

#endif  // STRATA_VM_NATIVE_VALUES_HPP_
