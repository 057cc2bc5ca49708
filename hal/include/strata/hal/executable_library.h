/* executable_library.h - the kernel library ABI between compiled (or
 * hand-written) CPU kernels and the Strata runtime.
 *
 * Standalone C99 (also valid C++): no includes besides <stddef.h> and
 * <stdint.h>, so kernel code can be built against it alone. Versioned like a
 * schema: every struct and function type carries a _v0 suffix; a new version
 * adds _v1 types and never changes a released layout. Layouts are pinned by
 * the static assertions at the end (x86_64 and aarch64, LP64).
 *
 * A library is a shared object (or a statically registered table) exporting
 * one symbol, STRATA_HAL_EXECUTABLE_LIBRARY_QUERY_SYMBOL, of type
 * strata_hal_executable_library_query_fn_t. The runtime calls it with the
 * highest version it understands; the library returns a pointer to its
 * library struct for a version <= max_version, or NULL when it has none.
 * The library struct begins with a pointer to its header, so the runtime can
 * read header->version before interpreting the rest ("header-first").
 *
 * The environment passed to the query function is valid only during that
 * call; every dispatch passes the environment again. Reserved fields are
 * zero when written and ignored when read.
 *
 * Dispatch: the runtime calls an export once per workgroup, on any thread,
 * possibly concurrently for different workgroups of one dispatch. Kernels
 * return 0 on success and non-zero to fail the dispatch; they must not
 * retain any pointer past the call.
 *
 * Version 1 adds, and changes nothing of version 0: the workgroup state a
 * dispatch function receives is the first member of a
 * strata_hal_executable_workgroup_state_v1_t, whose detail pointer lets a
 * failing kernel say why (the index out of range and its bound). A runtime
 * of version >= 1 passes that larger state to every library; a version 0
 * library reads only its first member, so it still loads and runs. A
 * version 1 library's query returns NULL when max_version is 0: an older
 * runtime passes no detail pointer.
 */
#ifndef STRATA_HAL_EXECUTABLE_LIBRARY_H_
#define STRATA_HAL_EXECUTABLE_LIBRARY_H_

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Versions. */
#define STRATA_HAL_EXECUTABLE_LIBRARY_VERSION_0 0u
#define STRATA_HAL_EXECUTABLE_LIBRARY_VERSION_1 1u /* dispatch detail */
#define STRATA_HAL_EXECUTABLE_LIBRARY_VERSION_LATEST \
  STRATA_HAL_EXECUTABLE_LIBRARY_VERSION_1

/* The one exported symbol of a library. */
#define STRATA_HAL_EXECUTABLE_LIBRARY_QUERY_SYMBOL \
  "strata_hal_executable_library_query"

/* Sanitizer a library was built with. A library built with a sanitizer
 * needs its runtime (the ASan/TSan allocator, shadow memory and interceptors)
 * in the process, so the runtime refuses ADDRESS or THREAD unless it was built
 * with the same sanitizer. NONE loads into any runtime: plain code in an
 * instrumented process is merely unchecked. */
typedef enum strata_hal_executable_library_sanitizer_e {
  STRATA_HAL_EXECUTABLE_LIBRARY_SANITIZER_NONE = 0,
  STRATA_HAL_EXECUTABLE_LIBRARY_SANITIZER_ADDRESS = 1,
  STRATA_HAL_EXECUTABLE_LIBRARY_SANITIZER_THREAD = 2,
} strata_hal_executable_library_sanitizer_t;

/* The sanitizer of the code being compiled, for header->sanitizer (and for
 * the runtime's own side of the check). GCC defines __SANITIZE_*__; clang
 * answers __has_feature. */
#if defined(__SANITIZE_ADDRESS__)
#define STRATA_HAL_EXECUTABLE_LIBRARY_SANITIZER_BUILD \
  STRATA_HAL_EXECUTABLE_LIBRARY_SANITIZER_ADDRESS
#elif defined(__SANITIZE_THREAD__)
#define STRATA_HAL_EXECUTABLE_LIBRARY_SANITIZER_BUILD \
  STRATA_HAL_EXECUTABLE_LIBRARY_SANITIZER_THREAD
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define STRATA_HAL_EXECUTABLE_LIBRARY_SANITIZER_BUILD \
  STRATA_HAL_EXECUTABLE_LIBRARY_SANITIZER_ADDRESS
