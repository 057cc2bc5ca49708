// hal_imports.h - the hal module's functions (hal_imports.def) as a constexpr
// table, and the checks that keep the table well-formed. The runtime's hal
// module and the compiler's import declarations both include this header, so
// a row that does not parse, a typed signature that does not spell its
// calling convention, a duplicate name or a version past the module's fails
// the build of either side.
//
// Header-only C++17 on format.h and calling_convention.h.
#ifndef STRATA_SCHEMAS_HAL_IMPORTS_H_
#define STRATA_SCHEMAS_HAL_IMPORTS_H_

#include <cstddef>
#include <cstdint>
#include <string_view>

#include "calling_convention.h"

namespace strata::hal_imports {

// The hal module's version: the highest `since` of the table. The runtime's
// STRATA_HAL_MODULE_VERSION (strata/modules/hal/module.h) must equal it.
//   1  the first table
//   2  allocator.allocate_uninitialized and buffer.wrap
//   3  executable.create_first (multi-ISA modules)
inline constexpr uint32_t kVersion = 3;

// The module name every import is prefixed with ("hal.").
inline constexpr std::string_view kModuleName = "hal";

struct Import {
  std::string_view name;   // after "hal."
  std::string_view cconv;  // the calling convention an import must have
  std::string_view sig;    // the typed signature (hal_imports.def)
  uint32_t since;          // the module version that added it
};

inline constexpr Import kImports[] = {
#define STRATA_HAL_IMPORT(fn, name, cconv, sig, since) \
  {name, cconv, sig, since},
#include "hal_imports.def"
};

inline constexpr size_t kImportCount = sizeof(kImports) / sizeof(kImports[0]);

// The row named `name` (after "hal."), or nullptr.
constexpr const Import* find(std::string_view name) {
  for (const Import& import : kImports) {
    if (import.name == name) {
      return &import;
    }
  }
  return nullptr;
}

//===------------------------------------------------------------------===//
// Build-time checks of the table
//===------------------------------------------------------------------===//

namespace detail {

// The calling-convention char of one type of a signature, or 0 when the
// type is not one the table knows.
constexpr char sigTypeChar(std::string_view type) {
  if (!type.empty() && type.back() == '?') {
    type.remove_suffix(1);
    if (type == "i32" || type == "i64" || type == "rodata") {
      return 0;  // only refs of hal objects (or any) may be null
    }
  }
  if (type == "i32") return 'i';
  if (type == "i64") return 'I';
  for (std::string_view ref :
       {"rodata", "any", "device", "allocator", "buffer", "buffer_view",
        "command_buffer", "fence", "executable"}) {
    if (type == ref) return 'r';
  }
  return 0;
}

// sig is well-formed (hal_imports.def's grammar) and spells cconv exactly.
constexpr bool sigMatches(const Import& import) {
  std::string_view sig = import.sig;
  std::string_view cconv = import.cconv;
  size_t arrow = sig.find("->");
  if (arrow == std::string_view::npos || cconv.size() < 2 || cconv[0] != '0') {
    return false;
  }
  size_t c = 1;  // next cconv char to match
  auto expect = [&](char want) {
    if (c >= cconv.size() || cconv[c] != want) return false;
    ++c;
    return true;
  };
  // Parameters: space-separated `name:type` or `name:[type ...]`.
  std::string_view params = sig.substr(0, arrow);
  size_t i = 0;
  while (i < params.size()) {
    if (params[i] == ' ') {
      ++i;
      continue;
    }
    size_t colon = params.find(':', i);
    if (colon == std::string_view::npos || colon == i) return false;
    size_t j = colon + 1;
    if (j < params.size() && params[j] == '[') {
      size_t close = params.find(']', j);
      if (close == std::string_view::npos || close == j + 1) return false;
      if (!expect('C')) return false;
      size_t k = j + 1;
      while (k < close) {
        size_t space = params.find(' ', k);
        size_t stop = space < close ? space : close;
        char t = sigTypeChar(params.substr(k, stop - k));
        if (t == 0 || !expect(t)) return false;
        k = stop + (stop < close ? 1 : 0);
      }
      if (!expect('D')) return false;
      i = close + 1;
    } else {
      size_t space = params.find(' ', j);
      size_t stop = space == std::string_view::npos ? params.size() : space;
      char t = sigTypeChar(params.substr(j, stop - j));
      if (t == 0 || !expect(t)) return false;
      i = stop;
    }
  }
  if (!expect('_')) return false;
  // At most one result, a type without a name.
  std::string_view result = sig.substr(arrow + 2);
  while (!result.empty() && result.front() == ' ') result.remove_prefix(1);
  if (!result.empty()) {
    char t = sigTypeChar(result);
    if (t == 0 || result.back() == '?' || !expect(t)) return false;
  }
  return c == cconv.size();
}

constexpr bool allWellFormed() {
  for (const Import& import : kImports) {
    cconv::Parsed parsed;
    cconv::Error error;
    if (!cconv::parse(import.cconv, /*allow_variadic=*/true, &parsed, &error) ||
        !sigMatches(import)) {
      return false;
    }
  }
  return true;
}

constexpr bool namesUnique() {
  for (size_t i = 0; i < kImportCount; ++i) {
    for (size_t j = i + 1; j < kImportCount; ++j) {
      if (kImports[i].name == kImports[j].name) {
        return false;
      }
    }
  }
  return true;
}

constexpr uint32_t highestSince() {
  uint32_t highest = 0;
  for (const Import& import : kImports) {
    highest = import.since > highest ? import.since : highest;
  }
  return highest;
}

}  // namespace detail

static_assert(detail::allWellFormed(),
              "hal_imports.def: a calling convention does not parse, or a "
              "typed signature does not spell its calling convention");
static_assert(detail::namesUnique(), "hal_imports.def: a name repeats");
static_assert(detail::highestSince() == kVersion,
              "hal_imports.def: kVersion must be the highest `since` (a new "
              "row bumps the hal module version)");

}  // namespace strata::hal_imports

#endif  // STRATA_SCHEMAS_HAL_IMPORTS_H_
