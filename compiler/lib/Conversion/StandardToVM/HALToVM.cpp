// HALToVM.cpp - hal.executable -> rodata, a global and the initializer that
// loads it (HALToVM.h).

#include "HALToVM.h"

#include "HALImports.h"

#include "Strata/Dialect/HAL/IR/HALOps.h"

using namespace mlir;
using namespace mlir::strata;

void mlir::strata::convertHALExecutables(vm::ModuleOp vmModule,
                                         HALExports &exports) {
  Block &body = vmModule.getBody().front();
  SmallVector<hal::ExecutableOp> executables(body.getOps<hal::ExecutableOp>());
  if (executables.empty()) {
    return;
  }
  MLIRContext *context = vmModule.getContext();
  Location loc = vmModule.getLoc();
  OpBuilder builder(context);
  // __init: load each kernel library once per context, so a bad library
  // fails when the context is made, not at the first call.
  OpBuilder initBuilder = getInitializerBuilder(vmModule);
  HalBuilder hal(initBuilder, loc);
  Value device = hal.call("hal.devices.get", {hal.i32(0)}, hal.refTy());
  for (auto [index, executable] : llvm::enumerate(executables)) {
    std::string suffix = index ? "_" + std::to_string(index) : "";
    std::string global = "__executable" + suffix;
    std::string format = "__executable_format" + suffix;
    std::string library = "__executable_library" + suffix;
    builder.setInsertionPoint(executable);
    vm::RodataOp::create(builder, executable.getLoc(), format,
                         executable.getFormatAttr());
    vm::RodataOp::create(builder, executable.getLoc(), library,
                         executable.getDataAttr());
    vm::GlobalRefOp::create(
        builder, executable.getLoc(), builder.getStringAttr(global),
        /*is_mutable=*/builder.getUnitAttr(), TypeAttr::get(hal.refTy()));
    Value loaded = hal.call("hal.executable.create",
                            {device, hal.rodata(format), hal.rodata(library)},
                            hal.refTy());
    vm::GlobalStoreRefOp::create(initBuilder, loc, loaded,
                                 FlatSymbolRefAttr::get(context, global));
    for (auto entry : executable.getOps<hal::ExecutableExportOp>()) {
      ArrayRef<int32_t> grid = entry.getWorkgroupCount();
      auto ref =
          SymbolRefAttr::get(executable.getSymNameAttr(),
                             {FlatSymbolRefAttr::get(entry.getSymNameAttr())});
      exports.exports[ref] = {static_cast<int32_t>(entry.getOrdinal()),
                              {grid[0], grid[1], grid[2]},
                              global};
    }
    executable.erase();
  }
}
