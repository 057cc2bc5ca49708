// Passes.td - the conversion passes of the Strata compiler.

#ifndef STRATA_CONVERSION_PASSES_TD
#define STRATA_CONVERSION_PASSES_TD

include "mlir/Pass/PassBase.td"

def ConvertToVMPass : Pass<"strata-convert-to-vm", "::mlir::ModuleOp"> {
  let summary = "Convert func, arith, math, scf, cf and index to the vm dialect";
  let description = [{
    Lowers a builtin module written in the scalar upstream dialects to one
    `vm.module`, named after the builtin module (`@module` when it has no
    name), which becomes the only op of the builtin module.

    scf is lowered to cf first with the upstream SCF-to-ControlFlow patterns;
    `arith.ceildivsi/ceildivui/floordivsi` (and their index forms) are
    expanded with upstream arith patterns; math.tan, sinh, cosh, asinh,
    acosh, atanh, rsqrt and fpowi with the upstream math expansions; and
    math.log1p, expm1, log10, trunc, isnan, isinf and isfinite by this pass.

    Functions:

    - a public `func.func` with a body becomes a `vm.func` and a `vm.export`
      of the same name; a private one becomes an internal `vm.func`;
    - a private `func.func` declaration (no body) becomes a `vm.import`, and
      calls to it become `vm.call.import`. An import must be named
      `module.function` (for example `@hal.buffer.length`): the VM resolves it
      by the module name before the first dot, so a declaration without a dot
      in its name is an error;
    - other calls become `vm.call`. Any number of results is fine.

    Types: `i1`, `i8`, `i16` and `i32` live in i32 registers; `i64` and
    `index` in i64 registers; `f32` and `f64` as themselves; `!vm.*` refs pass
    through. Any other type (f16, bf16, i128, vectors, tensors, memrefs, ...)
    is an error at the op that defines the value.

    Narrow integers: an i1 is always exactly 0 or 1 in its register (the VM's
    convention for booleans), so conditions use it directly; ops that could
    set other bits (addi, subi, shifts, signed min/max/div/rem, truncation to
    i1) mask their i1 result with `and 1`. An i8 or i16 is computed in i32
    and only its low 8 or 16 bits are meaningful; the high bits are
    unspecified. Every op whose result depends on those high bits (division,
    remainder, right shifts, comparisons, min/max, abs, ctlz, extension,
    int-to-float) first sign- or zero-extends its operands with
    `vm.ext.i8.i32.s/u` / `vm.ext.i16.i32.s/u`, so wrap-around at 8 and 16
    bits is exact. Shift amounts are zero-extended the same way.

    At function boundaries the same holds: an i1 argument or result must be
    0 or 1, and an i8/i16 argument or result carries only its low 8/16 bits.

    Integer division and remainder keep the VM semantics: a zero divisor
    fails the invocation at run time. `cf.assert` becomes `vm.cond_fail`
    with status FAILED_PRECONDITION (9); `cf.switch` becomes `vm.br_table`
    when its cases are 0..n-1 of a flag of at most 32 bits, else a chain of
    compares and `vm.cond_br`. `arith.cmpf` maps ordered predicates to the
    vm comparisons, `uno`/`ord`/`ueq`/`one` through `vm.cmp.nan.*`, the other
    unordered ones to negated ordered ones, and `true`/`false` to constants.
    `arith.maxnumf`/`minnumf` replace a NaN operand by the other one before
    the NaN-propagating `vm.max`/`vm.min`.

    The conversion is one to one and does not fold; run `--canonicalize`
    afterwards. A builtin module that holds only `vm.module`s is left alone.

    Before changing anything, the pass reports every op that has no way to
    the vm dialect, at its location, as `'dialect.op' has no conversion to
    vm` (for example `math.ipowi`, `math.ctpop`, `arith.addui_extended`,
    `func.call_indirect`), and every unsupported type as `unsupported type
    'f16' in conversion to vm`; then it fails and converts nothing.

    Tensor programs arrive scheduled (stream and hal dialects, see
    `--strata-schedule-execution` and `--strata-compile-executables`):
    each stream op becomes calls of the hal module, each `hal.executable`
    its library in rodata, created once per context by an initializer.
  }];
  let dependentDialects = [
    "::mlir::strata::vm::VMDialect",
    "::mlir::arith::ArithDialect",
    "::mlir::cf::ControlFlowDialect",
    "::mlir::math::MathDialect",
  ];
}

#endif // STRATA_CONVERSION_PASSES_TD
