// Convolutions joined along channels (squeezenet's fire modules): with a
// convolution microkernel, each convolution read only by the
// concatenation is computed in its dispatch (--fuse-into-concat), band by
// band, straight into its slice of the result (a 1x1 with a constant
// filter packed at compile time, bias and ReLU; a padded 3x3), beside an
// operand that is only copied. The same written with linalg.generic
// convolutions (loops, a concatenation that copies) must agree exactly,
// for the host's kernels, AVX2's and the baseline x86-64's, on both
// devices. Edge sizes: 2 images of 13 x 11 (primes; bands of rows), and
// one 1 x 1 image (one band, no distribution), 7 input channels.
// RUN: strata-compile %s -o %t.vmfb
// RUN: strata-compile %s --target-cpu=x86-64-v3 -o %t.avx2.vmfb
// RUN: strata-compile %s --target-cpu=x86-64 -o %t.base.vmfb
// RUN: strata-compile %s --compile-to=flow | FileCheck %s
// CHECK-DAG: flow.dispatch @module_linked_llvm_cpu::@fused_dispatch_{{[0-9]+}}_conv_3x3_7x19_13x11_n2_concat_f32
// CHECK-DAG: flow.dispatch @module_linked_llvm_cpu::@fused_one_dispatch_{{[0-9]+}}_conv_3x3_7x19_1x1_concat_f32
// RUN: strata-run --module=%t.vmfb --function=loops --output=@%t.expected.npy
// RUN: strata-run --module=%t.vmfb --function=fused --expected_output=@%t.expected.npy
// RUN: strata-run --module=%t.vmfb --device=local-sync --function=fused --expected_output=@%t.expected.npy
// RUN: strata-run --module=%t.avx2.vmfb --function=fused --expected_output=@%t.expected.npy
// RUN: strata-run --module=%t.avx2.vmfb --device=local-sync --function=fused --expected_output=@%t.expected.npy
// RUN: strata-run --module=%t.base.vmfb --function=fused --expected_output=@%t.expected.npy
// RUN: strata-run --module=%t.base.vmfb --device=local-sync --function=fused --expected_output=@%t.expected.npy
// RUN: strata-run --module=%t.vmfb --function=loops_one --output=@%t.one.npy
// RUN: strata-run --module=%t.vmfb --function=fused_one --expected_output=@%t.one.npy
// RUN: strata-run --module=%t.vmfb --device=local-sync --function=fused_one --expected_output=@%t.one.npy
// RUN: strata-run --module=%t.avx2.vmfb --function=fused_one --expected_output=@%t.one.npy
// RUN: strata-run --module=%t.avx2.vmfb --device=local-sync --function=fused_one --expected_output=@%t.one.npy
// RUN: strata-run --module=%t.base.vmfb --function=fused_one --expected_output=@%t.one.npy
// RUN: strata-run --module=%t.base.vmfb --device=local-sync --function=fused_one --expected_output=@%t.one.npy

