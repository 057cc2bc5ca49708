// The portable target end to end: elementwise, reduction, matmul and
// push-constant dispatches compiled to kernel bytecode and run by the
// runtime's interpreter under the policy that refuses native kernels, on
// both devices; the same program compiled for llvm-cpu is refused.
// RUN: strata-compile %s --target=portable -o %t.vmfb
// RUN: strata-dump %t.vmfb | FileCheck %s --check-prefix=DUMP
// RUN: strata-run --module=%t.vmfb --no-native-kernels --device=local-sync --function=elementwise --input="2x3xf32=1 2 3 4 5 6" --input="2x3xf32=6 5 4 3 2 1" --expected_output="2x3xf32=7 7 7 7 7 7" --expected_output="2x3xf32=6 10 12 12 10 6"
// RUN: strata-run --module=%t.vmfb --no-native-kernels --device=local-task --function=elementwise --input="2x3xf32=1 2 3 4 5 6" --input="2x3xf32=6 5 4 3 2 1" --expected_output="2x3xf32=7 7 7 7 7 7" --expected_output="2x3xf32=6 10 12 12 10 6"
// RUN: strata-run --module=%t.vmfb --no-native-kernels --function=row_sums --input="2x3xf32=1 2 3 4 5 6" --expected_output="2xf32=6 15"
// RUN: strata-run --module=%t.vmfb --no-native-kernels --function=row_max --input="2x70xi32=5" --expected_output="2xi32=5 5"
// RUN: strata-run --module=%t.vmfb --no-native-kernels --function=matmul --input="2x3xf32=1 2 3 4 5 6" --input="3x2xf32=1 0 0 1 1 1" --expected_output="2x2xf32=4 5 10 11"
// RUN: strata-run --module=%t.vmfb --no-native-kernels --function=softmax --input="1x4xf32=0 0 0 0" --expected_output="1x4xf32=0.25 0.25 0.25 0.25"
// RUN: strata-run --module=%t.vmfb --no-native-kernels --function=shifted --input="3xi32=1 2 3" --input="i32=10" --expected_output="3xi32=11 12 13"
// RUN: strata-run --module=%t.vmfb --no-native-kernels --function=select --input="4xf32=-1 2 -3 4" --expected_output="4xf32=0 2 0 4"
// RUN: %if llvm-cpu %{ strata-compile %s -o %t.native.vmfb %}
// RUN: %if llvm-cpu %{ not strata-run --module=%t.native.vmfb --no-native-kernels --function=row_sums --input="2x3xf32=1 2 3 4 5 6" 2>&1 | FileCheck %s --check-prefix=POLICY %}

// DUMP: portable-bytecode-v1
// POLICY: PERMISSION_DENIED
// POLICY-SAME: executable format 'embedded-elf-{{.*}}' is native code, which the policy refuses (no native kernels)

func.func @elementwise(%a: tensor<2x3xf32>, %b: tensor<2x3xf32>) -> (tensor<2x3xf32>, tensor<2x3xf32>) {
  %e = tensor.empty() : tensor<2x3xf32>
  %s = linalg.add ins(%a, %b : tensor<2x3xf32>, tensor<2x3xf32>) outs(%e : tensor<2x3xf32>) -> tensor<2x3xf32>
  %p = linalg.mul ins(%a, %b : tensor<2x3xf32>, tensor<2x3xf32>) outs(%e : tensor<2x3xf32>) -> tensor<2x3xf32>
  return %s, %p : tensor<2x3xf32>, tensor<2x3xf32>
}

func.func @row_sums(%a: tensor<2x3xf32>) -> tensor<2xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<2xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<2xf32>) -> tensor<2xf32>
  %r = linalg.reduce ins(%a : tensor<2x3xf32>) outs(%f : tensor<2xf32>) dimensions = [1]
    (%x: f32, %acc: f32) {
      %s = arith.addf %x, %acc : f32
      linalg.yield %s : f32
    }
  return %r : tensor<2xf32>
}

func.func @row_max(%a: tensor<2x70xi32>) -> tensor<2xi32> {
  %low = arith.constant -2147483648 : i32
  %e = tensor.empty() : tensor<2xi32>
  %f = linalg.fill ins(%low : i32) outs(%e : tensor<2xi32>) -> tensor<2xi32>
  %r = linalg.reduce ins(%a : tensor<2x70xi32>) outs(%f : tensor<2xi32>) dimensions = [1]
    (%x: i32, %acc: i32) {
      %m = arith.maxsi %x, %acc : i32
      linalg.yield %m : i32
    }
  return %r : tensor<2xi32>
}

