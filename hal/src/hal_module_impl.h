// hal_module_impl.h - what the files of the hal VM module share: the module
// and per-context state records, the hal.allocator ref type, and Call, the
// argument reader every export uses to check its arguments the same way.
#ifndef STRATA_HAL_SRC_HAL_MODULE_IMPL_H_
#define STRATA_HAL_SRC_HAL_MODULE_IMPL_H_

#include <cstddef>
#include <cstdint>

#include "strata/hal/buffer.h"
#include "strata/hal/command_buffer.h"
#include "strata/hal/device.h"
#include "strata/hal/executable.h"
#include "strata/hal/module.h"
#include "strata/hal/semaphore.h"
#include "strata/vm/buffer.h"
#include "strata/vm/native_module.hpp"

// hal.allocator: a device's allocator as bytecode sees it. It only names the
// device (retained); buffers come from the device's host allocator.
struct strata_hal_allocator_ref_t {
  strata_vm_ref_object_t header;
  strata_allocator_t allocator;  // frees this record
  strata_hal_device_t* device;   // retained
};

namespace strata::hal {
/// The registered type "hal.allocator".
const strata_vm_ref_type_t* allocatorRefType();
}  // namespace strata::hal

STRATA_VM_DECLARE_REF_TYPE(strata_hal_buffer_t, strata_hal_buffer_type())
STRATA_VM_DECLARE_REF_TYPE(strata_hal_buffer_view_t,
                           strata_hal_buffer_view_type())
STRATA_VM_DECLARE_REF_TYPE(strata_hal_device_t, strata_hal_device_type())
STRATA_VM_DECLARE_REF_TYPE(strata_hal_executable_t,
                           strata_hal_executable_type())
STRATA_VM_DECLARE_REF_TYPE(strata_hal_command_buffer_t,
                           strata_hal_command_buffer_type())
STRATA_VM_DECLARE_REF_TYPE(strata_hal_fence_t, strata_hal_fence_type())
STRATA_VM_DECLARE_REF_TYPE(strata_hal_allocator_ref_t,
                           strata::hal::allocatorRefType())

namespace strata::hal {

/// The module's `self`: the devices every context of the module sees.
/// Immutable after creation.
struct HalModule {
  strata_allocator_t allocator;  // frees this record
  size_t device_count;
  strata_hal_device_t** devices;  // retained; trails this record
};

/// Per-context state: the devices (retained) and one hal.allocator per
/// device, made once so device.allocator does not allocate.
struct HalState {
  strata_allocator_t allocator;  // the context's; frees this record
  size_t device_count;
  strata_hal_device_t** devices;            // retained; trails this record
  strata_hal_allocator_ref_t** allocators;  // retained; trails this record
};

/// Fence.query's answer for a fence that is neither reached nor failed.
/// Status codes stop at STRATA_STATUS_DEFERRED (100), so it cannot collide.
inline constexpr int32_t kFencePending = 1000;

/// Limits of one command_buffer.dispatch; beyond them the call fails.
inline constexpr size_t kMaxDispatchConstants = 256;
inline constexpr size_t kMaxDispatchBindings = 64;
/// Limit of refs gathered from one span (queue.execute, fence.join/await).
inline constexpr size_t kMaxSpanRefs = 64;

/// One call of an export: its arguments, its results and a way to fail that
/// names the function. Ref accessors check the type and return a borrowed
/// pointer; errors read like the C++ helper's:
///   native function 'hal.buffer.load': argument 0 (buffer) must be a
///   hal.buffer, got a vm.list
class Call {
 public:
  Call(strata_vm_native_call_t* call, strata_vm_native_fn_t fn, HalState* state,
       const strata_vm_value_t* args, strata_vm_value_t* results)
      : call_(call), fn_(fn), state_(state), args_(args), results_(results) {}

  HalState& state() const { return *state_; }
  strata_vm_native_call_t* nativeCall() const { return call_; }
  /// The context's allocator (for objects not made for a device).
  strata_allocator_t contextAllocator() const { return state_->allocator; }

  int32_t i32(size_t slot) const { return args_[slot].i32; }
  int64_t i64(size_t slot) const { return args_[slot].i64; }
  strata_vm_ref_object_t* rawRef(size_t slot) const { return args_[slot].ref; }
  /// A variadic span's repetition count, at slot.
  size_t spanCount(size_t slot) const {
    return static_cast<size_t>(args_[slot].i32);
  }

  /// A non-null T at slot; `what` names the argument in errors.
  template <typename T>
  strata_status_t ref(size_t slot, const char* what, T** out) const {
    return typedRef(slot, what, vm::RefTraits<T>::type(), false,
                    reinterpret_cast<strata_vm_ref_object_t**>(out));
  }
  /// A T or null at slot.
  template <typename T>
  strata_status_t nullableRef(size_t slot, const char* what, T** out) const {
    return typedRef(slot, what, vm::RefTraits<T>::type(), true,
                    reinterpret_cast<strata_vm_ref_object_t**>(out));
  }
  /// A non-negative i64 at slot (offsets, lengths).
  strata_status_t size(size_t slot, const char* what, uint64_t* out) const;