// x[n, h, w, c] = ((3h + 5w + 7c + 11n) mod 13) - 6
func.func private @input() -> tensor<2x13x12x16xf32> {
  %e = tensor.empty() : tensor<2x13x12x16xf32>
  %x = linalg.generic {indexing_maps = [affine_map<(n, h, w, c) -> (n, h, w, c)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} outs(%e : tensor<2x13x12x16xf32>) {
  ^bb0(%o: f32):
    %n = linalg.index 0 : index
    %h = linalg.index 1 : index
    %w = linalg.index 2 : index
    %c = linalg.index 3 : index
    %c3 = arith.constant 3 : index
    %c5 = arith.constant 5 : index
    %c7 = arith.constant 7 : index
    %c11 = arith.constant 11 : index
    %c13 = arith.constant 13 : index
    %c6 = arith.constant 6 : index
    %a = arith.muli %h, %c3 : index
    %b = arith.muli %w, %c5 : index
    %d = arith.muli %c, %c7 : index
    %g = arith.muli %n, %c11 : index
    %s1 = arith.addi %a, %b : index
    %s2 = arith.addi %s1, %d : index
    %s3 = arith.addi %s2, %g : index
    %m = arith.remui %s3, %c13 : index
    %i = arith.index_cast %m : index to i32
    %f = arith.sitofp %i : i32 to f32
    %six = arith.constant 6.0 : f32
    %v = arith.subf %f, %six : f32
    linalg.yield %v : f32
  } -> tensor<2x13x12x16xf32>
  return %x : tensor<2x13x12x16xf32>
}

// w[kh, kw, c, f] = ((kh + 2kw + 3c + 5f) mod 7) - 3
func.func private @filter() -> tensor<3x3x16x40xf32> {
  %e = tensor.empty() : tensor<3x3x16x40xf32>
  %x = linalg.generic {indexing_maps = [affine_map<(a, b, c, d) -> (a, b, c, d)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} outs(%e : tensor<3x3x16x40xf32>) {
  ^bb0(%o: f32):
    %kh = linalg.index 0 : index
    %kw = linalg.index 1 : index
    %c = linalg.index 2 : index
    %f = linalg.index 3 : index
    %c2 = arith.constant 2 : index
    %c3 = arith.constant 3 : index
    %c5 = arith.constant 5 : index
    %c7 = arith.constant 7 : index
    %b = arith.muli %kw, %c2 : index
    %d = arith.muli %c, %c3 : index
    %g = arith.muli %f, %c5 : index
    %s1 = arith.addi %kh, %b : index
    %s2 = arith.addi %s1, %d : index
    %s3 = arith.addi %s2, %g : index
    %m = arith.remui %s3, %c7 : index
    %i = arith.index_cast %m : index to i32
    %v0 = arith.sitofp %i : i32 to f32
    %three = arith.constant 3.0 : f32
    %v = arith.subf %v0, %three : f32
    linalg.yield %v : f32
  } -> tensor<3x3x16x40xf32>
  return %x : tensor<3x3x16x40xf32>
}

func.func @fused() -> tensor<2x13x11x31xf32> {
  %x0 = call @input() : () -> tensor<2x13x12x16xf32>
  %x = tensor.extract_slice %x0[0, 0, 0, 2] [2, 13, 11, 7] [1, 1, 1, 1] : tensor<2x13x12x16xf32> to tensor<2x13x11x7xf32>
  %f0 = call @filter() : () -> tensor<3x3x16x40xf32>
  %w3 = tensor.extract_slice %f0[0, 0, 5, 3] [3, 3, 7, 19] [1, 1, 1, 1] : tensor<3x3x16x40xf32> to tensor<3x3x7x19xf32>
  %w1 = arith.constant dense<[[[[-2.0,1.0,-1.0,2.0,0.0],[0.0,-2.0,1.0,-1.0,2.0],[2.0,0.0,-2.0,1.0,-1.0],[-1.0,2.0,0.0,-2.0,1.0],[1.0,-1.0,2.0,0.0,-2.0],[-2.0,1.0,-1.0,2.0,0.0],[0.0,-2.0,1.0,-1.0,2.0]]]]> : tensor<1x1x7x5xf32>
  %bias = arith.constant dense<[0.5, -1.5, 2.0, -0.25, 1.0]> : tensor<5xf32>
  %zero = arith.constant 0.0 : f32
  %e5 = tensor.empty() : tensor<2x13x11x5xf32>
  %z5 = linalg.fill ins(%zero : f32) outs(%e5 : tensor<2x13x11x5xf32>) -> tensor<2x13x11x5xf32>
  %c1 = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%x, %w1 : tensor<2x13x11x7xf32>, tensor<1x1x7x5xf32>) outs(%z5 : tensor<2x13x11x5xf32>) -> tensor<2x13x11x5xf32>
  %r1 = linalg.generic {indexing_maps = [affine_map<(n, h, w, c) -> (n, h, w, c)>, affine_map<(n, h, w, c) -> (c)>, affine_map<(n, h, w, c) -> (n, h, w, c)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%c1, %bias : tensor<2x13x11x5xf32>, tensor<5xf32>) outs(%e5 : tensor<2x13x11x5xf32>) {
  ^bb0(%in: f32, %b: f32, %out: f32):
    %s = arith.addf %in, %b : f32
    %m = arith.maximumf %s, %zero : f32
    linalg.yield %m : f32
  } -> tensor<2x13x11x5xf32>
  %p = tensor.pad %x low[0, 1, 1, 0] high[0, 1, 1, 0] {
  ^bb0(%i: index, %j: index, %k: index, %l: index):
    tensor.yield %zero : f32
  } : tensor<2x13x11x7xf32> to tensor<2x15x13x7xf32>
  %e19 = tensor.empty() : tensor<2x13x11x19xf32>
  %z19 = linalg.fill ins(%zero : f32) outs(%e19 : tensor<2x13x11x19xf32>) -> tensor<2x13x11x19xf32>
  %c3 = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%p, %w3 : tensor<2x15x13x7xf32>, tensor<3x3x7x19xf32>) outs(%z19 : tensor<2x13x11x19xf32>) -> tensor<2x13x11x19xf32>
  %r = tensor.concat dim(3) %r1, %c3, %x : (tensor<2x13x11x5xf32>, tensor<2x13x11x19xf32>, tensor<2x13x11x7xf32>) -> tensor<2x13x11x31xf32>
  return %r : tensor<2x13x11x31xf32>
}

func.func @loops() -> tensor<2x13x11x31xf32> {
  %x0 = call @input() : () -> tensor<2x13x12x16xf32>
  %x = tensor.extract_slice %x0[0, 0, 0, 2] [2, 13, 11, 7] [1, 1, 1, 1] : tensor<2x13x12x16xf32> to tensor<2x13x11x7xf32>
  %f0 = call @filter() : () -> tensor<3x3x16x40xf32>
  %w3 = tensor.extract_slice %f0[0, 0, 5, 3] [3, 3, 7, 19] [1, 1, 1, 1] : tensor<3x3x16x40xf32> to tensor<3x3x7x19xf32>
  %w1 = arith.constant dense<[[[[-2.0,1.0,-1.0,2.0,0.0],[0.0,-2.0,1.0,-1.0,2.0],[2.0,0.0,-2.0,1.0,-1.0],[-1.0,2.0,0.0,-2.0,1.0],[1.0,-1.0,2.0,0.0,-2.0],[-2.0,1.0,-1.0,2.0,0.0],[0.0,-2.0,1.0,-1.0,2.0]]]]> : tensor<1x1x7x5xf32>
  %bias = arith.constant dense<[0.5, -1.5, 2.0, -0.25, 1.0]> : tensor<5xf32>
  %zero = arith.constant 0.0 : f32
  %e5 = tensor.empty() : tensor<2x13x11x5xf32>
  %z5 = linalg.fill ins(%zero : f32) outs(%e5 : tensor<2x13x11x5xf32>) -> tensor<2x13x11x5xf32>
  %c1 = linalg.generic {indexing_maps = [
      affine_map<(n, oh, ow, f, kh, kw, c) -> (n, oh + kh, ow + kw, c)>,
      affine_map<(n, oh, ow, f, kh, kw, c) -> (kh, kw, c, f)>,
      affine_map<(n, oh, ow, f, kh, kw, c) -> (n, oh, ow, f)>],
      iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]}
      ins(%x, %w1 : tensor<2x13x11x7xf32>, tensor<1x1x7x5xf32>) outs(%z5 : tensor<2x13x11x5xf32>) {
  ^bb0(%a: f32, %b: f32, %acc: f32):
    %pr = arith.mulf %a, %b : f32
    %s = arith.addf %acc, %pr : f32
    linalg.yield %s : f32
  } -> tensor<2x13x11x5xf32>
  %r1 = linalg.generic {indexing_maps = [affine_map<(n, h, w, c) -> (n, h, w, c)>, affine_map<(n, h, w, c) -> (c)>, affine_map<(n, h, w, c) -> (n, h, w, c)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%c1, %bias : tensor<2x13x11x5xf32>, tensor<5xf32>) outs(%e5 : tensor<2x13x11x5xf32>) {
  ^bb0(%in: f32, %b: f32, %out: f32):
    %s = arith.addf %in, %b : f32
    %m = arith.maximumf %s, %zero : f32
    linalg.yield %m : f32
  } -> tensor<2x13x11x5xf32>
  %p = tensor.pad %x low[0, 1, 1, 0] high[0, 1, 1, 0] {
  ^bb0(%i: index, %j: index, %k: index, %l: index):
    tensor.yield %zero : f32
  } : tensor<2x13x11x7xf32> to tensor<2x15x13x7xf32>
  %e19 = tensor.empty() : tensor<2x13x11x19xf32>
  %z19 = linalg.fill ins(%zero : f32) outs(%e19 : tensor<2x13x11x19xf32>) -> tensor<2x13x11x19xf32>
  %c3 = linalg.generic {indexing_maps = [
      affine_map<(n, oh, ow, f, kh, kw, c) -> (n, oh + kh, ow + kw, c)>,
      affine_map<(n, oh, ow, f, kh, kw, c) -> (kh, kw, c, f)>,
      affine_map<(n, oh, ow, f, kh, kw, c) -> (n, oh, ow, f)>],
      iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]}
      ins(%p, %w3 : tensor<2x15x13x7xf32>, tensor<3x3x7x19xf32>) outs(%z19 : tensor<2x13x11x19xf32>) {
  ^bb0(%a: f32, %b: f32, %acc: f32):
    %pr = arith.mulf %a, %b : f32
    %s = arith.addf %acc, %pr : f32
    linalg.yield %s : f32
  } -> tensor<2x13x11x19xf32>
  %r = tensor.concat dim(3) %r1, %c3, %x : (tensor<2x13x11x5xf32>, tensor<2x13x11x19xf32>, tensor<2x13x11x7xf32>) -> tensor<2x13x11x31xf32>
  return %r : tensor<2x13x11x31xf32>
}