#elif __has_feature(thread_sanitizer)
#define STRATA_HAL_EXECUTABLE_LIBRARY_SANITIZER_BUILD \
  STRATA_HAL_EXECUTABLE_LIBRARY_SANITIZER_THREAD
#endif
#endif
#ifndef STRATA_HAL_EXECUTABLE_LIBRARY_SANITIZER_BUILD
#define STRATA_HAL_EXECUTABLE_LIBRARY_SANITIZER_BUILD \
  STRATA_HAL_EXECUTABLE_LIBRARY_SANITIZER_NONE
#endif

/* CPU features a library may require (bits of header->required_features). */
#define STRATA_HAL_CPU_FEATURE_X86_AVX2 (1ull << 0)
#define STRATA_HAL_CPU_FEATURE_X86_FMA (1ull << 1)
#define STRATA_HAL_CPU_FEATURE_X86_AVX512F (1ull << 2)
/* AMX-TILE and AMX-INT8 (tdpbssd), usable: the runtime sets it only when
 * CPUID reports both, XCR0 enables the tile state and the OS granted this
 * process the tile data (Linux: arch_prctl(ARCH_REQ_XCOMP_PERM,
 * XFEATURE_XTILEDATA), which the runtime requests once while detecting). */
#define STRATA_HAL_CPU_FEATURE_X86_AMX_INT8 (1ull << 3)
#define STRATA_HAL_CPU_FEATURE_ARM_NEON (1ull << 32)

/*===------------------------------------------------------------------===*
 * Version 0
 *===------------------------------------------------------------------===*/

/* What the runtime tells a library about the machine it runs on. */
typedef struct strata_hal_executable_environment_v0_t {
  uint64_t cpu_features;  /* STRATA_HAL_CPU_FEATURE_* bits of this host */
  uint32_t worker_count;  /* processors that may run workgroups at once */
  uint32_t reserved0;
  /* Resolved imports, parallel to the library's import table; NULL entries
   * for optional imports the host lacks. NULL during the query call (imports
   * are resolved after it) and when the library has no imports. */
  const void* const* import_functions;
} strata_hal_executable_environment_v0_t;

/* State shared by every workgroup of one dispatch. Read-only to kernels. */
typedef struct strata_hal_executable_dispatch_state_v0_t {
  uint32_t workgroup_size_x;
  uint32_t workgroup_size_y;
  uint16_t workgroup_size_z;
  uint16_t constant_count;
  uint32_t workgroup_count_x;
  uint32_t workgroup_count_y;
  uint16_t workgroup_count_z;
  uint16_t binding_count;
  const uint32_t* constants;        /* constant_count push constants */
  void* const* binding_ptrs;        /* binding_count base pointers */
  const size_t* binding_lengths;    /* bytes reachable from each pointer */
} strata_hal_executable_dispatch_state_v0_t;

/* State of the one workgroup a call runs. */
typedef struct strata_hal_executable_workgroup_state_v0_t {
  uint32_t workgroup_id_x;
  uint32_t workgroup_id_y;
  uint16_t workgroup_id_z;
  uint16_t reserved0;
  uint32_t processor_id;       /* < environment->worker_count */
  void* local_memory;          /* scratch for this call, or NULL */
  uint32_t local_memory_size;  /* bytes at local_memory */
  uint32_t reserved1;
} strata_hal_executable_workgroup_state_v0_t;

/* Return codes of a dispatch function with a meaning the runtime names in
 * its error; any other non-zero value fails the dispatch too. */
#define STRATA_HAL_EXECUTABLE_DISPATCH_OK 0
/* The bindings, push constants or local memory are short of what the
 * export needs (compiled kernels check them first). */
#define STRATA_HAL_EXECUTABLE_DISPATCH_BAD_STATE 1
/* An index the kernel computed from tensor data (a gather or scatter) was
 * outside the dimension it indexes; nothing was read or written there.
 * Version 1 kernels say which index and bound in the detail. */
#define STRATA_HAL_EXECUTABLE_DISPATCH_INDEX_OUT_OF_RANGE 2

/* One workgroup of one export: 0 on success, non-zero fails the dispatch. */
typedef int (*strata_hal_executable_dispatch_v0_t)(
    const strata_hal_executable_environment_v0_t* environment,
    const strata_hal_executable_dispatch_state_v0_t* dispatch_state,
    const strata_hal_executable_workgroup_state_v0_t* workgroup_state);

