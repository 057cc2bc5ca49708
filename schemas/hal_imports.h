// hal_imports.h - the hal module's functions (hal_imports.def) as a constexpr
// table, and the checks that keep the table well-formed. The runtime's hal
// module and the compiler's import declarations both include this header, so
// a row that does not parse, a typed convention that disagrees with its
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
// STRATA_HAL_MODULE_VERSION (strata/hal/module.h) must equal it.
//   1  the first table
//   2  allocator.allocate_uninitialized and buffer.wrap
inline constexpr uint32_t kVersion = 2;

// The module name every import is prefixed with ("hal.").
inline constexpr std::string_view kModuleName = "hal";

struct Import {
  std::string_view name;   // after "hal."
  std::string_view cconv;  // the calling convention an import must have
  std::string_view typed;  // cconv with 'b' for vm.buffer refs
  uint32_t since;          // the module version that added it
};

inline constexpr Import kImports[] = {
#define STRATA_HAL_IMPORT(fn, name, cconv, typed, since) \
  {name, cconv, (sizeof(typed) > 1 ? typed : cconv), since},
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

// typed is cconv with some 'r' written 'b'.
constexpr bool typedMatches(const Import& import) {
  if (import.typed.size() != import.cconv.size()) {
    return false;
  }
  for (size_t i = 0; i < import.cconv.size(); ++i) {
    char t = import.typed[i];
    if (t != import.cconv[i] && !(t == 'b' && import.cconv[i] == 'r')) {
      return false;
    }
  }
  return true;
}

constexpr bool allWellFormed() {
  for (const Import& import : kImports) {
    cconv::Parsed parsed;
    cconv::Error error;
    if (!cconv::parse(import.cconv, /*allow_variadic=*/true, &parsed, &error) ||
        !typedMatches(import)) {
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
              "typed convention is not its cconv with 'b' for some 'r'");
static_assert(detail::namesUnique(), "hal_imports.def: a name repeats");
static_assert(detail::highestSince() == kVersion,
              "hal_imports.def: kVersion must be the highest `since` (a new "
              "row bumps the hal module version)");

}  // namespace strata::hal_imports

#endif  // STRATA_SCHEMAS_HAL_IMPORTS_H_