func.func @fused_one() -> tensor<1x1x1x31xf32> {
  %x0 = call @input() : () -> tensor<2x13x12x16xf32>
  %x = tensor.extract_slice %x0[1, 0, 0, 2] [1, 1, 1, 7] [1, 1, 1, 1] : tensor<2x13x12x16xf32> to tensor<1x1x1x7xf32>
  %f0 = call @filter() : () -> tensor<3x3x16x40xf32>
  %w3 = tensor.extract_slice %f0[0, 0, 5, 3] [3, 3, 7, 19] [1, 1, 1, 1] : tensor<3x3x16x40xf32> to tensor<3x3x7x19xf32>
  %w1 = arith.constant dense<[[[[-2.0,1.0,-1.0,2.0,0.0],[0.0,-2.0,1.0,-1.0,2.0],[2.0,0.0,-2.0,1.0,-1.0],[-1.0,2.0,0.0,-2.0,1.0],[1.0,-1.0,2.0,0.0,-2.0],[-2.0,1.0,-1.0,2.0,0.0],[0.0,-2.0,1.0,-1.0,2.0]]]]> : tensor<1x1x7x5xf32>
  %bias = arith.constant dense<[0.5, -1.5, 2.0, -0.25, 1.0]> : tensor<5xf32>
  %zero = arith.constant 0.0 : f32
  %e5 = tensor.empty() : tensor<1x1x1x5xf32>
  %z5 = linalg.fill ins(%zero : f32) outs(%e5 : tensor<1x1x1x5xf32>) -> tensor<1x1x1x5xf32>
  %c1 = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%x, %w1 : tensor<1x1x1x7xf32>, tensor<1x1x7x5xf32>) outs(%z5 : tensor<1x1x1x5xf32>) -> tensor<1x1x1x5xf32>
  %r1 = linalg.generic {indexing_maps = [affine_map<(n, h, w, c) -> (n, h, w, c)>, affine_map<(n, h, w, c) -> (c)>, affine_map<(n, h, w, c) -> (n, h, w, c)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%c1, %bias : tensor<1x1x1x5xf32>, tensor<5xf32>) outs(%e5 : tensor<1x1x1x5xf32>) {
  ^bb0(%in: f32, %b: f32, %out: f32):
    %s = arith.addf %in, %b : f32
    %m = arith.maximumf %s, %zero : f32
    linalg.yield %m : f32
  } -> tensor<1x1x1x5xf32>
  %p = tensor.pad %x low[0, 1, 1, 0] high[0, 1, 1, 0] {
  ^bb0(%i: index, %j: index, %k: index, %l: index):
    tensor.yield %zero : f32
  } : tensor<1x1x1x7xf32> to tensor<1x3x3x7xf32>
  %e19 = tensor.empty() : tensor<1x1x1x19xf32>
  %z19 = linalg.fill ins(%zero : f32) outs(%e19 : tensor<1x1x1x19xf32>) -> tensor<1x1x1x19xf32>
  %c3 = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%p, %w3 : tensor<1x3x3x7xf32>, tensor<3x3x7x19xf32>) outs(%z19 : tensor<1x1x1x19xf32>) -> tensor<1x1x1x19xf32>
  %r = tensor.concat dim(3) %r1, %c3, %x : (tensor<1x1x1x5xf32>, tensor<1x1x1x19xf32>, tensor<1x1x1x7xf32>) -> tensor<1x1x1x31xf32>
  return %r : tensor<1x1x1x31xf32>
}

