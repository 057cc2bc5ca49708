// ONNXOps.td - the onnx dialect: an ONNX graph as imported, one op per node.

#ifndef STRATA_DIALECT_ONNX_IR_ONNXOPS_TD
#define STRATA_DIALECT_ONNX_IR_ONNXOPS_TD

include "mlir/IR/OpBase.td"
include "mlir/Interfaces/SideEffectInterfaces.td"

def ONNX_Dialect : Dialect {
  let name = "onnx";
  let cppNamespace = "::mlir::strata::onnx";
  let summary = "An ONNX graph as the importer reads it: one op per node.";
  let description = [{
    The input dialect of ONNX models. `strata-compile model.onnx` imports the
    graph into one `func.func @main` whose body is an `onnx.node` per ONNX
    node, in the graph's (topological) order; initializers become
    `arith.constant`s and absent optional inputs `onnx.none`.
    `--strata-lower-onnx` lowers each node by its op type to linalg,
    tensor, arith and math, so the rest of the compiler never sees this
    dialect. `--compile-to=input` prints the imported module.
  }];
}

class ONNX_Op<string mnemonic, list<Trait> traits = []>
    : Op<ONNX_Dialect, mnemonic, traits>;

def ONNX_NodeOp : ONNX_Op<"node", [Pure]> {
  let summary = "one ONNX node: its op type, opset, attributes and values";
  let description = [{
    A node of the ONNX graph. `op_type` and `domain` name the ONNX operator
    (the default domain is ""), `opset` is the version of that domain the
    model imports, and `attrs` holds the node's attributes by their ONNX
    names: int as i64, float as f32, string as a string, ints and floats as
    arrays, a tensor as dense elements. `node_name` is the node's name when
    it has one; error messages name it.

    Operands are the node's inputs in order (`onnx.none` for an absent
    optional input). Results are its outputs; their types are what the model
    declares for them, or `none` where it declares nothing. The lowering
    computes every result type from the operands itself.

    A node with graph attributes (If's `then_branch` and `else_branch`,
    Loop's and Scan's `body`) holds each graph as a region, in the order of
    `subgraph_names`, which names the attribute of each. A region is one
    block: its arguments are the graph's inputs (the declared type, or
    `none` where the graph declares none), its nodes the graph's nodes, and
    its `onnx.yield` the graph's outputs. A graph reads the values of the
    enclosing scopes directly, as ONNX reads them by name.

    Example:

    ```mlir
    %y = onnx.node "Relu"(%x) {attrs = {}, domain = "", node_name = "relu1",
                               opset = 17 : i64}
        : (tensor<1x8xf32>) -> tensor<1x8xf32>
    %r = onnx.node "If"(%c) {attrs = {}, domain = "", opset = 13 : i64,
                             subgraph_names = ["then_branch", "else_branch"]}
        : (tensor<i1>) -> tensor<2xf32> {
      onnx.yield %a : tensor<2xf32>
    }, {
      onnx.yield %b : tensor<2xf32>
    }
    ```
  }];
  let arguments = (ins StrAttr:$op_type, StrAttr:$domain, I64Attr:$opset,
      OptionalAttr<StrAttr>:$node_name, DictionaryAttr:$attrs,
      OptionalAttr<StrArrayAttr>:$subgraph_names, Variadic<AnyType>:$inputs);
  let results = (outs Variadic<AnyType>:$outputs);
  let regions = (region VariadicRegion<SizedRegion<1>>:$subgraphs);
  let assemblyFormat = [{
    $op_type `(` $inputs `)` attr-dict `:` functional-type($inputs, $outputs)
    ($subgraphs^)?
  }];
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    /// "'relu1' (Relu, opset 17)", or "(Relu, opset 17)" without a name:
    /// how diagnostics name the node.
    std::string describe();
    /// The region of the graph attribute `name`, or null.
    ::mlir::Region *subgraph(::llvm::StringRef name);
  }];
}

def ONNX_YieldOp : ONNX_Op<"yield", [Pure, Terminator, HasParent<"NodeOp">]> {
  let summary = "the outputs of a subgraph";
  let description = [{
    Ends a subgraph region of an `onnx.node`: its operands are the graph's
    outputs, in order.

    Example:

    ```mlir
    onnx.yield %cond, %sum : tensor<i1>, tensor<2xf32>
    ```
  }];
  let arguments = (ins Variadic<AnyType>:$values);
  let assemblyFormat = "attr-dict ($values^ `:` type($values))?";
}

def ONNX_NoneOp : ONNX_Op<"none", [Pure]> {
  let summary = "an absent optional input";
  let description = [{
    Stands for an optional input that the node leaves empty (an empty name
    in ONNX), so that the inputs after it keep their positions.

    Example:

    ```mlir
    %none = onnx.none : none
    ```
  }];
  let results = (outs NoneType:$result);
  let assemblyFormat = "attr-dict `:` type($result)";
}

#endif // STRATA_DIALECT_ONNX_IR_ONNXOPS_TD
