// Modules that need no kernel at all: a function that returns its
// arguments (swapped), pure host arithmetic, a large constant (rodata, no
// dispatch), a reshape view, tensor.extract of an argument; the module has
// no kernel library. On both devices. Also strata-run's untyped inputs.
// RUN: strata-compile %s -o %t.vmfb
// RUN: strata-dump %t.vmfb | FileCheck %s --check-prefix=DUMP
// DUMP-NOT: kernel library
// RUN: strata-run --module=%t.vmfb --device=local-sync --function=swap --input="4xf32=1 2 3 4" --input="2xi32=5 6" --expected_output="2xi32=5 6" --expected_output="4xf32=1 2 3 4"
// RUN: strata-run --module=%t.vmfb --device=local-task --function=swap --input="4xf32=1 2 3 4" --input="2xi32=5 6" --expected_output="2xi32=5 6" --expected_output="4xf32=1 2 3 4"
// RUN: strata-run --module=%t.vmfb --device=local-task --function=host_math --input=i32=6 --input=f64=0.5 --expected_output=i32=42 --expected_output=f64=2.25
// RUN: strata-run --module=%t.vmfb --device=local-sync --function=weights --output=@%t.npy
// RUN: strata-run --module=%t.vmfb --device=local-task --function=weights --expected_output="80xf32=0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9"
// RUN: strata-run --module=%t.vmfb --device=local-task --function=view --input="2x3xi8=1 2 3 4 5 6" --expected_output="6xi8=1 2 3 4 5 6"
// RUN: strata-run --module=%t.vmfb --device=local-sync --function=element --input="4xf32=1 2 3 4" --expected_output=f32=3
//
// IREE's untyped inputs: the types come from the signature.
// RUN: strata-run --module=%t.vmfb --function=host_math --input=6 --input=0.5 --expected_output=i32=42 --expected_output=f64=2.25
// RUN: strata-run --module=%t.vmfb --function=element --input="1 2 3 4" --expected_output=f32=3
// RUN: not strata-run --module=%t.vmfb --function=host_math --input=six --input=0.5 2>&1 | FileCheck %s --check-prefix=UNTYPED
// UNTYPED: --input #1 ('six'): value 'six' is not a valid i32

func.func @swap(%a: tensor<4xf32>, %b: tensor<2xi32>) -> (tensor<2xi32>, tensor<4xf32>) {
  return %b, %a : tensor<2xi32>, tensor<4xf32>
}

func.func @host_math(%a: i32, %x: f64) -> (i32, f64) {
  %c7 = arith.constant 7 : i32
  %r = arith.muli %a, %c7 : i32
  %c2 = arith.constant 2.0 : f64
  %s = arith.addf %x, %c2 : f64
  %q = arith.mulf %s, %x : f64
  %t = arith.addf %q, %x : f64
  %u = arith.addf %t, %x : f64
  return %r, %u : i32, f64
}

func.func @weights() -> tensor<80xf32> {
  %c = arith.constant dense<[0.0, 1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0, 0.0, 1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0, 0.0, 1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0, 0.0, 1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0, 0.0, 1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0, 0.0, 1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0, 0.0, 1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0, 0.0, 1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0]> : tensor<80xf32>
  return %c : tensor<80xf32>
}

func.func @view(%a: tensor<2x3xi8>) -> tensor<6xi8> {
  %c = tensor.collapse_shape %a [[0, 1]] : tensor<2x3xi8> into tensor<6xi8>
  return %c : tensor<6xi8>
}

func.func @element(%a: tensor<4xf32>) -> f32 {
  %c2 = arith.constant 2 : index
  %v = tensor.extract %a[%c2] : tensor<4xf32>
  return %v : f32
}
