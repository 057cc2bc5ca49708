// f32 matmuls large enough for the matmul microkernel (llvm-cpu on x86 with
// AVX2 + FMA or AVX-512), with sizes that are not multiples of its register
// tile (14 x 32 or 6 x 16) or of its depth block (256), on both devices.
// Splat inputs make every output a product sum stated in one number.
// RUN: strata-compile %s -o %t.vmfb
// RUN: strata-run --module=%t.vmfb --device=local-sync --function=mm_1x2000x300 --input="1x2000xf32=1" --input="2000x300xf32=1" --expected_output="1x300xf32=2000"
// RUN: strata-run --module=%t.vmfb --device=local-task --function=mm_1x2000x300 --input="1x2000xf32=1" --input="2000x300xf32=1" --expected_output="1x300xf32=2000"
// RUN: strata-run --module=%t.vmfb --device=local-sync --function=mm_7x200x1000 --input="7x200xf32=1" --input="200x1000xf32=2" --expected_output="7x1000xf32=400"
// RUN: strata-run --module=%t.vmfb --device=local-task --function=mm_7x200x1000 --input="7x200xf32=1" --input="200x1000xf32=2" --expected_output="7x1000xf32=400"
// RUN: strata-run --module=%t.vmfb --device=local-sync --function=mm_130x257x129 --input="130x257xf32=1" --input="257x129xf32=0.5" --expected_output="130x129xf32=128.5"
// RUN: strata-run --module=%t.vmfb --device=local-task --function=mm_130x257x129 --input="130x257xf32=1" --input="257x129xf32=0.5" --expected_output="130x129xf32=128.5"
// RUN: strata-run --module=%t.vmfb --device=local-sync --function=mm_1000x33x1000 --input="1000x33xf32=2" --input="33x1000xf32=3" --expected_output="1000x1000xf32=198"
// RUN: strata-run --module=%t.vmfb --device=local-task --function=mm_1000x33x1000 --input="1000x33xf32=2" --input="33x1000xf32=3" --expected_output="1000x1000xf32=198"
// RUN: strata-run --module=%t.vmfb --device=local-sync --function=mm_70x600x90 --input="70x600xf32=1" --input="600x90xf32=-1" --expected_output="70x90xf32=-600"
// RUN: strata-run --module=%t.vmfb --device=local-task --function=mm_70x600x90 --input="70x600xf32=1" --input="600x90xf32=-1" --expected_output="70x90xf32=-600"
// Non-uniform operands built in the program, A[i][k] = (i + 1) * (k mod 5)
// and B[k][j] = j + 1 + (k mod 3), over a depth of 128 blocks: each output
// is a different exact integer.
// RUN: strata-run --module=%t.vmfb --device=local-sync --function=mixed --input="2x32768xf32=1" --input="32768x4xf32=1" --expected_output="2x4xf32=131064 196597 262130 327663 262128 393194 524260 655326"
// RUN: strata-run --module=%t.vmfb --device=local-task --function=mixed --input="2x32768xf32=1" --input="32768x4xf32=1" --expected_output="2x4xf32=131064 196597 262130 327663 262128 393194 524260 655326"

func.func @mm_1x2000x300(%a: tensor<1x2000xf32>, %b: tensor<2000x300xf32>) -> tensor<1x300xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x300xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<1x300xf32>) -> tensor<1x300xf32>
  %r = linalg.matmul ins(%a, %b : tensor<1x2000xf32>, tensor<2000x300xf32>) outs(%f : tensor<1x300xf32>) -> tensor<1x300xf32>
  return %r : tensor<1x300xf32>
}

func.func @mm_7x200x1000(%a: tensor<7x200xf32>, %b: tensor<200x1000xf32>) -> tensor<7x1000xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<7x1000xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<7x1000xf32>) -> tensor<7x1000xf32>
  %r = linalg.matmul ins(%a, %b : tensor<7x200xf32>, tensor<200x1000xf32>) outs(%f : tensor<7x1000xf32>) -> tensor<7x1000xf32>
  return %r : tensor<7x1000xf32>
}

