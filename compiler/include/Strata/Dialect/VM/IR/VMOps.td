// VMOps.td - hand-written vm ops: module structure, control flow and calls.

#ifndef STRATA_DIALECT_VM_IR_VMOPS_TD
#define STRATA_DIALECT_VM_IR_VMOPS_TD

include "Strata/Dialect/VM/IR/VMBase.td"
include "mlir/IR/SymbolInterfaces.td"
include "mlir/Interfaces/CallInterfaces.td"
include "mlir/Interfaces/ControlFlowInterfaces.td"
include "mlir/Interfaces/FunctionInterfaces.td"
include "mlir/IR/RegionKindInterface.td"

//===----------------------------------------------------------------------===//
// Module structure
//===----------------------------------------------------------------------===//

def VM_ModuleOp : VM_Op<"module", [
    IsolatedFromAbove, SymbolTable, Symbol, SingleBlock, NoTerminator,
    NoRegionArguments]> {
  let summary = "a VM module: the unit the encoder writes as one .vmfb file";
  let description = [{
    Holds the module's functions, imports, exports, globals and rodata. Its
    name is the module name that other modules import it by.

    Example:

    ```mlir
    vm.module @math {
      vm.func @add(%a: i32, %b: i32) -> i32 {
        %0 = vm.add.i32 %a, %b
        vm.return %0 : i32
      }
      vm.export @add
    }
    ```
  }];
  let arguments = (ins SymbolNameAttr:$sym_name);
  let regions = (region SizedRegion<1>:$body);
  let assemblyFormat = "$sym_name attr-dict-with-keyword $body";
}

def VM_FuncOp : VM_Op<"func", [
    IsolatedFromAbove, FunctionOpInterface, HasParent<"ModuleOp">,
    AutomaticAllocationScope]> {
  let summary = "a function of a VM module, encoded as bytecode";
  let description = [{
    A function whose body uses only vm ops. Without a body it is a declaration
    that a later pass must define.

    Example:

    ```mlir
    vm.func @double(%x: i64) -> i64 {
      %0 = vm.add.i64 %x, %x
      vm.return %0 : i64
    }
    ```
  }];
  let arguments = (ins SymbolNameAttr:$sym_name,
                       TypeAttrOf<FunctionType>:$function_type,
                       OptionalAttr<DictArrayAttr>:$arg_attrs,
                       OptionalAttr<DictArrayAttr>:$res_attrs);
  let regions = (region AnyRegion:$body);
  let hasCustomAssemblyFormat = 1;
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    ::mlir::Region *getCallableRegion() {
      return isExternal() ? nullptr : &getBody();
    }
    ::llvm::ArrayRef<::mlir::Type> getArgumentTypes() {
      return getFunctionType().getInputs();
    }
    ::llvm::ArrayRef<::mlir::Type> getResultTypes() {
      return getFunctionType().getResults();
    }
  }];
}

def VM_InitializerOp
    : VM_Op<"initializer", [IsolatedFromAbove, FunctionOpInterface,
                            HasParent<"ModuleOp">, AutomaticAllocationScope]> {
  let summary = "the module's initializer: run once per context";
  let description = [{
    A function with no arguments and no results that the runtime runs once
    when the module joins a context, after the globals have their initial
    values and before any export is called. A module has at most one. It
    cannot be called or exported. The bytecode target writes it into the
    function table like a `vm.func`, under its name, and records it as the
    module's initializer (`initializer` of module.fbs), which is how the
    runtime finds it: the name only has to be free.

    Example:

    ```mlir
    vm.initializer @__init {
      %c0 = vm.const.i32 0
      vm.global.store.i32 %c0, @counter
      vm.return
    }
    ```
  }];
  // function_type is always () -> (); it is stored so that the op is a
  // FunctionOpInterface like vm.func, and not printed.
  let arguments = (ins SymbolNameAttr:$sym_name,
      TypeAttrOf<FunctionType>:$function_type,
      OptionalAttr<DictArrayAttr>:$arg_attrs,
      OptionalAttr<DictArrayAttr>:$res_attrs);
  let regions = (region AnyRegion:$body);
  let hasCustomAssemblyFormat = 1;
  let hasVerifier = 1;
  let builders = [OpBuilder<(ins "::llvm::StringRef":$name)>];
  let extraClassDeclaration = [{
    ::mlir::Region *getCallableRegion() { return &getBody(); }
    ::llvm::ArrayRef<::mlir::Type> getArgumentTypes() { return {}; }
    ::llvm::ArrayRef<::mlir::Type> getResultTypes() { return {}; }
  }];
}

