#!/usr/bin/env python3
"""gen_vm_opcode_ops.py - emits one VM dialect op per schemas/opcodes.def row.

Usage: gen_vm_opcode_ops.py OPCODES_DEF OUT_TD [OUT_EXAMPLES_MLIR]

OUT_EXAMPLES_MLIR, when given, receives one vm.func per generated op that
uses it, with FileCheck lines: the lit suite round-trips it so that every
generated op is parsed, verified and printed.

Rows whose ops need a hand-written form (terminators, successors, calls) are
listed in HANDWRITTEN and defined in VMOps.td instead; the coverage
check (check_vm_opcode_coverage.py) makes sure every row has exactly one op.
Opcode numbers are never written out: the encoder takes them from the X-macro.
"""

import re
import sys

# Rows defined by hand in VMOps.td: they carry successors, variadic call
# operands or terminate a block.
HANDWRITTEN = {
    "Br", "CondBr", "BrTable", "Call", "CallImport", "CallVariadic", "Return",
    "Fail", "Yield",
}

ROW_RE = re.compile(
    r'^STRATA_OP\(\s*(\w+)\s*,\s*(0x[0-9A-Fa-f]+)\s*,\s*"([^"]+)"\s*,\s*'
    r'"([^"]*)"\s*\)\s*//\s*(.*)$')

PRIM_TYPES = {"i32": "I32", "i64": "I64", "f32": "F32", "f64": "F64",
              "si32": "I32", "ui32": "I32", "si64": "I64", "ui64": "I64",
              "i8": "I32", "i16": "I32"}

# First mnemonic token of ops computing on one primitive type.
ARITH = {"add", "sub", "mul", "div", "rem", "shl", "shr", "and", "or", "xor",
         "not", "neg", "min", "max", "abs", "ctlz", "sqrt", "exp", "log",
         "pow", "tanh", "erf", "floor", "ceil", "round", "roundeven", "fma",
         "sin", "cos", "exp2", "log2"}
CONVERSIONS = {"trunc", "ext", "cast", "bitcast"}
COMMUTATIVE = {"add", "mul", "and", "or", "xor"}
# Families whose primitive registers are all i32 (conditions, status codes,
# list indices, the result of import.resolved).
I32_FAMILIES = {"cond_fail", "import", "cast"}
# Ops with a hand-written folder in VMOpcodeOps.cpp (constants always fold).
FOLDED = {f"{op}.{ty}" for op in ("add", "sub", "mul", "and", "or", "xor")
          for ty in ("i32", "i64")}

# Ops with a hand-written verify() in VMOpcodeOps.cpp.
VERIFIED = {"rem.i64.s.imm", "cast.ref"}

# Immediate and symbol operands: kind -> (ODS attribute, name, example).
ATTRS = {
    "i": ("I32Attr", "value", "42"),
    "l": ("I64Attr", "value", "42"),
    "f": ("F32Attr", "value", "1.0"),
    "d": ("F64Attr", "value", "1.0"),
    "w": ("FlatSymbolRefAttr", "global", "@global"),
    "W": ("FlatSymbolRefAttr", "global", "@global"),
    "G": ("FlatSymbolRefAttr", "global", "@global"),
    "D": ("FlatSymbolRefAttr", "rodata", "@rodata"),
    "T": ("TypeAttr", "target", "!vm.buffer"),
    "M": ("FlatSymbolRefAttr", "callee", "@module.fn"),
    "F": ("FlatSymbolRefAttr", "callee", "@fn"),
    "S": ("StrAttr", "message", '"message"'),
}

# Types whose values ODS can build, so the assembly format need not print them.
BUILDABLE = {"I32", "I64", "F32", "F64", "VM_BufferType", "VM_ListType"}
EXAMPLE_TYPES = {"I32": "i32", "I64": "i64", "F32": "f32", "F64": "f64",
                 "VM_BufferType": "!vm.buffer", "VM_ListType": "!vm.list",
                 "VM_AnyRef": "!vm.ref<?>", "VM_AnyPrim": "i32",
                 "VM_AnyValue": "i32"}


class Row:
    def __init__(self, name, mnemonic, fmt, semantics):
        self.name = name
        self.mnemonic = mnemonic
        self.fmt = fmt
        self.semantics = semantics.strip()


