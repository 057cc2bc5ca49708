// module_impl.h - the concrete layout behind strata_vm_module_t and
// strata_vm_instance_t, shared by the context, the interpreter and the tools.
#ifndef STRATA_VM_SRC_MODULE_IMPL_H_
#define STRATA_VM_SRC_MODULE_IMPL_H_

#include <atomic>
#include <string>
#include <vector>

#include "bytecode_module.h"
#include "strata/vm/module.h"

struct strata_vm_instance_t {
  std::atomic<int32_t> refs{1};
  strata_allocator_t allocator;
  std::vector<const strata_vm_ref_type_t*> types;
};

namespace strata::vm {

enum class ModuleKind { kBytecode, kNative };

// An export as the context sees it, for either kind of module.
struct ModuleExport {
  std::string_view name;
  uint32_t ordinal = 0;  // bytecode: function index; native: function index
  Signature signature;
};

// The ref type of module objects; modules are ref objects so that rodata
// buffers can keep their module alive.
const strata_vm_ref_type_t* moduleRefType();

}  // namespace strata::vm

struct strata_vm_module_t {
  strata_vm_ref_object_t header;  // first: modules are ref objects
  strata::vm::ModuleKind kind;
  strata_allocator_t allocator;
  strata_vm_instance_t* instance = nullptr;  // retained; bytecode only
  std::string_view name;
  uint32_t version = 0;
  std::vector<strata::vm::Dependency> dependencies;
  std::vector<strata::vm::ModuleExport> exports;

  // kBytecode
  strata::vm::BytecodeModule* bytecode = nullptr;  // owned

  // kNative
  const strata_vm_native_module_descriptor_t* native = nullptr;
  void* native_self = nullptr;
  std::vector<strata::vm::Signature> native_signatures;  // per function
};

#endif  // STRATA_VM_SRC_MODULE_IMPL_H_
