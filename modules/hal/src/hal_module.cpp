// hal_module.cpp - the "hal" VM module: its exports registered with the
// native-module builder, module and per-context state, the HAL ref types,
// and the device and allocator exports.
//
// Exports
// -------
//
// The table of every export, its calling convention and its contract is
// schemas/hal_imports.def, the one the compiler declares its imports from;
// strata_hal_module_create registers each row's HalState member function
// under the row's name, and a static_assert per row checks that the member
// function's signature gives the row's calling convention. Bytecode imports
// each as "hal.<name>" with exactly that calling convention.
#include <cstdarg>
#include <cstdio>
#include <cstring>
#include <new>

#include "hal_imports.h"
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

int32_t HalState::devicesCount() { return static_cast<int32_t>(device_count); }

strata_status_t HalState::devicesGet(const NativeCall& call, int32_t index,
                                     Ref<strata_hal_device_t>* out) {
  if (index < 0 || static_cast<size_t>(index) >= device_count) {
    return call.fail(STRATA_STATUS_OUT_OF_RANGE,
                     "device index %d is out of range: the context has %zu "
                     "device%s",
                     index, device_count, device_count == 1 ? "" : "s");
  }
  *out = vm::retainRef(devices[index]);
  return nullptr;
}

strata_status_t HalState::deviceAllocator(
    strata_hal_device_t* device, Ref<strata_hal_allocator_ref_t>* out) {
  for (size_t i = 0; i < device_count; ++i) {
    if (devices[i] == device) {
      *out = vm::retainRef(allocators[i]);
      return nullptr;
    }
  }
  // A device the host passed in directly rather than one of ours.
  return createAllocatorRef(device, allocator, out->out());
}

namespace {

template <strata_status_t (*Allocate)(strata_allocator_t, uint64_t,
                                      strata_hal_buffer_t**)>
strata_status_t allocate(strata_hal_allocator_ref_t* allocator, Size length,
                         Ref<strata_hal_buffer_t>* out) {
  return Allocate(strata_hal_device_allocator(allocator->device), length,
                  out->out());
}

}  // namespace

strata_status_t HalState::allocatorAllocate(
    strata_hal_allocator_ref_t* allocator, Size length,
    Ref<strata_hal_buffer_t>* out) {
  return allocate<strata_hal_buffer_allocate>(allocator, length, out);
}

strata_status_t HalState::allocatorAllocateUninitialized(
    strata_hal_allocator_ref_t* allocator, Size length,
    Ref<strata_hal_buffer_t>* out) {
  return allocate<strata_hal_buffer_allocate_uninitialized>(allocator, length,
                                                            out);
}

const strata_vm_ref_type_t* allocatorRefType() { return &kAllocatorRefType; }

const char* refTypeName(const strata_vm_ref_object_t* ref) {
  if (!ref) {
    return "null";
  }
  return ref->type && ref->type->name ? ref->type->name
                                      : "ref of an unnamed type";
}

//===----------------------------------------------------------------------===//
// Exports
//===----------------------------------------------------------------------===//