def parse_rows(path):
    rows = []
    with open(path, encoding="utf-8") as f:
        for lineno, line in enumerate(f, 1):
            if not line.startswith("STRATA_OP("):
                continue
            m = ROW_RE.match(line.strip())
            if not m:
                sys.exit(f"{path}:{lineno}: cannot parse row: {line.strip()}")
            name, _number, mnemonic, fmt, semantics = m.groups()
            if not semantics:
                sys.exit(f"{path}:{lineno}: row {name} has no semantics comment")
            rows.append(Row(name, mnemonic, fmt, semantics))
    if not rows:
        sys.exit(f"{path}: no STRATA_OP rows")
    return rows


def register_types(row):
    """Returns (operand constraints, result constraint or None, traits).

    Registers are 'a' (primitive) and 'r' (ref) in the format. Operands that
    are read come first; a row whose semantics start with `R[x] =` writes its
    last register.
    """
    regs = [c for c in row.fmt if c in "ar"]
    writes = bool(re.match(r"^R\[\w\] =", row.semantics))
    if writes and not regs:
        sys.exit(f"{row.name}: semantics write a register the format lacks")
    parts = row.mnemonic.split(".")
    head = parts[0]
    tys = [PRIM_TYPES[p] for p in parts[1:] if p in PRIM_TYPES]
    traits = []
    n = len(regs)
    prim = ["I32"] * n  # default for conditions, status codes, sizes

    if head == "const":
        if parts[1] in PRIM_TYPES:
            prim = [tys[0]]
            traits = ["ConstantLike", "Pure"]
        else:
            traits = ["Pure"]
    elif head == "cond_br":
        prim = [tys[0] if tys else "I32"] * n
        traits = ["AttrSizedOperandSegments", "Terminator", "Pure",
                  "BranchOpInterface"]
    elif head == "cond_fail" and tys:
        # Compares two registers of the type; the status code is i32.
        prim = [tys[0]] * (n - 1) + ["I32"]
    elif head == "global":
        prim = [tys[0] if tys else "I32"] * n
    elif head in ARITH:
        if len(tys) != 1:
            sys.exit(f"{row.name}: arithmetic needs one element type")
        prim = [tys[0]] * n
        # Integer division and remainder fail on zero, so they stay effectful.
        if not (head in ("div", "rem") and tys[0] in ("I32", "I64")):
            traits = ["Pure"]
        # Only the two-register forms; a `.imm` form has one register operand.
        if head in COMMUTATIVE and n == 3:
            traits.append("Commutative")
    elif head == "cmp":
        if len(tys) == 1:
            prim = [tys[0]] * (n - 1) + ["I32"]
        traits = ["Pure"]
    elif head in CONVERSIONS and row.mnemonic != "cast.ref":
        if len(tys) != 2 or n != 2:
            sys.exit(f"{row.name}: conversions need a source and a result type")
        prim = tys
        traits = ["Pure"]
    elif head in ("select", "mov"):
        prim = ["I32"] + ["VM_AnyPrim"] * (n - 1) if head == "select" else ["VM_AnyPrim"] * n
        traits = ["Pure"]
    elif head == "buffer":
        prim = ["I64"] * n
        if parts[1] == "compare":
            prim[-1] = "I32"
        elif parts[1] in ("fill", "load", "store"):
            prim[-1] = PRIM_TYPES[parts[2]]
    elif head == "list":
        if parts[1] in ("get", "set") and parts[2] in PRIM_TYPES:
            prim[-1] = PRIM_TYPES[parts[2]]
    elif "a" in regs and head not in I32_FAMILIES:
        # A new family: its register types cannot be guessed safely.
        sys.exit(f"{row.name}: no typing rule for the '{head}' family; add one "
                 "to register_types() in gen_vm_opcode_ops.py")

    types = []
    ref_index = 0
    for i, kind in enumerate(regs):
        if kind == "a":
            types.append(prim[i])
            continue
        is_result = writes and i == n - 1
        if head == "buffer" or row.mnemonic == "const.ref.rodata":
            types.append("VM_BufferType")
        elif head == "list" and (ref_index == 0 and not is_result or
                                 row.mnemonic == "list.alloc"):
            types.append("VM_ListType")
        else:
            types.append("VM_AnyRef")
        ref_index += 1
    if head in ("select", "mov"):
        traits.append('AllTypesMatch<["%s"]>' % '", "'.join(
            [chr(ord("a") + i) for i in range(1 if head == "select" else 0, n - 1)]
            + ["result"]))
    if writes:
        return types[:-1], types[-1], traits
    return types, None, traits


def escape(s):
    return s.replace("\\", "\\\\").replace('"', '\\"')


