// UtilOps.td - the util dialect: test helpers IREE's e2e programs use.

#ifndef STRATA_DIALECT_UTIL_IR_UTILOPS_TD
#define STRATA_DIALECT_UTIL_IR_UTILOPS_TD

include "mlir/IR/OpBase.td"
include "mlir/IR/SymbolInterfaces.td"
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
    conversion, where it is the identity. Also IREE's module globals
    (`util.global`, `util.global.load`, `util.global.store`), which become
    vm globals. And `util.assert_eq`, a run-time check of two sizes whose
    message carries both values (the entry checks of a model's arguments).
    And `!util.list<T>`, a list of tensors on the host (an ONNX sequence or
    optional), with the ops that make, read and write one; the vm
    conversion makes it a `vm.list` of `hal.buffer_view`s.
  }];
  let useDefaultTypePrinterParser = 1;
}

class Util_Op<string mnemonic, list<Trait> traits = []>
    : Op<Util_Dialect, mnemonic, traits>;

def Util_ListType : TypeDef<Util_Dialect, "List"> {
  let mnemonic = "list";
  let summary = "a growable list of values on the host";
  let description = [{
    A list whose elements are of `elementType` (tensors, whose shapes may
    differ from element to element within the type: `tensor<?xf32>`, or
    `tensor<*xf32>` when even the rank is unknown; or lists). The ONNX
    importer makes sequences and optionals (a list of 0 or 1 element) of
    it. A list is a reference: `util.list.set` and `util.list.resize`
    change it for every holder. The vm conversion makes it a `!vm.list`
    holding `hal.buffer_view` refs.

    Example: `!util.list<tensor<?x4xf32>>`.
  }];
  let parameters = (ins "::mlir::Type":$elementType);
  let assemblyFormat = "`<` $elementType `>`";
}

def Util_ListCreateOp : Util_Op<"list.create",
                                [MemoryEffects<[MemAlloc, MemWrite]>]> {
  let summary = "a new empty list";
  let description = [{
    A list of no elements with room for `capacity`.

    Example:

    ```mlir
    %l = util.list.create %c4 : !util.list<tensor<?xf32>>
    ```
  }];
  let arguments = (ins Index:$capacity);
  let results = (outs Util_ListType:$result);
  let assemblyFormat = "$capacity attr-dict `:` type($result)";
}

def Util_ListSizeOp : Util_Op<"list.size", [MemoryEffects<[MemRead]>]> {
  let summary = "the number of elements of a list";
  let description = [{
    Example:

    ```mlir
    %n = util.list.size %l : !util.list<tensor<?xf32>>
    ```
  }];
  let arguments = (ins Util_ListType:$list);
  let results = (outs Index:$result);
  let assemblyFormat = "$list attr-dict `:` type($list)";
}

def Util_ListResizeOp : Util_Op<"list.resize", [MemoryEffects<[MemWrite]>]> {
  let summary = "sets the number of elements of a list";
  let description = [{
    New elements are empty (a null ref) until set; reading one fails.

    Example:

    ```mlir
    util.list.resize %l, %n : !util.list<tensor<?xf32>>
    ```
  }];
  let arguments = (ins Util_ListType:$list, Index:$size);
  let assemblyFormat = "$list `,` $size attr-dict `:` type($list)";
}

def Util_ListGetOp : Util_Op<"list.get", [MemoryEffects<[MemRead]>]> {
  let summary = "reads an element of a list";
  let description = [{
    Element `index` as `result`, a tensor type that the element must be an
    instance of (or a list type). The index must be below the list's size
    (checked at run time: an error otherwise, as is reading an element that
    was never set).

    Example:

    ```mlir
    %t = util.list.get %l[%i] : !util.list<tensor<?xf32>> -> tensor<?xf32>
    ```
  }];
  let arguments = (ins Util_ListType:$list, Index:$index);
  let results = (outs AnyType:$result);
  let assemblyFormat = [{
    $list `[` $index `]` attr-dict `:` type($list) `->` type($result)
  }];
}

def Util_ListCastOp : Util_Op<"list.cast", [Pure]> {
  let summary = "the same list seen with another element type";
  let description = [{
    The identity on the list: only what its type says of the elements
    changes (`tensor<3xf32>` to `tensor<?xf32>` or `tensor<*xf32>`), as a
    loop-carried sequence needs when its elements' shapes change.

    Example:

    ```mlir
    %m = util.list.cast %l : !util.list<tensor<3xf32>> to !util.list<tensor<?xf32>>
    ```
  }];
  let arguments = (ins Util_ListType:$source);
  let results = (outs Util_ListType:$result);
  let assemblyFormat = "$source attr-dict `:` type($source) `to` type($result)";
}

