// f16 without F16C (generic x86-64): the kernels convert halves through the
// library's own __extendhfsf2/__truncsfhf2 (LibraryEmitter.cpp); results
// match the host (F16C) build exactly: rounding to nearest even,
// subnormals, overflow to infinity, NaN.
// RUN: strata-compile --target-cpu=x86-64 %s -o %t.generic.vmfb
// RUN: strata-compile %s -o %t.host.vmfb
// RUN: strata-run --module=%t.generic.vmfb --function=add --input="8xf16=1 2.5 -3 0.125 65504 1e-7 6e-5 nan" --input="8xf16=0.5 0.5 0.5 1 65504 0 -6e-5 1" --output=- | FileCheck %s --check-prefix=ADD
// RUN: strata-run --module=%t.generic.vmfb --function=widen --input="8xf16=1 -2.5 65504 -inf 6e-8 6.1e-5 0 nan" --output=- | FileCheck %s --check-prefix=WIDEN
// RUN: strata-run --module=%t.generic.vmfb --function=narrow --input="8xf32=1 2049 2051 65519 65520 1e-8 3e-8 -1e-6" --output=- | FileCheck %s --check-prefix=NARROW
// RUN: strata-run --module=%t.host.vmfb --function=add --input="8xf16=1 2.5 -3 0.125 65504 1e-7 6e-5 nan" --input="8xf16=0.5 0.5 0.5 1 65504 0 -6e-5 1" --output=- | FileCheck %s --check-prefix=ADD
// RUN: strata-run --module=%t.host.vmfb --function=widen --input="8xf16=1 -2.5 65504 -inf 6e-8 6.1e-5 0 nan" --output=- | FileCheck %s --check-prefix=WIDEN
// RUN: strata-run --module=%t.host.vmfb --function=narrow --input="8xf32=1 2049 2051 65519 65520 1e-8 3e-8 -1e-6" --output=- | FileCheck %s --check-prefix=NARROW
// ADD: 8xf16=1.5 3 -2.5 1.125 inf 1e-07 0 nan
// WIDEN: 8xf32=1 -2.5 65504 -inf 5.9604645e-08 6.097555e-05 0 nan
// NARROW: 8xf16=1 2048 2052 65504 inf 0 6e-08 -1e-06

func.func @add(%a: tensor<8xf16>, %b: tensor<8xf16>) -> tensor<8xf16> {
  %r = tosa.add %a, %b : (tensor<8xf16>, tensor<8xf16>) -> tensor<8xf16>
  return %r : tensor<8xf16>
}

func.func @widen(%a: tensor<8xf16>) -> tensor<8xf32> {
  %r = tosa.cast %a : (tensor<8xf16>) -> tensor<8xf32>
  return %r : tensor<8xf32>
}

func.func @narrow(%a: tensor<8xf32>) -> tensor<8xf16> {
  %r = tosa.cast %a : (tensor<8xf32>) -> tensor<8xf16>
  return %r : tensor<8xf16>
}
