//===- UkernelLinker.cpp - microkernel bitcode into the kernel module -----===//
//
// The code generator leaves calls of microkernels (LowerToUkernels.cpp) as
// declarations; their definitions come from the C microkernels compiled to
// bitcode at build time (Codegen/LLVMCPU/ukernel). Only the variant for the
// target's features is linked, only what is called, and with internal
// linkage, so the library still exports just its query function.
//
//===----------------------------------------------------------------------===//
#include "UkernelLinker.h"

#include "Strata/Codegen/LLVMCPU/Codegen.h"
#include "UkernelBitcode.h"
#include "llvm/Bitcode/BitcodeReader.h"
#include "llvm/IR/Module.h"
#include "llvm/Linker/Linker.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/MemoryBuffer.h"

namespace mlir::strata::llvmcpu {

std::string linkUkernels(llvm::Module &module, llvm::StringRef variant) {
  const llvm::StringLiteral symbols[] = {
      kSgemmUkernelSymbol, kSconvUkernelSymbol, kSdwconvUkernelSymbol,
      kIgemmUkernelSymbol, kIdwconvUkernelSymbol};
  llvm::SmallVector<llvm::StringRef, 2> called;
  for (llvm::StringRef symbol : symbols) {
    llvm::Function *declaration = module.getFunction(symbol);
    if (declaration && declaration->isDeclaration()) {
      called.push_back(symbol);
    }
  }
  if (called.empty()) {
    return {};
  }
  std::string name = ("sgemm_" + variant).str();
  llvm::StringRef bitcode = getUkernelBitcode(name);
  if (bitcode.empty()) {
    return "no matmul microkernel for variant '" + variant.str() + "'";
  }
  llvm::Expected<std::unique_ptr<llvm::Module>> ukernel =
      llvm::parseBitcodeFile(llvm::MemoryBufferRef(bitcode, name),
                             module.getContext());
  if (!ukernel) {
    return "cannot read the " + name +
           " microkernel bitcode: " + llvm::toString(ukernel.takeError());
  }
  // Same machine: the kernel module's triple and layout win (the target
  // machine sets both again before emitting).
  (*ukernel)->setTargetTriple(module.getTargetTriple());
  (*ukernel)->setDataLayout(module.getDataLayout());
  if (llvm::Linker::linkModules(module, std::move(*ukernel),
                                llvm::Linker::Flags::LinkOnlyNeeded)) {
    return "cannot link the " + name + " microkernel";
  }
  for (llvm::StringRef symbol : called) {
    llvm::Function *definition = module.getFunction(symbol);
    if (!definition || definition->isDeclaration()) {
      return "the " + name + " microkernel does not define " + symbol.str();
    }
    definition->setLinkage(llvm::GlobalValue::InternalLinkage);
  }
  return {};
}

} // namespace mlir::strata::llvmcpu
