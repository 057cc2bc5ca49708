// module.cpp - instances (the ref type registry) and module objects for both
// bytecode and native modules.
#include <cstring>
#include <new>

#include "module_impl.h"
#include "strata/vm/buffer.h"
#include "strata/vm/list.h"

using strata::vm::BytecodeModule;
using strata::vm::ModuleExport;
using strata::vm::ModuleKind;

namespace strata::vm {
namespace {

void destroyModule(strata_vm_ref_object_t* object) {
  auto* module = reinterpret_cast<strata_vm_module_t*>(object);
  if (module->kind == ModuleKind::kBytecode) {
    delete module->bytecode;
  } else if (module->native && module->native->destroy) {
    module->native->destroy(module->native_self);
  }
  strata_vm_instance_t* instance = module->instance;
  module->~strata_vm_module_t();
  strata_allocator_free(module->allocator, module);
  if (instance) {
    strata_vm_instance_release(instance);
  }
}

const strata_vm_ref_type_t kModuleType = {"vm.module", destroyModule};

strata_vm_module_t* newModule(ModuleKind kind, strata_allocator_t allocator) {
  void* memory = strata_allocator_alloc(allocator, sizeof(strata_vm_module_t),
                                        alignof(strata_vm_module_t));
  if (!memory) {
    return nullptr;
  }
  auto* module = new (memory) strata_vm_module_t();
  strata_vm_ref_object_init(&module->header, &kModuleType);
  module->kind = kind;
  module->allocator = allocator;
  return module;
}

}  // namespace

const strata_vm_ref_type_t* moduleRefType() { return &kModuleType; }

}  // namespace strata::vm

