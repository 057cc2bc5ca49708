// A 3x3 conv2d (NHWC, HWCF) with enough work runs on the convolution
// microkernel (the conv stays whole and its input windows are packed
// straight into the microkernel's panels): every x86-64 CPU has one, the
// AVX-512 and AVX2 + FMA kernels and SSE2's for a baseline x86-64 (a
// target without one gets im2col + matmul from flow instead, which
// tests/compiler/Dialect/Flow/form-dispatches.mlir checks); the same
// convolution written as a linalg.generic runs as loops. Both build the same
// non-uniform input and filter from their indices, with a stride of 2 on one
// side and a dilation of 2 on the other, and must agree exactly, on both
// devices and for the host's and the baseline x86-64's kernels.
// RUN: strata-compile %s -o %t.vmfb
// RUN: strata-compile %s --target-cpu=x86-64 -o %t.generic.vmfb
// RUN: strata-compile %s --target-cpu=x86-64 --compile-to=flow | FileCheck %s --check-prefix=DIRECT
// RUN: strata-compile %s --target-cpu=x86-64-v3 --compile-to=flow | FileCheck %s --check-prefix=DIRECT
// DIRECT: flow.dispatch @module_linked_llvm_cpu::@im2col_dispatch_{{[0-9]+}}_conv_3x3_s2x1_d1x2_16x40_6x4_n2_f32
// DIRECT-NOT: tensor.collapse_shape
// RUN: strata-run --module=%t.vmfb --function=loops --output=@%t.expected.npy
// RUN: strata-run --module=%t.vmfb --function=im2col --expected_output=@%t.expected.npy
// RUN: strata-run --module=%t.vmfb --device=local-sync --function=im2col --expected_output=@%t.expected.npy
// RUN: strata-run --module=%t.generic.vmfb --function=im2col --expected_output=@%t.expected.npy
// Edge sizes: 1 image, 7 x 33 outputs, 7 channels, 1000 filters.
// RUN: strata-run --module=%t.vmfb --function=loops_edge --output=@%t.edge.npy
// RUN: strata-run --module=%t.vmfb --function=im2col_edge --expected_output=@%t.edge.npy
// RUN: strata-run --module=%t.vmfb --device=local-sync --function=im2col_edge --expected_output=@%t.edge.npy
// RUN: strata-run --module=%t.generic.vmfb --function=im2col_edge --expected_output=@%t.edge.npy
// Prime sizes, a 7x7 window with stride 2, and an accumulator that is not
// zero (the microkernel adds to it): 1 x 17 x 23 x 5 in, 67 filters.
// RUN: strata-run --module=%t.vmfb --function=loops_acc --output=@%t.acc.npy
// RUN: strata-run --module=%t.vmfb --function=direct_acc --expected_output=@%t.acc.npy
// RUN: strata-run --module=%t.vmfb --device=local-sync --function=direct_acc --expected_output=@%t.acc.npy
// RUN: strata-run --module=%t.generic.vmfb --function=direct_acc --expected_output=@%t.acc.npy

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

// Output 2 x 6 x 4 x 40 (stride 2 in h, dilation 2 in w): 48 rows of
// 144 products each, 40 filters.
func.func @im2col() -> tensor<2x6x4x40xf32> {
  %x = call @input() : () -> tensor<2x13x12x16xf32>
  %w = call @filter() : () -> tensor<3x3x16x40xf32>
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<2x6x4x40xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<2x6x4x40xf32>) -> tensor<2x6x4x40xf32>
  %r = linalg.conv_2d_nhwc_hwcf {dilations = dense<[1, 2]> : tensor<2xi64>, strides = dense<[2, 1]> : tensor<2xi64>}
      ins(%x, %w : tensor<2x13x12x16xf32>, tensor<3x3x16x40xf32>) outs(%f : tensor<2x6x4x40xf32>) -> tensor<2x6x4x40xf32>
  return %r : tensor<2x6x4x40xf32>
}

