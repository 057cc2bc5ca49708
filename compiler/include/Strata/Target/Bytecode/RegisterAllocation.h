// RegisterAllocation.h - liveness and register assignment of one vm.func for
// the bytecode encoder.

#ifndef STRATA_TARGET_BYTECODE_REGISTERALLOCATION_H
#define STRATA_TARGET_BYTECODE_REGISTERALLOCATION_H

#include "Strata/Dialect/VM/IR/VMOps.h"

#include "mlir/Analysis/Liveness.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/SmallVector.h"

#include <cstdint>
#include <memory>

namespace mlir::strata::vm {

/// Assigns every value of a vm.func (or vm.initializer) a register of its bank
/// (primitive or ref, schemas/format.h) so that no two values live at the same
/// point share one.
///
/// The blocks are laid out in region order and every op gets two points:
/// its operands are read at 2n and its results written at 2n + 1, so a result
/// may take the register of an operand that dies at the op. A value is live
/// over a set of intervals, one per block it is live in (from mlir::Liveness).
/// A block argument is also written at the end of each predecessor's
/// terminator (the remap of the branch), so nothing live across that point
/// shares its register. Entry block arguments are pinned where the
/// interpreter puts them: the i-th argument of a bank in register i.
///
/// Values are assigned in order of definition, first trying hints that make
/// branch remaps disappear (a block argument and the values passed to it), then
/// the lowest free register.
class RegisterAllocation {
public:
  /// Allocates registers for `func`, which must have a body. Fails with an
  /// error at the function when a bank runs out of registers.
  static FailureOr<std::unique_ptr<RegisterAllocation>>
  compute(FunctionOpInterface func);

  /// The encoded register of `value` (format.h): the bank bit set for refs,
  /// never the MOVE bit.
  uint16_t getRegister(Value value) const;

  /// Whether `operand`, read by its owner, is the last read of its value
  /// there: the value is dead after the owner and no later operand of the
  /// owner reads it. Successor operands are decided per edge by the encoder
  /// (isLiveIn), not here.
  bool isLastUse(OpOperand &operand) const;

  /// Whether `value` is live on entry to `block` (block arguments excluded).
  bool isLiveIn(Value value, Block *block) const;

  /// Registers used per bank, including scratch registers handed out.
  uint16_t getPrimCount() const { return primCount; }
  uint16_t getRefCount() const { return refCount; }

  /// A register of the bank of `ref` that holds no value anywhere in the
  /// function, for breaking copy cycles in branch remaps. The same one is
  /// returned each time. Fails when the bank is full.
  FailureOr<uint16_t> getScratchRegister(bool ref);

private:
  explicit RegisterAllocation(FunctionOpInterface func) : liveness(func) {}
  LogicalResult allocate(FunctionOpInterface func);

  Liveness liveness;
  llvm::DenseMap<Value, uint16_t> registers;
  uint16_t primCount = 0;
  uint16_t refCount = 0;
  int32_t primScratch = -1;
  int32_t refScratch = -1;
};

} // namespace mlir::strata::vm

#endif // STRATA_TARGET_BYTECODE_REGISTERALLOCATION_H