func.func @loops_one() -> tensor<1x1x1x31xf32> {
  %x0 = call @input() : () -> tensor<2x13x12x16xf32>
  %x = tensor.extract_slice %x0[1, 0, 0, 2] [1, 1, 1, 7] [1, 1, 1, 1] : tensor<2x13x12x16xf32> to tensor<1x1x1x7xf32>
  %f0 = call @filter() : () -> tensor<3x3x16x40xf32>
  %w3 = tensor.extract_slice %f0[0, 0, 5, 3] [3, 3, 7, 19] [1, 1, 1, 1] : tensor<3x3x16x40xf32> to tensor<3x3x7x19xf32>
  %w1 = arith.constant dense<[[[[-2.0,1.0,-1.0,2.0,0.0],[0.0,-2.0,1.0,-1.0,2.0],[2.0,0.0,-2.0,1.0,-1.0],[-1.0,2.0,0.0,-2.0,1.0],[1.0,-1.0,2.0,0.0,-2.0],[-2.0,1.0,-1.0,2.0,0.0],[0.0,-2.0,1.0,-1.0,2.0]]]]> : tensor<1x1x7x5xf32>
  %bias = arith.constant dense<[0.5, -1.5, 2.0, -0.25, 1.0]> : tensor<5xf32>
  %zero = arith.constant 0.0 : f32
  %e5 = tensor.empty() : tensor<1x1x1x5xf32>
  %z5 = linalg.fill ins(%zero : f32) outs(%e5 : tensor<1x1x1x5xf32>) -> tensor<1x1x1x5xf32>
  %c1 = linalg.generic {indexing_maps = [
      affine_map<(n, oh, ow, f, kh, kw, c) -> (n, oh + kh, ow + kw, c)>,
      affine_map<(n, oh, ow, f, kh, kw, c) -> (kh, kw, c, f)>,
      affine_map<(n, oh, ow, f, kh, kw, c) -> (n, oh, ow, f)>],
      iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]}
      ins(%x, %w1 : tensor<1x1x1x7xf32>, tensor<1x1x7x5xf32>) outs(%z5 : tensor<1x1x1x5xf32>) {
  ^bb0(%a: f32, %b: f32, %acc: f32):
    %pr = arith.mulf %a, %b : f32
    %s = arith.addf %acc, %pr : f32
    linalg.yield %s : f32
  } -> tensor<1x1x1x5xf32>
  %r1 = linalg.generic {indexing_maps = [affine_map<(n, h, w, c) -> (n, h, w, c)>, affine_map<(n, h, w, c) -> (c)>, affine_map<(n, h, w, c) -> (n, h, w, c)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%c1, %bias : tensor<1x1x1x5xf32>, tensor<5xf32>) outs(%e5 : tensor<1x1x1x5xf32>) {
  ^bb0(%in: f32, %b: f32, %out: f32):
    %s = arith.addf %in, %b : f32
    %m = arith.maximumf %s, %zero : f32
    linalg.yield %m : f32
  } -> tensor<1x1x1x5xf32>
  %p = tensor.pad %x low[0, 1, 1, 0] high[0, 1, 1, 0] {
  ^bb0(%i: index, %j: index, %k: index, %l: index):
    tensor.yield %zero : f32
  } : tensor<1x1x1x7xf32> to tensor<1x3x3x7xf32>
  %e19 = tensor.empty() : tensor<1x1x1x19xf32>
  %z19 = linalg.fill ins(%zero : f32) outs(%e19 : tensor<1x1x1x19xf32>) -> tensor<1x1x1x19xf32>
  %c3 = linalg.generic {indexing_maps = [
      affine_map<(n, oh, ow, f, kh, kw, c) -> (n, oh + kh, ow + kw, c)>,
      affine_map<(n, oh, ow, f, kh, kw, c) -> (kh, kw, c, f)>,
      affine_map<(n, oh, ow, f, kh, kw, c) -> (n, oh, ow, f)>],
      iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]}
      ins(%p, %w3 : tensor<1x3x3x7xf32>, tensor<3x3x7x19xf32>) outs(%z19 : tensor<1x1x1x19xf32>) {
  ^bb0(%a: f32, %b: f32, %acc: f32):
    %pr = arith.mulf %a, %b : f32
    %s = arith.addf %acc, %pr : f32
    linalg.yield %s : f32
  } -> tensor<1x1x1x19xf32>
  %r = tensor.concat dim(3) %r1, %c3, %x : (tensor<1x1x1x5xf32>, tensor<1x1x1x19xf32>, tensor<1x1x1x7xf32>) -> tensor<1x1x1x31xf32>
  return %r : tensor<1x1x1x31xf32>
}