/* Static facts about an export, checked by the runtime at dispatch time. */
typedef struct strata_hal_executable_dispatch_attrs_v0_t {
  uint16_t binding_count;      /* bindings the kernel reads and writes */
  uint16_t constant_count;     /* push constants it reads */
  uint32_t local_memory_size;  /* bytes of local_memory it needs (0: none) */
  uint32_t workgroup_size_x;   /* 0 means "any"; else dispatches use these */
  uint32_t workgroup_size_y;
  uint32_t workgroup_size_z;
  uint32_t reserved0;
} strata_hal_executable_dispatch_attrs_v0_t;

/* Exports as a struct of arrays; each array has `count` entries. names,
 * tags and attrs may be NULL (attrs NULL: no checking is possible and the
 * runtime refuses to dispatch with bindings or constants). */
typedef struct strata_hal_executable_export_table_v0_t {
  uint32_t count;
  uint32_t reserved0;
  const strata_hal_executable_dispatch_v0_t* ptrs;
  const char* const* names;  /* e.g. "main_dispatch_0_matmul_64x32x16_f32" */
  const char* const* tags;   /* free-form, e.g. a source hash; may be NULL */
  const strata_hal_executable_dispatch_attrs_v0_t* attrs;
} strata_hal_executable_export_table_v0_t;

/* Host functions a library calls, resolved by name at load time. A name
 * starting with '?' is optional. */
typedef struct strata_hal_executable_import_table_v0_t {
  uint32_t count;
  uint32_t reserved0;
  const char* const* symbols;
} strata_hal_executable_import_table_v0_t;

/* The first thing the runtime reads. */
typedef struct strata_hal_executable_library_header_t {
  uint32_t version;            /* STRATA_HAL_EXECUTABLE_LIBRARY_VERSION_* */
  uint32_t sanitizer;          /* strata_hal_executable_library_sanitizer_t */
  const char* name;            /* for messages, e.g. "mlp_linked_llvm_cpu" */
  uint64_t required_features;  /* STRATA_HAL_CPU_FEATURE_* it needs */
} strata_hal_executable_library_header_t;

typedef struct strata_hal_executable_library_v0_t {
  const strata_hal_executable_library_header_t* header;  /* first: see top */
  strata_hal_executable_import_table_v0_t imports;
  strata_hal_executable_export_table_v0_t exports;
} strata_hal_executable_library_v0_t;

/*===------------------------------------------------------------------===*
 * Version 1: the dispatch detail
 *===------------------------------------------------------------------===*/

/* What detail->kind says a failing kernel wrote. */
#define STRATA_HAL_EXECUTABLE_DISPATCH_DETAIL_NONE 0u
/* index and bound are set: index was outside [0, bound). */
#define STRATA_HAL_EXECUTABLE_DISPATCH_DETAIL_INDEX 1u
/* With BAD_STATE: binding `index` holds fewer than `bound` bytes, which the
 * shapes the push constants give need. */
#define STRATA_HAL_EXECUTABLE_DISPATCH_DETAIL_BINDING 2u
/* With BAD_STATE: a size computed from the push constants is `index`,
 * outside [0, `bound`]; `bound` is -1 when computing it overflowed or
 * divided by zero. */
#define STRATA_HAL_EXECUTABLE_DISPATCH_DETAIL_SHAPE 3u
/* With BAD_STATE: temporaries sized by the push constants need `index`
 * bytes of local memory; `bound` were left. */
#define STRATA_HAL_EXECUTABLE_DISPATCH_DETAIL_LOCAL_MEMORY 4u

/* Why a dispatch function failed, written by the kernel before it returns
 * non-zero (and only then). The runtime sets kind to NONE before it runs
 * workgroups and reads the detail only of a call that failed. */
typedef struct strata_hal_executable_dispatch_detail_v1_t {
  uint32_t kind; /* STRATA_HAL_EXECUTABLE_DISPATCH_DETAIL_* */
  uint32_t reserved0;
  int64_t index; /* DETAIL_INDEX: the index out of range */
  int64_t bound; /* DETAIL_INDEX: the size of the dimension it indexes */
} strata_hal_executable_dispatch_detail_v1_t;

/* The workgroup state of version 1. Dispatch functions keep the version 0
 * type and receive a pointer to v0 (the first member); a version 1 kernel
 * converts that pointer to this struct to reach detail. */
typedef struct strata_hal_executable_workgroup_state_v1_t {
  strata_hal_executable_workgroup_state_v0_t v0; /* first: see above */
  /* Where a failing kernel describes its failure; never NULL from a
   * runtime of version >= 1. */
  strata_hal_executable_dispatch_detail_v1_t* detail;
} strata_hal_executable_workgroup_state_v1_t;

