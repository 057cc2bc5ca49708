// hal_module.cpp - the "hal" VM module: the table of its exports (the
// contract the compiler targets), module and per-context state, the HAL ref
// types, and the device and allocator exports.
//
// Exports
// -------
//
// The table of every export, its calling convention and its contract is
// schemas/hal_imports.def, the one the compiler declares its imports from;
// kFunctions below expands it. Bytecode imports each as "hal.<name>" with
// exactly that calling convention.
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

namespace {

template <strata_status_t (*Allocate)(strata_allocator_t, uint64_t,
                                      strata_hal_buffer_t**)>
strata_status_t allocate(const Call& call) {
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

}  // namespace

strata_status_t allocatorAllocate(const Call& call) {
  return allocate<strata_hal_buffer_allocate>(call);
}

strata_status_t allocatorAllocateUninitialized(const Call& call) {
  return allocate<strata_hal_buffer_allocate_uninitialized>(call);
}

const strata_vm_ref_type_t* allocatorRefType() { return &kAllocatorRefType; }

//===----------------------------------------------------------------------===//
// Call
//===----------------------------------------------------------------------===//

namespace {

// The export table: schemas/hal_imports.def, row for row.
template <ExportFn F>
constexpr strata_vm_native_fn_t thunk() {
  return &exportThunk<F>;
}

const strata_vm_native_function_t kFunctions[] = {
#define STRATA_HAL_IMPORT(fn, name, cconv, typed, since) \
  {name, cconv, thunk<fn>()},
#include "hal_imports.def"
};

static_assert(sizeof(kFunctions) / sizeof(kFunctions[0]) ==
                  hal_imports::kImportCount,
              "one export per hal_imports.def row");
static_assert(STRATA_HAL_MODULE_VERSION == hal_imports::kVersion,
              "strata/hal/module.h's STRATA_HAL_MODULE_VERSION must be the "
              "version of schemas/hal_imports.def");

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
