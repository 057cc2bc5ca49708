// Every opcodes.def row is emitted by strata-compile and comes back from
// strata-dump's disassembler under the same mnemonic. The generated examples
// hold one function per generated op (named after its row); control-flow.mlir
// holds the hand-written branch, call and return ops.
// RUN: strata-compile --compile-mode=vm %vm_opcode_examples -o %t.generated.vmfb
// RUN: strata-compile --compile-mode=vm %S/../../Dialect/VM/control-flow.mlir -o %t.control.vmfb
// RUN: strata-dump %t.generated.vmfb > %t.generated.txt
// RUN: strata-dump %t.control.vmfb > %t.control.txt
// RUN: %python %S/check_mnemonics.py %opcodes_def %t.generated.txt %t.control.txt | FileCheck %s
// CHECK: all {{[0-9]+}} opcodes round-tripped
