// hal_module_impl.h - what the files of the hal VM module share: the module
// and per-context state records (the state's member functions are the
// exports, registered with the native-module builder) and the hal.allocator
// ref type.
#ifndef STRATA_MODULES_HAL_SRC_HAL_MODULE_IMPL_H_
#define STRATA_MODULES_HAL_SRC_HAL_MODULE_IMPL_H_

#include <cstddef>
#include <cstdint>

#include "strata/hal/buffer.h"
#include "strata/hal/command_buffer.h"
#include "strata/hal/device.h"
#include "strata/hal/executable.h"
#include "strata/hal/semaphore.h"
#include "strata/modules/hal/module.h"
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

/// The builder's user data: the devices every context of the module sees.
/// Immutable after creation; the module's definition owns it.
struct HalModule {
  strata_allocator_t allocator;  // frees this record
  size_t device_count;
  strata_hal_device_t** devices;  // retained; trails this record
  bool no_native_kernels;         // strata_hal_module_options_t's
};

/// Fence.query's answer for a fence that is neither reached nor failed.
/// Status codes stop at STRATA_STATUS_DEFERRED (100), so it cannot collide.
inline constexpr int32_t kFencePending = 1000;

/// Limits of one command_buffer.dispatch; beyond them the call fails.
inline constexpr size_t kMaxDispatchConstants = 256;
inline constexpr size_t kMaxDispatchBindings = 64;
/// Limit of refs gathered from one span (queue.execute, fence.join/await).
inline constexpr size_t kMaxSpanRefs = 64;

using vm::NativeCall;
using vm::Nullable;
using vm::Ref;
using vm::Variadic;
/// An offset or a length: an i64 that must not be negative.
using Size = vm::NonNegative<int64_t>;
/// An i32 count or ordinal that must not be negative.
using Count = vm::NonNegative<int32_t>;
using Fences = Variadic<Nullable<strata_hal_fence_t>>;

/// The module's per-context state, and its exports as member functions that
/// the native-module builder (strata/vm/native_module.hpp) registers, one
/// per row of schemas/hal_imports.def (hal_module.cpp checks that each one's
/// signature gives the row's calling convention). The builder checks the
/// argument count, ref types and non-negative sizes before a body runs and
/// names the argument in its errors; bodies fail through NativeCall::fail,
/// which reads the same: "native function 'hal.buffer.load': ...".
struct HalState {
  strata_allocator_t allocator;  // the context's; frees this record
  size_t device_count;
  strata_hal_device_t** devices;            // retained; trails this record
  strata_hal_allocator_ref_t** allocators;  // retained; trails this record
  // The policy: refuse every native kernel library (only portable bytecode
  // loads).
  bool no_native_kernels;

  // Devices and allocators (hal_module.cpp).
  int32_t devicesCount();
  strata_status_t devicesGet(const NativeCall& call, int32_t index,
                             Ref<strata_hal_device_t>* out);
  strata_status_t deviceAllocator(strata_hal_device_t* device,
                                  Ref<strata_hal_allocator_ref_t>* out);
  strata_status_t allocatorAllocate(strata_hal_allocator_ref_t* allocator,
                                    Size length, Ref<strata_hal_buffer_t>* out);
  strata_status_t allocatorAllocateUninitialized(
      strata_hal_allocator_ref_t* allocator, Size length,
      Ref<strata_hal_buffer_t>* out);

  // Buffers and buffer views (hal_module_buffers.cpp).
  int64_t bufferLength(strata_hal_buffer_t* buffer);
  strata_status_t bufferSubspan(strata_hal_buffer_t* buffer, Size offset,
                                Size length, Ref<strata_hal_buffer_t>* out);
  strata_status_t bufferWrap(strata_vm_buffer_t* source,
                             Ref<strata_hal_buffer_t>* out);
  strata_status_t bufferLoad(const NativeCall& call,
                             strata_hal_buffer_t* buffer, Size offset,
                             int32_t width, int32_t* out);
  strata_status_t bufferStore(const NativeCall& call, int32_t value,
                              strata_hal_buffer_t* buffer, Size offset,
                              int32_t width);
  strata_status_t bufferAssert(Nullable<strata_vm_ref_object_t> ref,
                               strata_vm_buffer_t* message, Size minimum);
  strata_status_t bufferViewCreate(const NativeCall& call,
                                   strata_hal_buffer_t* buffer, Size offset,
                                   Size length, int32_t element_type,
                                   int32_t encoding, Variadic<int64_t> dims,
                                   Ref<strata_hal_buffer_view_t>* out);
  strata_status_t bufferViewAssert(const NativeCall& call,
                                   Nullable<strata_vm_ref_object_t> ref,
                                   strata_vm_buffer_t* message,
                                   int32_t element_type, int32_t encoding,
                                   Variadic<int64_t> dims);
  Ref<strata_hal_buffer_t> bufferViewBuffer(strata_hal_buffer_view_t* view);
  int32_t bufferViewElementType(strata_hal_buffer_view_t* view);
  int32_t bufferViewRank(strata_hal_buffer_view_t* view);
  strata_status_t bufferViewDim(const NativeCall& call,
                                strata_hal_buffer_view_t* view, int32_t index,
                                int64_t* out);