func.func @loops() -> tensor<2x6x4x40xf32> {
  %x = call @input() : () -> tensor<2x13x12x16xf32>
  %w = call @filter() : () -> tensor<3x3x16x40xf32>
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<2x6x4x40xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<2x6x4x40xf32>) -> tensor<2x6x4x40xf32>
  %r = linalg.generic {indexing_maps = [
      affine_map<(n, oh, ow, f, kh, kw, c) -> (n, oh * 2 + kh, ow + kw * 2, c)>,
      affine_map<(n, oh, ow, f, kh, kw, c) -> (kh, kw, c, f)>,
      affine_map<(n, oh, ow, f, kh, kw, c) -> (n, oh, ow, f)>],
      iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]}
      ins(%x, %w : tensor<2x13x12x16xf32>, tensor<3x3x16x40xf32>) outs(%f : tensor<2x6x4x40xf32>) {
  ^bb0(%a: f32, %b: f32, %acc: f32):
    %p = arith.mulf %a, %b : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  } -> tensor<2x6x4x40xf32>
  return %r : tensor<2x6x4x40xf32>
}

func.func @im2col_edge() -> tensor<1x7x33x1000xf32> {
  %x0 = call @input() : () -> tensor<2x13x12x16xf32>
  %x1 = tensor.extract_slice %x0[1, 0, 0, 0] [1, 9, 12, 7] [1, 1, 1, 1] : tensor<2x13x12x16xf32> to tensor<1x9x12x7xf32>
  %x = tensor.concat dim(2) %x1, %x1, %x1 : (tensor<1x9x12x7xf32>, tensor<1x9x12x7xf32>, tensor<1x9x12x7xf32>) -> tensor<1x9x36x7xf32>
  %xs = tensor.extract_slice %x[0, 0, 0, 0] [1, 9, 35, 7] [1, 1, 1, 1] : tensor<1x9x36x7xf32> to tensor<1x9x35x7xf32>
  %w0 = call @filter() : () -> tensor<3x3x16x40xf32>
  %w1 = tensor.extract_slice %w0[0, 0, 3, 0] [3, 3, 7, 40] [1, 1, 1, 1] : tensor<3x3x16x40xf32> to tensor<3x3x7x40xf32>
  %w2 = tensor.concat dim(3) %w1, %w1, %w1, %w1, %w1, %w1, %w1, %w1, %w1, %w1, %w1, %w1, %w1, %w1, %w1, %w1, %w1, %w1, %w1, %w1, %w1, %w1, %w1, %w1, %w1 : (tensor<3x3x7x40xf32>, tensor<3x3x7x40xf32>, tensor<3x3x7x40xf32>, tensor<3x3x7x40xf32>, tensor<3x3x7x40xf32>, tensor<3x3x7x40xf32>, tensor<3x3x7x40xf32>, tensor<3x3x7x40xf32>, tensor<3x3x7x40xf32>, tensor<3x3x7x40xf32>, tensor<3x3x7x40xf32>, tensor<3x3x7x40xf32>, tensor<3x3x7x40xf32>, tensor<3x3x7x40xf32>, tensor<3x3x7x40xf32>, tensor<3x3x7x40xf32>, tensor<3x3x7x40xf32>, tensor<3x3x7x40xf32>, tensor<3x3x7x40xf32>, tensor<3x3x7x40xf32>, tensor<3x3x7x40xf32>, tensor<3x3x7x40xf32>, tensor<3x3x7x40xf32>, tensor<3x3x7x40xf32>, tensor<3x3x7x40xf32>) -> tensor<3x3x7x1000xf32>
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x7x33x1000xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<1x7x33x1000xf32>) -> tensor<1x7x33x1000xf32>
  %r = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%xs, %w2 : tensor<1x9x35x7xf32>, tensor<3x3x7x1000xf32>) outs(%f : tensor<1x7x33x1000xf32>) -> tensor<1x7x33x1000xf32>
  return %r : tensor<1x7x33x1000xf32>
}

