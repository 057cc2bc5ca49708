// HALToVM.h - hal executables in the vm conversion: the kernel libraries in
// rodata, loaded once per context into globals that dispatches read.

#ifndef STRATA_CONVERSION_STANDARDTOVM_HALTOVM_H
#define STRATA_CONVERSION_STANDARDTOVM_HALTOVM_H

#include "Strata/Dialect/VM/IR/VMOps.h"

#include "llvm/ADT/DenseMap.h"

#include <array>
#include <string>

namespace mlir::strata {

/// The exports of the converted executables, by `@executable::@export`.
struct HALExports {
  struct Export {
    int32_t ordinal;
    std::array<int32_t, 3> workgroups;
    /// The ref global that holds the loaded executable.
    std::string global;
  };
  llvm::DenseMap<Attribute, Export> exports;
};

/// Replaces each hal.executable of `vmModule` with its format and library as
/// rodata, a ref global, and an initializer (`__init`) that creates the
/// executables once per context; records their exports in `exports`.
void convertHALExecutables(vm::ModuleOp vmModule, HALExports &exports);

} // namespace mlir::strata

#endif // STRATA_CONVERSION_STANDARDTOVM_HALTOVM_H
