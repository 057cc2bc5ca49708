// VMBase.td - the vm dialect, its types and the base classes of its ops.

#ifndef STRATA_DIALECT_VM_IR_VMBASE_TD
#define STRATA_DIALECT_VM_IR_VMBASE_TD

include "mlir/IR/OpBase.td"
include "mlir/IR/AttrTypeBase.td"
include "mlir/IR/BuiltinAttributes.td"
include "mlir/IR/SymbolInterfaces.td"
include "mlir/Interfaces/ControlFlowInterfaces.td"
include "mlir/Interfaces/SideEffectInterfaces.td"

def VM_Dialect : Dialect {
  let name = "vm";
  let cppNamespace = "::mlir::strata::vm";
  let summary = "The Strata bytecode VM: one op per opcode, plus module structure.";
  let description = [{
    The lowest layer of the compiler. Every row of `schemas/opcodes.def` has
    exactly one op here (most are generated from the row), and `vm.module`,
    `vm.func`, `vm.import`, `vm.export`, `vm.global.*` and `vm.rodata` give
    the module's structure. Primitive values are `i32`, `i64`, `f32` and
    `f64` (an `i1` is an `i32` 0 or 1); references are `!vm.buffer`,
    `!vm.list` and `!vm.ref<T>` (`!vm.ref<?>` for any object).
  }];
  let useDefaultTypePrinterParser = 1;
  let hasConstantMaterializer = 1;
}

//===----------------------------------------------------------------------===//
// Types
//===----------------------------------------------------------------------===//

class VM_Type<string name, string typeMnemonic> : TypeDef<VM_Dialect, name> {
  let mnemonic = typeMnemonic;
}

def VM_BufferType : VM_Type<"Buffer", "buffer"> {
  let summary = "a reference to a byte buffer (vm.buffer)";
  let description = [{
    A counted reference to a `vm.buffer`, a byte array that may be read-only
    (rodata) or mutable. Example: `!vm.buffer`.
  }];
}

def VM_ListType : VM_Type<"List", "list"> {
  let summary = "a reference to a list of variants (vm.list)";
  let description = [{
    A counted reference to a `vm.list`, a growable list whose elements are
    primitives or references. Example: `!vm.list`.
  }];
}

def VM_RefType : VM_Type<"Ref", "ref"> {
  let summary = "a counted reference to an object of a registered type";
  let description = [{
    `!vm.ref<?>` refers to an object of any type; `!vm.ref<T>` names the
    object's type, such as `!vm.ref<!hal.buffer>` once that dialect exists.
  }];
  let parameters = (ins "::mlir::Type":$objectType);
  let hasCustomAssemblyFormat = 1;
  let extraClassDeclaration = [{
    /// True for `!vm.ref<?>`, which may hold an object of any type.
    bool isOpaque() const { return !getObjectType(); }
  }];
}

def VM_AnyRef : AnyTypeOf<[VM_RefType, VM_BufferType, VM_ListType], "ref">;
def VM_AnyPrim : AnyTypeOf<[I32, I64, F32, F64], "primitive (i32/i64/f32/f64)">;
def VM_AnyValue : AnyTypeOf<[I32, I64, F32, F64, VM_RefType, VM_BufferType,
                             VM_ListType], "primitive or ref">;

//===----------------------------------------------------------------------===//
// Op base classes
//===----------------------------------------------------------------------===//

class VM_Op<string mnemonic, list<Trait> traits = []>
    : Op<VM_Dialect, mnemonic, traits>;

def VM_OpcodeOpInterface : OpInterface<"OpcodeOpInterface"> {
  let cppNamespace = "::mlir::strata::vm";
  let description = [{
    An op that the encoder writes as one instruction: the opcode byte of its
    schemas/opcodes.def row, then its operands in the row's format.
  }];
  let methods = [
    StaticInterfaceMethod<"The opcodes.def row this op encodes as.",
      "::mlir::strata::vm::Opcode", "getOpcode">,
  ];
}

// An op that encodes as one opcodes.def row. The row's name is the only link
// to its number, which lives nowhere but opcodes.def (see VMOpcodes.h).
class VM_OpcodeOp<string rowName, string mnemonic, list<Trait> traits = []>
    : VM_Op<mnemonic, !listconcat(traits, [VM_OpcodeOpInterface])> {
  string opcodeName = rowName;
  // Declarations a subclass adds; extraClassDeclaration is taken.
  code extraOpcodeDeclaration = [{}];
  let extraClassDeclaration = [{
    /// The name of this op's row in schemas/opcodes.def.
    static ::llvm::StringRef getOpcodeRowName() { return "}] # rowName # [{"; }
    /// The opcode of that row.
    static ::mlir::strata::vm::Opcode getOpcode() {
      return ::mlir::strata::vm::Opcode::}] # rowName # [{;
    }
  }] # extraOpcodeDeclaration;
}

#endif // STRATA_DIALECT_VM_IR_VMBASE_TD