def Util_ListSetOp : Util_Op<"list.set", [MemoryEffects<[MemWrite]>]> {
  let summary = "writes an element of a list";
  let description = [{
    Element `index` (below the list's size, checked at run time) becomes
    `value`.

    Example:

    ```mlir
    util.list.set %l[%i], %t : !util.list<tensor<?xf32>>, tensor<3xf32>
    ```
  }];
  let arguments = (ins Util_ListType:$list, Index:$index, AnyType:$value);
  let assemblyFormat = [{
    $list `[` $index `]` `,` $value attr-dict `:` type($list) `,`
    type($value)
  }];
}

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

def Util_GlobalOp : Util_Op<"global", [Symbol]> {
  let summary = "a module-level variable, as IREE's programs declare it";
  let description = [{
    A scalar or tensor value that lives as long as the module's context.
    Only a `mutable` global may be stored to. Without an initial value a
    scalar starts at zero and a tensor is unset until stored. The input
    phase replaces loads of an immutable global that has an initial value
    by that constant, and stores a mutable tensor global's initial value
    from an initializer function; the vm conversion makes each global a
    `vm.global.*` (a tensor: a `!hal.buffer_view` ref).

    Example:

    ```mlir
    util.global private mutable @counter = 0 : i32
    util.global private @weights = dense<[1.0, 2.0]> : tensor<2xf32>
    util.global private mutable @state : tensor<4xf32>
    ```
  }];
  let arguments = (ins SymbolNameAttr:$sym_name,
      OptionalAttr<StrAttr>:$sym_visibility, UnitAttr:$is_mutable,
      TypeAttr:$type, OptionalAttr<TypedAttrInterface>:$initial_value);
  let hasCustomAssemblyFormat = 1;
  let hasVerifier = 1;
}

def Util_GlobalLoadOp
    : Util_Op<"global.load", [DeclareOpInterfaceMethods<SymbolUserOpInterface>,
                              MemoryEffects<[MemRead]>]> {
  let summary = "reads a util.global";
  let description = [{
    Example:

    ```mlir
    %v = util.global.load @counter : i32
    ```
  }];
  let arguments = (ins FlatSymbolRefAttr:$global, UnitAttr:$is_immutable);
  let results = (outs AnyType:$result);
  let assemblyFormat = [{
    (`immutable` $is_immutable^)? $global attr-dict `:` type($result)
  }];
}

def Util_GlobalStoreOp
    : Util_Op<"global.store", [DeclareOpInterfaceMethods<SymbolUserOpInterface>,
                               MemoryEffects<[MemWrite]>]> {
  let summary = "writes a mutable util.global";
  let description = [{
    Example:

    ```mlir
    util.global.store %v, @counter : i32
    ```
  }];
  let arguments = (ins AnyType:$value, FlatSymbolRefAttr:$global);
  let assemblyFormat = "$value `,` $global attr-dict `:` type($value)";
}

def Util_AssertEqOp : Util_Op<"assert_eq", [AllTypesMatch<["lhs", "rhs"]>,
                                            MemoryEffects<[MemWrite]>]> {
  let summary = "fails the call when two integers differ, naming both values";
  let description = [{
    Like `cf.assert` on `lhs == rhs`, but the message may name the two
    values: each `{0}` in it becomes `lhs` and each `{1}` becomes `rhs`, in
    signed decimal, when the check fails at run time (a FAILED_PRECONDITION,
    as `cf.assert`'s). The vm conversion makes it one `vm.cond_fail.ne.i64`.
    A check of a value against itself or of two equal constants folds away.

    Example:

    ```mlir
    util.assert_eq %n0, %n1, "argument 1 dimension 0 is {1}, argument 0 dimension 0 is {0}" : index
    ```
  }];
  let arguments = (ins AnyTypeOf<[Index, I64]>:$lhs,
      AnyTypeOf<[Index, I64]>:$rhs, StrAttr:$message);
  let assemblyFormat = "$lhs `,` $rhs `,` $message attr-dict `:` type($lhs)";
  let hasCanonicalizeMethod = 1;
}

#endif // STRATA_DIALECT_UTIL_IR_UTILOPS_TD
