// instance.cpp - the embedding API's instance (a VM instance with the HAL
// types, one device and the hal module over it) and module loading.
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <new>
#include <string>
#include <vector>

#include "runtime_impl.h"
#include "strata/modules/hal/module.h"

using namespace strata::runtime;

namespace {

void destroyInstance(strata_runtime_instance_t* instance) {
  strata_vm_module_release(instance->hal_module);
  strata_hal_device_release(instance->device);
  if (instance->vm_instance) {
    strata_vm_instance_release(instance->vm_instance);
  }
  freeObject(instance->allocator, instance);
}

}  // namespace

extern "C" {

void strata_runtime_instance_options_initialize(
    strata_runtime_instance_options_t* out_options) {
  std::memset(out_options, 0, sizeof(*out_options));
  out_options->device = "local-task";
  out_options->task_worker_count = 0;
}

strata_status_t strata_runtime_instance_create(
    const strata_runtime_instance_options_t* options,
    strata_allocator_t allocator, strata_runtime_instance_t** out_instance) {
  *out_instance = nullptr;
  strata_runtime_instance_options_t defaults;
  strata_runtime_instance_options_initialize(&defaults);
  if (!options) {
    options = &defaults;
  }
  auto* instance = allocateObject<strata_runtime_instance_t>(allocator);
  if (!instance) {
    return strata_make_status(STRATA_STATUS_RESOURCE_EXHAUSTED,
                              "out of memory creating a runtime instance");
  }
  instance->allocator = allocator;
  if (options->required_public_key) {
    instance->require_signature = true;
    std::memcpy(instance->public_key, options->required_public_key,
                sizeof(instance->public_key));
  }
  strata_status_t status =
      strata_vm_instance_create(allocator, &instance->vm_instance);
  if (!status) {
    status = strata_hal_register_types(instance->vm_instance);
  }
  if (!status) {
    strata_hal_device_options_t device_options = {};
    device_options.name = options->device ? options->device : "local-task";
    device_options.worker_count = options->task_worker_count;
    status = strata_hal_device_create(&device_options, allocator,
                                      &instance->device);
    if (status) {
      status = strata_status_annotate(status,
                                      "creating the runtime instance's device");
    }
  }
  if (!status) {
    strata_hal_module_options_t hal_options = {};
    hal_options.no_native_kernels = options->no_native_kernels;
    status = strata_hal_module_create_with_options(
        instance->vm_instance, &instance->device, 1, &hal_options, allocator,
        &instance->hal_module);
  }
  if (status) {
    destroyInstance(instance);
    return status;
  }
  *out_instance = instance;
  return nullptr;
}

void strata_runtime_instance_retain(strata_runtime_instance_t* instance) {
  if (instance) {
    instance->counter.fetch_add(1, std::memory_order_relaxed);
  }
}

void strata_runtime_instance_release(strata_runtime_instance_t* instance) {
  if (instance &&
      instance->counter.fetch_sub(1, std::memory_order_acq_rel) == 1) {
    destroyInstance(instance);
  }
}

strata_vm_instance_t* strata_runtime_instance_vm_instance(
    const strata_runtime_instance_t* instance) {
  return instance->vm_instance;
}

strata_hal_device_t* strata_runtime_instance_device(
    const strata_runtime_instance_t* instance) {
  return instance->device;
}

strata_allocator_t strata_runtime_instance_allocator(
    const strata_runtime_instance_t* instance) {
  return instance->allocator;
}

strata_status_t strata_runtime_module_load_memory(
    strata_runtime_instance_t* instance, const void* data, size_t size,
    strata_vm_module_t** out_module) {
  *out_module = nullptr;
  if (!data && size) {
    return strata_make_status(STRATA_STATUS_INVALID_ARGUMENT,
                              "module bytes are NULL but the size is %zu",
                              size);
  }
  if (instance->require_signature) {
    strata_status_t status = strata_vm_module_verify_signature(
        static_cast<const uint8_t*>(data), size, instance->public_key,
        sizeof(instance->public_key));
    if (status) {
      return status;
    }
  }
  return strata_vm_bytecode_module_load(
      instance->vm_instance, static_cast<const uint8_t*>(data), size, nullptr,
      nullptr, instance->allocator, out_module);
}

strata_status_t strata_runtime_module_load_file(
    strata_runtime_instance_t* instance, const char* path,
    strata_vm_module_t** out_module) {
  *out_module = nullptr;
  if (!path) {
    return strata_make_status(STRATA_STATUS_INVALID_ARGUMENT,
                              "module path is NULL");
  }
  return strata_vm_bytecode_module_load_file(
      instance->vm_instance, path,
      instance->require_signature ? instance->public_key : nullptr,
      instance->allocator, out_module);
}

}  // extern "C"