def VM_ImportOp : VM_Op<"import", [Symbol, HasParent<"ModuleOp">]> {
  let summary = "a function imported from another module";
  let description = [{
    Declares a function that another module (native or bytecode) exports,
    named `module.function`. An `optional` import may be missing at run time;
    `vm.import.resolved` tells whether it was found.

    `variadic_spans` lists (start, length) pairs over the inputs: each such
    run of inputs is a span that `vm.call.variadic` repeats zero or more
    times (a `C`...`D` group of the calling convention, schemas/format.h).
    Spans are in order and do not overlap.

    `minimum_version` is the version of the imported module that added the
    function (for `hal.*`, the row's `since` in schemas/hal_imports.def).
    The bytecode writer records, per imported module, the highest one as a
    dependency of the module (name, minimum version), and the runtime
    refuses to link the module into a context whose module of that name is
    older.

    Example:

    ```mlir
    vm.import @hal.buffer.length : (!vm.ref<?>) -> i64
    vm.import @hal.buffer.wrap {minimum_version = 2 : i32} : (!vm.buffer) -> !vm.ref<?>
    vm.import optional @check.expect_true : (i32) -> ()
    // (i32, any number of i64) -> i64
    vm.import @custom.sum {variadic_spans = array<i32: 1, 1>} : (i32, i64) -> i64
    ```
  }];
  let arguments = (ins SymbolNameAttr:$sym_name,
      TypeAttrOf<FunctionType>:$function_type, UnitAttr:$is_optional,
      OptionalAttr<DenseI32ArrayAttr>:$variadic_spans,
      OptionalAttr<ConfinedAttr<I32Attr, [IntNonNegative]>>:$minimum_version);
  let assemblyFormat = [{
    (`optional` $is_optional^)? $sym_name attr-dict `:` $function_type
  }];
  let hasVerifier = 1;
}

def VM_ExportOp : VM_Op<"export", [
    HasParent<"ModuleOp">, DeclareOpInterfaceMethods<SymbolUserOpInterface>]> {
  let summary = "exports a function of the module under a name";
  let description = [{
    Makes `vm.func` @function_ref callable from outside the module, under its
    own name or the name given after `as`. `reflection` holds string
    metadata for tools, written to the module as the export's attributes:
    the compiler records each tensor argument's and result's type there
    (`arg0 = "4x16xf32"`, `result0 = ...`), which strata-run checks.

    Example:

    ```mlir
    vm.export @add
    vm.export @add as "add_i32"
    vm.export @predict {reflection = {arg0 = "4x16xf32"}}
    ```
  }];
  let arguments = (ins FlatSymbolRefAttr:$function_ref,
                       OptionalAttr<StrAttr>:$export_name,
                       OptionalAttr<DictionaryAttr>:$reflection);
  let assemblyFormat = "$function_ref (`as` $export_name^)? attr-dict";
}

class VM_PrimGlobalOp<string suffix, Attr attrType>
    : VM_Op<"global." # suffix, [Symbol, HasParent<"ModuleOp">]> {
  let summary = "declares a " # suffix # " global of the module";
  let description = [{
    A global primitive value, zero unless an initial value is given. Only a
    `mutable` global may be stored to. The encoder assigns its byte offset.

    Example:

    ```mlir
    vm.global.}] # suffix # [{ mutable @counter = 1 : }] # suffix # [{
    ```
  }];
  let arguments = (ins SymbolNameAttr:$sym_name, UnitAttr:$is_mutable,
                       OptionalAttr<attrType>:$initial_value);
  let assemblyFormat = [{
    (`mutable` $is_mutable^)? $sym_name (`=` $initial_value^)? attr-dict
  }];
}

def VM_GlobalI32Op : VM_PrimGlobalOp<"i32", I32Attr>;
def VM_GlobalI64Op : VM_PrimGlobalOp<"i64", I64Attr>;
def VM_GlobalF32Op : VM_PrimGlobalOp<"f32", F32Attr>;
def VM_GlobalF64Op : VM_PrimGlobalOp<"f64", F64Attr>;

