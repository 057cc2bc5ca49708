// StreamToVM.h - stream ops in the vm conversion: each becomes calls of the
// hal module (schemas/hal_imports.def has the import contract).

#ifndef STRATA_CONVERSION_STANDARDTOVM_STREAMTOVM_H
#define STRATA_CONVERSION_STANDARDTOVM_STREAMTOVM_H

#include "HALToVM.h"

#include "mlir/Transforms/DialectConversion.h"

namespace mlir::strata {

/// The ref global that holds each constant's read-only hal.buffer, by
/// value.
using ConstantGlobals = llvm::DenseMap<Attribute, std::string>;

/// Stores the data of each stream.resource.constant of `vmModule` once, as
/// 64-byte aligned rodata, and wraps it in place (hal.buffer.wrap, no copy)
/// into a global in the initializer, once per context; records the globals.
void convertStreamConstants(vm::ModuleOp vmModule, ConstantGlobals &globals);

/// Reports the first stream.cmd.dispatch under `root` whose entry point is
/// no export of a converted executable.
LogicalResult checkDispatchEntryPoints(Operation *root,
                                       const HALExports &exports);

/// stream ops -> vm calls of the hal module: the context, allocations,
/// constants (loads of their globals), tensor views, submissions (a
/// stream.cmd.execute and its commands, dispatching the exports of `exports`)
/// and timepoints.
void populateStreamToVMPatterns(const TypeConverter &typeConverter,
                                RewritePatternSet &patterns,
                                const HALExports &exports,
                                const ConstantGlobals &constants);

} // namespace mlir::strata

#endif // STRATA_CONVERSION_STANDARDTOVM_STREAMTOVM_H
