// library_fuzzer.cpp - libFuzzer target for the kernel-library loader's
// checks: the bytes describe a library struct (header version, sanitizer,
// features, name; import and export tables with NULL or present entries;
// export attributes), which a query function hands to createExecutable, as
// a dlopen()ed library would; each accepted library then gets fuzzed
// dispatch checks (validateDispatch). No library code is ever called.
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "executable_impl.h"
#include "strata/hal/executable_library.h"

namespace {

// Reads the input front to back; zeros once it runs out.
struct Reader {
  const uint8_t* data;
  size_t size;
  size_t at = 0;
  uint8_t u8() { return at < size ? data[at++] : 0; }
  uint32_t u32() {
    uint32_t v = 0;
    for (int i = 0; i < 4; ++i) v |= uint32_t{u8()} << (8 * i);
    return v;
  }
  uint64_t u64() { return uint64_t{u32()} | uint64_t{u32()} << 32; }
  std::string text() {
    size_t length = u8() % 24;
    std::string out;
    for (size_t i = 0; i < length; ++i) out.push_back(static_cast<char>(u8()));
    return out;  // may hold NULs: C readers see a shorter name
  }
};

int kernel(const strata_hal_executable_environment_v0_t*,
           const strata_hal_executable_dispatch_state_v0_t*,
           const strata_hal_executable_workgroup_state_v0_t*) {
  return 0;
}

// The library the query function returns for the current input.
struct FuzzedLibrary {
  strata_hal_executable_library_header_t header = {};
  strata_hal_executable_library_v0_t library = {};
  std::string name;
  std::vector<std::string> import_storage, name_storage;
  std::vector<const char*> imports, names, tags;
  std::vector<strata_hal_executable_dispatch_v0_t> ptrs;
  std::vector<strata_hal_executable_dispatch_attrs_v0_t> attrs;
  bool return_null = false;
};
FuzzedLibrary* current = nullptr;

const strata_hal_executable_library_header_t* const* query(
    uint32_t, const strata_hal_executable_environment_v0_t*) {
  if (current->return_null) return nullptr;
  return &current->library.header;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  Reader in{data, size};
  FuzzedLibrary lib;
  uint8_t flags = in.u8();
  lib.return_null = (flags & 0x80) && (flags & 0x40);
  // Mostly version 0 and the right sanitizer, so the tables get checked.
  lib.header.version = (flags & 1) ? in.u32() : 0;
  lib.header.sanitizer = (flags & 2)
                             ? in.u32()
                             : STRATA_HAL_EXECUTABLE_LIBRARY_SANITIZER_BUILD;
  lib.header.required_features = (flags & 4) ? in.u64() : 0;
  lib.name = in.text();
  lib.header.name = (flags & 8) ? nullptr : lib.name.c_str();
  lib.library.header = &lib.header;

  uint32_t import_count = in.u8() % 8;
  for (uint32_t i = 0; i < import_count; ++i) {
    lib.import_storage.push_back(in.text());
  }
  for (uint32_t i = 0; i < import_count; ++i) {
    lib.imports.push_back((in.u8() & 3) == 0 ? nullptr
                                             : lib.import_storage[i].c_str());
  }
  lib.library.imports.count = import_count;
  lib.library.imports.symbols =
      (flags & 16) || import_count == 0 ? nullptr : lib.imports.data();
  if ((flags & 16) && (flags & 32)) {
    lib.library.imports.symbols = nullptr;  // declared but NULL
  }

  uint32_t export_count = in.u8() % 12;
  for (uint32_t i = 0; i < export_count; ++i) {
    uint8_t bits = in.u8();
    lib.ptrs.push_back((bits & 0x0F) == 0 ? nullptr : kernel);
    lib.name_storage.push_back(in.text());
    strata_hal_executable_dispatch_attrs_v0_t a = {};
    a.binding_count = static_cast<uint16_t>(in.u8() % 80);
    a.constant_count = static_cast<uint16_t>(in.u8() % 300);
    a.local_memory_size = (bits & 0x10) ? in.u32() : 0;
    a.workgroup_size_x = (bits & 0x20) ? in.u32() : 0;
    a.workgroup_size_y = (bits & 0x20) ? in.u32() : 0;
    a.workgroup_size_z = (bits & 0x20) ? in.u32() : 0;
    lib.attrs.push_back(a);
  }
  for (uint32_t i = 0; i < export_count; ++i) {
    lib.names.push_back((in.u8() & 3) == 0 ? nullptr
                                           : lib.name_storage[i].c_str());
    lib.tags.push_back(nullptr);
  }
  lib.library.exports.count = export_count;
  lib.library.exports.ptrs = (flags & 64) ? nullptr : lib.ptrs.data();
  if (export_count == 0) lib.library.exports.ptrs = nullptr;
  lib.library.exports.names = export_count ? lib.names.data() : nullptr;
  lib.library.exports.tags = export_count ? lib.tags.data() : nullptr;
  lib.library.exports.attrs =
      export_count && (in.u8() & 1) ? lib.attrs.data() : nullptr;

  current = &lib;
  strata_hal_executable_t* executable = nullptr;
  strata_status_t status = strata::hal::createExecutable(
      "fuzzed", query, nullptr, strata_allocator_system(), &executable);
  if (status) {
    // Every refusal names the library.
    if (!strata_status_message(status) ||
        !std::strstr(strata_status_message(status), "fuzzed")) {
      __builtin_trap();
    }
    strata_status_free(status);
    current = nullptr;
    return 0;
  }
  // Dispatch checks of the accepted library: every answer is OK or a
  // status, whatever the ordinal, counts and workgroup size.
  for (int i = 0; i < 8 && in.at < in.size; ++i) {
    uint32_t ordinal = in.u8() % 16;
    uint32_t bindings = in.u8() % 80;
    uint32_t constants = in.u8();
    uint32_t workgroup[3] = {in.u32(), in.u32(), in.u32()};
    strata_status_free(strata::hal::validateDispatch(
        executable, ordinal, bindings, constants,
        (in.u8() & 1) ? workgroup : nullptr));
  }
  current = nullptr;
  strata_hal_executable_release(executable);
  return 0;
}