def VM_GlobalRefOp : VM_Op<"global.ref", [Symbol, HasParent<"ModuleOp">]> {
  let summary = "declares a ref global of the module";
  let description = [{
    A global reference, null until stored to. The encoder assigns its ordinal.

    Example:

    ```mlir
    vm.global.ref mutable @cache : !vm.buffer
    ```
  }];
  let arguments = (ins SymbolNameAttr:$sym_name, UnitAttr:$is_mutable,
                       TypeAttr:$type);
  let assemblyFormat = [{
    (`mutable` $is_mutable^)? $sym_name attr-dict `:` $type
  }];
  let hasVerifier = 1;
}

def VM_RodataOp : VM_Op<"rodata", [Symbol, HasParent<"ModuleOp">]> {
  let summary = "read-only data stored in the module's segment area";
  let description = [{
    Bytes that `vm.const.ref.rodata` exposes as a read-only `!vm.buffer`
    without copying. The value is a dense elements attribute or a string.

    Example:

    ```mlir
    vm.rodata @table dense<[1, 2, 3, 4]> : tensor<4xi8>
    vm.rodata @greeting "hello"
    ```
  }];
  let arguments = (ins SymbolNameAttr:$sym_name,
                       AnyAttrOf<[ElementsAttr, StrAttr]>:$value);
  let assemblyFormat = "$sym_name $value attr-dict";
}

//===----------------------------------------------------------------------===//
// Control flow (opcodes.def rows that need successors or variadic operands)
//===----------------------------------------------------------------------===//

def VM_BrOp : VM_OpcodeOp<"Br", "br", [
    Terminator, Pure, DeclareOpInterfaceMethods<BranchOpInterface>]> {
  let summary = "remap P, then jump to B";
  let description = [{
    Unconditional branch; the operands become the block arguments of the
    destination.

    Example:

    ```mlir
    vm.br ^bb1(%x : i32)
    ```
  }];
  let arguments = (ins Variadic<VM_AnyValue>:$destOperands);
  let successors = (successor AnySuccessor:$dest);
  let assemblyFormat = [{
    $dest (`(` $destOperands^ `:` type($destOperands) `)`)? attr-dict
  }];
  let hasCanonicalizer = 1;
}

def VM_CondBrOp : VM_OpcodeOp<"CondBr", "cond_br", [
    AttrSizedOperandSegments, Terminator, Pure,
    DeclareOpInterfaceMethods<BranchOpInterface>]> {
  let summary = "if R[a].i32 != 0 remap P1, jump B1; else remap P2, jump B2";
  let description = [{
    Conditional branch on an i32 condition (nonzero is true).

    Example:

    ```mlir
    vm.cond_br %cond, ^bb1(%x : i32), ^bb2
    ```
  }];
  let arguments = (ins I32:$condition,
                       Variadic<VM_AnyValue>:$trueDestOperands,
                       Variadic<VM_AnyValue>:$falseDestOperands);
  let successors = (successor AnySuccessor:$trueDest, AnySuccessor:$falseDest);
  let assemblyFormat = [{
    $condition `,`
    $trueDest (`(` $trueDestOperands^ `:` type($trueDestOperands) `)`)? `,`
    $falseDest (`(` $falseDestOperands^ `:` type($falseDestOperands) `)`)?
    attr-dict
  }];
  let hasCanonicalizer = 1;
}

def VM_BrTableOp : VM_OpcodeOp<"BrTable", "br_table", [
    AttrSizedOperandSegments, Terminator, Pure,
    DeclareOpInterfaceMethods<BranchOpInterface>]> {
  let summary = "if R[a].u32 < case count take that case, else the default B/P";
  let description = [{
    Jumps to case `index` (counted from 0) when the index is below the number
    of cases, otherwise to the default destination.

    Example:

    ```mlir
    vm.br_table %index [^bb1, ^bb2(%x : i32)] default ^bb3
    ```
  }];
  let arguments = (ins I32:$index,
                       Variadic<VM_AnyValue>:$defaultOperands,
                       VariadicOfVariadic<VM_AnyValue, "case_operand_segments">:$caseOperands,
                       DenseI32ArrayAttr:$case_operand_segments);
  let successors = (successor AnySuccessor:$defaultDest,
                              VariadicSuccessor<AnySuccessor>:$caseDests);
  let assemblyFormat = [{
    $index ` ` `[` custom<BrTableCases>($caseDests, $caseOperands, type($caseOperands)) `]`
    `default` $defaultDest (`(` $defaultOperands^ `:` type($defaultOperands) `)`)?
    attr-dict
  }];
  let hasVerifier = 1;
}

