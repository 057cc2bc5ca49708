#!/usr/bin/env python3
"""gen_hal_import_ops.py - emits one hal dialect op per schemas/hal_imports.def row.

Usage: gen_hal_import_ops.py HAL_IMPORTS_DEF OUT_TD [OUT_EXAMPLES_MLIR]

Each row `STRATA_HAL_IMPORT(fn, "name", "cconv", "sig", since)` becomes the
op `hal.<name>` (class `<Fn>Op`), typed from the row's signature:

  i32             I32 operand
  i64             Index operand (the hal layer counts in index; the vm
                  conversion makes it i64, as the import takes it)
  rodata          an attribute (StrAttr or ElementsAttr): its bytes become
                  module data when the op lowers to the import; inside a
                  span, a value (the vm's !vm.buffer of module data, which
                  the vm conversion passes: executable.create_first)
  any             a value of any type (a ref the callee inspects)
  <object>[?]     a !hal.<object> value; `?` makes it optional (null)
  name:[T...]     a variadic span; one type: Variadic<T>; a tuple of several
                  types: Variadic<AnyType>, checked per position

Every op carries the row's signature (`getImportSignature()`), which the one
lowering pattern of Dialect/HAL/Conversion/HALToVM reads to call the import,
and the HALImportOp trait verifies the operands against it.

OUT_EXAMPLES_MLIR, when given, receives one function per op that uses it,
with FileCheck lines: the lit suite round-trips it so every generated op is
parsed, verified and printed.
"""

import re
import sys

ROW_RE = re.compile(
    r'STRATA_HAL_IMPORT\(\s*(\w+)\s*,\s*"([^"]+)"\s*,\s*"([^"]*)"\s*,\s*'
    r'((?:"[^"]*"\s*)+),\s*(\d+)\s*\)', re.S)

OBJECTS = ["device", "allocator", "buffer", "buffer_view", "command_buffer",
           "fence", "executable"]


def camel(name):
    return "".join(part[:1].upper() + part[1:]
                   for part in re.split(r"[._]", name))


def parse_rows(text):
    # Comments may mention the macro; rows are the expansions at line start.
    rows = []
    for m in ROW_RE.finditer(text):
        line_start = text.rfind("\n", 0, m.start()) + 1
        if text[line_start:m.start()].strip():
            continue
        fn, name, cconv, sig_literals, since = m.groups()
        sig = "".join(re.findall(r'"([^"]*)"', sig_literals))
        rows.append((fn, name, cconv, sig, int(since)))
    return rows


def parse_sig(sig):
    params_text, result = [s.strip() for s in sig.split("->")]
    params = []
    for token in re.findall(r"\w+:\[[^\]]*\]|\w+:\S+", params_text):
        name, type_text = token.split(":", 1)
        if type_text.startswith("["):
            params.append((name, type_text[1:-1].split(), True))
        else:
            params.append((name, [type_text], False))
    return params, result or None


def ods_type(t):
    optional = t.endswith("?")
    base = t.rstrip("?")
    if base == "i32":
        return "I32"
    if base == "i64":
        return "Index"
    if base == "any":
        return "AnyType"
    if base in OBJECTS:
        return "HAL_" + camel(base)
    raise SystemExit(f"hal_imports.def: unknown type '{t}'")