extern "C" {

strata_status_t strata_vm_instance_create(strata_allocator_t allocator,
                                          strata_vm_instance_t** out_instance) {
  *out_instance = nullptr;
  void* memory = strata_allocator_alloc(
      allocator, sizeof(strata_vm_instance_t), alignof(strata_vm_instance_t));
  if (!memory) {
    return strata_make_status(STRATA_STATUS_RESOURCE_EXHAUSTED,
                              "out of memory creating a VM instance");
  }
  auto* instance = new (memory) strata_vm_instance_t();
  instance->allocator = allocator;
  instance->types.push_back(strata_vm_buffer_type());
  instance->types.push_back(strata_vm_list_type());
  *out_instance = instance;
  return nullptr;
}

void strata_vm_instance_retain(strata_vm_instance_t* instance) {
  if (instance) {
    instance->refs.fetch_add(1, std::memory_order_relaxed);
  }
}

void strata_vm_instance_release(strata_vm_instance_t* instance) {
  if (instance && instance->refs.fetch_sub(1, std::memory_order_acq_rel) == 1) {
    strata_allocator_t allocator = instance->allocator;
    instance->~strata_vm_instance_t();
    strata_allocator_free(allocator, instance);
  }
}

strata_status_t strata_vm_instance_register_type(
    strata_vm_instance_t* instance, const strata_vm_ref_type_t* type) {
  if (!type || !type->name || !type->destroy) {
    return strata_make_status(STRATA_STATUS_INVALID_ARGUMENT,
                              "ref type needs a name and a destroy function");
  }
  for (const strata_vm_ref_type_t* existing : instance->types) {
    if (existing == type) {
      return nullptr;
    }
    if (std::strcmp(existing->name, type->name) == 0) {
      return strata_make_status(STRATA_STATUS_ALREADY_EXISTS,
                                "ref type '%s' is already registered",
                                type->name);
    }
  }
  instance->types.push_back(type);
  return nullptr;
}

const strata_vm_ref_type_t* strata_vm_instance_lookup_type(
    const strata_vm_instance_t* instance, const char* name,
    size_t name_length) {
  for (const strata_vm_ref_type_t* type : instance->types) {
    if (std::strlen(type->name) == name_length &&
        std::memcmp(type->name, name, name_length) == 0) {
      return type;
    }
  }
  return nullptr;
}

void strata_vm_module_retain(strata_vm_module_t* module) {
  strata_vm_ref_retain(&module->header);
}

void strata_vm_module_release(strata_vm_module_t* module) {
  if (module) {
    strata_vm_ref_release(&module->header);
  }
}

const char* strata_vm_module_name(const strata_vm_module_t* module) {
  // Names are NUL-terminated: FlatBuffer strings and descriptor C strings.
  return module->name.data();
}

uint32_t strata_vm_module_version(const strata_vm_module_t* module) {
  return module->version;
}

size_t strata_vm_module_export_count(const strata_vm_module_t* module) {
  return module->exports.size();
}

strata_status_t strata_vm_module_export_info(const strata_vm_module_t* module,
                                             size_t i,
                                             strata_vm_export_info_t* out_info) {
  if (i >= module->exports.size()) {
    return strata_make_status(STRATA_STATUS_OUT_OF_RANGE,
                              "export %zu out of range; module '%s' has %zu",
                              i, module->name.data(), module->exports.size());
  }
  const ModuleExport& e = module->exports[i];
  out_info->name = e.name.data();
  out_info->calling_convention = e.signature.text.data();
  out_info->attr_count =
      module->kind == ModuleKind::kBytecode
          ? module->bytecode->exports[i].attrs.size()
          : 0;
  return nullptr;
}

strata_status_t strata_vm_module_export_attr(const strata_vm_module_t* module,
                                             size_t e, size_t i,
                                             const char** out_key,
                                             const char** out_value) {
  if (module->kind != ModuleKind::kBytecode ||
      e >= module->bytecode->exports.size() ||
      i >= module->bytecode->exports[e].attrs.size()) {
    return strata_make_status(STRATA_STATUS_OUT_OF_RANGE,
                              "export attribute %zu of export %zu out of range",
                              i, e);
  }
  const auto& attr = module->bytecode->exports[e].attrs[i];
  *out_key = attr.first.data();
  *out_value = attr.second.data() ? attr.second.data() : "";
  return nullptr;
}

strata_status_t strata_vm_module_find_export(const strata_vm_module_t* module,
                                             const char* name,
                                             size_t* out_index) {
  for (size_t e = 0; e < module->exports.size(); ++e) {
    if (module->exports[e].name == name) {
      *out_index = e;
      return nullptr;
    }
  }
  return strata_make_status(STRATA_STATUS_NOT_FOUND,
                            "module '%s' has no export '%s'",
                            module->name.data(), name);
}

const char* strata_vm_module_export_attr_value(const strata_vm_module_t* module,
                                               const char* export_name,
                                               const char* key) {
  size_t e = 0;
  strata_status_t status =
      strata_vm_module_find_export(module, export_name, &e);
  if (status) {
    strata_status_free(status);
    return nullptr;
  }
  if (module->kind != ModuleKind::kBytecode) {
    return nullptr;
  }
  for (const auto& attr : module->bytecode->exports[e].attrs) {
    if (attr.first == key) {
      return attr.second.data() ? attr.second.data() : "";
    }
  }
  return nullptr;
}

strata_status_t strata_vm_bytecode_module_load(
    strata_vm_instance_t* instance, const uint8_t* data, size_t size,
    strata_vm_release_fn_t release, void* release_user,
    strata_allocator_t allocator, strata_vm_module_t** out_module) {
  *out_module = nullptr;
  BytecodeModule* bytecode = nullptr;
  STRATA_RETURN_IF_ERROR(strata::vm::loadBytecodeModule(
      instance, data, size, release, release_user, allocator, &bytecode));
  strata_vm_module_t* module = strata::vm::newModule(ModuleKind::kBytecode,
                                                     allocator);
  if (!module) {
    delete bytecode;
    return strata_make_status(STRATA_STATUS_RESOURCE_EXHAUSTED,
                              "out of memory creating a module");
  }
  module->bytecode = bytecode;
  module->instance = instance;
  strata_vm_instance_retain(instance);
  module->name = bytecode->name;
  module->version = bytecode->version;
  module->dependencies = bytecode->dependencies;
  for (const auto& e : bytecode->exports) {
    ModuleExport out;
    out.name = e.name;
    out.ordinal = e.function;
    out.signature = bytecode->functions[e.function].signature;
    module->exports.push_back(out);
  }
  *out_module = module;
  return nullptr;
}

strata_status_t strata_vm_native_module_create(
    const strata_vm_native_module_descriptor_t* descriptor, void* self,
    strata_allocator_t allocator, strata_vm_module_t** out_module) {
  *out_module = nullptr;
  if (!descriptor || !descriptor->name || !*descriptor->name) {
    return strata_make_status(STRATA_STATUS_INVALID_ARGUMENT,
                              "native module descriptor needs a name");
  }
  std::vector<strata::vm::Signature> signatures(descriptor->function_count);
  for (size_t i = 0; i < descriptor->function_count; ++i) {
    const strata_vm_native_function_t& f = descriptor->functions[i];
    if (!f.name || !f.calling_convention || !f.fn) {
      return strata_make_status(
          STRATA_STATUS_INVALID_ARGUMENT,
          "native module '%s': function %zu needs a name, a calling "
          "convention and a function pointer",
          descriptor->name, i);
    }
    strata_status_t status = strata::vm::parseSignature(
        f.calling_convention, /*allow_variadic=*/true, &signatures[i]);
    if (status) {
      return strata_status_annotate(status, "in native function '%s.%s'",
                                    descriptor->name, f.name);
    }
    for (size_t j = 0; j < i; ++j) {
      if (std::strcmp(descriptor->functions[j].name, f.name) == 0) {
        return strata_make_status(STRATA_STATUS_ALREADY_EXISTS,
                                  "native module '%s' defines '%s' twice",
                                  descriptor->name, f.name);
      }
    }
  }
  strata_vm_module_t* module = strata::vm::newModule(ModuleKind::kNative,
                                                     allocator);
  if (!module) {
    return strata_make_status(STRATA_STATUS_RESOURCE_EXHAUSTED,
                              "out of memory creating a module");
  }
  module->native = descriptor;
  module->native_self = self;
  module->name = descriptor->name;
  module->version = descriptor->version;
  for (size_t i = 0; i < descriptor->dependency_count; ++i) {
    const auto& d = descriptor->dependencies[i];
    module->dependencies.push_back({d.name, d.minimum_version, d.optional != 0});
  }
  module->native_signatures = std::move(signatures);
  for (size_t i = 0; i < descriptor->function_count; ++i) {
    ModuleExport out;
    out.name = descriptor->functions[i].name;
    out.ordinal = static_cast<uint32_t>(i);
    out.signature = module->native_signatures[i];
    module->exports.push_back(out);
  }
  *out_module = module;
  return nullptr;
}

}  // extern "C"
