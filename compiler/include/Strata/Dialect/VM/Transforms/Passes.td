// Passes.td - transformations on the vm dialect.

#ifndef STRATA_DIALECT_VM_TRANSFORMS_PASSES_TD
#define STRATA_DIALECT_VM_TRANSFORMS_PASSES_TD

include "mlir/Pass/PassBase.td"

def VMPeepholePass : Pass<"strata-vm-peephole", "::mlir::strata::vm::ModuleOp"> {
  let summary = "select the fused and immediate-operand opcodes";
  let description = [{
    Rewrites common instruction pairs into the single opcodes that
    schemas/opcodes.def has for them, so the interpreter dispatches fewer
    instructions in hot loops:

    - `vm.add.i64` / `vm.mul.i64` with a constant operand (either side) and
      `vm.sub.i64` with a constant right operand become `vm.add.i64.imm` /
      `vm.mul.i64.imm`;
    - `vm.rem.i64.s` by a constant other than 0 and -1 becomes
      `vm.rem.i64.s.imm` (those two divisors keep their run-time checks);
    - `vm.cond_br` on a `vm.cmp.lt.i64.s` that has no other use becomes
      `vm.cond_br.lt.i64.s`, and `vm.cond_br.lt.i64.s` against a constant
      bound becomes `vm.cond_br.lt.i64.s.imm`.

    Constants left without uses are erased. Run it late: the immediate forms
    have no folders, so canonicalization should come first.

    Example:

    ```mlir
    %c3 = vm.const.i64 3
    %t = vm.mul.i64 %i, %c3
    // becomes
    %t = vm.mul.i64.imm %i, 3
    ```
  }];
}

def VMRotateLoopsPass : Pass<"strata-vm-rotate-loops", "::mlir::strata::vm::FuncOp"> {
  let summary = "test loop conditions at the bottom of the loop";
  let description = [{
    A loop lowered from `scf.for` or `scf.while` tests its condition in a
    header block that the latch branches back to, so every iteration runs two
    branches. When a header holds at most a few pure ops and a conditional
    branch, this pass copies it into each predecessor that ends in an
    unconditional `vm.br` to it, so the latch branches straight to the body
    or the exit. The header's block arguments used beyond it become block
    arguments of its successors, keeping SSA form. Headers whose values are
    used outside the header and its successors are left alone.

    Example:

    ```mlir
    ^header(%i: i64):
      vm.cond_br.lt.i64.s %i, %n, ^body, ^exit
    ^body:
      %next = vm.add.i64.imm %i, 1
      vm.br ^header(%next : i64)
    // the latch becomes
      %next = vm.add.i64.imm %i, 1
      vm.cond_br.lt.i64.s %next, %n, ^body(%next : i64), ^exit(%next : i64)
    ```
  }];
  let options = [
    Option<"maxHeaderOps", "max-header-ops", "unsigned", /*default=*/"4",
           "Largest header (ops, terminator included) that is copied">,
  ];
}

#endif // STRATA_DIALECT_VM_TRANSFORMS_PASSES_TD
