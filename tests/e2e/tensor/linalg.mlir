// Matmul, batch matmul, a reduction, transpose and broadcast, slices and
// concat, a convolution: each checked against values computed by hand.
// RUN: strata-compile %s -o %t.vmfb
// RUN: strata-run --module=%t.vmfb --function=matmul --input="2x3xf32=1 2 3 4 5 6" --input="3x2xf32=7 8 9 10 11 12" --expected_output="2x2xf32=58 64 139 154"
// RUN: strata-run --module=%t.vmfb --device=local-sync --function=matmul --input="2x3xf32=1 2 3 4 5 6" --input="3x2xf32=7 8 9 10 11 12" --expected_output="2x2xf32=58 64 139 154"
// RUN: strata-run --module=%t.vmfb --function=batch_matmul --input="2x1x2xf32=1 2 3 4" --input="2x2x1xf32=5 6 7 8" --expected_output="2x1x1xf32=17 53"
// RUN: strata-run --module=%t.vmfb --function=row_sum --input="2x4xi32=1 2 3 4 10 20 30 40" --expected_output="2xi32=10 100"
// RUN: strata-run --module=%t.vmfb --function=transpose --input="2x3xf32=1 2 3 4 5 6" --expected_output="3x2xf32=1 4 2 5 3 6"
// RUN: strata-run --module=%t.vmfb --function=broadcast_add --input="2x3xf32=1 2 3 4 5 6" --input="3xf32=10 20 30" --expected_output="2x3xf32=11 22 33 14 25 36"
// RUN: strata-run --module=%t.vmfb --function=slice_concat --input="4xi32=1 2 3 4" --expected_output="6xi32=3 4 1 2 3 4"
// RUN: strata-run --module=%t.vmfb --function=conv --input="1x3x3x1xf32=1 2 3 4 5 6 7 8 9" --input="2x2x1x1xf32=1 0 0 1" --expected_output="1x2x2x1xf32=6 8 12 14"
// A wrong shape at the call names the argument.
// RUN: not strata-run --module=%t.vmfb --function=matmul --input="2x4xf32=1 2 3 4 5 6 7 8" --input="3x2xf32=7 8 9 10 11 12" 2>&1 | FileCheck %s --check-prefix=SHAPE
// SHAPE: argument 0 of {{.*}}matmul is a 2x3xf32 tensor, not 2x4xf32

func.func @matmul(%a: tensor<2x3xf32>, %b: tensor<3x2xf32>) -> tensor<2x2xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<2x2xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<2x2xf32>) -> tensor<2x2xf32>
  %r = linalg.matmul ins(%a, %b : tensor<2x3xf32>, tensor<3x2xf32>) outs(%f : tensor<2x2xf32>) -> tensor<2x2xf32>
  return %r : tensor<2x2xf32>
}

func.func @batch_matmul(%a: tensor<2x1x2xf32>, %b: tensor<2x2x1xf32>) -> tensor<2x1x1xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<2x1x1xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<2x1x1xf32>) -> tensor<2x1x1xf32>
  %r = linalg.batch_matmul ins(%a, %b : tensor<2x1x2xf32>, tensor<2x2x1xf32>) outs(%f : tensor<2x1x1xf32>) -> tensor<2x1x1xf32>
  return %r : tensor<2x1x1xf32>
}

func.func @row_sum(%a: tensor<2x4xi32>) -> tensor<2xi32> {
  %c0 = arith.constant 0 : i32
  %e = tensor.empty() : tensor<2xi32>
  %z = linalg.fill ins(%c0 : i32) outs(%e : tensor<2xi32>) -> tensor<2xi32>
  %r = linalg.reduce ins(%a : tensor<2x4xi32>) outs(%z : tensor<2xi32>) dimensions = [1]
    (%in: i32, %acc: i32) {
      %s = arith.addi %in, %acc : i32
      linalg.yield %s : i32
    }
  return %r : tensor<2xi32>
}

func.func @transpose(%a: tensor<2x3xf32>) -> tensor<3x2xf32> {
  %e = tensor.empty() : tensor<3x2xf32>
  %t = linalg.transpose ins(%a : tensor<2x3xf32>) outs(%e : tensor<3x2xf32>) permutation = [1, 0]
  return %t : tensor<3x2xf32>
}

func.func @broadcast_add(%a: tensor<2x3xf32>, %b: tensor<3xf32>) -> tensor<2x3xf32> {
  %e = tensor.empty() : tensor<2x3xf32>
  %bb = linalg.broadcast ins(%b : tensor<3xf32>) outs(%e : tensor<2x3xf32>) dimensions = [0]
  %r = linalg.add ins(%a, %bb : tensor<2x3xf32>, tensor<2x3xf32>) outs(%e : tensor<2x3xf32>) -> tensor<2x3xf32>
  return %r : tensor<2x3xf32>
}

// [3 4] ++ [1 2 3 4]
func.func @slice_concat(%a: tensor<4xi32>) -> tensor<6xi32> {
  %s = tensor.extract_slice %a[2] [2] [1] : tensor<4xi32> to tensor<2xi32>
  %c = tensor.concat dim(0) %s, %a : (tensor<2xi32>, tensor<4xi32>) -> tensor<6xi32>
  return %c : tensor<6xi32>
}

// 3x3 image, 2x2 filter [[1 0] [0 1]]: out[i][j] = x[i][j] + x[i+1][j+1]
func.func @conv(%x: tensor<1x3x3x1xf32>, %w: tensor<2x2x1x1xf32>) -> tensor<1x2x2x1xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x2x2x1xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<1x2x2x1xf32>) -> tensor<1x2x2x1xf32>
  %r = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%x, %w : tensor<1x3x3x1xf32>, tensor<2x2x1x1xf32>) outs(%f : tensor<1x2x2x1xf32>) -> tensor<1x2x2x1xf32>
  return %r : tensor<1x2x2x1xf32>
}
