// The kernels bench/elementwise times, at edge sizes that are not
// multiples of any tile (1, 7, 33, 1000 and a 1000x7 batch), against
// values computed by hand: the fused a * b + c, and a row-wise softmax.
// (bench/matmul's kernels: matmul-ukernel.mlir; bench/conv's: conv-im2col.mlir.)
// RUN: strata-compile %s -o %t.vmfb
// RUN: strata-run --module=%t.vmfb --function=fma1 --input="1xf32=1.5" --input="1xf32=2" --input="1xf32=0.25" --expected_output="1xf32=3.25"
// RUN: strata-run --module=%t.vmfb --function=fma7 --input="7xf32=1 2 3 4 5 6 7" --input="7xf32=2" --input="7xf32=-1" --expected_output="7xf32=1 3 5 7 9 11 13"
// RUN: strata-run --module=%t.vmfb --function=fma33 --input="33xf32=1.5" --input="33xf32=2" --input="33xf32=0.25" --expected_output="33xf32=3.25"
// RUN: strata-run --module=%t.vmfb --device=local-sync --function=fma1000 --input="1000xf32=1.5" --input="1000xf32=-2" --input="1000xf32=0.25" --expected_output="1000xf32=-2.75"
// RUN: strata-run --module=%t.vmfb --function=softmax1 --input="1x1xf32=42" --expected_output="1x1xf32=1"
// RUN: strata-run --module=%t.vmfb --function=softmax7 --input="1x7xf32=0 1 2 3 4 5 6" --expected_output="1x7xf32=0.00156830032 0.00426308225 0.011588259 0.0315001539 0.0856262959 0.232756404 0.632697504"
// RUN: strata-run --module=%t.vmfb --function=softmax33 --input="7x33xf32=3" --expected_output="7x33xf32=0.0303030303"
// RUN: strata-run --module=%t.vmfb --device=local-sync --function=softmax1000 --input="1000x7xf32=-1" --expected_output="1000x7xf32=0.142857143"

func.func @fma1(%a: tensor<1xf32>, %b: tensor<1xf32>, %c: tensor<1xf32>) -> tensor<1xf32> {
  %e = tensor.empty() : tensor<1xf32>
  %m = linalg.mul ins(%a, %b : tensor<1xf32>, tensor<1xf32>) outs(%e : tensor<1xf32>) -> tensor<1xf32>
  %r = linalg.add ins(%m, %c : tensor<1xf32>, tensor<1xf32>) outs(%e : tensor<1xf32>) -> tensor<1xf32>
  return %r : tensor<1xf32>
}
func.func @fma7(%a: tensor<7xf32>, %b: tensor<7xf32>, %c: tensor<7xf32>) -> tensor<7xf32> {
  %e = tensor.empty() : tensor<7xf32>
  %m = linalg.mul ins(%a, %b : tensor<7xf32>, tensor<7xf32>) outs(%e : tensor<7xf32>) -> tensor<7xf32>
  %r = linalg.add ins(%m, %c : tensor<7xf32>, tensor<7xf32>) outs(%e : tensor<7xf32>) -> tensor<7xf32>
  return %r : tensor<7xf32>
}
func.func @fma33(%a: tensor<33xf32>, %b: tensor<33xf32>, %c: tensor<33xf32>) -> tensor<33xf32> {
  %e = tensor.empty() : tensor<33xf32>
  %m = linalg.mul ins(%a, %b : tensor<33xf32>, tensor<33xf32>) outs(%e : tensor<33xf32>) -> tensor<33xf32>
  %r = linalg.add ins(%m, %c : tensor<33xf32>, tensor<33xf32>) outs(%e : tensor<33xf32>) -> tensor<33xf32>
  return %r : tensor<33xf32>
}
func.func @fma1000(%a: tensor<1000xf32>, %b: tensor<1000xf32>, %c: tensor<1000xf32>) -> tensor<1000xf32> {
  %e = tensor.empty() : tensor<1000xf32>
  %m = linalg.mul ins(%a, %b : tensor<1000xf32>, tensor<1000xf32>) outs(%e : tensor<1000xf32>) -> tensor<1000xf32>
  %r = linalg.add ins(%m, %c : tensor<1000xf32>, tensor<1000xf32>) outs(%e : tensor<1000xf32>) -> tensor<1000xf32>
  return %r : tensor<1000xf32>
}
func.func @softmax1(%x: tensor<1x1xf32>) -> tensor<1x1xf32> {
  %e = tensor.empty() : tensor<1x1xf32>
  %r = linalg.softmax dimension(1) ins(%x : tensor<1x1xf32>) outs(%e : tensor<1x1xf32>) -> tensor<1x1xf32>
  return %r : tensor<1x1xf32>
}
func.func @softmax7(%x: tensor<1x7xf32>) -> tensor<1x7xf32> {
  %e = tensor.empty() : tensor<1x7xf32>
  %r = linalg.softmax dimension(1) ins(%x : tensor<1x7xf32>) outs(%e : tensor<1x7xf32>) -> tensor<1x7xf32>
  return %r : tensor<1x7xf32>
}
func.func @softmax33(%x: tensor<7x33xf32>) -> tensor<7x33xf32> {
  %e = tensor.empty() : tensor<7x33xf32>
  %r = linalg.softmax dimension(1) ins(%x : tensor<7x33xf32>) outs(%e : tensor<7x33xf32>) -> tensor<7x33xf32>
  return %r : tensor<7x33xf32>
}
func.func @softmax1000(%x: tensor<1000x7xf32>) -> tensor<1000x7xf32> {
  %e = tensor.empty() : tensor<1000x7xf32>
  %r = linalg.softmax dimension(1) ins(%x : tensor<1000x7xf32>) outs(%e : tensor<1000x7xf32>) -> tensor<1000x7xf32>
  return %r : tensor<1000x7xf32>
}