func.func @loops_edge() -> tensor<1x7x33x1000xf32> {
  %x0 = call @input() : () -> tensor<2x13x12x16xf32>
  %x1 = tensor.extract_slice %x0[1, 0, 0, 0] [1, 9, 12, 7] [1, 1, 1, 1] : tensor<2x13x12x16xf32> to tensor<1x9x12x7xf32>
  %x = tensor.concat dim(2) %x1, %x1, %x1 : (tensor<1x9x12x7xf32>, tensor<1x9x12x7xf32>, tensor<1x9x12x7xf32>) -> tensor<1x9x36x7xf32>
  %xs = tensor.extract_slice %x[0, 0, 0, 0] [1, 9, 35, 7] [1, 1, 1, 1] : tensor<1x9x36x7xf32> to tensor<1x9x35x7xf32>
  %w0 = call @filter() : () -> tensor<3x3x16x40xf32>
  %w1 = tensor.extract_slice %w0[0, 0, 3, 0] [3, 3, 7, 40] [1, 1, 1, 1] : tensor<3x3x16x40xf32> to tensor<3x3x7x40xf32>
  %w2 = tensor.concat dim(3) %w1, %w1, %w1, %w1, %w1, %w1, %w1, %w1, %w1, %w1, %w1, %w1, %w1, %w1, %w1, %w1, %w1, %w1, %w1, %w1, %w1, %w1, %w1, %w1, %w1 : (tensor<3x3x7x40xf32>, tensor<3x3x7x40xf32>, tensor<3x3x7x40xf32>, tensor<3x3x7x40xf32>, tensor<3x3x7x40xf32>, tensor<3x3x7x40xf32>, tensor<3x3x7x40xf32>, tensor<3x3x7x40xf32>, tensor<3x3x7x40xf32>, tensor<3x3x7x40xf32>, tensor<3x3x7x40xf32>, tensor<3x3x7x40xf32>, tensor<3x3x7x40xf32>, tensor<3x3x7x40xf32>, tensor<3x3x7x40xf32>, tensor<3x3x7x40xf32>, tensor<3x3x7x40xf32>, tensor<3x3x7x40xf32>, tensor<3x3x7x40xf32>, tensor<3x3x7x40xf32>, tensor<3x3x7x40xf32>, tensor<3x3x7x40xf32>, tensor<3x3x7x40xf32>, tensor<3x3x7x40xf32>, tensor<3x3x7x40xf32>) -> tensor<3x3x7x1000xf32>
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x7x33x1000xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<1x7x33x1000xf32>) -> tensor<1x7x33x1000xf32>
  %r = linalg.generic {indexing_maps = [
      affine_map<(n, oh, ow, f, kh, kw, c) -> (n, oh + kh, ow + kw, c)>,
      affine_map<(n, oh, ow, f, kh, kw, c) -> (kh, kw, c, f)>,
      affine_map<(n, oh, ow, f, kh, kw, c) -> (n, oh, ow, f)>],
      iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]}
      ins(%xs, %w2 : tensor<1x9x35x7xf32>, tensor<3x3x7x1000xf32>) outs(%f : tensor<1x7x33x1000xf32>) {
  ^bb0(%a: f32, %b: f32, %acc: f32):
    %p = arith.mulf %a, %b : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  } -> tensor<1x7x33x1000xf32>
  return %r : tensor<1x7x33x1000xf32>
}

func.func @direct_acc() -> tensor<1x6x9x67xf32> {
  %x0 = call @input() : () -> tensor<2x13x12x16xf32>
  %x1 = tensor.extract_slice %x0[1, 0, 0, 0] [1, 13, 12, 5] [1, 1, 1, 1] : tensor<2x13x12x16xf32> to tensor<1x13x12x5xf32>
  %x2 = tensor.concat dim(1) %x1, %x1 : (tensor<1x13x12x5xf32>, tensor<1x13x12x5xf32>) -> tensor<1x26x12x5xf32>
  %x3 = tensor.concat dim(2) %x2, %x2 : (tensor<1x26x12x5xf32>, tensor<1x26x12x5xf32>) -> tensor<1x26x24x5xf32>
  %x = tensor.extract_slice %x3[0, 2, 1, 0] [1, 17, 23, 5] [1, 1, 1, 1] : tensor<1x26x24x5xf32> to tensor<1x17x23x5xf32>
  %w0 = call @filter() : () -> tensor<3x3x16x40xf32>
  %w1 = tensor.extract_slice %w0[0, 0, 2, 0] [3, 3, 5, 40] [1, 1, 1, 1] : tensor<3x3x16x40xf32> to tensor<3x3x5x40xf32>
  %w2 = tensor.concat dim(0) %w1, %w1, %w1 : (tensor<3x3x5x40xf32>, tensor<3x3x5x40xf32>, tensor<3x3x5x40xf32>) -> tensor<9x3x5x40xf32>
  %w3 = tensor.concat dim(1) %w2, %w2, %w2 : (tensor<9x3x5x40xf32>, tensor<9x3x5x40xf32>, tensor<9x3x5x40xf32>) -> tensor<9x9x5x40xf32>
  %w4 = tensor.concat dim(3) %w3, %w3 : (tensor<9x9x5x40xf32>, tensor<9x9x5x40xf32>) -> tensor<9x9x5x80xf32>
  %w = tensor.extract_slice %w4[1, 2, 0, 5] [7, 7, 5, 67] [1, 1, 1, 1] : tensor<9x9x5x80xf32> to tensor<7x7x5x67xf32>
  %one = arith.constant 1.5 : f32
  %e = tensor.empty() : tensor<1x6x9x67xf32>
  %f = linalg.fill ins(%one : f32) outs(%e : tensor<1x6x9x67xf32>) -> tensor<1x6x9x67xf32>
  %r = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>}
      ins(%x, %w : tensor<1x17x23x5xf32>, tensor<7x7x5x67xf32>) outs(%f : tensor<1x6x9x67xf32>) -> tensor<1x6x9x67xf32>
  return %r : tensor<1x6x9x67xf32>
}

