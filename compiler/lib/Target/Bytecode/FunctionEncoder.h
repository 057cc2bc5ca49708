// FunctionEncoder.h - encodes one vm.func's (or the vm.initializer's) body as
// bytecode, driven by the format strings of schemas/opcodes.def.

#ifndef STRATA_TARGET_BYTECODE_FUNCTIONENCODER_H
#define STRATA_TARGET_BYTECODE_FUNCTIONENCODER_H

#include "Strata/Dialect/VM/IR/VMOps.h"
#include "Strata/Target/Bytecode/RegisterAllocation.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/StringMap.h"

#include "module_writer.h"

namespace mlir::strata::vm {

/// Module-wide ordinals the encoder writes into operands.
struct ModuleOrdinals {
  llvm::StringMap<uint32_t> functions;   // F
  llvm::StringMap<uint32_t> imports;     // M
  llvm::StringMap<uint32_t> primGlobals; // w, W: byte offsets
  llvm::StringMap<uint32_t> refGlobals;  // G
  llvm::StringMap<uint32_t> rodata;      // D
  llvm::StringMap<uint32_t> types;       // T, filled on first use
};

/// The format string of an opcodes.def row.
llvm::StringRef getOpcodeFormat(Opcode opcode);

/// The name of a ref type as module.types lists it ("vm.buffer",
/// "hal.buffer"), or failure for `!vm.ref<?>`, which names no type.
FailureOr<std::string> getRefTypeName(Type type);

/// Writes `func`'s blocks into `builder` in region order, with the registers
/// of `registers` (which may hand out scratch registers while encoding).
/// `addType` registers a type name with the module and returns its ordinal.
LogicalResult
encodeFunction(FunctionOpInterface func, RegisterAllocation &registers,
               ModuleOrdinals &ordinals,
               llvm::function_ref<uint32_t(llvm::StringRef)> addType,
               bool emitLocations,
               ::strata::vm::writer::FunctionWriter &builder);

} // namespace mlir::strata::vm

#endif // STRATA_TARGET_BYTECODE_FUNCTIONENCODER_H
