// CheckOps.td - the check dialect: run-time assertions of test programs
// (IREE's e2e tests write them), answered by the runtime's native `check`
// module (tools/common/check_module.h).

#ifndef STRATA_DIALECT_CHECK_IR_CHECKOPS_TD
#define STRATA_DIALECT_CHECK_IR_CHECKOPS_TD

include "mlir/IR/OpBase.td"
include "mlir/IR/BuiltinAttributeInterfaces.td"
include "mlir/IR/CommonAttrConstraints.td"

def Check_Dialect : Dialect {
  let name = "check";
  let cppNamespace = "::mlir::strata::check";
  let summary = "Run-time assertions for test programs.";
  let description = [{
    The assertions IREE's end-to-end tests write. Each op checks a value at
    run time: the vm conversion turns it into a call of the native `check`
    module (`check.expect_true`, `check.expect_eq`, ...), which fails the
    invocation with a message naming the check and showing both values; the
    VM's backtrace names the op's source location. The `_const` forms compare
    with a constant, which the input phase materializes as a tensor.
  }];
}

// The element types the runtime's check module compares.
def Check_Tensor : RankedTensorOf<[I1, I8, I16, I32, I64, F16, F32, F64]>;

class Check_Op<string mnemonic, list<Trait> traits = []>
    : Op<Check_Dialect, mnemonic, traits>;

def Check_ExpectTrueOp : Check_Op<"expect_true"> {
  let summary = "fails unless the i32 operand is non-zero";
  let description = [{
    Example:

    ```mlir
    check.expect_true(%flag) : i32
    ```
  }];
  let arguments = (ins I32:$operand);
  let assemblyFormat = "`(` $operand `)` attr-dict `:` type($operand)";
}

def Check_ExpectFalseOp : Check_Op<"expect_false"> {
  let summary = "fails unless the i32 operand is zero";
  let description = [{
    Example:

    ```mlir
    check.expect_false(%flag) : i32
    ```
  }];
  let arguments = (ins I32:$operand);
  let assemblyFormat = "`(` $operand `)` attr-dict `:` type($operand)";
}

def Check_ExpectEqOp : Check_Op<"expect_eq", [
    AllTypesMatch<["lhs", "rhs"]>]> {
  let summary = "fails unless two tensors are equal element by element";
  let description = [{
    Shapes and element types must match, and every element must be equal
    (exactly, also for floats). The failure names the first differing
    element and both values.

    Example:

    ```mlir
    check.expect_eq(%result, %expected) : tensor<2x3xi32>
    ```
  }];
  let arguments = (ins Check_Tensor:$lhs, Check_Tensor:$rhs);
  let assemblyFormat = "`(` $lhs `,` $rhs `)` attr-dict `:` type($lhs)";
}

def Check_ExpectEqConstOp : Check_Op<"expect_eq_const"> {
  let summary = "fails unless a tensor equals a constant";
  let description = [{
    `check.expect_eq` against a constant of the operand's type.

    Example:

    ```mlir
    check.expect_eq_const(%result, dense<[1, 2]> : tensor<2xi32>) : tensor<2xi32>
    ```
  }];
  let arguments = (ins Check_Tensor:$lhs, ElementsAttr:$value);
  let assemblyFormat = "`(` $lhs `,` $value `)` attr-dict `:` type($lhs)";
  let hasVerifier = 1;
}

def Check_ExpectAlmostEqOp : Check_Op<"expect_almost_eq", [
    AllTypesMatch<["lhs", "rhs"]>]> {
  let summary = "fails unless two float tensors are equal within a tolerance";
  let description = [{
    Like `check.expect_eq`, but floats match when
    `|lhs - rhs| <= atol + rtol * |rhs|` (NaN matches NaN). The tolerances
    default to the runtime's (atol 1e-4, rtol 1e-4 for f32 and f64; 1e-2 and
    1e-3 for f16: tools/common/check_module.h); `atol` and `rtol` set them
    per check. Integer and boolean elements compare exactly.

    Example:

    ```mlir
    check.expect_almost_eq(%result, %expected) : tensor<4xf32>
    check.expect_almost_eq(%result, %expected, atol 1.0e-02) : tensor<4xf32>
    ```
  }];
  let arguments = (ins Check_Tensor:$lhs, Check_Tensor:$rhs,
                   OptionalAttr<F32Attr>:$atol, OptionalAttr<F32Attr>:$rtol);
  let assemblyFormat = [{
    `(` $lhs `,` $rhs (`,` `atol` $atol^)? (`,` `rtol` $rtol^)? `)` attr-dict
    `:` type($lhs)
  }];
  let hasVerifier = 1;
}

def Check_ExpectAlmostEqConstOp : Check_Op<"expect_almost_eq_const"> {
  let summary = "fails unless a float tensor equals a constant within a tolerance";
  let description = [{
    `check.expect_almost_eq` against a constant of the operand's type.

    Example:

    ```mlir
    check.expect_almost_eq_const(%result, dense<[1.0, 2.5]> : tensor<2xf32>) : tensor<2xf32>
    ```
  }];
  let arguments = (ins Check_Tensor:$lhs, ElementsAttr:$value,
                   OptionalAttr<F32Attr>:$atol, OptionalAttr<F32Attr>:$rtol);
  let assemblyFormat = [{
    `(` $lhs `,` $value (`,` `atol` $atol^)? (`,` `rtol` $rtol^)? `)`
    attr-dict `:` type($lhs)
  }];
  let hasVerifier = 1;
}

#endif // STRATA_DIALECT_CHECK_IR_CHECKOPS_TD
