//===- KernelGuards.h - kernel code that cannot fault on data ---*- C++ -*-===//
#ifndef STRATA_LIB_TARGET_LLVMCPU_KERNELGUARDS_H_
#define STRATA_LIB_TARGET_LLVMCPU_KERNELGUARDS_H_

namespace llvm {
class Module;
} // namespace llvm

namespace mlir::strata::llvmcpu {

/// Rewrites every integer division and remainder (sdiv, udiv, srem, urem,
/// scalar or vector) whose divisor is not a constant known to be safe so
/// that it cannot trap or be undefined: x / 0 = 0 and x % 0 = 0 (signed and
/// unsigned), INT_MIN / -1 = INT_MIN (wraps) and INT_MIN % -1 = 0. Run on
/// the kernels' LLVM IR before any optimization, which may otherwise exploit
/// the undefined cases. Returns the number of operations guarded.
unsigned guardIntegerDivision(llvm::Module &module);

/// Replaces every scalar i1 load with a byte load and a compare with 0: a
/// boolean tensor element is one byte, and bytes other than 0 and 1 (from a
/// caller's buffer) read as true rather than as an i1 with stray bits.
/// Returns the number of loads rewritten.
unsigned normalizeBoolLoads(llvm::Module &module);

} // namespace mlir::strata::llvmcpu

#endif // STRATA_LIB_TARGET_LLVMCPU_KERNELGUARDS_H_