/* The query function. Returns a pointer to the library struct (whose first
 * member is the header pointer) for a version <= max_version, or NULL. The
 * library struct is strata_hal_executable_library_v0_t in versions 0 and 1
 * (header->version tells which). */
typedef const strata_hal_executable_library_header_t* const* (
    *strata_hal_executable_library_query_fn_t)(
    uint32_t max_version,
    const strata_hal_executable_environment_v0_t* environment);

/*===------------------------------------------------------------------===*
 * Layout pins
 *===------------------------------------------------------------------===*/

/* static_assert in C++ and C11; in C99 (which has neither) a typedef of an
 * array whose size is negative when cond is false. */
#if defined(__cplusplus)
#define STRATA_HAL_ABI_ASSERT(cond, msg) static_assert(cond, msg)
#elif defined(__STDC_VERSION__) && __STDC_VERSION__ >= 201112L
#define STRATA_HAL_ABI_ASSERT(cond, msg) _Static_assert(cond, msg)
#else
#define STRATA_HAL_ABI_ASSERT_CAT_(a, b) a##b
#define STRATA_HAL_ABI_ASSERT_CAT(a, b) STRATA_HAL_ABI_ASSERT_CAT_(a, b)
#define STRATA_HAL_ABI_ASSERT(cond, msg)                                  \
  typedef char STRATA_HAL_ABI_ASSERT_CAT(strata_hal_abi_assert_line_,    \
                                         __LINE__)[(cond) ? 1 : -1]
#endif

#if UINTPTR_MAX == 0xFFFFFFFFFFFFFFFFu
STRATA_HAL_ABI_ASSERT(sizeof(strata_hal_executable_environment_v0_t) == 24,
                      "environment_v0 layout");
STRATA_HAL_ABI_ASSERT(sizeof(strata_hal_executable_dispatch_state_v0_t) == 48,
                      "dispatch_state_v0 layout");
STRATA_HAL_ABI_ASSERT(
    offsetof(strata_hal_executable_dispatch_state_v0_t, constants) == 24,
    "dispatch_state_v0 layout");
STRATA_HAL_ABI_ASSERT(sizeof(strata_hal_executable_workgroup_state_v0_t) == 32,
                      "workgroup_state_v0 layout");
STRATA_HAL_ABI_ASSERT(sizeof(strata_hal_executable_dispatch_attrs_v0_t) == 24,
                      "dispatch_attrs_v0 layout");
STRATA_HAL_ABI_ASSERT(sizeof(strata_hal_executable_export_table_v0_t) == 40,
                      "export_table_v0 layout");
STRATA_HAL_ABI_ASSERT(sizeof(strata_hal_executable_import_table_v0_t) == 16,
                      "import_table_v0 layout");
STRATA_HAL_ABI_ASSERT(sizeof(strata_hal_executable_library_header_t) == 24,
                      "library_header layout");
STRATA_HAL_ABI_ASSERT(sizeof(strata_hal_executable_library_v0_t) == 64,
                      "library_v0 layout");
STRATA_HAL_ABI_ASSERT(offsetof(strata_hal_executable_library_v0_t, header) == 0,
                      "the header pointer comes first");
STRATA_HAL_ABI_ASSERT(sizeof(strata_hal_executable_dispatch_detail_v1_t) == 24,
                      "dispatch_detail_v1 layout");
STRATA_HAL_ABI_ASSERT(
    offsetof(strata_hal_executable_dispatch_detail_v1_t, kind) == 0 &&
        offsetof(strata_hal_executable_dispatch_detail_v1_t, index) == 8 &&
        offsetof(strata_hal_executable_dispatch_detail_v1_t, bound) == 16,
    "dispatch_detail_v1 layout");
STRATA_HAL_ABI_ASSERT(sizeof(strata_hal_executable_workgroup_state_v1_t) == 40,
                      "workgroup_state_v1 layout");
STRATA_HAL_ABI_ASSERT(
    offsetof(strata_hal_executable_workgroup_state_v1_t, v0) == 0 &&
        offsetof(strata_hal_executable_workgroup_state_v1_t, detail) == 32,
    "workgroup_state_v1: version 0's state first, then the detail pointer");
#endif

#ifdef __cplusplus
}  /* extern "C" */
#endif

#endif /* STRATA_HAL_EXECUTABLE_LIBRARY_H_ */
