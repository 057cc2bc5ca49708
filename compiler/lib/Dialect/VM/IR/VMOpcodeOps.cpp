// VMOpcodeOps.cpp - the ops generated from schemas/opcodes.def and their folders.

#include "Strata/Dialect/VM/IR/VMOps.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/OpImplementation.h"

using namespace mlir;
using namespace mlir::strata::vm;

// Shard 0 of the generated op definitions; VMOpcodeOpsShard1.cpp has the rest.
#define GET_OP_DEFS_0
#include "Strata/Dialect/VM/IR/VMOpcodeOps.cpp.inc"

OpFoldResult ConstI32Op::fold(FoldAdaptor) { return getValueAttr(); }
OpFoldResult ConstI64Op::fold(FoldAdaptor) { return getValueAttr(); }
OpFoldResult ConstF32Op::fold(FoldAdaptor) { return getValueAttr(); }
OpFoldResult ConstF64Op::fold(FoldAdaptor) { return getValueAttr(); }

//===----------------------------------------------------------------------===//
// Integer arithmetic folders (the FOLDED set of gen_vm_opcode_ops.py)
//===----------------------------------------------------------------------===//

namespace {

/// What a binary integer op folds to with a constant right-hand side that is
/// its identity (x + 0, x * 1, ...) or with two constant operands.
struct IntFoldRules {
  std::optional<int64_t> rightIdentity;
  function_ref<APInt(const APInt &, const APInt &)> evaluate;
};

template <typename OpTy>
OpFoldResult foldIntBinary(OpTy op, typename OpTy::FoldAdaptor adaptor,
                           IntFoldRules rules) {
  auto lhs = dyn_cast_if_present<IntegerAttr>(adaptor.getA());
  auto rhs = dyn_cast_if_present<IntegerAttr>(adaptor.getB());
  if (lhs && rhs) {
    return IntegerAttr::get(op.getType(),
                            rules.evaluate(lhs.getValue(), rhs.getValue()));
  }
  if (rhs && rules.rightIdentity &&
      rhs.getValue() == APInt(rhs.getValue().getBitWidth(),
                              *rules.rightIdentity, /*isSigned=*/true)) {
    return op.getA();
  }
  return {};
}

} // namespace

// APInt arithmetic wraps at the operand width, as the VM does.
#define STRATA_VM_FOLD_INT_BINARY(OP, IDENTITY, EXPR)                          \
  OpFoldResult OP::fold(FoldAdaptor adaptor) {                                 \
    return foldIntBinary(                                                      \
        *this, adaptor,                                                        \
        {IDENTITY, [](const APInt &a, const APInt &b) { return EXPR; }});      \
  }

STRATA_VM_FOLD_INT_BINARY(AddI32Op, 0, a + b)
STRATA_VM_FOLD_INT_BINARY(AddI64Op, 0, a + b)
STRATA_VM_FOLD_INT_BINARY(SubI32Op, 0, a - b)
STRATA_VM_FOLD_INT_BINARY(SubI64Op, 0, a - b)
STRATA_VM_FOLD_INT_BINARY(MulI32Op, 1, a * b)
STRATA_VM_FOLD_INT_BINARY(MulI64Op, 1, a * b)
STRATA_VM_FOLD_INT_BINARY(AndI32Op, -1, a & b)
STRATA_VM_FOLD_INT_BINARY(AndI64Op, -1, a & b)
STRATA_VM_FOLD_INT_BINARY(OrI32Op, 0, a | b)
STRATA_VM_FOLD_INT_BINARY(OrI64Op, 0, a | b)
STRATA_VM_FOLD_INT_BINARY(XorI32Op, 0, a ^ b)
STRATA_VM_FOLD_INT_BINARY(XorI64Op, 0, a ^ b)

#undef STRATA_VM_FOLD_INT_BINARY

//===----------------------------------------------------------------------===//
// Verifiers (the VERIFIED set of gen_vm_opcode_ops.py)
//===----------------------------------------------------------------------===//

// The runtime's bytecode verifier rejects these divisors so that the handler
// needs no checks; a program that needs them keeps vm.rem.i64.s.
LogicalResult RemSI64ImmOp::verify() {
  int64_t divisor = getValueAttr().getValue().getSExtValue();
  if (divisor == 0 || divisor == -1) {
    return emitOpError("divisor ")
           << divisor << " is not encodable; use vm.rem.i64.s";
  }
  return success();
}

LogicalResult CastRefOp::verify() {
  if (!isRefType(getTarget())) {
    return emitOpError("casts to ")
           << getTarget() << ", which is not a ref type";
  }
  return success();
}
