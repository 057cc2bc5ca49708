// HALBase.td - the hal dialect, its types (the runtime's hal objects) and
// the base of the ops generated from schemas/hal_imports.def.

#ifndef STRATA_DIALECT_HAL_IR_HALBASE_TD
#define STRATA_DIALECT_HAL_IR_HALBASE_TD

include "mlir/IR/AttrTypeBase.td"
include "mlir/IR/OpBase.td"

def HAL_Dialect : Dialect {
  let name = "hal";
  let cppNamespace = "::mlir::strata::hal";
  let summary = "The runtime's hardware abstraction as typed host code: "
                "devices, buffers, command buffers, fences, executables.";
  let description = [{
    The hal phase lowers the stream schedule to this dialect: one typed op
    per function of the runtime's hal module (generated from
    schemas/hal_imports.def: `hal.command_buffer.dispatch`,
    `hal.fence.await`, ...), over values of the hal object types
    (`!hal.buffer`, `!hal.fence`, ...). Compiled kernels are
    `hal.executable` ops, which `hal.executable.lookup` names. The vm
    conversion turns each import op into the call of its import (one
    table-driven pattern) and every hal type into a vm ref.
  }];
  let useDefaultTypePrinterParser = 1;
}

class HAL_Type<string name, string typeMnemonic, string summaryText>
    : TypeDef<HAL_Dialect, name> {
  let mnemonic = typeMnemonic;
  let summary = summaryText;
}

def HAL_Device : HAL_Type<"Device", "device", "a device work is submitted to">;
def HAL_Allocator : HAL_Type<"Allocator", "allocator",
    "the allocator of a device">;
def HAL_Buffer : HAL_Type<"Buffer", "buffer", "device-visible memory">;
def HAL_BufferView : HAL_Type<"BufferView", "buffer_view",
    "a shaped, typed view of a buffer (a host tensor at run time)">;
def HAL_CommandBuffer : HAL_Type<"CommandBuffer", "command_buffer",
    "recorded commands for a queue">;
def HAL_Fence : HAL_Type<"Fence", "fence",
    "a point on a device's timeline: semaphores and their values">;
def HAL_Executable : HAL_Type<"Executable", "executable",
    "a loaded kernel library">;

def HAL_ObjectType : AnyTypeOf<[HAL_Device, HAL_Allocator, HAL_Buffer,
    HAL_BufferView, HAL_CommandBuffer, HAL_Fence, HAL_Executable],
    "a hal object">;

class HAL_Op<string mnemonic, list<Trait> traits = []>
    : Op<HAL_Dialect, mnemonic, traits>;

/// Verifies an op generated from a hal_imports.def row against the row's
/// signature (the element types of tuple spans, which ODS cannot say).
def HALImportOpTrait : NativeOpTrait<"HALImportOpTrait"> {
  let cppNamespace = "::mlir::strata::hal";
}

/// An op generated from a row of schemas/hal_imports.def.
class HAL_ImportOp<string mnemonic, list<Trait> traits = []>
    : HAL_Op<mnemonic, traits>;

#endif // STRATA_DIALECT_HAL_IR_HALBASE_TD
