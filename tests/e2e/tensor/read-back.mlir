// Reading tensor elements back on the host (tensor.extract) after the
// dispatches that made them, and branching on them in the VM.
// RUN: strata-compile %s -o %t.vmfb
// RUN: strata-run --module=%t.vmfb --function=sum_positive --input="2x2xf32=1 -2 3 4" --expected_output=f32=16
// RUN: strata-run --module=%t.vmfb --function=element --input="2x3xi64=1 2 3 4 5 6000000000" --input=i64=1 --input=i64=2 --expected_output=i64=6000000000
// RUN: strata-run --module=%t.vmfb --function=element --input="2x3xi64=1 2 3 4 5 6" --input=i64=0 --input=i64=1 --expected_output=i64=2
// RUN: strata-run --module=%t.vmfb --function=flags --input="3xi8=5 -1 0" --expected_output=i32=-1
// RUN: strata-run --module=%t.vmfb --device=local-task --function=slab_across_read --input=64x64xf32=0.5 --expected_output=64x64xf32=513
// RUN: strata-run --module=%t.vmfb --device=local-sync --function=slab_across_read --input=64x64xf32=0.5 --expected_output=64x64xf32=513
// An index past the end is an error, not a read out of bounds.
// RUN: not strata-run --module=%t.vmfb --function=element --input="2x3xi64=1 2 3 4 5 6" --input=i64=5 --input=i64=5 2>&1 | FileCheck %s
// CHECK: FAILED_PRECONDITION: 'tensor.extract': index 0 is out of range of dimension 0

// The sum of the positive elements of a*2, computed by a dispatch and read
// back element by element.
func.func @sum_positive(%a: tensor<2x2xf32>) -> f32 {
  %e = tensor.empty() : tensor<2x2xf32>
  %d = linalg.add ins(%a, %a : tensor<2x2xf32>, tensor<2x2xf32>) outs(%e : tensor<2x2xf32>) -> tensor<2x2xf32>
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %zero = arith.constant 0.0 : f32
  %s = scf.for %i = %c0 to %c2 step %c1 iter_args(%acc = %zero) -> (f32) {
    %t = scf.for %j = %c0 to %c2 step %c1 iter_args(%acc2 = %acc) -> (f32) {
      %v = tensor.extract %d[%i, %j] : tensor<2x2xf32>
      %pos = arith.cmpf ogt, %v, %zero : f32
      %n = scf.if %pos -> f32 {
        %x = arith.addf %acc2, %v : f32
        scf.yield %x : f32
      } else {
        scf.yield %acc2 : f32
      }
      scf.yield %n : f32
    }
    scf.yield %t : f32
  }
  return %s : f32
}

func.func @element(%a: tensor<2x3xi64>, %i: index, %j: index) -> i64 {
  %v = tensor.extract %a[%i, %j] : tensor<2x3xi64>
  return %v : i64
}

// The i8 element at index 1, sign-extended.
func.func @flags(%a: tensor<3xi8>) -> i32 {
  %c1 = arith.constant 1 : index
  %v = tensor.extract %a[%c1] : tensor<3xi8>
  %w = arith.extsi %v : i8 to i32
  return %w : i32
}

// a*a, which only a dispatch after the host's read of another result uses,
// stays in the call's slab across that read (the slab serves every group
// of the block): 0.5 everywhere gives s = 1 and 1 + (a*a)*a = 513.
func.func @slab_across_read(%a: tensor<64x64xf32>) -> tensor<64x64xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<64x64xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<64x64xf32>) -> tensor<64x64xf32>
  %t = linalg.matmul ins(%a, %a : tensor<64x64xf32>, tensor<64x64xf32>) outs(%f : tensor<64x64xf32>) -> tensor<64x64xf32>
  %m = linalg.add ins(%a, %a : tensor<64x64xf32>, tensor<64x64xf32>) outs(%e : tensor<64x64xf32>) -> tensor<64x64xf32>
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %s = tensor.extract %m[%c0, %c1] : tensor<64x64xf32>
  %g = linalg.fill ins(%s : f32) outs(%e : tensor<64x64xf32>) -> tensor<64x64xf32>
  %r = linalg.matmul ins(%t, %a : tensor<64x64xf32>, tensor<64x64xf32>) outs(%g : tensor<64x64xf32>) -> tensor<64x64xf32>
  return %r : tensor<64x64xf32>
}