  // Executables, command buffers and queues (hal_module_commands.cpp).
  strata_status_t executableCreate(const NativeCall& call,
                                   strata_hal_device_t* device,
                                   strata_vm_buffer_t* format,
                                   strata_vm_buffer_t* library,
                                   Ref<strata_hal_executable_t>* out);
  // The first candidate the host runs (hal_module_variants.cpp).
  strata_status_t executableCreateFirst(
      const NativeCall& call, strata_hal_device_t* device,
      Variadic<strata_vm_buffer_t*, strata_vm_buffer_t*> candidates,
      Ref<strata_hal_executable_t>* out);
  strata_status_t commandBufferCreate(const NativeCall& call,
                                      strata_hal_device_t* device, int32_t mode,
                                      int32_t categories,
                                      Ref<strata_hal_command_buffer_t>* out);
  strata_status_t commandBufferFinalize(
      strata_hal_command_buffer_t* command_buffer);
  strata_status_t commandBufferDispatch(
      const NativeCall& call, strata_hal_command_buffer_t* command_buffer,
      strata_hal_executable_t* executable, Count ordinal, Count x, Count y,
      Count z, Variadic<int32_t> constants,
      Variadic<strata_hal_buffer_t*, int64_t, int64_t> bindings);
  strata_status_t commandBufferFillBuffer(
      const NativeCall& call, strata_hal_command_buffer_t* command_buffer,
      strata_hal_buffer_t* target, Size offset, Size length, int32_t pattern,
      int32_t pattern_size);
  strata_status_t commandBufferCopyBuffer(
      strata_hal_command_buffer_t* command_buffer, strata_hal_buffer_t* source,
      Size source_offset, strata_hal_buffer_t* target, Size target_offset,
      Size length);
  strata_status_t commandBufferExecutionBarrier(
      strata_hal_command_buffer_t* command_buffer);
  strata_status_t deviceQueueAlloca(strata_hal_device_t* device,
                                    Nullable<strata_hal_fence_t> wait,
                                    Nullable<strata_hal_fence_t> signal,
                                    Size length, Ref<strata_hal_buffer_t>* out);
  strata_status_t deviceQueueDealloca(strata_hal_device_t* device,
                                      Nullable<strata_hal_fence_t> wait,
                                      Nullable<strata_hal_fence_t> signal,
                                      strata_hal_buffer_t* buffer);
  strata_status_t deviceQueueExecute(
      const NativeCall& call, strata_hal_device_t* device,
      Nullable<strata_hal_fence_t> wait, Nullable<strata_hal_fence_t> signal,
      Variadic<strata_hal_command_buffer_t*> command_buffers);
  strata_status_t deviceQueueBarrier(strata_hal_device_t* device,
                                     Nullable<strata_hal_fence_t> wait,
                                     Nullable<strata_hal_fence_t> signal);

  // Fences (hal_module_fences.cpp).
  strata_status_t fenceCreate(strata_hal_device_t* device, int32_t flags,
                              Ref<strata_hal_fence_t>* out);
  strata_status_t fenceJoin(const NativeCall& call, Fences fences,
                            Ref<strata_hal_fence_t>* out);
  int32_t fenceQuery(strata_hal_fence_t* fence);
  strata_status_t fenceSignal(strata_hal_fence_t* fence);
  strata_status_t fenceFail(const NativeCall& call, strata_hal_fence_t* fence,
                            int32_t code);
  strata_status_t fenceAwait(const NativeCall& call, int32_t timeout_ms,
                             Fences fences, int32_t* out);
};

/// For messages: "a " before a ref's type name, "" before "null".
inline const char* refArticle(const strata_vm_ref_object_t* ref) {
  return ref ? "a " : "";
}
/// A ref's type name for messages, or "null".
const char* refTypeName(const strata_vm_ref_object_t* ref);

template <typename T>
T* toPointer(T* pointer) {
  return pointer;
}
template <typename T>
T* toPointer(Nullable<T> pointer) {
  return pointer.get();
}

/// Copies the non-null refs of a span into storage (kMaxSpanRefs entries);
/// *out_count is the number kept. More than kMaxSpanRefs fails, naming what.
template <typename T, typename Span>
strata_status_t gatherSpan(const NativeCall& call, const Span& span,
                           const char* what, T** storage, size_t* out_count) {
  *out_count = 0;
  if (span.size() > kMaxSpanRefs) {
    return call.fail(STRATA_STATUS_OUT_OF_RANGE,
                     "%zu %s exceed the limit of %zu per call", span.size(),
                     what, kMaxSpanRefs);
  }
  for (size_t i = 0; i < span.size(); ++i) {
    T* item = toPointer(span[i]);
    if (item) {
      storage[(*out_count)++] = item;
    }
  }
  return nullptr;
}

}  // namespace strata::hal

#endif  // STRATA_MODULES_HAL_SRC_HAL_MODULE_IMPL_H_