def emit_op(row, out, tests):
    operand_types, result_type, traits = register_types(row)
    args = []        # ODS arguments in format order
    fmt_items = []   # assembly format operands
    example = []
    printed_types = []
    example_types = []
    reg = 0
    fmt_str = row.fmt
    successors = None
    if fmt_str.endswith("BPBP"):
        # A conditional branch: registers, then the true and false targets.
        fmt_str = fmt_str[:-4]
        successors = ["trueDest", "falseDest"]
    elif "B" in fmt_str or "P" in fmt_str or "X" in fmt_str:
        sys.exit(f"{row.name}: format '{row.fmt}' is not generated; define "
                 "the op in VMOps.td and list it in HANDWRITTEN")
    for kind in fmt_str:
        if kind in "ar":
            if result_type is not None and reg == len(operand_types):
                break  # the written register is the result
            letter = chr(ord("a") + reg)
            ty = operand_types[reg]
            args.append(f"{ty}:${letter}")
            fmt_items.append(f"${letter}")
            example.append(f"%{letter}")
            if ty not in BUILDABLE and not any(t.startswith("AllTypesMatch") for t in traits):
                printed_types.append(f"type(${letter})")
                example_types.append(EXAMPLE_TYPES[ty])
            reg += 1
        elif kind == "V":
            args.append("Variadic<VM_AnyValue>:$values")
            fmt_items.append("(`(` $values^ `:` type($values) `)`)?")
            example.append("(%a : i32)")
        elif kind in ATTRS:
            attr, name, ex = ATTRS[kind]
            args.append(f"{attr}:${name}")
            fmt_items.append(f"${name}")
            example.append(ex)
        else:
            sys.exit(f"{row.name}: format kind '{kind}' is not generated; "
                     "define the op in VMOps.td and list it in HANDWRITTEN")
    if successors:
        for dest in successors:
            args.append(f"Variadic<VM_AnyValue>:${dest}Operands")
            fmt_items.append(f"${dest} (`(` ${dest}Operands^ `:` "
                             f"type(${dest}Operands) `)`)?")
            example.append(f"^bb{len(example)}")
    if result_type is not None and (result_type not in BUILDABLE or
                                    any(t.startswith("AllTypesMatch") for t in traits)):
        printed_types.append("type($result)")
        example_types.append(EXAMPLE_TYPES[result_type])

    # Items are separated by commas, except that a variadic group follows its
    # message directly: vm.print "x"(%a : i32).
    fmt = ""
    for i, item in enumerate(fmt_items):
        if i > 0 and not item.startswith("(`(` $values"):
            fmt += " `,` "
        elif i > 0:
            fmt += " "
        fmt += item
    fmt = (fmt + " attr-dict").strip()
    if printed_types:
        fmt += " `:` " + " `,` ".join(printed_types)

    ex = ", ".join(e for e in example if not e.startswith("("))
    ex += "".join(e for e in example if e.startswith("("))
    ex_line = f"vm.{row.mnemonic} {ex}".rstrip()
    if result_type is not None:
        ex_line = "%result = " + ex_line
    if example_types:
        ex_line += " : " + ", ".join(example_types)

    if any(kind in row.fmt for kind in "wWGDM"):
        traits.append("SymbolUserOpInterface")
    tests.append(example_func(row, args, result_type, successors, ex_line))
    trait_list = ", ".join(traits)
    out.append(f"// {row.name}: {row.semantics}")
    out.append(f'def VM_{row.name}Op : VM_OpcodeOp<"{row.name}", '
               f'"{row.mnemonic}", [{trait_list}]> {{')
    out.append(f'  let summary = "{escape(row.semantics)}";')
    out.append("  let description = [{")
    out.append(f"    The `{row.name}` row of schemas/opcodes.def, operand format "
               f"`{row.fmt}`.")
    out.append("")
    out.append("    Example:")
    out.append("")
    out.append("    ```mlir")
    out.append(f"    {ex_line}")
    out.append("    ```")
    out.append("  }];")
    out.append(f"  let arguments = (ins {', '.join(args)});")
    if result_type is not None:
        out.append(f"  let results = (outs {result_type}:$result);")
    out.append(f'  let assemblyFormat = "{escape(fmt)}";')
    symbol_check = None
    names = [a.split("$")[1] for a in args]
    if "global" in names:
        value = "getResult()" if result_type is not None else "getA()"
        is_store = "false" if result_type is not None else "true"
        symbol_check = (f"verifyGlobalAccess(*this, getGlobalAttr(), "
                        f"/*isStore=*/{is_store}, {value}.getType(), symbolTable)")
    elif "rodata" in names:
        symbol_check = "verifyRodataUse(*this, getRodataAttr(), symbolTable)"
    elif "callee" in names and "M" in row.fmt:
        symbol_check = "verifyImportUse(*this, getCalleeAttr(), symbolTable)"
    elif "callee" in names:
        sys.exit(f"{row.name}: no symbol check for format '{row.fmt}'")
    if symbol_check:
        out.append("  let extraOpcodeDeclaration = [{")
        out.append("    ::mlir::LogicalResult verifySymbolUses(")
        out.append("        ::mlir::SymbolTableCollection &symbolTable) {")
        out.append(f"      return ::mlir::strata::vm::{symbol_check};")
        out.append("    }")
        out.append("  }];")
    if successors:
        out.append("  let successors = (successor " + ", ".join(
            f"AnySuccessor:${d}" for d in successors) + ");")
        out.append("  let extraOpcodeDeclaration = [{")
        out.append("    ::mlir::SuccessorOperands getSuccessorOperands(unsigned index) {")
        out.append("      return ::mlir::SuccessorOperands(index == 0")
        out.append("          ? getTrueDestOperandsMutable()")
        out.append("          : getFalseDestOperandsMutable());")
        out.append("    }")
        out.append("  }];")
    if row.mnemonic in VERIFIED:
        out.append("  let hasVerifier = 1;")
    if "ConstantLike" in traits or row.mnemonic in FOLDED:
        out.append("  let hasFolder = 1;")
    out.append("}")
    out.append("")


