// runtime_impl.h - the layouts of the embedding API's objects, shared by
// instance.cpp, session.cpp and call.cpp.
#ifndef STRATA_RUNTIME_SRC_RUNTIME_IMPL_H_
#define STRATA_RUNTIME_SRC_RUNTIME_IMPL_H_

#include <atomic>
#include <new>
#include <string>
#include <vector>

#include "strata/runtime.h"

struct strata_runtime_instance_t {
  std::atomic<uint32_t> counter{1};
  strata_allocator_t allocator{};
  strata_vm_instance_t* vm_instance = nullptr;
  strata_hal_device_t* device = nullptr;
  // One hal module over the device, shared by every session (its mutable
  // state is per context).
  strata_vm_module_t* hal_module = nullptr;
  // The signature policy: every module loaded through the instance must be
  // signed by this key.
  bool require_signature = false;
  uint8_t public_key[STRATA_RUNTIME_PUBLIC_KEY_SIZE] = {};
};

struct strata_runtime_session_t {
  std::atomic<uint32_t> counter{1};
  strata_allocator_t allocator{};
  strata_runtime_instance_t* instance = nullptr;  // retained
  // The hal module first, then the user's modules (each retained).
  std::vector<strata_vm_module_t*> modules;
  strata_vm_context_t* context = nullptr;
};

namespace strata::runtime {

// "call 'fn' (a buffer view)" style helpers shared by the files.
strata_runtime_value_kind_t kindOfVariant(const strata_vm_variant_t& value);

// Creates a new object of type T with allocator; nullptr when out of memory.
template <typename T>
T* allocateObject(strata_allocator_t allocator) {
  void* memory = strata_allocator_alloc(allocator, sizeof(T), alignof(T));
  return memory ? new (memory) T() : nullptr;
}
template <typename T>
void freeObject(strata_allocator_t allocator, T* object) {
  if (object) {
    object->~T();
    strata_allocator_free(allocator, object);
  }
}

}  // namespace strata::runtime

#endif  // STRATA_RUNTIME_SRC_RUNTIME_IMPL_H_
