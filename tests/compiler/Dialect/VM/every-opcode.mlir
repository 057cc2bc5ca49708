// Every op generated from schemas/opcodes.def parses, verifies, prints and
// parses again. The input is written by gen_vm_opcode_ops.py at build time,
// with a CHECK-LABEL and a CHECK per op.
// RUN: strata-opt %vm_opcode_examples | strata-opt | FileCheck %vm_opcode_examples
