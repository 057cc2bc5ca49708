// hal_module.cpp - the "hal" VM module: the table of its exports (the
// contract the compiler targets), module and per-context state, the HAL ref
// types, and the device and allocator exports.
//
// Exports
// -------
//
// Bytecode imports each as "hal.<name>" with exactly this calling convention
// (schemas/format.h: i i32, I i64, r ref, C..D a variadic span). "?" marks a
// ref that may be null; every other ref must be non-null and of the named
// type, or the call fails with INVALID_ARGUMENT naming the function, the
// argument and the expected type. Offsets and lengths are bytes, must not be
// negative, and are range-checked with errors naming the buffer length.
//
//   name                         cconv             arguments -> results
//
//   devices.count                0_i               -> count
//       The number of devices in this context.
//   devices.get                  0i_r              index -> hal.device
//       OUT_OF_RANGE names the index and the count.
//   device.allocator             0r_r              device -> hal.allocator
//       One allocator object per device and context.
//   allocator.allocate           0rI_r             allocator, length
//                                                  -> hal.buffer
//       New zeroed, 64-byte aligned host memory.
//   allocator.allocate_uninitialized  0rI_r        allocator, length
//                                                  -> hal.buffer
//       The same, contents unspecified: for memory every byte of which is
//       written before it is read (what compiled programs allocate for
//       dispatch results). Large ones reuse cached mappings.
//   buffer.length                0r_I              buffer -> length
//   buffer.subspan               0rII_r            buffer, offset, length
//                                                  -> hal.buffer
//       Shares the parent's memory.
//   buffer.wrap                  0r_r              source -> hal.buffer
//       A read-only hal.buffer over all of source's bytes (a vm.buffer,
//       usually rodata: constant data used in place, 64-byte aligned in
//       the module), without a copy; it keeps source alive. Stores, fills
//       and copies into it (or a subspan of it) fail with
//       PERMISSION_DENIED.
//   buffer.load                  0rIi_i            buffer, offset, width
//                                                  -> value
//       Width 1, 2 or 4; little-endian, zero-extended.
//   buffer.store                 0irIi_            value, buffer, offset,
//                                                  width
//       Stores the low `width` (1, 2 or 4) bytes of value.
//   buffer.assert                0rrI_             ref?, message, minimum
//       Fails "<message>: ..." (message is a vm.buffer of text) unless ref
//       is a hal.buffer of at least `minimum` bytes.
//   buffer_view.create           0rIIiiCID_r       buffer, offset, length,
//                                                  element type, encoding,
//                                                  dims... -> hal.buffer_view
//       A view of the subspan; it must hold the shape. Encoding must be 0.
//   buffer_view.assert           0rriiCID_         ref?, message, element
//                                                  type, encoding, dims...
//       Fails "<message>: expected tensor<2x3xf32>, got tensor<2x4xf32>"
//       (or "got a hal.buffer", "got null") unless they match exactly; a
//       dim of -1 matches any size (printed "?").
//   buffer_view.buffer           0r_r              view -> hal.buffer
//   buffer_view.element_type     0r_i              view -> element type
//       IREE's encoding (strata/hal/buffer.h).
//   buffer_view.rank             0r_i              view -> rank
//   buffer_view.dim              0ri_I             view, index -> dim
//       OUT_OF_RANGE at or past the rank.
//   executable.create            0rrr_r            device, format, library
//                                                  -> hal.executable
//       format is a vm.buffer of text. "embedded-elf-<arch>" (the host's
//       arch: x86_64, aarch64): library holds a shared object's bytes
//       (usually rodata), loaded from memory through a memfd, no file.
//       "static": library holds the name of a library registered with
//       strata_hal_executable_register_static.
//   command_buffer.create        0rii_r            device, mode, categories
//                                                  -> hal.command_buffer
//       Mode 1 one-shot, 2 reusable; categories are ignored.
//   command_buffer.finalize      0r_               cb
//   command_buffer.dispatch      0rriiiiCiDCrIID_  cb, executable, ordinal,
//                                                  x, y, z, constants...,
//                                                  bindings...
//       Export `ordinal` over x*y*z workgroups. Constants are u32 (at most
//       256). Bindings are (buffer, offset, length) with length -1 meaning
//       "to the end" (at most 64). Counts are checked against the export.
//   command_buffer.fill_buffer   0rrIIii_          cb, target, offset,
//                                                  length, pattern, size
//       Pattern size 1, 2 or 4; offset and length are multiples of it.
//   command_buffer.copy_buffer   0rrIrII_          cb, source, source offset,
//                                                  target, target offset,
//                                                  length
//   command_buffer.execution_barrier 0r_           cb
//   device.queue.alloca          0rrrI_r           device, wait?, signal?,
//                                                  length -> hal.buffer
//       Zeroed; signal is signalled once wait is reached.
//   device.queue.dealloca        0rrrr_            device, wait?, signal?,
//                                                  buffer
//       The queue drops its use of buffer once wait is reached.
//   device.queue.execute         0rrrCrD_          device, wait?, signal?,
//                                                  command buffers...
//       Runs the finalized command buffers in order once wait is reached,
//       then signals. A failed wait or dispatch fails signal with an error
//       naming the dispatch. At most 64 command buffers.
//   device.queue.barrier         0rrr_             device, wait?, signal?
//       Signals once wait is reached.
//   fence.create                 0ri_r             device, flags -> hal.fence
//       A pending fence: one new semaphore, value 1. Flags are ignored.
//   fence.join                   0CrD_r            fences?... -> hal.fence
//       Reached when all are; null entries are skipped.
//   fence.query                  0r_i              fence -> status
//       0 reached, 1000 pending, else the failure's status code.
//   fence.signal                 0r_               fence
//       Signals every semaphore of the fence to its value.
//   fence.fail                   0ri_              fence, status code
//       Fails every semaphore of the fence; the code is 1..15.
//   fence.await                  0iCrD_i           timeout ms, fences?...
//                                                  -> status
//       0 when all are reached (null entries skipped), 4 (DEADLINE_EXCEEDED)
//       when the timeout passes first; a negative timeout waits forever, 0
//       only polls. A failed fence fails the call with a copy of its error,
//       so the VM appends the bytecode backtrace. While pending, the
//       invocation suspends: a blocking call waits on the fences, an async
//       host subscribes to them, and the call runs again to answer.
#include <cstdarg>
#include <cstdio>
#include <cstring>
#include <new>

