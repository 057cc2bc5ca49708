//===- UkernelLinker.h - microkernel bitcode into the kernel module -*- C++
//-*-===//
#ifndef STRATA_LIB_TARGET_LLVMCPU_UKERNELLINKER_H_
#define STRATA_LIB_TARGET_LLVMCPU_UKERNELLINKER_H_

#include <string>

#include "llvm/ADT/StringRef.h"

namespace llvm {
class Module;
} // namespace llvm

namespace mlir::strata::llvmcpu {

/// When `module` calls microkernels (declarations such as
/// strata_ukernel_sgemm_f32), links their definitions from the embedded
/// bitcode of `variant` ("avx512", "avx2") into it, with internal linkage.
/// Returns an error message, or an empty string.
std::string linkUkernels(llvm::Module &module, llvm::StringRef variant);

} // namespace mlir::strata::llvmcpu

#endif // STRATA_LIB_TARGET_LLVMCPU_UKERNELLINKER_H_
