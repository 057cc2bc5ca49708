// executable_impl.h - the layout behind strata_hal_executable_t, for the
// loaders and for devices, which call exports directly on their hot path.
#ifndef STRATA_HAL_SRC_EXECUTABLE_IMPL_H_
#define STRATA_HAL_SRC_EXECUTABLE_IMPL_H_

#include <cstdint>
#include <string>

#include "strata/hal/executable.h"

namespace strata::hal {
struct PortableProgram;
}  // namespace strata::hal

// Written once by createExecutable and read-only afterwards (except
// environment.worker_count, see setWorkerCount), so any thread may read it.
// One allocation holds the record, the resolved import table, the export
// name table and the copied names.
struct strata_hal_executable_t {
  strata_vm_ref_object_t header;  // first: executables are ref objects
  strata_allocator_t allocator;   // frees this record
  // The validated library: header->version is 0, exports.count >= 1 and
  // every exports.ptrs[i] is non-NULL. Owned by the shared object.
  const strata_hal_executable_library_v0_t* library;
  // What kernels receive: host CPU features, worker count (default 1) and
  // the resolved imports (import_functions points into this allocation).
  strata_hal_executable_environment_v0_t environment;
  uint32_t export_count;  // library->exports.count, at least 1
  const strata_hal_executable_dispatch_v0_t* export_ptrs;  // never NULL
  // NULL when the library gives no attributes.
  const strata_hal_executable_dispatch_attrs_v0_t* export_attrs;
  // export_count entries, each non-NULL: the library's name or "export<N>".
  const char* const* export_names;
  const char* name;          // load name: path, memory name or static name
  const char* library_name;  // header->name, else name
  void* dl_handle;           // dlclose()d on destroy; NULL for static loads
  // Portable executables (portable-bytecode): the verified program, freed
  // on destroy, and one environment per export whose import_functions[0]
  // is that export's code (the dispatch function is shared). NULL for
  // native libraries.
  strata::hal::PortableProgram* portable_program;
  const strata_hal_executable_environment_v0_t* export_environments;
};

namespace strata::hal {

// Host CPU features as STRATA_HAL_CPU_FEATURE_* bits, detected once (the
// first call also asks Linux for the AMX tile state, which the AMX bit
// needs), less any bits setHostCpuFeatureMask cleared.
uint64_t hostCpuFeatures();

// Tests only: hostCpuFeatures() reports only the bits of mask from now on
// (~0: all it detected); returns the previous mask. Libraries loaded
// afterwards are checked, and see the host, through the mask.
uint64_t setHostCpuFeatureMask(uint64_t mask);

// Parses a STRATA_CPU_FEATURES value: "avx512", "avx2" or "baseline" (a
// class), or a comma-separated list of feature names ("avx2,fma"); false
// with *error naming the value and the bad name otherwise.
bool parseCpuFeatures(const char* text, uint64_t* out, std::string* error);

// The error a bad STRATA_CPU_FEATURES gives (empty: unset or good): every
// library load fails with it. hostCpuFeatures() already reports only the
// features a good value names.
const std::string& cpuFeatureOverrideError();

// Names of STRATA_HAL_CPU_FEATURE_* bits, space-separated ("none": 0).
std::string featureNames(uint64_t features);

// The sanitizer this runtime was built with
// (STRATA_HAL_EXECUTABLE_LIBRARY_SANITIZER_*).
uint32_t runtimeSanitizer();

// Queries and validates a library and wraps it in a new executable. name
// (borrowed, copied) names the library in messages. dl_handle (may be NULL)
// is owned from the call on: the executable dlclose()s it when destroyed,
// and this function does so on failure.
strata_status_t createExecutable(const char* name,
                                 strata_hal_executable_library_query_fn_t query,
                                 void* dl_handle, strata_allocator_t allocator,
                                 strata_hal_executable_t** out_executable);

// Verifies a portable-bytecode program (schemas/kernel_bytecode.h; data is
// borrowed and copied) and wraps it in a new executable whose exports run
// on the kernel interpreter. A malformed or unprovable program is
// INVALID_ARGUMENT naming `name`, the export and the instruction.
strata_status_t createPortableExecutable(
    const uint8_t* data, size_t size, const char* name,
    strata_allocator_t allocator, strata_hal_executable_t** out_executable);

// Checks a dispatch of export ordinal against the export's attrs before the
// device records or runs it: the ordinal is in range; the binding and
// constant counts equal the attrs' (an export without attrs takes neither);
// and, when workgroup_size (3 entries) is given, it matches any fixed
// workgroup size in the attrs. Messages name the export and both numbers.
strata_status_t validateDispatch(const strata_hal_executable_t* executable,
                                 uint32_t ordinal, uint32_t binding_count,
                                 uint32_t constant_count,
                                 const uint32_t* workgroup_size = nullptr);

// The function of export ordinal; ordinal must have passed validateDispatch.
inline strata_hal_executable_dispatch_v0_t exportFunction(
    const strata_hal_executable_t* executable, uint32_t ordinal) {
  return executable->export_ptrs[ordinal];
}

// The environment a dispatch of export ordinal starts from (a copy of it;
// devices set worker_count in theirs).
inline const strata_hal_executable_environment_v0_t& dispatchEnvironment(
    const strata_hal_executable_t* executable, uint32_t ordinal) {
  return executable->export_environments
             ? executable->export_environments[ordinal]
             : executable->environment;
}

// Sets the worker count kernels see (processor_id < worker_count). Call it
// before the executable is first dispatched, e.g. when a device adopts it; a
// device that shares an executable with another device of a different size
// passes kernels its own copy of the environment instead.
inline void setWorkerCount(strata_hal_executable_t* executable,
                           uint32_t worker_count) {
  executable->environment.worker_count = worker_count ? worker_count : 1;
}

}  // namespace strata::hal

#endif  // STRATA_HAL_SRC_EXECUTABLE_IMPL_H_
