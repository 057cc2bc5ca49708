// IntegerRepresentation.h - how i1/i8/i16/i32/i64/index values sit in vm
// registers, and the helpers the patterns use to keep narrow integers exact.
//
// An i1 is always 0 or 1 in an i32 register. An i8 or i16 lives in an i32
// register whose bits above 8 or 16 are unspecified: the helpers extend it
// before any use that reads those bits. i64 and index use i64 registers.

#ifndef STRATA_CONVERSION_CONVERTTOVM_INTEGERREPRESENTATION_H
#define STRATA_CONVERSION_CONVERTTOVM_INTEGERREPRESENTATION_H

#include "mlir/IR/Builders.h"
#include "mlir/IR/Value.h"

namespace mlir::strata::vm_conversion {

/// The source width of an integer or index type (index is 64), or 0.
unsigned getIntegerWidth(Type type);

/// vm.const.i32 / vm.const.i64.
Value createI32Constant(OpBuilder &builder, Location loc, int32_t value);
Value createI64Constant(OpBuilder &builder, Location loc, int64_t value);

/// `value & 1`: makes an i32 register a canonical i1 (0 or 1).
Value maskToI1(OpBuilder &builder, Location loc, Value value);

/// Extends a value of source width `width` (1, 8, 16 or 32, held in an i32
/// register) to all 32 bits, signed or unsigned. A 32-bit value is returned
/// as is.
Value extendToI32(OpBuilder &builder, Location loc, Value value, unsigned width,
                  bool isSigned);

/// Extends `value` for an op of source width `width` that reads all bits of
/// its register: narrow widths go through extendToI32, 32 and 64 are as is.
Value extendOperand(OpBuilder &builder, Location loc, Value value,
                    unsigned width, bool isSigned);

/// Converts an integer of source width `srcWidth` to `dstWidth` (both 1, 8,
/// 16, 32 or 64), sign- or zero-extending when widening and truncating when
/// narrowing (to i1 by masking).
Value castInteger(OpBuilder &builder, Location loc, Value value,
                  unsigned srcWidth, unsigned dstWidth, bool isSigned);

/// An integer comparison; arith.cmpi and index.cmp map onto it.
enum class IntCompare { Eq, Ne, Slt, Sle, Sgt, Sge, Ult, Ule, Ugt, Uge };

/// Compares two integers of source width `width` into a canonical i1 (i32 0
/// or 1). Narrow operands are extended as the predicate needs; sgt/sge/ugt/uge
/// swap the operands of lt/le.
Value createIntCompare(OpBuilder &builder, Location loc, IntCompare predicate,
                       Value lhs, Value rhs, unsigned width);

} // namespace mlir::strata::vm_conversion

#endif // STRATA_CONVERSION_CONVERTTOVM_INTEGERREPRESENTATION_H
