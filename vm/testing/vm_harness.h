// vm_harness.h - a small test fixture: builds modules with ModuleBuilder,
// loads them into one context and calls exports with raw values. Header-only
// so that doctest registration stays in the test binary.
#ifndef STRATA_VM_TESTING_VM_HARNESS_H_
#define STRATA_VM_TESTING_VM_HARNESS_H_

#include <cstdlib>
#include <string>
#include <vector>

#include "module_builder.h"
#include "strata/vm/vm.h"

namespace strata::vm::testing {

// Owns a status and renders it for assertions.
struct StatusText {
  explicit StatusText(strata_status_t s) : status(s) {
    char* text = strata_status_to_string(s);
    if (text) {
      str = text;
      std::free(text);
    }
  }
  ~StatusText() { strata_status_free(status); }
  bool ok() const { return status == nullptr; }
  strata_status_code_t code() const { return strata_status_code(status); }
  bool contains(const std::string& needle) const {
    return str.find(needle) != std::string::npos;
  }
  strata_status_t status;
  std::string str;
};

class Harness {
 public:
  Harness() {
    strata_status_t s =
        strata_vm_instance_create(strata_allocator_system(), &instance);
    if (s) std::abort();
  }
  ~Harness() {
    strata_vm_context_release(context);
    for (strata_vm_module_t* m : modules) strata_vm_module_release(m);
    strata_vm_instance_release(instance);
  }
  Harness(const Harness&) = delete;
  Harness& operator=(const Harness&) = delete;

  // Builds and loads a bytecode module; it joins the context on link().
  strata_status_t load(ModuleBuilder& builder) {
    std::vector<uint8_t> bytes = builder.build();
    strata_vm_module_t* module = nullptr;
    strata_status_t s = strata_vm_bytecode_module_load(
        instance, bytes.data(), bytes.size(), nullptr, nullptr,
        strata_allocator_system(), &module);
    if (!s) modules.push_back(module);
    return s;
  }
  // Adds an already-made module (takes the reference).
  void add(strata_vm_module_t* module) { modules.push_back(module); }

  strata_status_t link(const strata_vm_context_options_t* options = nullptr) {
    return strata_vm_context_create(instance, modules.data(), modules.size(),
                                    options, strata_allocator_system(),
                                    &context);
  }

  strata_status_t lookup(const std::string& name, strata_vm_function_t* fn) {
    return strata_vm_context_lookup(context, name.c_str(), fn);
  }

  // Calls "module.fn" with raw values.
  strata_status_t call(const std::string& name,
                       std::vector<strata_vm_value_t> args,
                       std::vector<strata_vm_value_t>* results,
                       size_t result_count) {
    strata_vm_function_t fn;
    strata_status_t s = lookup(name, &fn);
    if (s) return s;
    results->assign(result_count, strata_vm_value_t{});
    return strata_vm_call(context, fn, args.data(), args.size(),
                          results->data(), results->size());
  }

  strata_vm_instance_t* instance = nullptr;
  std::vector<strata_vm_module_t*> modules;
  strata_vm_context_t* context = nullptr;
};

inline strata_vm_value_t vI32(int32_t v) {
  strata_vm_value_t out;
  out.bits = 0;
  out.i32 = v;
  return out;
}
inline strata_vm_value_t vI64(int64_t v) {
  strata_vm_value_t out;
  out.i64 = v;
  return out;
}
inline strata_vm_value_t vF32(float v) {
  strata_vm_value_t out;
  out.bits = 0;
  out.f32 = v;
  return out;
}
inline strata_vm_value_t vF64(double v) {
  strata_vm_value_t out;
  out.f64 = v;
  return out;
}
inline strata_vm_value_t vRef(strata_vm_ref_object_t* r) {
  strata_vm_value_t out;
  out.ref = r;
  return out;
}

}  // namespace strata::vm::testing

#endif  // STRATA_VM_TESTING_VM_HARNESS_H_
