//===- UkernelBitcode.h - the microkernels, embedded as LLVM bitcode -*- C++
//-*-===//
//
// The C microkernels in this folder, compiled by clang-22 at build time
// (meson.build) and embedded by embed_bitcode.py.
//
//===----------------------------------------------------------------------===//
#ifndef STRATA_CODEGEN_LLVMCPU_UKERNEL_UKERNELBITCODE_H_
#define STRATA_CODEGEN_LLVMCPU_UKERNEL_UKERNELBITCODE_H_

#include "llvm/ADT/StringRef.h"

namespace mlir::strata::llvmcpu {

/// The bitcode of microkernel variant `name` ("sgemm_avx512", "sgemm_avx2"),
/// x86_64; empty when there is no such variant. The bytes live as long as
/// the program.
llvm::StringRef getUkernelBitcode(llvm::StringRef name);

} // namespace mlir::strata::llvmcpu

#endif // STRATA_CODEGEN_LLVMCPU_UKERNEL_UKERNELBITCODE_H_
