/* executable.h - hal.executable: a loaded kernel library (executable_library.h
 * ABI) and its exports.
 *
 * Three native loaders share one validation:
 *   load_file    dlopen()s a shared object by path;
 *   load_memory  writes the bytes of a shared object to a memfd and dlopen()s
 *                /proc/self/fd/N: no file is created anywhere;
 *   load_static  looks up a query function registered with register_static,
 *                for kernels linked into the application.
 * (A fourth, load_portable, verifies kernel bytecode instead; see there.)
 * Each native loader calls the library's query function with the highest ABI
 * version the runtime knows and checks the result: the version, the sanitizer,
 * the CPU features it needs, the export table and the imports. Every rejection
 * is a status whose message names the library and, where there are two sides,
 * both of them:
 *   NOT_FOUND            no query symbol; an import the runtime does not
 *                        provide; load_static of an unregistered name;
 *   FAILED_PRECONDITION  no version the runtime supports, or a sanitizer or
 *                        CPU features this process lacks;
 *   INVALID_ARGUMENT     a malformed library (NULL header, no exports, NULL
 *                        function pointers, ...) or bytes dlopen() refuses.
 *
 * An executable is immutable once loaded: every accessor below may be called
 * from any thread. It is a VM ref object ("hal.executable"); the shared
 * object is unloaded when the last reference is released, so no kernel of it
 * may still be running then.
 *
 * C11 and C++.
 */
#ifndef STRATA_HAL_EXECUTABLE_H_
#define STRATA_HAL_EXECUTABLE_H_

#include <stddef.h>
#include <stdint.h>

#include "strata/base/allocator.h"
#include "strata/base/status.h"
#include "strata/hal/executable_library.h"
#include "strata/vm/ref.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct strata_hal_executable_t strata_hal_executable_t;

/* The registered type of every hal.executable. */
const strata_vm_ref_type_t* strata_hal_executable_type(void);

/*===------------------------------------------------------------------===*
 * Loading
 *===------------------------------------------------------------------===*/

/* Loads the shared object at path (borrowed) with dlopen(RTLD_NOW |
 * RTLD_LOCAL) and validates it. The path is the name used in messages. On
 * success the caller owns the returned reference. Thread-safe. */
strata_status_t strata_hal_executable_load_file(
    const char* path, strata_allocator_t allocator,
    strata_hal_executable_t** out_executable);

/* Loads a shared object from the size bytes at data (borrowed; copied into a
 * memfd, so data may be freed once this returns) and validates it.
 * name_for_messages (borrowed, copied; may be NULL) names the library in
 * messages and in the memfd. No file is written; the memfd is closed once
 * dlopen() has mapped it. Two loads of the same bytes give two independent
 * libraries. On success the caller owns the returned reference.
 * Thread-safe. */
strata_status_t strata_hal_executable_load_memory(
    const uint8_t* data, size_t size, const char* name_for_messages,
    strata_allocator_t allocator, strata_hal_executable_t** out_executable);

/* Verifies a portable-bytecode program ("portable-bytecode-v1",
 * schemas/kernel_bytecode.h) from the size bytes at data (borrowed; copied)
 * and wraps it in an executable whose exports run on the runtime's kernel
 * interpreter: no native code is loaded. The verifier proves every memory
 * access of every export inside the bytes the export declares for its
 * bindings and temporaries before this returns; each dispatch then checks
 * only that its bindings hold those bytes (before any element is touched;
 * STRATA_HAL_EXECUTABLE_DISPATCH_BAD_STATE otherwise). A malformed program
 * is INVALID_ARGUMENT naming name_for_messages (may be NULL), the export
 * and the instruction at fault. On success the caller owns the returned
 * reference. Thread-safe. */
strata_status_t strata_hal_executable_load_portable(
    const uint8_t* data, size_t size, const char* name_for_messages,
    strata_allocator_t allocator, strata_hal_executable_t** out_executable);

/* Whether the executable runs native code (a shared object or a static
 * library): false only for portable-bytecode executables. */
int strata_hal_executable_is_native(const strata_hal_executable_t* executable);

/* Registers a library linked into the process under name (borrowed; copied).
 * A name already registered is ALREADY_EXISTS. Registration does not call
 * query; load_static does. Thread-safe; may be called before main(). */