#include "hal_module_impl.h"

namespace strata::hal {
namespace {

//===----------------------------------------------------------------------===//
// hal.allocator
//===----------------------------------------------------------------------===//

void destroyAllocatorRef(strata_vm_ref_object_t* object) {
  auto* ref = reinterpret_cast<strata_hal_allocator_ref_t*>(object);
  strata_hal_device_release(ref->device);
  strata_allocator_free(ref->allocator, ref);
}

const strata_vm_ref_type_t kAllocatorRefType = {"hal.allocator",
                                                destroyAllocatorRef};

strata_status_t createAllocatorRef(strata_hal_device_t* device,
                                   strata_allocator_t allocator,
                                   strata_hal_allocator_ref_t** out_ref) {
  *out_ref = nullptr;
  void* memory =
      strata_allocator_alloc(allocator, sizeof(strata_hal_allocator_ref_t),
                             alignof(strata_hal_allocator_ref_t));
  if (!memory) {
    return strata_make_status(STRATA_STATUS_RESOURCE_EXHAUSTED,
                              "out of memory creating a hal.allocator");
  }
  auto* ref = static_cast<strata_hal_allocator_ref_t*>(memory);
  strata_vm_ref_object_init(&ref->header, &kAllocatorRefType);
  ref->allocator = allocator;
  ref->device = device;
  strata_hal_device_retain(device);
  *out_ref = ref;
  return nullptr;
}

//===----------------------------------------------------------------------===//
// Devices and allocators
//===----------------------------------------------------------------------===//

}  // namespace

strata_status_t devicesCount(const Call& call) {
  call.setI32(0, static_cast<int32_t>(call.state().device_count));
  return nullptr;
}

strata_status_t devicesGet(const Call& call) {
  int32_t index = call.i32(0);
  const HalState& state = call.state();
  if (index < 0 || static_cast<size_t>(index) >= state.device_count) {
    return call.fail(STRATA_STATUS_OUT_OF_RANGE,
                     "device index %d is out of range: the context has %zu "
                     "device%s",
                     index, state.device_count,
                     state.device_count == 1 ? "" : "s");
  }
  strata_hal_device_t* device = state.devices[index];
  strata_hal_device_retain(device);
  call.setRef(0, strata_hal_device_as_ref(device));
  return nullptr;
}

strata_status_t deviceAllocator(const Call& call) {
  strata_hal_device_t* device = nullptr;
  STRATA_RETURN_IF_ERROR(call.ref(0, "device", &device));
  const HalState& state = call.state();
  for (size_t i = 0; i < state.device_count; ++i) {
    if (state.devices[i] == device) {
      strata_vm_ref_object_t* ref = &state.allocators[i]->header;
      strata_vm_ref_retain(ref);
      call.setRef(0, ref);
      return nullptr;
    }
  }
  // A device the host passed in directly rather than one of ours.
  strata_hal_allocator_ref_t* ref = nullptr;
  STRATA_RETURN_IF_ERROR(
      createAllocatorRef(device, call.contextAllocator(), &ref));
  call.setRef(0, &ref->header);
  return nullptr;
}

template <strata_status_t (*Allocate)(strata_allocator_t, uint64_t,
                                       strata_hal_buffer_t**)>
strata_status_t allocatorAllocate(const Call& call) {
  strata_hal_allocator_ref_t* allocator = nullptr;
  uint64_t length = 0;
  STRATA_RETURN_IF_ERROR(call.ref(0, "allocator", &allocator));
  STRATA_RETURN_IF_ERROR(call.size(1, "length", &length));
  strata_hal_buffer_t* buffer = nullptr;
  STRATA_RETURN_IF_ERROR(
      Allocate(strata_hal_device_allocator(allocator->device), length, &buffer));
  call.setRef(0, strata_hal_buffer_as_ref(buffer));
  return nullptr;
}

const strata_vm_ref_type_t* allocatorRefType() { return &kAllocatorRefType; }

//===----------------------------------------------------------------------===//
// Call
//===----------------------------------------------------------------------===//

namespace {

// The export table, in the order of the documentation above.
template <ExportFn F>
constexpr strata_vm_native_fn_t thunk() {
  return &exportThunk<F>;
}

const strata_vm_native_function_t kFunctions[] = {
    {"devices.count", "0_i", thunk<devicesCount>()},
    {"devices.get", "0i_r", thunk<devicesGet>()},
    {"device.allocator", "0r_r", thunk<deviceAllocator>()},
    {"allocator.allocate", "0rI_r",
     thunk<allocatorAllocate<strata_hal_buffer_allocate>>()},
    {"allocator.allocate_uninitialized", "0rI_r",
     thunk<allocatorAllocate<strata_hal_buffer_allocate_uninitialized>>()},
    {"buffer.length", "0r_I", thunk<bufferLength>()},
    {"buffer.subspan", "0rII_r", thunk<bufferSubspan>()},
    {"buffer.wrap", "0r_r", thunk<bufferWrap>()},
    {"buffer.load", "0rIi_i", thunk<bufferLoad>()},
    {"buffer.store", "0irIi_", thunk<bufferStore>()},
    {"buffer.assert", "0rrI_", thunk<bufferAssert>()},
    {"buffer_view.create", "0rIIiiCID_r", thunk<bufferViewCreate>()},
    {"buffer_view.assert", "0rriiCID_", thunk<bufferViewAssert>()},
    {"buffer_view.buffer", "0r_r", thunk<bufferViewBuffer>()},
    {"buffer_view.element_type", "0r_i", thunk<bufferViewElementType>()},
    {"buffer_view.rank", "0r_i", thunk<bufferViewRank>()},
    {"buffer_view.dim", "0ri_I", thunk<bufferViewDim>()},
    {"executable.create", "0rrr_r", thunk<executableCreate>()},
    {"command_buffer.create", "0rii_r", thunk<commandBufferCreate>()},
    {"command_buffer.finalize", "0r_", thunk<commandBufferFinalize>()},
    {"command_buffer.dispatch", "0rriiiiCiDCrIID_",
     thunk<commandBufferDispatch>()},
    {"command_buffer.fill_buffer", "0rrIIii_",
     thunk<commandBufferFillBuffer>()},
    {"command_buffer.copy_buffer", "0rrIrII_",
     thunk<commandBufferCopyBuffer>()},
    {"command_buffer.execution_barrier", "0r_",
     thunk<commandBufferExecutionBarrier>()},
    {"device.queue.alloca", "0rrrI_r", thunk<deviceQueueAlloca>()},
    {"device.queue.dealloca", "0rrrr_", thunk<deviceQueueDealloca>()},
    {"device.queue.execute", "0rrrCrD_", thunk<deviceQueueExecute>()},
    {"device.queue.barrier", "0rrr_", thunk<deviceQueueBarrier>()},
    {"fence.create", "0ri_r", thunk<fenceCreate>()},
    {"fence.join", "0CrD_r", thunk<fenceJoin>()},
    {"fence.query", "0r_i", thunk<fenceQuery>()},
    {"fence.signal", "0r_", thunk<fenceSignal>()},
    {"fence.fail", "0ri_", thunk<fenceFail>()},
    {"fence.await", "0iCrD_i", thunk<fenceAwait>()},
};

}  // namespace

const char* Call::name() const {
  for (const strata_vm_native_function_t& f : kFunctions) {
    if (f.fn == fn_) {
      return f.name;
    }
  }
  return "?";
}

strata_status_t Call::fail(strata_status_code_t code, const char* format,
                           ...) const {
  char detail[512];
  va_list args;
  va_start(args, format);
  std::vsnprintf(detail, sizeof(detail), format, args);
  va_end(args);
  return strata_make_status(code, "native function 'hal.%s': %s", name(),
                            detail);
}

strata_status_t Call::typedRef(size_t slot, const char* what,
                               const strata_vm_ref_type_t* type, bool nullable,
                               strata_vm_ref_object_t** out) const {
  strata_vm_ref_object_t* ref = args_[slot].ref;
  *out = nullptr;
  if (ref ? ref->type == type : nullable) {
    *out = ref;
    return nullptr;
  }
  return fail(STRATA_STATUS_INVALID_ARGUMENT,
              "argument %zu (%s) must be a %s%s, got %s%s", slot, what,
              type->name, nullable ? " or null" : "", refArticle(ref),
              refTypeName(ref));
}

strata_status_t Call::size(size_t slot, const char* what, uint64_t* out) const {
  int64_t value = args_[slot].i64;
  if (value < 0) {
    return fail(STRATA_STATUS_INVALID_ARGUMENT,
                "argument %zu (%s) is %lld; it must not be negative", slot,
                what, static_cast<long long>(value));
  }
  *out = static_cast<uint64_t>(value);
  return nullptr;
}

const char* refTypeName(const strata_vm_ref_object_t* ref) {
  if (!ref) {
    return "null";
  }
  return ref->type && ref->type->name ? ref->type->name
                                      : "ref of an unnamed type";
}

//===----------------------------------------------------------------------===//
// Module and per-context state
//===----------------------------------------------------------------------===//

namespace {

strata_status_t createState(void* self, strata_allocator_t allocator,
                            void** out_state) {
  *out_state = nullptr;
  const auto* module = static_cast<const HalModule*>(self);
  size_t count = module->device_count;
  size_t size = sizeof(HalState) + 2 * count * sizeof(void*);
  void* memory = strata_allocator_alloc(allocator, size, alignof(HalState));
  if (!memory) {
    return strata_make_status(STRATA_STATUS_RESOURCE_EXHAUSTED,
                              "out of memory creating the hal module state");
  }
  auto* state = new (memory) HalState();
  state->allocator = allocator;
  state->device_count = 0;
  state->devices = reinterpret_cast<strata_hal_device_t**>(state + 1);
  state->allocators =
      reinterpret_cast<strata_hal_allocator_ref_t**>(state->devices + count);
  for (size_t i = 0; i < count; ++i) {
    strata_hal_device_t* device = module->devices[i];
    strata_status_t status =
        createAllocatorRef(device, allocator, &state->allocators[i]);
    if (status) {
      for (size_t j = 0; j < i; ++j) {
        strata_vm_ref_release(&state->allocators[j]->header);
        strata_hal_device_release(state->devices[j]);
      }
      strata_allocator_free(allocator, memory);
      return status;
    }
    strata_hal_device_retain(device);
    state->devices[i] = device;
    state->device_count = i + 1;
  }
  *out_state = state;
  return nullptr;
}

void destroyState(void*, void* opaque) {
  auto* state = static_cast<HalState*>(opaque);
  for (size_t i = 0; i < state->device_count; ++i) {
    strata_vm_ref_release(&state->allocators[i]->header);
    strata_hal_device_release(state->devices[i]);
  }
  strata_allocator_free(state->allocator, state);
}

void destroyModule(void* self) {
  auto* module = static_cast<HalModule*>(self);
  for (size_t i = 0; i < module->device_count; ++i) {
    strata_hal_device_release(module->devices[i]);
  }
  strata_allocator_free(module->allocator, module);
}

const strata_vm_native_module_descriptor_t kDescriptor = {
    "hal",                                       // name
    STRATA_HAL_MODULE_VERSION,                   // version
    nullptr,                                     // dependencies
    0,                                           // dependency_count
    kFunctions,                                  // functions
    sizeof(kFunctions) / sizeof(kFunctions[0]),  // function_count
    createState,                                 // create_state
    destroyState,                                // destroy_state
    destroyModule,                               // destroy
};

}  // namespace
}  // namespace strata::hal

