// executable.cpp - hal.executable: validation of a queried kernel library
// (shared by every loader), the ref object, its accessors and the dispatch
// check devices use.
#include <dlfcn.h>

#if defined(__x86_64__)
#include <cpuid.h>
#include <sys/syscall.h>
#include <unistd.h>
#endif

#include <atomic>
#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <new>
#include <string>

#include "executable_impl.h"
#include "portable_program.h"

namespace strata::hal {
namespace {

constexpr uint32_t kRuntimeVersion =
    STRATA_HAL_EXECUTABLE_LIBRARY_VERSION_LATEST;

// Longest export-list text in a NOT_FOUND message; longer lists end in "...".
constexpr size_t kMaxListedChars = 1024;

void destroyExecutable(strata_vm_ref_object_t* object) {
  auto* executable = reinterpret_cast<strata_hal_executable_t*>(object);
  void* dl_handle = executable->dl_handle;
  strata::hal::PortableProgram* program = executable->portable_program;
  strata_allocator_t allocator = executable->allocator;
  executable->~strata_hal_executable_t();
  strata_allocator_free(allocator, executable);
  if (dl_handle) {
    dlclose(dl_handle);
  }
  strata::hal::destroyPortableProgram(program);
}

const strata_vm_ref_type_t kExecutableType = {"hal.executable",
                                              destroyExecutable};

const char* sanitizerName(uint32_t sanitizer) {
  switch (sanitizer) {
  case STRATA_HAL_EXECUTABLE_LIBRARY_SANITIZER_NONE:
    return "no sanitizer";
  case STRATA_HAL_EXECUTABLE_LIBRARY_SANITIZER_ADDRESS:
    return "AddressSanitizer";
  case STRATA_HAL_EXECUTABLE_LIBRARY_SANITIZER_THREAD:
    return "ThreadSanitizer";
  default:
    return nullptr;
  }
}

}  // namespace

// "avx2 fma" for the bits of features; unnamed bits print as "bit<N>".
std::string featureNames(uint64_t features) {
  if (!features) {
    return "none";
  }
  std::string text;
  for (unsigned bit = 0; bit < 64; ++bit) {
    uint64_t mask = uint64_t{1} << bit;
    if (!(features & mask)) {
      continue;
    }
    if (!text.empty()) {
      text += ' ';
    }
    switch (mask) {
    case STRATA_HAL_CPU_FEATURE_X86_AVX2:
      text += "avx2";
      break;
    case STRATA_HAL_CPU_FEATURE_X86_FMA:
      text += "fma";
      break;
    case STRATA_HAL_CPU_FEATURE_X86_AVX512F:
      text += "avx512f";
      break;
    case STRATA_HAL_CPU_FEATURE_X86_AMX_INT8: text += "amx-int8"; break;
    case STRATA_HAL_CPU_FEATURE_ARM_NEON:
      text += "neon";
      break;
    default:
      text += "bit" + std::to_string(bit);
      break;
    }
  }
  return text;
}

namespace {

// Checks everything about the library struct that does not depend on the
// host beyond version, sanitizer and features (checked by the caller).
strata_status_t validateTables(
    const char* name, const strata_hal_executable_library_v0_t* library) {
  const strata_hal_executable_export_table_v0_t& exports = library->exports;
  if (exports.count == 0) {
    return strata_make_status(STRATA_STATUS_INVALID_ARGUMENT,
                              "library '%s' exports no functions", name);
  }
  if (!exports.ptrs) {
    return strata_make_status(STRATA_STATUS_INVALID_ARGUMENT,
                              "library '%s' declares %" PRIu32
                              " exports but its function pointer table is "
                              "NULL",
                              name, exports.count);
  }
  for (uint32_t i = 0; i < exports.count; ++i) {
    if (!exports.ptrs[i]) {
      const char* export_name =
          exports.names && exports.names[i] ? exports.names[i] : "";
      return strata_make_status(STRATA_STATUS_INVALID_ARGUMENT,
                                "export %" PRIu32
                                " ('%s') of library '%s' has a NULL "
                                "function pointer",
                                i, export_name, name);
    }
  }
  const strata_hal_executable_import_table_v0_t& imports = library->imports;
  if (imports.count && !imports.symbols) {
    return strata_make_status(STRATA_STATUS_INVALID_ARGUMENT,
                              "library '%s' declares %" PRIu32
                              " imports but its symbol table is NULL",
                              name, imports.count);
  }
  for (uint32_t i = 0; i < imports.count; ++i) {
    const char* symbol = imports.symbols[i];
    if (!symbol || !symbol[0] || (symbol[0] == '?' && !symbol[1])) {
      return strata_make_status(
          STRATA_STATUS_INVALID_ARGUMENT,
          "import %" PRIu32 " of library '%s' has no symbol name", i, name);
    }
    // The runtime provides no host imports yet: optional ones resolve to
    // NULL and any other one cannot be satisfied.
    if (symbol[0] != '?') {
      return strata_make_status(STRATA_STATUS_NOT_FOUND,
                                "library '%s' imports '%s', which the "
                                "runtime does not provide (it provides no "
                                "imports; mark optional imports '?%s')",
                                name, symbol, symbol);
    }
  }
  return nullptr;
}

// Calls query and checks the header and tables; returns the library.
strata_status_t queryLibrary(
    const char* name, strata_hal_executable_library_query_fn_t query,
    const strata_hal_executable_library_v0_t** out_library) {
  if (const std::string& error = cpuFeatureOverrideError(); !error.empty()) {
    return strata_make_status(STRATA_STATUS_INVALID_ARGUMENT, "%s",
                              error.c_str());
  }
  // The library sees the host as it is; imports are resolved after the query.
  strata_hal_executable_environment_v0_t environment = {};
  environment.cpu_features = hostCpuFeatures();
  environment.worker_count = 1;
  const strata_hal_executable_library_header_t* const* result =
      query(kRuntimeVersion, &environment);
  if (!result) {
    return strata_make_status(STRATA_STATUS_FAILED_PRECONDITION,
                              "library '%s' has no ABI version the runtime "
                              "supports: its query returned NULL for "
                              "versions <= %" PRIu32,
                              name, kRuntimeVersion);
  }
  const strata_hal_executable_library_header_t* header = *result;
  if (!header) {
    return strata_make_status(STRATA_STATUS_INVALID_ARGUMENT,
                              "library '%s' returned a library whose header "
                              "is NULL",
                              name);
  }
  if (header->version > kRuntimeVersion) {
    return strata_make_status(STRATA_STATUS_FAILED_PRECONDITION,
                              "library '%s' has ABI version %" PRIu32
                              " but the runtime supports versions <= %" PRIu32,
                              name, header->version, kRuntimeVersion);
  }
  const char* library_sanitizer = sanitizerName(header->sanitizer);
  if (!library_sanitizer) {
    return strata_make_status(STRATA_STATUS_INVALID_ARGUMENT,
                              "library '%s' names unknown sanitizer %" PRIu32,
                              name, header->sanitizer);
  }
  uint32_t runtime_sanitizer = runtimeSanitizer();
  if (header->sanitizer != STRATA_HAL_EXECUTABLE_LIBRARY_SANITIZER_NONE &&
      header->sanitizer != runtime_sanitizer) {
    return strata_make_status(STRATA_STATUS_FAILED_PRECONDITION,
                              "library '%s' was built with %s but the runtime "
                              "was built with %s",
                              name, library_sanitizer,
                              sanitizerName(runtime_sanitizer));
  }
  uint64_t missing = header->required_features & ~environment.cpu_features;
  if (missing) {
    return strata_make_status(
        STRATA_STATUS_FAILED_PRECONDITION,
        "library '%s' needs CPU features this host lacks: %s (needs: %s; host "
        "has: %s)",
        name, featureNames(missing).c_str(),
        featureNames(header->required_features).c_str(),
        featureNames(environment.cpu_features).c_str());
  }
  auto* library =
      reinterpret_cast<const strata_hal_executable_library_v0_t*>(result);
  STRATA_RETURN_IF_ERROR(validateTables(name, library));
  *out_library = library;
  return nullptr;
}

size_t alignUp(size_t value, size_t alignment) {
  return (value + alignment - 1) & ~(alignment - 1);
}

// Writes "export<N>" for export ordinals without a name.
constexpr size_t kFallbackNameSize = sizeof("export4294967295");

std::atomic<uint64_t> g_host_feature_mask{~uint64_t{0}};

#if defined(__x86_64__)
// Whether this process may run AMX-INT8: CPUID reports AMX-TILE and
// AMX-INT8, the OS enabled the tile state in XCR0, and (Linux) it granted
// this process the tile data. The permission is per process, so asking
// once, before any kernel runs, covers every thread.
bool detectAmxInt8() {
  unsigned eax = 0, ebx = 0, ecx = 0, edx = 0;
  if (!__get_cpuid(1, &eax, &ebx, &ecx, &edx) || !(ecx & (1u << 27))) {
    return false;  // no OSXSAVE: XCR0 cannot be read
  }
  if (!__get_cpuid_count(7, 0, &eax, &ebx, &ecx, &edx)) {
    return false;
  }
  constexpr unsigned kAmxTile = 1u << 24, kAmxInt8 = 1u << 25;
  if ((edx & (kAmxTile | kAmxInt8)) != (kAmxTile | kAmxInt8)) {
    return false;
  }
  uint32_t xcr0_lo = 0, xcr0_hi = 0;
  __asm__ volatile("xgetbv" : "=a"(xcr0_lo), "=d"(xcr0_hi) : "c"(0));
  constexpr uint32_t kTileState = (1u << 17) | (1u << 18);  // XTILECFG/DATA
  if ((xcr0_lo & kTileState) != kTileState) {
    return false;
  }
#if defined(__linux__)
  constexpr long kArchReqXcompPerm = 0x1023;
  constexpr long kXfeatureXtiledata = 18;
  if (syscall(SYS_arch_prctl, kArchReqXcompPerm, kXfeatureXtiledata) != 0) {
    return false;  // kernel older than 5.16, or the permission refused
  }
#endif
  return true;
}
#endif

}  // namespace

uint64_t setHostCpuFeatureMask(uint64_t mask) {
  return g_host_feature_mask.exchange(mask);
}

bool parseCpuFeatures(const char* text, uint64_t* out, std::string* error) {
  std::string value = text ? text : "";
  constexpr uint64_t kAvx2Class =
      STRATA_HAL_CPU_FEATURE_X86_AVX2 | STRATA_HAL_CPU_FEATURE_X86_FMA;
  if (value == "baseline") {
    *out = 0;
    return true;
  }
  if (value == "avx2") {
    *out = kAvx2Class;
    return true;
  }
  if (value == "avx512") {
    *out = kAvx2Class | STRATA_HAL_CPU_FEATURE_X86_AVX512F;
    return true;
  }
  uint64_t bits = 0;
  size_t start = 0;
  while (true) {
    size_t comma = value.find(',', start);
    std::string name = value.substr(
        start, comma == std::string::npos ? std::string::npos : comma - start);
    uint64_t bit = 0;
    for (unsigned i = 0; i < 64 && !bit; ++i) {
      uint64_t mask = uint64_t{1} << i;
      std::string known = featureNames(mask);  // "bit<N>" when unnamed
      if (known == name && known.rfind("bit", 0) != 0) {
        bit = mask;
      }
    }
    if (!bit) {
      *error = "STRATA_CPU_FEATURES='" + value + "': '" + name +
               "' is not a CPU feature; give avx512, avx2 or baseline, or a "
               "comma-separated list of avx2, fma, avx512f, amx-int8, neon";
      return false;
    }
    bits |= bit;
    if (comma == std::string::npos) {
      break;
    }
    start = comma + 1;
  }
  *out = bits;
  return true;
}

const std::string& cpuFeatureOverrideError() {
  static const std::string error = [] {
    std::string text;
    uint64_t bits = 0;
    const char* value = std::getenv("STRATA_CPU_FEATURES");
    if (value && !parseCpuFeatures(value, &bits, &text)) {
      return text;
    }
    return std::string();
  }();
  return error;
}

uint64_t hostCpuFeatures() {
  static const uint64_t features = [] {
    uint64_t bits = 0;
#if defined(__x86_64__) || defined(__i386__)
    __builtin_cpu_init();
    if (__builtin_cpu_supports("avx2")) {
      bits |= STRATA_HAL_CPU_FEATURE_X86_AVX2;
    }
    if (__builtin_cpu_supports("fma")) {
      bits |= STRATA_HAL_CPU_FEATURE_X86_FMA;
    }
    if (__builtin_cpu_supports("avx512f")) {
      bits |= STRATA_HAL_CPU_FEATURE_X86_AVX512F;
    }
#if defined(__x86_64__)
    if (detectAmxInt8()) {
      bits |= STRATA_HAL_CPU_FEATURE_X86_AMX_INT8;
    }
#endif
#elif defined(__aarch64__)
    bits |= STRATA_HAL_CPU_FEATURE_ARM_NEON;  // mandatory on AArch64
#endif
    return bits;
  }();
  // STRATA_CPU_FEATURES lowers what the runtime believes the host has (a
  // bad value leaves the host as detected; loads fail naming it).
  static const uint64_t override_mask = [] {
    uint64_t bits = ~uint64_t{0};
    std::string error;
    const char* value = std::getenv("STRATA_CPU_FEATURES");
    if (value && !parseCpuFeatures(value, &bits, &error)) {
      return ~uint64_t{0};
    }
    return bits;
  }();
  return features & override_mask &
         g_host_feature_mask.load(std::memory_order_relaxed);
}

uint32_t runtimeSanitizer() {
  return STRATA_HAL_EXECUTABLE_LIBRARY_SANITIZER_BUILD;
}

namespace {

// Wraps a validated library in a new executable record. dl_handle (may be
// NULL) is dlclose()d and program (may be NULL) destroyed on failure and
// when the record is destroyed.
strata_status_t wrapLibrary(const char* name,
                            const strata_hal_executable_library_v0_t* library,
                            void* dl_handle, PortableProgram* program,
                            strata_allocator_t allocator,
                            strata_hal_executable_t** out_executable) {
  // One allocation: record | import_functions | export_names |
  // export environments (portable) | names.
  const strata_hal_executable_export_table_v0_t& exports = library->exports;
  const strata_hal_executable_import_table_v0_t& imports = library->imports;
  uint32_t unnamed_count = 0;
  for (uint32_t i = 0; i < exports.count; ++i) {
    unnamed_count += !exports.names || !exports.names[i];
  }
  size_t name_length = strlen(name);
  size_t imports_offset =
      alignUp(sizeof(strata_hal_executable_t), alignof(const void*));
  size_t names_offset = imports_offset + imports.count * sizeof(const void*);
  size_t environments_offset =
      alignUp(names_offset + exports.count * sizeof(const char*),
              alignof(strata_hal_executable_environment_v0_t));
  size_t chars_offset =
      environments_offset +
      (program ? exports.count * sizeof(strata_hal_executable_environment_v0_t)
               : 0);
  size_t total =
      chars_offset + unnamed_count * kFallbackNameSize + name_length + 1;
  void* memory = strata_allocator_alloc(allocator, total,
                                        alignof(strata_hal_executable_t));
  if (!memory) {
    if (dl_handle) {
      dlclose(dl_handle);
    }
    destroyPortableProgram(program);
    return strata_make_status(STRATA_STATUS_RESOURCE_EXHAUSTED,
                              "out of memory loading library '%s' (%zu bytes)",
                              name, total);
  }
  auto* bytes = static_cast<uint8_t*>(memory);
  auto* import_functions =
      reinterpret_cast<const void**>(bytes + imports_offset);
  auto* export_names = reinterpret_cast<const char**>(bytes + names_offset);
  auto* environments =
      reinterpret_cast<strata_hal_executable_environment_v0_t*>(
          bytes + environments_offset);
  char* chars = reinterpret_cast<char*>(bytes + chars_offset);

  for (uint32_t i = 0; i < imports.count; ++i) {
    import_functions[i] = nullptr;  // only optional imports get this far
  }
  for (uint32_t i = 0; i < exports.count; ++i) {
    if (exports.names && exports.names[i]) {
      export_names[i] = exports.names[i];
    } else {
      snprintf(chars, kFallbackNameSize, "export%" PRIu32, i);
      export_names[i] = chars;
      chars += kFallbackNameSize;
    }
  }
  memcpy(chars, name, name_length + 1);

  auto* executable = new (memory) strata_hal_executable_t();
  strata_vm_ref_object_init(&executable->header, &kExecutableType);
  executable->allocator = allocator;
  executable->library = library;
  executable->environment.cpu_features = hostCpuFeatures();
  executable->environment.worker_count = 1;
  executable->environment.import_functions =
      imports.count ? import_functions : nullptr;
  executable->export_count = exports.count;
  executable->export_ptrs = exports.ptrs;
  executable->export_attrs = exports.attrs;
  executable->export_names = export_names;
  executable->name = chars;
  executable->library_name =
      library->header->name ? library->header->name : chars;
  executable->dl_handle = dl_handle;
  executable->portable_program = program;
  executable->export_environments = nullptr;
  if (program) {
    for (uint32_t i = 0; i < exports.count; ++i) {
      environments[i] = executable->environment;
      environments[i].import_functions = &program->export_handles[i];
    }
    executable->export_environments = environments;
  }
  *out_executable = executable;
  return nullptr;
}

}  // namespace

strata_status_t createExecutable(const char* name,
                                 strata_hal_executable_library_query_fn_t query,
                                 void* dl_handle, strata_allocator_t allocator,
                                 strata_hal_executable_t** out_executable) {
  *out_executable = nullptr;
  const strata_hal_executable_library_v0_t* library = nullptr;
  strata_status_t status = queryLibrary(name, query, &library);
  if (status) {
    if (dl_handle) {
      dlclose(dl_handle);
    }
    return status;
  }
  return wrapLibrary(name, library, dl_handle, nullptr, allocator,
                     out_executable);
}

strata_status_t createPortableExecutable(
    const uint8_t* data, size_t size, const char* name,
    strata_allocator_t allocator, strata_hal_executable_t** out_executable) {
  *out_executable = nullptr;
  PortableProgram* program = nullptr;
  STRATA_RETURN_IF_ERROR(
      parsePortableProgram(data, size, name, allocator, &program));
  strata_status_t status = validateTables(name, &program->library);
  if (status) {
    destroyPortableProgram(program);
    return status;
  }
  return wrapLibrary(name, &program->library, nullptr, program, allocator,
                     out_executable);
}

strata_status_t validateDispatch(const strata_hal_executable_t* executable,
                                 uint32_t ordinal, uint32_t binding_count,
                                 uint32_t constant_count,
                                 const uint32_t* workgroup_size) {
  if (ordinal >= executable->export_count) {
    return strata_make_status(STRATA_STATUS_OUT_OF_RANGE,
                              "dispatch of export ordinal %" PRIu32
                              " but library '%s' has %" PRIu32 " exports",
                              ordinal, executable->library_name,
                              executable->export_count);
  }
  const char* export_name = executable->export_names[ordinal];
  if (!executable->export_attrs) {
    if (binding_count || constant_count) {
      return strata_make_status(
          STRATA_STATUS_INVALID_ARGUMENT,
          "export '%s' of library '%s' has no dispatch attributes, so it "
          "takes no bindings or constants; the dispatch passes %" PRIu32
          " bindings and %" PRIu32 " constants",
          export_name, executable->library_name, binding_count, constant_count);
    }
    return nullptr;
  }
  const strata_hal_executable_dispatch_attrs_v0_t& attrs =
      executable->export_attrs[ordinal];
  if (binding_count != attrs.binding_count) {
    return strata_make_status(STRATA_STATUS_INVALID_ARGUMENT,
                              "export '%s' of library '%s' takes %u bindings "
                              "but the dispatch passes %" PRIu32,
                              export_name, executable->library_name,
                              static_cast<unsigned>(attrs.binding_count),
                              binding_count);
  }
  if (constant_count != attrs.constant_count) {
    return strata_make_status(STRATA_STATUS_INVALID_ARGUMENT,
                              "export '%s' of library '%s' takes %u push "
                              "constants but the dispatch passes %" PRIu32,
                              export_name, executable->library_name,
                              static_cast<unsigned>(attrs.constant_count),
                              constant_count);
  }
  if (workgroup_size &&
      (attrs.workgroup_size_x || attrs.workgroup_size_y ||
       attrs.workgroup_size_z) &&
      (workgroup_size[0] != attrs.workgroup_size_x ||
       workgroup_size[1] != attrs.workgroup_size_y ||
       workgroup_size[2] != attrs.workgroup_size_z)) {
    return strata_make_status(
        STRATA_STATUS_INVALID_ARGUMENT,
        "export '%s' of library '%s' has workgroup size %" PRIu32 "x%" PRIu32
        "x%" PRIu32 " but the dispatch uses %" PRIu32 "x%" PRIu32 "x%" PRIu32,
        export_name, executable->library_name, attrs.workgroup_size_x,
        attrs.workgroup_size_y, attrs.workgroup_size_z, workgroup_size[0],
        workgroup_size[1], workgroup_size[2]);
  }
  return nullptr;
}

}  // namespace strata::hal

