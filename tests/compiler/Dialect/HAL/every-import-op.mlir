// Every op generated from schemas/hal_imports.def parses, verifies, prints
// and parses again. The input is written by gen_hal_import_ops.py at build
// time, with a CHECK-LABEL and a CHECK per op.
// RUN: strata-opt %hal_import_examples | strata-opt | FileCheck %hal_import_examples