  void setI32(size_t i, int32_t v) const {
    results_[i].bits = 0;
    results_[i].i32 = v;
  }
  void setI64(size_t i, int64_t v) const { results_[i].i64 = v; }
  /// Stores an owned reference as result i.
  void setRef(size_t i, strata_vm_ref_object_t* owned) const {
    results_[i].ref = owned;
  }

  /// "native function 'hal.<name>': <detail>".
  strata_status_t fail(strata_status_code_t code, const char* format, ...) const
#if defined(__GNUC__)
      __attribute__((format(printf, 3, 4)))
#endif
      ;
  /// The export's short name ("buffer.load").
  const char* name() const;

 private:
  strata_status_t typedRef(size_t slot, const char* what,
                           const strata_vm_ref_type_t* type, bool nullable,
                           strata_vm_ref_object_t** out) const;

  strata_vm_native_call_t* call_;
  strata_vm_native_fn_t fn_;
  HalState* state_;
  const strata_vm_value_t* args_;
  strata_vm_value_t* results_;
};

/// An export's body.
using ExportFn = strata_status_t (*)(const Call& call);

/// The native function of body F: builds the Call and runs F.
template <ExportFn F>
strata_status_t exportThunk(strata_vm_native_call_t* call, void*,
                            void* module_state, const strata_vm_value_t* args,
                            size_t, strata_vm_value_t* results, size_t) {
  // The VM checked the argument and result counts against the calling
  // convention when it linked the import.
  return F(Call(call, &exportThunk<F>, static_cast<HalState*>(module_state),
                args, results));
}

/// For messages: "a " before a ref's type name, "" before "null".
inline const char* refArticle(const strata_vm_ref_object_t* ref) {
  return ref ? "a " : "";
}
/// A ref's type name for messages, or "null".
const char* refTypeName(const strata_vm_ref_object_t* ref);

/// Gathers a span of `count` refs of type T starting at `first` into
/// storage (kMaxSpanRefs entries). Null entries fail unless skip_null, in
/// which case they are left out; *out_count is the number kept.
template <typename T>
strata_status_t gatherSpan(const Call& call, size_t first, size_t count,
                           const char* what, bool skip_null, T** storage,
                           size_t* out_count) {
  *out_count = 0;
  if (count > kMaxSpanRefs) {
    return call.fail(STRATA_STATUS_OUT_OF_RANGE,
                     "%zu %s exceed the limit of %zu per call", count, what,
                     kMaxSpanRefs);
  }
  const strata_vm_ref_type_t* type = vm::RefTraits<T>::type();
  for (size_t i = 0; i < count; ++i) {
    strata_vm_ref_object_t* item = call.rawRef(first + i);
    if (!item && skip_null) {
      continue;
    }
    if (!item || item->type != type) {
      return call.fail(STRATA_STATUS_INVALID_ARGUMENT,
                       "argument %zu (element %zu of %s) must be a %s%s, got "
                       "%s%s",
                       first + i, i, what, type->name,
                       skip_null ? " or null" : "", refArticle(item),
                       refTypeName(item));
    }
    storage[(*out_count)++] = reinterpret_cast<T*>(item);
  }
  return nullptr;
}

// Export bodies, one file per family; schemas/hal_imports.def names each
// in its row and states its contract.
strata_status_t devicesCount(const Call& call);
strata_status_t devicesGet(const Call& call);
strata_status_t deviceAllocator(const Call& call);
strata_status_t allocatorAllocate(const Call& call);
strata_status_t allocatorAllocateUninitialized(const Call& call);

strata_status_t bufferLength(const Call& call);
strata_status_t bufferSubspan(const Call& call);
strata_status_t bufferWrap(const Call& call);
strata_status_t bufferLoad(const Call& call);
strata_status_t bufferStore(const Call& call);
strata_status_t bufferAssert(const Call& call);
strata_status_t bufferViewCreate(const Call& call);
strata_status_t bufferViewAssert(const Call& call);
strata_status_t bufferViewBuffer(const Call& call);
strata_status_t bufferViewElementType(const Call& call);
strata_status_t bufferViewRank(const Call& call);
strata_status_t bufferViewDim(const Call& call);

strata_status_t executableCreate(const Call& call);
strata_status_t commandBufferCreate(const Call& call);
strata_status_t commandBufferFinalize(const Call& call);
strata_status_t commandBufferDispatch(const Call& call);
strata_status_t commandBufferFillBuffer(const Call& call);
strata_status_t commandBufferCopyBuffer(const Call& call);
strata_status_t commandBufferExecutionBarrier(const Call& call);
strata_status_t deviceQueueAlloca(const Call& call);
strata_status_t deviceQueueDealloca(const Call& call);
strata_status_t deviceQueueExecute(const Call& call);
strata_status_t deviceQueueBarrier(const Call& call);

strata_status_t fenceCreate(const Call& call);
strata_status_t fenceJoin(const Call& call);
strata_status_t fenceQuery(const Call& call);
strata_status_t fenceSignal(const Call& call);
strata_status_t fenceFail(const Call& call);
strata_status_t fenceAwait(const Call& call);

}  // namespace strata::hal

#endif  // STRATA_HAL_SRC_HAL_MODULE_IMPL_H_