func.func @mm_130x257x129(%a: tensor<130x257xf32>, %b: tensor<257x129xf32>) -> tensor<130x129xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<130x129xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<130x129xf32>) -> tensor<130x129xf32>
  %r = linalg.matmul ins(%a, %b : tensor<130x257xf32>, tensor<257x129xf32>) outs(%f : tensor<130x129xf32>) -> tensor<130x129xf32>
  return %r : tensor<130x129xf32>
}

func.func @mm_1000x33x1000(%a: tensor<1000x33xf32>, %b: tensor<33x1000xf32>) -> tensor<1000x1000xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1000x1000xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<1000x1000xf32>) -> tensor<1000x1000xf32>
  %r = linalg.matmul ins(%a, %b : tensor<1000x33xf32>, tensor<33x1000xf32>) outs(%f : tensor<1000x1000xf32>) -> tensor<1000x1000xf32>
  return %r : tensor<1000x1000xf32>
}

func.func @mm_70x600x90(%a: tensor<70x600xf32>, %b: tensor<600x90xf32>) -> tensor<70x90xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<70x90xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<70x90xf32>) -> tensor<70x90xf32>
  %r = linalg.matmul ins(%a, %b : tensor<70x600xf32>, tensor<600x90xf32>) outs(%f : tensor<70x90xf32>) -> tensor<70x90xf32>
  return %r : tensor<70x90xf32>
}

func.func @mixed(%a: tensor<2x32768xf32>, %b: tensor<32768x4xf32>) -> tensor<2x4xf32> {
  %ea = tensor.empty() : tensor<2x32768xf32>
  %ra = linalg.generic {
      indexing_maps = [affine_map<(i, k) -> (i, k)>, affine_map<(i, k) -> (i, k)>],
      iterator_types = ["parallel", "parallel"]}
      ins(%a : tensor<2x32768xf32>) outs(%ea : tensor<2x32768xf32>) {
  ^bb0(%x: f32, %o: f32):
    %i = linalg.index 0 : index
    %k = linalg.index 1 : index
    %c1 = arith.constant 1 : index
    %c5 = arith.constant 5 : index
    %i1 = arith.addi %i, %c1 : index
    %km = arith.remui %k, %c5 : index
    %p = arith.muli %i1, %km : index
    %pi = arith.index_cast %p : index to i32
    %pf = arith.sitofp %pi : i32 to f32
    %v = arith.mulf %x, %pf : f32
    linalg.yield %v : f32
  } -> tensor<2x32768xf32>
  %eb = tensor.empty() : tensor<32768x4xf32>
  %rb = linalg.generic {
      indexing_maps = [affine_map<(k, j) -> (k, j)>, affine_map<(k, j) -> (k, j)>],
      iterator_types = ["parallel", "parallel"]}
      ins(%b : tensor<32768x4xf32>) outs(%eb : tensor<32768x4xf32>) {
  ^bb0(%x: f32, %o: f32):
    %k = linalg.index 0 : index
    %j = linalg.index 1 : index
    %c1 = arith.constant 1 : index
    %c3 = arith.constant 3 : index
    %j1 = arith.addi %j, %c1 : index
    %km = arith.remui %k, %c3 : index
    %p = arith.addi %j1, %km : index
    %pi = arith.index_cast %p : index to i32
    %pf = arith.sitofp %pi : i32 to f32
    %v = arith.mulf %x, %pf : f32
    linalg.yield %v : f32
  } -> tensor<32768x4xf32>
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<2x4xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<2x4xf32>) -> tensor<2x4xf32>
  %r = linalg.matmul ins(%ra, %rb : tensor<2x32768xf32>, tensor<32768x4xf32>) outs(%f : tensor<2x4xf32>) -> tensor<2x4xf32>
  return %r : tensor<2x4xf32>
}