def emit_op(fn, name, cconv, sig, since):
    params, result = parse_sig(sig)
    args, fmt = [], []
    groups = 0  # variadic or optional operand groups
    for pname, types, span in params:
        if span:
            groups += 1
            element = ods_type(types[0]) if len(types) == 1 else "AnyType"
            if len(types) == 1 and types[0] == "fence?":
                element = "HAL_Fence"
            args.append(f"Variadic<{element}>:${pname}")
            fmt.append(f"`{pname}` `(` (${pname}^ `:` type(${pname}))? `)`")
        elif types[0] == "rodata":
            args.append(f"AnyAttrOf<[StrAttr, ElementsAttr]>:${pname}")
            fmt.append(f"`{pname}` `(` ${pname} `)`")
        elif types[0].endswith("?") and types[0] != "any?":
            groups += 1
            args.append(f"Optional<{ods_type(types[0])}>:${pname}")
            fmt.append(f"(`{pname}` `(` ${pname}^ `)`)?")
        elif types[0].rstrip("?") == "any":
            args.append(f"AnyType:${pname}")
            fmt.append(f"`{pname}` `(` ${pname} `:` type(${pname}) `)`")
        else:
            args.append(f"{ods_type(types[0])}:${pname}")
            fmt.append(f"`{pname}` `(` ${pname} `)`")
    # A builder without the result type, which the row fixes.
    builder_params, builder_args = [], []
    for pname, types, span in params:
        if span:
            cpp = "::mlir::ValueRange"
        elif types[0] == "rodata":
            cpp = "::mlir::Attribute"
        else:
            cpp = "::mlir::Value"
        builder_params.append(f'"{cpp}":${pname}')
        builder_args.append(pname)
    builders = ""
    if result:
        result_cpp = {"i32": "$_builder.getI32Type()",
                      "i64": "$_builder.getIndexType()"}.get(
            result, f"$_builder.getType<::mlir::strata::hal::{camel(result)}Type>()")
        builders = (f"  let builders = [OpBuilder<(ins {', '.join(builder_params)}), [{{\n"
                    f"    build($_builder, $_state, {result_cpp}"
                    + "".join(f", {a}" for a in builder_args) + ");\n  }]>];\n")
    traits = ["HALImportOpTrait"]
    if groups > 1:
        traits.append("AttrSizedOperandSegments")
    results = f"(outs {ods_type(result)}:$result)" if result else "(outs)"
    fmt.append("attr-dict")
    out = [f'def HAL_{fn[0].upper() + fn[1:]}Op : HAL_ImportOp<"{name}", '
           f'[{", ".join(traits)}]> {{',
           f'  let summary = "calls hal.{name} (schemas/hal_imports.def)";',
           f"  let description = [{{",
           f"    The typed form of the hal module's `{name}` (calling "
           f"convention",
           f"    `{cconv}`, hal module version {since}): `{sig}`.",
           f"    The row's comment in schemas/hal_imports.def is its "
           f"contract.",
           f"  }}];",
           f"  let arguments = (ins {', '.join(args)});",
           f"  let results = {results};",
           builders.replace("\\n", "\n") + f"  let assemblyFormat = [{{",
           f"    {' '.join(fmt)}",
           f"  }}];",
           f"  let extraClassDeclaration = [{{",
           f"    /// The row's typed signature (hal_imports.def).",
           f"    static constexpr ::llvm::StringLiteral getImportSignature() "
           f"{{",
           f'      return "{sig}";',
           f"    }}",
           f"    /// The hal module version that added the row.",
           f"    static constexpr unsigned getImportSince() {{ return {since}; }}",
           f"    /// Whether the row has spans (a variadic call).",
           f"    static constexpr bool hasImportSpans() {{ return "
           f"{'true' if any(span for _, _, span in params) else 'false'}; }}",
           f"  }}];",
           "}", ""]
    return "\n".join(out)


def example_value(t, index):
    """(ssa name, type text) of a function argument of type t."""
    base = t.rstrip("?")
    if base == "i32":
        return f"%a{index}", "i32"
    if base == "i64":
        return f"%a{index}", "index"
    if base == "any":
        return f"%a{index}", "!hal.buffer_view"
    if base == "rodata":  # a span's member: a value, the vm's buffer
        return f"%a{index}", "!vm.buffer"
    return f"%a{index}", f"!hal.{base}"


def emit_example(fn, name, sig):
    params, result = parse_sig(sig)
    func_args, pieces = [], []
    for pname, types, span in params:
        if types[0] == "rodata" and not span:
            pieces.append(f'{pname}("data")')
            continue
        values = []
        for t in types:
            v, ty = example_value(t, len(func_args))
            func_args.append(f"{v}: {ty}")
            values.append((v, ty))
        if span:
            pieces.append(f"{pname}({', '.join(v for v, _ in values)} : "
                          f"{', '.join(ty for _, ty in values)})")
        elif types[0].rstrip("?") == "any":
            pieces.append(f"{pname}({values[0][0]} : {values[0][1]})")
        else:
            pieces.append(f"{pname}({values[0][0]})")
    text = " ".join(pieces)
    assign = "%r = " if result else ""
    # The printer renames the values: the check matches any name.
    checked = re.sub(r"%\w+", "%{{[a-z0-9_]+}}", f"{assign}hal.{name} {text}")
    lines = [f"// CHECK-LABEL: func.func @{fn}",
             f"func.func @{fn}({', '.join(func_args)}) {{",
             f"  // CHECK: {checked}",
             f"  {assign}hal.{name} {text}",
             "  return", "}", ""]
    return "\n".join(lines)


def main():
    if len(sys.argv) not in (3, 4):
        sys.exit(__doc__)
    with open(sys.argv[1]) as f:
        rows = parse_rows(f.read())
    if not rows:
        sys.exit(f"{sys.argv[1]}: no STRATA_HAL_IMPORT rows")
    td = ["// HALImportOps.td - generated by gen_hal_import_ops.py from",
          "// schemas/hal_imports.def: one op per row. Do not edit.", "",
          "#ifndef STRATA_DIALECT_HAL_IR_HALIMPORTOPS_TD",
          "#define STRATA_DIALECT_HAL_IR_HALIMPORTOPS_TD", "",
          'include "Strata/Dialect/HAL/IR/HALBase.td"', ""]
    for fn, name, cconv, sig, since in rows:
        td.append(emit_op(fn, name, cconv, sig, since))
    td.append("#endif // STRATA_DIALECT_HAL_IR_HALIMPORTOPS_TD")
    with open(sys.argv[2], "w") as f:
        f.write("\n".join(td) + "\n")
    if len(sys.argv) == 4:
        ex = ["// Generated by gen_hal_import_ops.py: every op of "
              "schemas/hal_imports.def once.", ""]
        for fn, name, _, sig, _ in rows:
            ex.append(emit_example(fn, name, sig))
        with open(sys.argv[3], "w") as f:
            f.write("\n".join(ex))


if __name__ == "__main__":
    main()