def VM_YieldOp : VM_OpcodeOp<"Yield", "yield", [
    Terminator, DeclareOpInterfaceMethods<BranchOpInterface>]> {
  let summary = "suspend the invocation; on resume remap P and jump to B";
  let description = [{
    Gives control back to the scheduler; the invocation resumes at the
    destination.

    Example:

    ```mlir
    vm.yield ^bb1(%x : i32)
    ```
  }];
  let arguments = (ins Variadic<VM_AnyValue>:$destOperands);
  let successors = (successor AnySuccessor:$dest);
  let assemblyFormat = [{
    $dest (`(` $destOperands^ `:` type($destOperands) `)`)? attr-dict
  }];
}

def VM_ReturnOp : VM_OpcodeOp<"Return", "return",
                              [Pure, ParentOneOf<["FuncOp", "InitializerOp"]>,
                               ReturnLike, Terminator]> {
  let summary = "return the registers V to the caller";
  let description = [{
    Returns from a `vm.func` or `vm.initializer`; the operands match the
    function's results (none for an initializer).

    Example:

    ```mlir
    vm.return %a, %b : i32, !vm.buffer
    ```
  }];
  let arguments = (ins Variadic<VM_AnyValue>:$operands);
  let assemblyFormat = "attr-dict ($operands^ `:` type($operands))?";
  let hasVerifier = 1;
}

def VM_FailOp : VM_OpcodeOp<"Fail", "fail", [Terminator]> {
  let summary = "fail the invocation with status code R[a].i32 and message S";
  let description = [{
    Ends the invocation with a failure status and message.

    Example:

    ```mlir
    vm.fail %status, "out of range"
    ```
  }];
  let arguments = (ins I32:$status, StrAttr:$message);
  let assemblyFormat = "$status `,` $message attr-dict";
}

class VM_CallBaseOp<string rowName, string mnemonic>
    : VM_OpcodeOp<rowName, mnemonic, [
        DeclareOpInterfaceMethods<SymbolUserOpInterface>]> {
  let results = (outs Variadic<VM_AnyValue>:$results);
}

def VM_CallOp : VM_CallBaseOp<"Call", "call"> {
  let summary = "call internal function F with args V1, results into V2";
  let description = [{
    Calls a `vm.func` of the same module.

    Example:

    ```mlir
    %r = vm.call @add(%a, %b) : (i32, i32) -> i32
    ```
  }];
  let arguments = (ins FlatSymbolRefAttr:$callee,
                       Variadic<VM_AnyValue>:$operands);
  let assemblyFormat = [{
    $callee `(` $operands `)` attr-dict `:` functional-type($operands, $results)
  }];
}

def VM_CallImportOp : VM_CallBaseOp<"CallImport", "call.import"> {
  let summary = "call import M with args V1, results into V2; may suspend";
  let description = [{
    Calls a `vm.import`.

    Example:

    ```mlir
    %n = vm.call.import @hal.buffer.length(%b) : (!vm.ref<?>) -> i64
    ```
  }];
  let arguments = (ins FlatSymbolRefAttr:$callee,
                       Variadic<VM_AnyValue>:$operands);
  let assemblyFormat = [{
    $callee `(` $operands `)` attr-dict `:` functional-type($operands, $results)
  }];
}

def VM_CallVariadicOp : VM_CallBaseOp<"CallVariadic", "call.variadic"> {
  let summary = "call import M with variadic span sizes C, args V1, results V2";
  let description = [{
    Calls a `vm.import` whose signature has variadic spans; `segments` gives
    the repetition count of each span, in order.

    Example:

    ```mlir
    vm.call.variadic @check.print(%a, %b) segments [2] : (i32, i32) -> ()
    ```
  }];
  let arguments = (ins FlatSymbolRefAttr:$callee,
                       Variadic<VM_AnyValue>:$operands,
                       DenseI32ArrayAttr:$segment_sizes);
  let assemblyFormat = [{
    $callee `(` $operands `)` `segments` $segment_sizes attr-dict `:`
    functional-type($operands, $results)
  }];
}

#endif // STRATA_DIALECT_VM_IR_VMOPS_TD
