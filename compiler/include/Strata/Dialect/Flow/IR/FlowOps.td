// FlowOps.td - the flow dialect: dispatch functions and the host's calls of
// them.

#ifndef STRATA_DIALECT_FLOW_IR_FLOWOPS_TD
#define STRATA_DIALECT_FLOW_IR_FLOWOPS_TD

include "mlir/IR/OpBase.td"
include "mlir/IR/SymbolInterfaces.td"

def Flow_Dialect : Dialect {
  let name = "flow";
  let cppNamespace = "::mlir::strata::flow";
  let summary = "Tensor work as dispatches: executables and dispatch calls.";
  let description = [{
    What `--strata-form-dispatches` makes of a tensor program: the
    dispatch functions, outlined into a `flow.executable`, and the host
    functions, which call them with `flow.dispatch`. The stream phase
    schedules the dispatches; the hal phase compiles the executable.
  }];
}

class Flow_Op<string mnemonic, list<Trait> traits = []>
    : Op<Flow_Dialect, mnemonic, traits>;

def Flow_ExecutableOp : Flow_Op<"executable", [
    IsolatedFromAbove, NoTerminator, SingleBlock, Symbol]> {
  let summary = "the dispatch functions of a program, for a target to compile";
  let description = [{
    Holds one `builtin.module` of dispatch functions (`func.func` on
    tensors); `flow.dispatch @executable::@function` calls them. The hal
    phase hands the module to the target backend and replaces the
    executable with the `hal.executable` of the same name.

    Example:

    ```mlir
    flow.executable @m_linked_llvm_cpu {
      builtin.module {
        func.func @main_dispatch_0_elementwise_4_f32(%a: tensor<4xf32>) -> tensor<4xf32> {
          ...
        }
      }
    }
    ```
  }];
  let arguments = (ins SymbolNameAttr:$sym_name);
  let regions = (region SizedRegion<1>:$body);
  let assemblyFormat = "$sym_name attr-dict-with-keyword $body";
  let hasVerifier = 1;
  let skipDefaultBuilders = 1;
  let builders = [OpBuilder<(ins "StringRef":$name)>];
  let extraClassDeclaration = [{
    /// The module of dispatch functions.
    ::mlir::ModuleOp getInnerModule();
  }];
}

def Flow_DispatchOp : Flow_Op<"dispatch"> {
  let summary = "the host runs a dispatch function";
  let description = [{
    Runs `entry_point` (`@executable::@function`) on `inputs`: its tensor
    arguments, then the scalars it reads from the host (push constants),
    then the sizes of the dynamic dimensions of each tensor argument and
    of each result. Its results are new tensors.

    Example:

    ```mlir
    %0 = flow.dispatch @m_linked_llvm_cpu::@main_dispatch_0_elementwise_4_f32(%a)
        : (tensor<4xf32>) -> tensor<4xf32>
    ```
  }];
  let arguments = (ins SymbolRefAttr:$entry_point, Variadic<AnyType>:$inputs);
  let results = (outs Variadic<AnyRankedTensor>:$results);
  let assemblyFormat = [{
    $entry_point `(` $inputs `)` attr-dict `:` functional-type($inputs, $results)
  }];
  let hasVerifier = 1;
}

#endif // STRATA_DIALECT_FLOW_IR_FLOWOPS_TD
