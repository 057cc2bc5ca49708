// f32 matmuls large enough for the matmul microkernel (llvm-cpu on x86 with
// AVX2 + FMA or AVX-512), with sizes that are not multiples of its register
// tile (14 x 32 or 6 x 16) or of its depth block (256), on both devices.
// Splat inputs make every output a product sum stated in one number.
// The HAL phase's output (checked below) is compiled on to the module: one
// run of the kernels' code generation instead of two.
// RUN: strata-compile %s --compile-to=hal -o %t.hal.mlir
// RUN: strata-compile --compile-from=hal %t.hal.mlir -o %t.vmfb
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

// A matmul accumulating into a loop-carried tensor (outs(%acc) in scf.for,
// 3 trips, odd sizes): its dispatch copies each workgroup's tile of the
// accumulator in and runs on the microkernel over several workgroups; it
// must give what the same loop of linalg.generic matmuls gives.
// RUN: FileCheck %s --check-prefix=HAL --input-file=%t.hal.mlir
// HAL: hal.executable.export @acc_loop_dispatch_{{[0-9]+}}_matmul_131x97x67_f32 ordinal({{[0-9]+}}) workgroup_count([8, 1, 1])
// RUN: strata-run --module=%t.vmfb --function=acc_loop_generic --output=@%t.acc.npy
// RUN: strata-run --module=%t.vmfb --device=local-sync --function=acc_loop --expected_output=@%t.acc.npy
// RUN: strata-run --module=%t.vmfb --device=local-task --function=acc_loop --expected_output=@%t.acc.npy
// A 32 MiB result (2053 x 4099) is stored with non-temporal stores, in place
// from an A of depth 8, every workgroup fenced before it reports done.
// RUN: strata-run --module=%t.vmfb --device=local-sync --function=mm_2053x8x4099 --input="2053x8xf32=1.5" --input="8x4099xf32=0.25" --expected_output="2053x4099xf32=3"
// RUN: strata-run --module=%t.vmfb --device=local-task --function=mm_2053x8x4099 --input="2053x8xf32=1.5" --input="8x4099xf32=0.25" --expected_output="2053x4099xf32=3"

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

// x[i, j] = ((i * 7 + j * 3) mod 11) - 5 + scale * (i + 2j mod 5): small
// integers, so every sum below is exact in f32.
func.func private @pattern(%scale: f32) -> tensor<131x67xf32> {
  %e = tensor.empty() : tensor<131x67xf32>
  %x = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "parallel"]} outs(%e : tensor<131x67xf32>) {
  ^bb0(%o: f32):
    %i = linalg.index 0 : index
    %j = linalg.index 1 : index
    %c2 = arith.constant 2 : index
    %c3 = arith.constant 3 : index
    %c5 = arith.constant 5 : index
    %c7 = arith.constant 7 : index
    %c11 = arith.constant 11 : index
    %a = arith.muli %i, %c7 : index
    %b = arith.muli %j, %c3 : index
    %s = arith.addi %a, %b : index
    %m = arith.remui %s, %c11 : index
    %j2 = arith.muli %j, %c2 : index
    %t = arith.addi %i, %j2 : index
    %n = arith.remui %t, %c5 : index
    %mi = arith.index_cast %m : index to i32
    %ni = arith.index_cast %n : index to i32
    %mf = arith.sitofp %mi : i32 to f32
    %nf = arith.sitofp %ni : i32 to f32
    %five = arith.constant 5.0 : f32
    %v0 = arith.subf %mf, %five : f32
    %v1 = arith.mulf %nf, %scale : f32
    %v = arith.addf %v0, %v1 : f32
    linalg.yield %v : f32
  } -> tensor<131x67xf32>
  return %x : tensor<131x67xf32>
}