def example_func(row, args, result_type, successors, ex_line):
    """A vm.func (and the declarations it needs) that uses the row's op."""
    params = []
    decls = []
    value_type = None
    for arg in args:
        constraint, name = arg.split(":$")
        if name in ("trueDestOperands", "falseDestOperands"):
            continue
        if name == "values":
            params.append("%v: i32")
        elif not constraint.endswith("Attr") and constraint != "FlatSymbolRefAttr":
            params.append(f"%{name}: {EXAMPLE_TYPES[constraint]}")
            value_type = value_type or constraint
    line = ex_line.replace("@global", f"@g_{row.name}").replace("(%a : i32)", "(%v : i32)")
    if "global" in [a.split(":$")[1] for a in args]:
        # A load's value is its result; a store's is its first operand.
        ty = EXAMPLE_TYPES[value_type if result_type is None else result_type]
        if ty.startswith("!"):
            decls.append(f"  vm.global.ref mutable @g_{row.name} : {ty}")
        else:
            decls.append(f"  vm.global.{ty} mutable @g_{row.name}")
    body = [f"  // CHECK-LABEL: vm.func @{row.name}(",
            f"  vm.func @{row.name}({', '.join(params)}) {{",
            f"    // CHECK: vm.{row.mnemonic}{{{{( |$)}}}}"]
    if successors:
        body.append("    " + line.replace("^bb2, ^bb3", "^bb1, ^bb1"))
        body.append("  ^bb1:")
    else:
        body.append(f"    {line}")
    body.append("    vm.return")
    body.append("  }")
    return "\n".join(decls + body)


def write_if_changed(path, text):
    try:
        with open(path, encoding="utf-8") as f:
            if f.read() == text:
                return
    except OSError:
        pass
    with open(path, "w", encoding="utf-8") as f:
        f.write(text)


def main():
    if len(sys.argv) not in (3, 4):
        sys.exit(__doc__)
    rows = parse_rows(sys.argv[1])
    out = [
        "// VMOpcodeOps.td - GENERATED by gen_vm_opcode_ops.py from "
        "schemas/opcodes.def; do not edit.",
        "",
        "#ifndef STRATA_DIALECT_VM_IR_VMOPCODEOPS_TD",
        "#define STRATA_DIALECT_VM_IR_VMOPCODEOPS_TD",
        "",
        'include "Strata/Dialect/VM/IR/VMBase.td"',
        "",
    ]
    tests = []
    for row in rows:
        if row.name not in HANDWRITTEN:
            emit_op(row, out, tests)
    out.append("#endif // STRATA_DIALECT_VM_IR_VMOPCODEOPS_TD")
    write_if_changed(sys.argv[2], "\n".join(out) + "\n")
    if len(sys.argv) == 4:
        examples = [
            "// VMOpcodeOpsExamples.mlir - GENERATED by gen_vm_opcode_ops.py: "
            "each generated vm op once.",
            "// CHECK-LABEL: vm.module @every_opcode",
            "vm.module @every_opcode {",
            '  vm.rodata @rodata "bytes"',
            "  vm.import optional @module.fn : () -> ()",
        ] + tests + ["}"]
        write_if_changed(sys.argv[3], "\n".join(examples) + "\n")


if __name__ == "__main__":
    main()