func.func @matmul(%a: tensor<2x3xf32>, %b: tensor<3x2xf32>) -> tensor<2x2xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<2x2xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<2x2xf32>) -> tensor<2x2xf32>
  %r = linalg.matmul ins(%a, %b : tensor<2x3xf32>, tensor<3x2xf32>) outs(%f : tensor<2x2xf32>) -> tensor<2x2xf32>
  return %r : tensor<2x2xf32>
}

func.func @softmax(%a: tensor<1x4xf32>) -> tensor<1x4xf32> {
  %e = tensor.empty() : tensor<1x4xf32>
  %r = linalg.softmax dimension(1) ins(%a : tensor<1x4xf32>) outs(%e : tensor<1x4xf32>) -> tensor<1x4xf32>
  return %r : tensor<1x4xf32>
}

func.func @shifted(%a: tensor<3xi32>, %k: i32) -> tensor<3xi32> {
  %e = tensor.empty() : tensor<3xi32>
  %r = linalg.generic {indexing_maps = [affine_map<(i) -> (i)>, affine_map<(i) -> (i)>], iterator_types = ["parallel"]}
      ins(%a : tensor<3xi32>) outs(%e : tensor<3xi32>) {
  ^bb0(%x: i32, %o: i32):
    %s = arith.addi %x, %k : i32
    linalg.yield %s : i32
  } -> tensor<3xi32>
  return %r : tensor<3xi32>
}

func.func @select(%a: tensor<4xf32>) -> tensor<4xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<4xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(i) -> (i)>, affine_map<(i) -> (i)>], iterator_types = ["parallel"]}
      ins(%a : tensor<4xf32>) outs(%e : tensor<4xf32>) {
  ^bb0(%x: f32, %o: f32):
    %c = arith.cmpf ogt, %x, %zero : f32
    %s = arith.select %c, %x, %zero : f32
    linalg.yield %s : f32
  } -> tensor<4xf32>
  return %r : tensor<4xf32>
}

// A gather (tensor.extract at indices computed from data): each index is
// checked against the extent at run time.
// RUN: strata-run --module=%t.vmfb --no-native-kernels --function=gather --input="3xi32=2 0 1" --expected_output="3xf32=30 10 20"
// RUN: not strata-run --module=%t.vmfb --no-native-kernels --function=gather --input="3xi32=2 7 1" 2>&1 | FileCheck %s --check-prefix=GATHER
// GATHER: OUT_OF_RANGE
// GATHER-SAME: index 7 computed from tensor data is out of range [0, 3)
func.func @gather(%idx: tensor<3xi32>) -> tensor<3xf32> {
  %table = util.unfoldable_constant dense<[10.0, 20.0, 30.0]> : tensor<3xf32>
  %e = tensor.empty() : tensor<3xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(i) -> (i)>, affine_map<(i) -> (i)>], iterator_types = ["parallel"]}
      ins(%idx : tensor<3xi32>) outs(%e : tensor<3xf32>) {
  ^bb0(%i: i32, %o: f32):
    %k = arith.index_cast %i : i32 to index
    %v = tensor.extract %table[%k] : tensor<3xf32>
    linalg.yield %v : f32
  } -> tensor<3xf32>
  return %r : tensor<3xf32>
}

// Bit counting on i32.
// RUN: strata-run --module=%t.vmfb --no-native-kernels --function=bits --input="3xi32=1 0 -1" --expected_output="3xi32=31 32 0" --expected_output="3xi32=1 0 32"
func.func @bits(%a: tensor<3xi32>) -> (tensor<3xi32>, tensor<3xi32>) {
  %e = tensor.empty() : tensor<3xi32>
  %r:2 = linalg.generic {indexing_maps = [affine_map<(i) -> (i)>, affine_map<(i) -> (i)>, affine_map<(i) -> (i)>], iterator_types = ["parallel"]}
      ins(%a : tensor<3xi32>) outs(%e, %e : tensor<3xi32>, tensor<3xi32>) {
  ^bb0(%x: i32, %o: i32, %p: i32):
    %z = math.ctlz %x : i32
    %c = math.ctpop %x : i32
    linalg.yield %z, %c : i32, i32
  } -> (tensor<3xi32>, tensor<3xi32>)
  return %r#0, %r#1 : tensor<3xi32>, tensor<3xi32>
}