func.func @acc_loop() -> tensor<131x97xf32> {
  %one = arith.constant 1.0 : f32
  %two = arith.constant 2.0 : f32
  %a = call @pattern(%one) : (f32) -> tensor<131x67xf32>
  %p = call @pattern(%two) : (f32) -> tensor<131x67xf32>
  %b = tensor.extract_slice %p[0, 0] [67, 67] [1, 1] : tensor<131x67xf32> to tensor<67x67xf32>
  %b2 = tensor.concat dim(1) %b, %b : (tensor<67x67xf32>, tensor<67x67xf32>) -> tensor<67x134xf32>
  %bb = tensor.extract_slice %b2[0, 0] [67, 97] [1, 1] : tensor<67x134xf32> to tensor<67x97xf32>
  %c0 = tensor.extract_slice %b2[0, 0] [67, 97] [1, 1] : tensor<67x134xf32> to tensor<67x97xf32>
  %acc0 = tensor.concat dim(0) %c0, %c0 : (tensor<67x97xf32>, tensor<67x97xf32>) -> tensor<134x97xf32>
  %acc = tensor.extract_slice %acc0[0, 0] [131, 97] [1, 1] : tensor<134x97xf32> to tensor<131x97xf32>
  %lb = arith.constant 0 : index
  %ub = arith.constant 3 : index
  %st = arith.constant 1 : index
  %r = scf.for %i = %lb to %ub step %st iter_args(%c = %acc) -> (tensor<131x97xf32>) {
    %m = linalg.matmul ins(%a, %bb : tensor<131x67xf32>, tensor<67x97xf32>) outs(%c : tensor<131x97xf32>) -> tensor<131x97xf32>
    scf.yield %m : tensor<131x97xf32>
  }
  return %r : tensor<131x97xf32>
}

func.func @acc_loop_generic() -> tensor<131x97xf32> {
  %one = arith.constant 1.0 : f32
  %two = arith.constant 2.0 : f32
  %a = call @pattern(%one) : (f32) -> tensor<131x67xf32>
  %p = call @pattern(%two) : (f32) -> tensor<131x67xf32>
  %b = tensor.extract_slice %p[0, 0] [67, 67] [1, 1] : tensor<131x67xf32> to tensor<67x67xf32>
  %b2 = tensor.concat dim(1) %b, %b : (tensor<67x67xf32>, tensor<67x67xf32>) -> tensor<67x134xf32>
  %bb = tensor.extract_slice %b2[0, 0] [67, 97] [1, 1] : tensor<67x134xf32> to tensor<67x97xf32>
  %c0 = tensor.extract_slice %b2[0, 0] [67, 97] [1, 1] : tensor<67x134xf32> to tensor<67x97xf32>
  %acc0 = tensor.concat dim(0) %c0, %c0 : (tensor<67x97xf32>, tensor<67x97xf32>) -> tensor<134x97xf32>
  %acc = tensor.extract_slice %acc0[0, 0] [131, 97] [1, 1] : tensor<134x97xf32> to tensor<131x97xf32>
  %lb = arith.constant 0 : index
  %ub = arith.constant 3 : index
  %st = arith.constant 1 : index
  %r = scf.for %i = %lb to %ub step %st iter_args(%c = %acc) -> (tensor<131x97xf32>) {
    %m = linalg.generic {indexing_maps = [affine_map<(i, j, k) -> (i, k)>, affine_map<(i, j, k) -> (k, j)>, affine_map<(i, j, k) -> (i, j)>], iterator_types = ["parallel", "parallel", "reduction"]} ins(%a, %bb : tensor<131x67xf32>, tensor<67x97xf32>) outs(%c : tensor<131x97xf32>) {
    ^bb0(%x: f32, %y: f32, %o: f32):
      %pr = arith.mulf %x, %y : f32
      %sum = arith.addf %o, %pr : f32
      linalg.yield %sum : f32
    } -> tensor<131x97xf32>
    scf.yield %m : tensor<131x97xf32>
  }
  return %r : tensor<131x97xf32>
}

func.func @mm_2053x8x4099(%a: tensor<2053x8xf32>, %b: tensor<8x4099xf32>) -> tensor<2053x4099xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<2053x4099xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<2053x4099xf32>) -> tensor<2053x4099xf32>
  %r = linalg.matmul ins(%a, %b : tensor<2053x8xf32>, tensor<8x4099xf32>) outs(%f : tensor<2053x4099xf32>) -> tensor<2053x4099xf32>
  return %r : tensor<2053x4099xf32>
}