using namespace strata::hal;

extern "C" {

strata_status_t strata_hal_register_types(strata_vm_instance_t* instance) {
  const strata_vm_ref_type_t* types[] = {
      strata_hal_buffer_type(),     strata_hal_buffer_view_type(),
      strata_hal_device_type(),     allocatorRefType(),
      strata_hal_executable_type(), strata_hal_command_buffer_type(),
      strata_hal_semaphore_type(),  strata_hal_fence_type(),
  };
  for (const strata_vm_ref_type_t* type : types) {
    STRATA_RETURN_IF_ERROR(strata_vm_instance_register_type(instance, type));
  }
  return nullptr;
}

strata_status_t strata_hal_module_create(strata_vm_instance_t* instance,
                                         strata_hal_device_t* const* devices,
                                         size_t device_count,
                                         strata_allocator_t allocator,
                                         strata_vm_module_t** out_module) {
  *out_module = nullptr;
  for (size_t i = 0; i < device_count; ++i) {
    if (!devices[i]) {
      return strata_make_status(STRATA_STATUS_INVALID_ARGUMENT,
                                "hal module: device %zu of %zu is NULL", i,
                                device_count);
    }
  }
  STRATA_RETURN_IF_ERROR(strata_hal_register_types(instance));
  size_t size = sizeof(HalModule) + device_count * sizeof(void*);
  void* memory = strata_allocator_alloc(allocator, size, alignof(HalModule));
  if (!memory) {
    return strata_make_status(STRATA_STATUS_RESOURCE_EXHAUSTED,
                              "out of memory creating the hal module");
  }
  auto* module = new (memory) HalModule();
  module->allocator = allocator;
  module->device_count = device_count;
  module->devices = reinterpret_cast<strata_hal_device_t**>(module + 1);
  for (size_t i = 0; i < device_count; ++i) {
    strata_hal_device_retain(devices[i]);
    module->devices[i] = devices[i];
  }
  strata_status_t status = strata_vm_native_module_create(
      &kDescriptor, module, allocator, out_module);
  if (status) {
    destroyModule(module);
  }
  return status;
}

}  // extern "C"