strata_status_t strata_hal_executable_register_static(
    const char* name, strata_hal_executable_library_query_fn_t query);

/* Removes a registration (executables already loaded from it stay valid).
 * NOT_FOUND if name is not registered. Thread-safe. */
strata_status_t strata_hal_executable_unregister_static(const char* name);

/* Loads the library registered under name and validates it. An unknown name
 * is NOT_FOUND listing the registered names. On success the caller owns the
 * returned reference. Thread-safe. */
strata_status_t strata_hal_executable_load_static(
    const char* name, strata_allocator_t allocator,
    strata_hal_executable_t** out_executable);

/*===------------------------------------------------------------------===*
 * Accessors (thread-safe; returned pointers are borrowed and live as long as
 * the executable)
 *===------------------------------------------------------------------===*/

/* The name the library was loaded under: the path, name_for_messages (or
 * "<memory>") or the registered name. */
const char* strata_hal_executable_name(
    const strata_hal_executable_t* executable);

/* The library's own name (header->name), or the load name when it has
 * none. */
const char* strata_hal_executable_library_name(
    const strata_hal_executable_t* executable);

/* The CPU features the library requires (header->required_features,
 * STRATA_HAL_CPU_FEATURE_* bits). */
uint64_t strata_hal_executable_required_features(
    const strata_hal_executable_t* executable);

/* Writes the names of the STRATA_HAL_CPU_FEATURE_* bits of features
 * ("avx2 fma avx512f", "none" for 0), NUL-terminated and cut to fit, into
 * buffer (capacity bytes, may be 0); returns the full length. */
size_t strata_hal_cpu_feature_names(uint64_t features, char* buffer,
                                    size_t capacity);

/* Number of exports (at least 1). */
uint32_t strata_hal_executable_export_count(
    const strata_hal_executable_t* executable);

/* Name of export ordinal: the library's name for it or "export<N>" when it
 * has none. NULL when ordinal is out of range. */
const char* strata_hal_executable_export_name(
    const strata_hal_executable_t* executable, uint32_t ordinal);

/* Tag of export ordinal, or NULL when it has none or ordinal is out of
 * range. */
const char* strata_hal_executable_export_tag(
    const strata_hal_executable_t* executable, uint32_t ordinal);

/* Dispatch attributes of export ordinal, or NULL when the library gives none
 * or ordinal is out of range. */
const strata_hal_executable_dispatch_attrs_v0_t*
strata_hal_executable_export_attrs(const strata_hal_executable_t* executable,
                                   uint32_t ordinal);

/* Finds the export called name (borrowed). NOT_FOUND lists the exports. */
strata_status_t strata_hal_executable_lookup_export(
    const strata_hal_executable_t* executable, const char* name,
    uint32_t* out_ordinal);

/* The environment the library was queried with (host CPU features, worker
 * count, resolved imports). */
const strata_hal_executable_environment_v0_t* strata_hal_executable_environment(
    const strata_hal_executable_t* executable);

/* Sets the worker count kernels see (processor_id < worker_count; 0 is
 * taken as 1). Call it before the executable is first dispatched, e.g. when
 * a device adopts it (hal.executable.create does, with the device's worker
 * count); not thread-safe against dispatches of the executable. */
void strata_hal_executable_set_worker_count(strata_hal_executable_t* executable,
                                            uint32_t worker_count);

/*===------------------------------------------------------------------===*
 * References
 *===------------------------------------------------------------------===*/

static inline strata_vm_ref_object_t* strata_hal_executable_as_ref(
    strata_hal_executable_t* executable) {
  return (strata_vm_ref_object_t*)executable;
}
/* NULL unless ref is a hal.executable. */
strata_hal_executable_t* strata_hal_executable_from_ref(
    strata_vm_ref_object_t* ref);
static inline void strata_hal_executable_retain(
    strata_hal_executable_t* executable) {
  strata_vm_ref_retain((strata_vm_ref_object_t*)executable);
}
static inline void strata_hal_executable_release(
    strata_hal_executable_t* executable) {
  strata_vm_ref_release((strata_vm_ref_object_t*)executable);
}

#ifdef __cplusplus
}  /* extern "C" */
#endif

#endif /* STRATA_HAL_EXECUTABLE_H_ */
