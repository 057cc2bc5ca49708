// portable_program.h - a verified portable-bytecode program
// (schemas/kernel_bytecode.h): the loader's parse and verification, and the
// interpreter that runs one export's code as a dispatch function.
#ifndef STRATA_HAL_SRC_PORTABLE_PROGRAM_H_
#define STRATA_HAL_SRC_PORTABLE_PROGRAM_H_

#include <cstddef>
#include <cstdint>

#include "strata/base/allocator.h"
#include "strata/base/status.h"
#include "strata/hal/executable_library.h"

namespace strata::hal {

// One export of a verified program. Everything points into the program's
// own copy of the bytes.
struct PortableExport {
  const char* name;  // NUL-terminated copy
  uint32_t binding_count;
  uint32_t constant_count;
  const uint64_t* binding_bytes;  // binding_count entries
  uint32_t temporary_count;
  const uint64_t* temporary_offsets;  // into local memory
  const uint64_t* temporary_bytes;    // temporary_count entries
  uint32_t data_count;                // read-only constant data slots
  const uint8_t* const* data;         // data_count pointers into the copy
  const uint64_t* data_bytes;         // data_count entries
  uint32_t register_count;
  uint64_t local_memory_size;  // registers, then temporaries
  const uint32_t* code;        // verified
  uint32_t code_words;
  // Dynamic shapes (kernel_bytecode.h's shape instruction, the first of
  // the code): 0 values when the export has none. The pointers are into
  // the code; each dispatch call runs a patched copy of the code at
  // code_copy_offset of its local memory (included in local_memory_size).
  uint32_t value_count;
  const uint32_t* values;  // value_count x (op, a, b)
  uint32_t requirement_count;
  const uint32_t* requirements;  // requirement_count x (slot, value)
  uint32_t patch_count;
  const uint32_t* patches;  // patch_count x (word, value)
  uint64_t code_copy_offset;
  // Whether a requirement sizes a temporary: those are placed at dispatch
  // from dynamic_temporary_offset on, and local_memory_size is then the
  // most the devices give (kernel::kMaxLocalMemory).
  bool dynamic_temporaries;
  uint64_t dynamic_temporary_offset;
};

// A verified program and the library tables the executable record points
// at. Immutable after parsePortableProgram; freed by destroyPortableProgram.
struct PortableProgram {
  strata_allocator_t allocator;
  uint32_t export_count;
  PortableExport* exports;
  // The library view: header, export tables and one environment per export
  // whose import_functions[0] is that export (how the shared dispatch
  // function finds its code).
  strata_hal_executable_library_header_t header;
  strata_hal_executable_library_v0_t library;
  strata_hal_executable_dispatch_v0_t* ptrs;
  const char** names;
  strata_hal_executable_dispatch_attrs_v0_t* attrs;
  const void** export_handles;  // export_count entries: &exports[i]
};

// Parses and verifies the size bytes at data (borrowed; copied). Every
// rejection is INVALID_ARGUMENT naming `name`, the export and the
// instruction at fault. On success *out is owned by the caller.
strata_status_t parsePortableProgram(const uint8_t* data, size_t size,
                                     const char* name,
                                     strata_allocator_t allocator,
                                     PortableProgram** out);

void destroyPortableProgram(PortableProgram* program);

// For an export with dynamic shapes (value_count > 0): computes its values
// from the push constants, checks each binding with a requirement against
// binding_lengths, places the temporaries with one in the
// local_memory_size bytes of local memory (temporary_offsets: every
// temporary's offset, temporary_count entries), writes the patched code
// into `code` (code_words words), and proves every access of that code
// inside its slot, once, before any element is touched. Returns 0, or
// STRATA_HAL_EXECUTABLE_DISPATCH_BAD_STATE with *detail saying what is at
// fault (DETAIL_BINDING: the binding and the bytes it needs; DETAIL_SHAPE:
// a size out of range or not computable; DETAIL_LOCAL_MEMORY: the
// temporaries' bytes and what was left). `constants` holds
// e.constant_count words (checked by the caller).
int preparePortableDispatch(const PortableExport& e, const uint32_t* constants,
                            const size_t* binding_lengths,
                            uint64_t local_memory_size, uint32_t* code,
                            uint64_t* temporary_offsets,
                            strata_hal_executable_dispatch_detail_v1_t* detail);

// The dispatch function of every portable export: runs
// environment->import_functions[0] (a PortableExport). Reads the version 1
// workgroup state the devices pass. Returns 0;
// STRATA_HAL_EXECUTABLE_DISPATCH_BAD_STATE when a binding holds fewer bytes
// than the export declared, or the push constants or local memory differ
// from what it needs (checked before any element is touched); or
// STRATA_HAL_EXECUTABLE_DISPATCH_INDEX_OUT_OF_RANGE, with the detail, when
// a gather's index computed from data is outside its extent.
int runPortableExport(
    const strata_hal_executable_environment_v0_t* environment,
    const strata_hal_executable_dispatch_state_v0_t* dispatch_state,
    const strata_hal_executable_workgroup_state_v0_t* workgroup_state);

}  // namespace strata::hal

#endif  // STRATA_HAL_SRC_PORTABLE_PROGRAM_H_
