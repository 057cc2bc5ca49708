// UtilOps.td - the util dialect: test helpers IREE's e2e programs use.

#ifndef STRATA_DIALECT_UTIL_IR_UTILOPS_TD
#define STRATA_DIALECT_UTIL_IR_UTILOPS_TD

include "mlir/IR/OpBase.td"
include "mlir/IR/BuiltinAttributeInterfaces.td"
include "mlir/Interfaces/SideEffectInterfaces.td"
include "mlir/Interfaces/InferTypeOpInterface.td"

def Util_Dialect : Dialect {
  let name = "util";
  let cppNamespace = "::mlir::strata::util";
  let summary = "Helpers for test programs: values the compiler must not fold.";
  let description = [{
    The two ops IREE's end-to-end tests write so that the compiler cannot
    fold a computation away at compile time. The input phase lowers both
    (`--strata-convert-input`): an unfoldable constant becomes a constant
    behind an optimization barrier, and a barrier stays until the vm
    conversion, where it is the identity.
  }];
}

class Util_Op<string mnemonic, list<Trait> traits = []>
    : Op<Util_Dialect, mnemonic, traits>;

def Util_UnfoldableConstantOp : Util_Op<"unfoldable_constant", [
    DeclareOpInterfaceMethods<InferTypeOpInterface>]> {
  let summary = "a constant the compiler may not fold into its users";
  let description = [{
    Example:

    ```mlir
    %0 = util.unfoldable_constant dense<[1, 2, 3]> : tensor<3xi32>
    ```
  }];
  let arguments = (ins TypedAttrInterface:$value);
  let results = (outs AnyType:$result);
  let assemblyFormat = "attr-dict $value";
  let hasVerifier = 1;
}

def Util_OptimizationBarrierOp : Util_Op<"optimization_barrier", [
    AllTypesMatch<["operands", "results"]>]> {
  let summary = "the identity, opaque to folding and fusion";
  let description = [{
    Returns its operands; the compiler may not look through it. A barrier
    whose results are all unused is erased by canonicalization: it blocks
    nothing.

    Example:

    ```mlir
    %1 = util.optimization_barrier %0 : tensor<3xi32>
    ```
  }];
  let arguments = (ins Variadic<AnyType>:$operands);
  let results = (outs Variadic<AnyType>:$results);
  let assemblyFormat = "attr-dict ($operands^ `:` type($operands))?";
  let hasCanonicalizeMethod = 1;
}

#endif // STRATA_DIALECT_UTIL_IR_UTILOPS_TD
