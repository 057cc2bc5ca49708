//===- KernelEncoder.h - bufferized dispatches to kernel bytecode -*- C++
//-*-===//
//
// Encodes the bufferized dispatch functions of an executable as one
// portable-bytecode program (schemas/kernel_bytecode.h): every linalg op a
// loop nest over its iteration space with strided accesses, its body as
// chunked vector instructions; f32, f16 and bf16 contractions as matmul
// instructions.
//
//===----------------------------------------------------------------------===//
#ifndef STRATA_TARGET_PORTABLE_KERNELENCODER_H_
#define STRATA_TARGET_PORTABLE_KERNELENCODER_H_

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"

#include <cstdint>
#include <vector>

namespace mlir::strata::portable {

/// Appends the encoding of one export to `words`: the function's memref
/// arguments other than the two workgroup ids (index arguments at
/// `inputCount`, `inputCount + 1`) are its bindings in order. Reports at the
/// op it cannot encode and fails then. `workgroups`: the grid's x size
/// (an export of one instruction and no temporaries splits the outermost
/// loop of its instruction over workgroups; others run as one).
LogicalResult encodeExport(func::FuncOp func, unsigned inputCount,
                           std::vector<uint32_t> &words, uint32_t &workgroups);

/// The program header for `exportCount` exports.
void encodeProgramHeader(uint32_t exportCount, std::vector<uint32_t> &words);

} // namespace mlir::strata::portable

#endif // STRATA_TARGET_PORTABLE_KERNELENCODER_H_