using strata::hal::kExecutableType;

extern "C" {

const strata_vm_ref_type_t* strata_hal_executable_type(void) {
  return &kExecutableType;
}

strata_hal_executable_t* strata_hal_executable_from_ref(
    strata_vm_ref_object_t* ref) {
  return strata_vm_ref_isa(ref, &kExecutableType)
             ? reinterpret_cast<strata_hal_executable_t*>(ref)
             : nullptr;
}

const char* strata_hal_executable_name(
    const strata_hal_executable_t* executable) {
  return executable->name;
}

const char* strata_hal_executable_library_name(
    const strata_hal_executable_t* executable) {
  return executable->library_name;
}

uint64_t strata_hal_executable_required_features(
    const strata_hal_executable_t* executable) {
  return executable->library->header->required_features;
}

size_t strata_hal_cpu_feature_names(uint64_t features, char* buffer,
                                    size_t capacity) {
  std::string names = strata::hal::featureNames(features);
  if (capacity) {
    size_t n = names.size() < capacity - 1 ? names.size() : capacity - 1;
    std::memcpy(buffer, names.data(), n);
    buffer[n] = '\0';
  }
  return names.size();
}

uint32_t strata_hal_executable_export_count(
    const strata_hal_executable_t* executable) {
  return executable->export_count;
}

const char* strata_hal_executable_export_name(
    const strata_hal_executable_t* executable, uint32_t ordinal) {
  return ordinal < executable->export_count ? executable->export_names[ordinal]
                                            : nullptr;
}

const char* strata_hal_executable_export_tag(
    const strata_hal_executable_t* executable, uint32_t ordinal) {
  const char* const* tags = executable->library->exports.tags;
  return ordinal < executable->export_count && tags ? tags[ordinal] : nullptr;
}

const strata_hal_executable_dispatch_attrs_v0_t*
strata_hal_executable_export_attrs(const strata_hal_executable_t* executable,
                                   uint32_t ordinal) {
  return ordinal < executable->export_count && executable->export_attrs
             ? &executable->export_attrs[ordinal]
             : nullptr;
}

strata_status_t strata_hal_executable_lookup_export(
    const strata_hal_executable_t* executable, const char* name,
    uint32_t* out_ordinal) {
  if (!name) {
    return strata_make_status(STRATA_STATUS_INVALID_ARGUMENT,
                              "export name is NULL");
  }
  for (uint32_t i = 0; i < executable->export_count; ++i) {
    if (strcmp(executable->export_names[i], name) == 0) {
      *out_ordinal = i;
      return nullptr;
    }
  }
  std::string list;
  for (uint32_t i = 0; i < executable->export_count; ++i) {
    if (list.size() > strata::hal::kMaxListedChars) {
      list += ", ...";
      break;
    }
    if (i) {
      list += ", ";
    }
    list += executable->export_names[i];
  }
  return strata_make_status(STRATA_STATUS_NOT_FOUND,
                            "library '%s' has no export '%s'; its exports "
                            "are: %s",
                            executable->library_name, name, list.c_str());
}

const strata_hal_executable_environment_v0_t* strata_hal_executable_environment(
    const strata_hal_executable_t* executable) {
  return &executable->environment;
}

void strata_hal_executable_set_worker_count(strata_hal_executable_t* executable,
                                            uint32_t worker_count) {
  strata::hal::setWorkerCount(executable, worker_count);
}

}  // extern "C"
