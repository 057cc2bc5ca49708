// bytecode_module.h - a loaded and verified bytecode module: the tables the
// interpreter, the context and the disassembler read. Everything here was
// checked by the loader (bytecode_loader.cpp) and the verifier
// (bytecode_verifier.cpp); consumers trust it.
#ifndef STRATA_VM_SRC_BYTECODE_MODULE_H_
#define STRATA_VM_SRC_BYTECODE_MODULE_H_

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "calling_convention.h"
#include "strata/base/allocator.h"
#include "strata/base/status.h"
#include "strata/vm/module.h"
#include "strata/vm/ref.h"

namespace strata::schema {
struct Module;
}

namespace strata::vm {

// A parsed calling convention, e.g. "0iCrD_r" (the one parser's record,
// schemas/calling_convention.h). Its views point into the module's own
// strings (the flatbuffer, or a native module's descriptor), which live as
// long as the module.
using Signature = cconv::Parsed;

// Parses and validates a calling convention string. Errors name the string
// and the offending character.
strata_status_t parseSignature(std::string_view text, bool allow_variadic,
                               Signature* out);

struct Function {
  std::string_view name;      // from the debug database, or "" when absent
  Signature signature;        // never variadic
  const uint8_t* code = nullptr;  // into the module's bytecode
  uint32_t length = 0;
  uint16_t prim_register_count = 0;
  uint16_t ref_register_count = 0;
  const uint32_t* block_offsets = nullptr;  // strictly increasing, [0] == 0
  uint32_t block_count = 0;
};

struct Import {
  std::string_view full_name;      // "hal.buffer.length"
  std::string_view module_name;    // "hal"
  std::string_view function_name;  // "buffer.length"
  Signature signature;             // may be variadic
  bool optional = false;
};

struct Export {
  std::string_view name;
  uint32_t function = 0;  // index into functions
  std::vector<std::pair<std::string_view, std::string_view>> attrs;
};

struct Dependency {
  std::string_view name;
  uint32_t minimum_version = 0;
  bool optional = false;
};

struct Span {
  const uint8_t* data = nullptr;
  uint64_t length = 0;
};

// A source location resolved from the debug database.
struct SourceLocation {
  std::string_view file;  // "" when unknown
  uint32_t line = 0;
  uint32_t column = 0;
};

struct BytecodeModule {
  // The whole file image, 64-byte aligned; owned unless release is set.
  const uint8_t* image = nullptr;
  uint64_t image_size = 0;
  strata_vm_release_fn_t release = nullptr;
  void* release_user = nullptr;
  strata_allocator_t allocator{};
  bool owns_image = false;

  const schema::Module* fb = nullptr;

  std::string_view name;
  uint32_t version = 0;
  std::string_view compiler_name;
  std::string_view compiler_version;
  std::vector<std::string_view> compiler_flags;
  std::vector<std::string_view> requirements;

  std::vector<std::string_view> type_names;
  std::vector<const strata_vm_ref_type_t*> types;  // resolved, never null

  std::vector<Dependency> dependencies;
  std::vector<Import> imports;
  std::vector<Export> exports;
  std::vector<Function> functions;
  int32_t initializer = -1;  // function index or -1

  std::vector<Span> rodata;
  uint32_t global_prim_bytes = 0;
  uint32_t global_ref_count = 0;

  uint64_t flatbuffer_offset = 0;
  uint64_t flatbuffer_size = 0;
  uint64_t segments_offset = 0;
  uint64_t segments_size = 0;
  uint16_t format_version_minor = 0;

  ~BytecodeModule();

  // The location of the instruction at pc in function, or an empty one.
  SourceLocation locationFor(uint32_t function, uint32_t pc) const;
  // "name" or "fn<index>" when the debug database has no name.
  std::string functionDisplayName(uint32_t function) const;
};

// Loads a module image: header, FlatBuffer, semantic ranges, then every
// function's bytecode. See strata_vm_bytecode_module_load for ownership.
strata_status_t loadBytecodeModule(strata_vm_instance_t* instance,
                                   const uint8_t* data, size_t size,
                                   strata_vm_release_fn_t release,
                                   void* release_user,
                                   strata_allocator_t allocator,
                                   BytecodeModule** out_module);

// Verifies one function's bytecode against the module's tables. Called by
// loadBytecodeModule for every function; exposed for tests.
strata_status_t verifyFunction(const BytecodeModule& module, uint32_t index);

}  // namespace strata::vm

#endif  // STRATA_VM_SRC_BYTECODE_MODULE_H_