namespace {

// The names of each export's arguments, in calling-convention order, for the
// builder's errors ("argument 1 (offset) is -4; ..."): the argument lists of
// hal_imports.def's row comments.
template <auto Method>
constexpr const char* kArgumentNames = "";
#define STRATA_HAL_ARGUMENTS(fn, names) \
  template <>                           \
  constexpr const char* kArgumentNames<&HalState::fn> = names;
STRATA_HAL_ARGUMENTS(devicesGet, "index")
STRATA_HAL_ARGUMENTS(deviceAllocator, "device")
STRATA_HAL_ARGUMENTS(allocatorAllocate, "allocator, length")
STRATA_HAL_ARGUMENTS(allocatorAllocateUninitialized, "allocator, length")
STRATA_HAL_ARGUMENTS(bufferLength, "buffer")
STRATA_HAL_ARGUMENTS(bufferSubspan, "buffer, offset, length")
STRATA_HAL_ARGUMENTS(bufferWrap, "source")
STRATA_HAL_ARGUMENTS(bufferLoad, "buffer, offset, byte width")
STRATA_HAL_ARGUMENTS(bufferStore, "value, buffer, offset, byte width")
STRATA_HAL_ARGUMENTS(bufferAssert, "buffer, message, minimum length")
STRATA_HAL_ARGUMENTS(bufferViewCreate,
                     "buffer, offset, length, element type, encoding, dims")
STRATA_HAL_ARGUMENTS(bufferViewAssert,
                     "view, message, element type, encoding, dims")
STRATA_HAL_ARGUMENTS(bufferViewBuffer, "view")
STRATA_HAL_ARGUMENTS(bufferViewElementType, "view")
STRATA_HAL_ARGUMENTS(bufferViewRank, "view")
STRATA_HAL_ARGUMENTS(bufferViewDim, "view, index")
STRATA_HAL_ARGUMENTS(executableCreate, "device, format, library")
STRATA_HAL_ARGUMENTS(executableCreateFirst, "device, candidates")
STRATA_HAL_ARGUMENTS(commandBufferCreate, "device, mode, categories")
STRATA_HAL_ARGUMENTS(commandBufferFinalize, "command buffer")
STRATA_HAL_ARGUMENTS(commandBufferDispatch,
                     "command buffer, executable, export ordinal, workgroup "
                     "count x, workgroup count y, workgroup count z, "
                     "constants, bindings")
STRATA_HAL_ARGUMENTS(commandBufferFillBuffer,
                     "command buffer, target, offset, length, pattern, "
                     "pattern size")
STRATA_HAL_ARGUMENTS(commandBufferCopyBuffer,
                     "command buffer, source, source offset, target, target "
                     "offset, length")
STRATA_HAL_ARGUMENTS(commandBufferExecutionBarrier, "command buffer")
STRATA_HAL_ARGUMENTS(deviceQueueAlloca,
                     "device, wait fence, signal fence, length")
STRATA_HAL_ARGUMENTS(deviceQueueDealloca,
                     "device, wait fence, signal fence, buffer")
STRATA_HAL_ARGUMENTS(deviceQueueExecute,
                     "device, wait fence, signal fence, command buffers")
STRATA_HAL_ARGUMENTS(deviceQueueBarrier, "device, wait fence, signal fence")
STRATA_HAL_ARGUMENTS(fenceCreate, "device, flags")
STRATA_HAL_ARGUMENTS(fenceJoin, "fences")
STRATA_HAL_ARGUMENTS(fenceQuery, "fence")
STRATA_HAL_ARGUMENTS(fenceSignal, "fence")
STRATA_HAL_ARGUMENTS(fenceFail, "fence, status code")
STRATA_HAL_ARGUMENTS(fenceAwait, "timeout, fences")
#undef STRATA_HAL_ARGUMENTS

// The number of comma-separated names in names.
constexpr size_t nameCount(const char* names) {
  if (!*names) {
    return 0;
  }
  size_t count = 1;
  for (; *names; ++names) {
    count += *names == ',' ? 1 : 0;
  }
  return count;
}

// Each member function's signature gives its row's calling convention, so
// the table and the bodies cannot drift apart, and each of its arguments
// has a name.
#define STRATA_HAL_IMPORT(fn, name, cconv, typed, since)               \
  static_assert(vm::methodCallingConvention<&HalState::fn>() == cconv, \
                "HalState::" #fn                                       \
                " does not have the calling convention of "            \
                "its schemas/hal_imports.def row");                    \
  static_assert(nameCount(kArgumentNames<&HalState::fn>) ==            \
                    vm::methodArgumentCount<&HalState::fn>(),          \
                "kArgumentNames<&HalState::" #fn                       \
                "> must name each argument "                           \
                "once");
#include "hal_imports.def"

static_assert(STRATA_HAL_MODULE_VERSION == hal_imports::kVersion,
              "strata/modules/hal/module.h's STRATA_HAL_MODULE_VERSION must "
              "be the version of schemas/hal_imports.def");

}  // namespace

//===----------------------------------------------------------------------===//
// Module and per-context state
//===----------------------------------------------------------------------===//

namespace {

strata_status_t createState(void* user, strata_allocator_t allocator,
                            HalState** out_state) {
  *out_state = nullptr;
  const auto* module = static_cast<const HalModule*>(user);
  size_t count = module->device_count;
  size_t size = sizeof(HalState) + 2 * count * sizeof(void*);
  void* memory = strata_allocator_alloc(allocator, size, alignof(HalState));
  if (!memory) {
    return strata_make_status(STRATA_STATUS_RESOURCE_EXHAUSTED,
                              "out of memory creating the hal module state");
  }
  auto* state = new (memory) HalState();
  state->allocator = allocator;
  state->no_native_kernels = module->no_native_kernels;
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

void destroyState(void*, HalState* state) {
  for (size_t i = 0; i < state->device_count; ++i) {
    strata_vm_ref_release(&state->allocators[i]->header);
    strata_hal_device_release(state->devices[i]);
  }
  strata_allocator_free(state->allocator, state);
}

void destroyModule(void* user) {
  auto* module = static_cast<HalModule*>(user);
  for (size_t i = 0; i < module->device_count; ++i) {
    strata_hal_device_release(module->devices[i]);
  }
  strata_allocator_free(module->allocator, module);
}

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
  return strata_hal_module_create_with_options(instance, devices, device_count,
                                               nullptr, allocator, out_module);
}

strata_status_t strata_hal_module_create_with_options(
    strata_vm_instance_t* instance, strata_hal_device_t* const* devices,
    size_t device_count, const strata_hal_module_options_t* options,
    strata_allocator_t allocator, strata_vm_module_t** out_module) {
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
  module->no_native_kernels = options && options->no_native_kernels;
  module->devices = reinterpret_cast<strata_hal_device_t**>(module + 1);
  for (size_t i = 0; i < device_count; ++i) {
    strata_hal_device_retain(devices[i]);
    module->devices[i] = devices[i];
  }
  // From here the builder owns module: its definition releases it.
  strata::vm::NativeModuleBuilder<HalState> builder("hal",
                                                    STRATA_HAL_MODULE_VERSION);
  builder.stateFactory(&createState, &destroyState, module, &destroyModule);
#define STRATA_HAL_IMPORT(fn, name, cconv, typed, since) \
  builder.function<&HalState::fn>(name, kArgumentNames<&HalState::fn>);
#include "hal_imports.def"
  return builder.build(allocator, out_module);
}

}  // extern "C"
