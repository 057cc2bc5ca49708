/* bad_library.c - deliberately broken (or unusual) kernel libraries for the
 * loader's negative tests. Each shared module is this source built with one
 * -DBAD_LIBRARY_<VARIANT>; the header name is "bad_<variant>". Variants:
 *   MISSING_QUERY      exports a misspelled query symbol only
 *   QUERY_NULL         query returns NULL (no version the runtime supports)
 *   NULL_HEADER        the library struct's header pointer is NULL
 *   WRONG_VERSION      header->version is 7
 *   SANITIZER_ADDRESS  claims AddressSanitizer
 *   SANITIZER_THREAD   claims ThreadSanitizer
 *   SANITIZER_UNKNOWN  claims sanitizer 9
 *   FOREIGN_FEATURES   requires a CPU feature of another architecture
 *   AMX_INT8           requires AMX-INT8 (otherwise valid: loads where the
 *                      host has it)
 *   ZERO_EXPORTS       exports.count is 0
 *   NULL_EXPORT_TABLE  exports.ptrs is NULL
 *   NULL_EXPORT_FN     the second export's function pointer is NULL
 *   REQUIRED_IMPORT    imports "?strata_test_optional" and the non-optional
 *                      "strata_test_missing_import"
 *   MINIMAL            valid: two exports without names, tags or attrs, one
 *                      optional import (resolves to NULL)
 */
#include "strata/hal/executable_library.h"

static int noop(const strata_hal_executable_environment_v0_t* environment,
                const strata_hal_executable_dispatch_state_v0_t* state,
                const strata_hal_executable_workgroup_state_v0_t* workgroup) {
  (void)environment;
  (void)state;
  (void)workgroup;
  return 0;
}

#if defined(BAD_LIBRARY_MINIMAL)
/* Returns 0 when the optional import resolved to NULL, as the runtime must
 * resolve it today. */
static int check_import(
    const strata_hal_executable_environment_v0_t* environment,
    const strata_hal_executable_dispatch_state_v0_t* state,
    const strata_hal_executable_workgroup_state_v0_t* workgroup) {
  (void)state;
  (void)workgroup;
  return environment->import_functions &&
                 environment->import_functions[0] == NULL
             ? 0
             : 1;
}
#endif

#if defined(BAD_LIBRARY_MISSING_QUERY)
#define BAD_NAME "bad_missing_query"
#elif defined(BAD_LIBRARY_QUERY_NULL)
#define BAD_NAME "bad_query_null"
#elif defined(BAD_LIBRARY_NULL_HEADER)
#define BAD_NAME "bad_null_header"
#elif defined(BAD_LIBRARY_WRONG_VERSION)
#define BAD_NAME "bad_wrong_version"
#define BAD_VERSION 7u
#elif defined(BAD_LIBRARY_SANITIZER_ADDRESS)
#define BAD_NAME "bad_sanitizer_address"
#define BAD_SANITIZER STRATA_HAL_EXECUTABLE_LIBRARY_SANITIZER_ADDRESS
#elif defined(BAD_LIBRARY_SANITIZER_THREAD)
#define BAD_NAME "bad_sanitizer_thread"
#define BAD_SANITIZER STRATA_HAL_EXECUTABLE_LIBRARY_SANITIZER_THREAD
#elif defined(BAD_LIBRARY_SANITIZER_UNKNOWN)
#define BAD_NAME "bad_sanitizer_unknown"
#define BAD_SANITIZER 9u
#elif defined(BAD_LIBRARY_FOREIGN_FEATURES)
#define BAD_NAME "bad_foreign_features"
#if defined(__x86_64__) || defined(__i386__)
#define BAD_FEATURES STRATA_HAL_CPU_FEATURE_ARM_NEON
#else
#define BAD_FEATURES STRATA_HAL_CPU_FEATURE_X86_AVX2
#endif
#elif defined(BAD_LIBRARY_AMX_INT8)
#define BAD_NAME "bad_amx_int8"
#define BAD_FEATURES STRATA_HAL_CPU_FEATURE_X86_AMX_INT8
#elif defined(BAD_LIBRARY_ZERO_EXPORTS)
#define BAD_NAME "bad_zero_exports"
#define BAD_EXPORT_COUNT 0u
#elif defined(BAD_LIBRARY_NULL_EXPORT_TABLE)
#define BAD_NAME "bad_null_export_table"
#define BAD_EXPORT_PTRS NULL
#elif defined(BAD_LIBRARY_NULL_EXPORT_FN)
#define BAD_NAME "bad_null_export_fn"
#elif defined(BAD_LIBRARY_REQUIRED_IMPORT)
#define BAD_NAME "bad_required_import"
#elif defined(BAD_LIBRARY_MINIMAL)
#define BAD_NAME "bad_minimal"
#else
#error "define one BAD_LIBRARY_<VARIANT>"
#endif