func.func @loops_acc() -> tensor<1x6x9x67xf32> {
  %x0 = call @input() : () -> tensor<2x13x12x16xf32>
  %x1 = tensor.extract_slice %x0[1, 0, 0, 0] [1, 13, 12, 5] [1, 1, 1, 1] : tensor<2x13x12x16xf32> to tensor<1x13x12x5xf32>
  %x2 = tensor.concat dim(1) %x1, %x1 : (tensor<1x13x12x5xf32>, tensor<1x13x12x5xf32>) -> tensor<1x26x12x5xf32>
  %x3 = tensor.concat dim(2) %x2, %x2 : (tensor<1x26x12x5xf32>, tensor<1x26x12x5xf32>) -> tensor<1x26x24x5xf32>
  %x = tensor.extract_slice %x3[0, 2, 1, 0] [1, 17, 23, 5] [1, 1, 1, 1] : tensor<1x26x24x5xf32> to tensor<1x17x23x5xf32>
  %w0 = call @filter() : () -> tensor<3x3x16x40xf32>
  %w1 = tensor.extract_slice %w0[0, 0, 2, 0] [3, 3, 5, 40] [1, 1, 1, 1] : tensor<3x3x16x40xf32> to tensor<3x3x5x40xf32>
  %w2 = tensor.concat dim(0) %w1, %w1, %w1 : (tensor<3x3x5x40xf32>, tensor<3x3x5x40xf32>, tensor<3x3x5x40xf32>) -> tensor<9x3x5x40xf32>
  %w3 = tensor.concat dim(1) %w2, %w2, %w2 : (tensor<9x3x5x40xf32>, tensor<9x3x5x40xf32>, tensor<9x3x5x40xf32>) -> tensor<9x9x5x40xf32>
  %w4 = tensor.concat dim(3) %w3, %w3 : (tensor<9x9x5x40xf32>, tensor<9x9x5x40xf32>) -> tensor<9x9x5x80xf32>
  %w = tensor.extract_slice %w4[1, 2, 0, 5] [7, 7, 5, 67] [1, 1, 1, 1] : tensor<9x9x5x80xf32> to tensor<7x7x5x67xf32>
  %one = arith.constant 1.5 : f32
  %e = tensor.empty() : tensor<1x6x9x67xf32>
  %f = linalg.fill ins(%one : f32) outs(%e : tensor<1x6x9x67xf32>) -> tensor<1x6x9x67xf32>
  %r = linalg.generic {indexing_maps = [
      affine_map<(n, oh, ow, f, kh, kw, c) -> (n, oh * 2 + kh, ow * 2 + kw, c)>,
      affine_map<(n, oh, ow, f, kh, kw, c) -> (kh, kw, c, f)>,
      affine_map<(n, oh, ow, f, kh, kw, c) -> (n, oh, ow, f)>],
      iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]}
      ins(%x, %w : tensor<1x17x23x5xf32>, tensor<7x7x5x67xf32>) outs(%f : tensor<1x6x9x67xf32>) {
  ^bb0(%a: f32, %b: f32, %acc: f32):
    %p = arith.mulf %a, %b : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  } -> tensor<1x6x9x67xf32>
  return %r : tensor<1x6x9x67xf32>
}