#ifndef BAD_VERSION
#define BAD_VERSION STRATA_HAL_EXECUTABLE_LIBRARY_VERSION_0
#endif
#ifndef BAD_SANITIZER
#define BAD_SANITIZER STRATA_HAL_EXECUTABLE_LIBRARY_SANITIZER_BUILD
#endif
#ifndef BAD_FEATURES
#define BAD_FEATURES 0u
#endif
#ifndef BAD_EXPORT_COUNT
#define BAD_EXPORT_COUNT 2u
#endif
#ifndef BAD_EXPORT_PTRS
#define BAD_EXPORT_PTRS export_ptrs
#endif

#if defined(BAD_LIBRARY_NULL_EXPORT_FN)
static const strata_hal_executable_dispatch_v0_t export_ptrs[] = {noop, NULL};
#elif defined(BAD_LIBRARY_MINIMAL)
static const strata_hal_executable_dispatch_v0_t export_ptrs[] = {noop,
                                                                  check_import};
#else
static const strata_hal_executable_dispatch_v0_t export_ptrs[] = {noop, noop};
#endif

#if defined(BAD_LIBRARY_MINIMAL)
#define BAD_EXPORT_NAMES NULL
#else
static const char* const export_names[] = {"first", "second"};
#define BAD_EXPORT_NAMES export_names
#endif

#if defined(BAD_LIBRARY_REQUIRED_IMPORT)
static const char* const import_symbols[] = {"?strata_test_optional",
                                             "strata_test_missing_import"};
#define BAD_IMPORTS                                                            \
  { 2u, 0u, import_symbols }
#elif defined(BAD_LIBRARY_MINIMAL)
static const char* const import_symbols[] = {"?strata_test_optional"};
#define BAD_IMPORTS                                                            \
  { 1u, 0u, import_symbols }
#else
#define BAD_IMPORTS                                                            \
  { 0u, 0u, NULL }
#endif

static const strata_hal_executable_library_header_t header = {
    BAD_VERSION, BAD_SANITIZER, BAD_NAME, BAD_FEATURES};

static const strata_hal_executable_library_v0_t library = {
#if defined(BAD_LIBRARY_NULL_HEADER)
    NULL,
#else
    &header,
#endif
    BAD_IMPORTS,
    {BAD_EXPORT_COUNT, 0u, BAD_EXPORT_PTRS, BAD_EXPORT_NAMES, NULL, NULL},
};

#if defined(BAD_LIBRARY_MISSING_QUERY)
#define BAD_QUERY_NAME strata_hal_executable_library_qurey
#else
#define BAD_QUERY_NAME strata_hal_executable_library_query
#endif

__attribute__((visibility("default")))
const strata_hal_executable_library_header_t* const*
BAD_QUERY_NAME(uint32_t max_version,
               const strata_hal_executable_environment_v0_t* environment) {
  (void)max_version;
  (void)environment;
#if defined(BAD_LIBRARY_NULL_HEADER)
  (void)header;
#endif
#if defined(BAD_LIBRARY_NULL_EXPORT_TABLE)
  (void)export_ptrs;
#endif
#if defined(BAD_LIBRARY_QUERY_NULL)
  (void)library;
  return NULL;
#else
  return &library.header;
#endif
}
