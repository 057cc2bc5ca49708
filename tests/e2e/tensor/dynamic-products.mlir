// Products with dynamic sizes on the microkernel: a matmul whose rows are
// dynamic reads its constant weight packed at compile time (as static ones
// do), and a batch_matmul whose depth is dynamic is cut into 256-deep tiles
// that accumulate into the workgroup's result (TileAndDistribute.cpp,
// tileDynamicDepths). Exact expected values (Inputs/gen_dynamic_products.py).
// RUN: rm -rf %t && python3 %S/Inputs/gen_dynamic_products.py %t
// RUN: strata-compile %t/program.mlir -o %t/host.vmfb 2>&1 | FileCheck %s --allow-empty --check-prefix=QUIET
// QUIET-NOT: warning
// RUN: strata-compile %t/program.mlir --target-cpu=x86-64-v3 -o %t/avx2.vmfb
// RUN: strata-compile %t/program.mlir --target-cpu=x86-64 -o %t/generic.vmfb
// The weight of the dynamic-row matmul is stored as 5 panels of 32 columns.
// RUN: strata-compile %t/program.mlir --target-cpu=x86-64-v4 --compile-to=flow --mlir-elide-elementsattrs-if-larger=8 | FileCheck %s --check-prefix=FLOW
// FLOW: func.func @rows_dispatch_{{[0-9]+}}_matmul_Dx160x96_f32(%arg0: tensor<?x96xf32>, %arg1: tensor<5x96x32xf32>
// FLOW: linalg.transpose ins(%arg1 : tensor<5x96x32xf32>)
// RUN: strata-run --module=%t/host.vmfb --device=local-task --function=rows --input=@%t/rows0.x.npy --expected_output=@%t/rows0.expected.npy
// RUN: strata-run --module=%t/host.vmfb --device=local-task --function=rows --input=@%t/rows1.x.npy --expected_output=@%t/rows1.expected.npy
// RUN: strata-run --module=%t/host.vmfb --device=local-task --function=rows --input=@%t/rows5.x.npy --expected_output=@%t/rows5.expected.npy
// RUN: strata-run --module=%t/host.vmfb --device=local-task --function=rows --input=@%t/rows70.x.npy --expected_output=@%t/rows70.expected.npy
// RUN: strata-run --module=%t/host.vmfb --device=local-task --function=depth --input=@%t/depth1x1.s.npy --input=@%t/depth1x1.v.npy --expected_output=@%t/depth1x1.expected.npy
// RUN: strata-run --module=%t/host.vmfb --device=local-task --function=depth --input=@%t/depth1x257.s.npy --input=@%t/depth1x257.v.npy --expected_output=@%t/depth1x257.expected.npy
// RUN: strata-run --module=%t/host.vmfb --device=local-task --function=depth --input=@%t/depth70x600.s.npy --input=@%t/depth70x600.v.npy --expected_output=@%t/depth70x600.expected.npy
// RUN: strata-run --module=%t/host.vmfb --device=local-task --function=depth --input=@%t/depth2x256.s.npy --input=@%t/depth2x256.v.npy --expected_output=@%t/depth2x256.expected.npy
// RUN: strata-run --module=%t/host.vmfb --device=local-sync --function=rows --input=@%t/rows0.x.npy --expected_output=@%t/rows0.expected.npy
// RUN: strata-run --module=%t/host.vmfb --device=local-sync --function=rows --input=@%t/rows1.x.npy --expected_output=@%t/rows1.expected.npy
// RUN: strata-run --module=%t/host.vmfb --device=local-sync --function=rows --input=@%t/rows5.x.npy --expected_output=@%t/rows5.expected.npy
// RUN: strata-run --module=%t/host.vmfb --device=local-sync --function=rows --input=@%t/rows70.x.npy --expected_output=@%t/rows70.expected.npy
// RUN: strata-run --module=%t/host.vmfb --device=local-sync --function=depth --input=@%t/depth1x1.s.npy --input=@%t/depth1x1.v.npy --expected_output=@%t/depth1x1.expected.npy
// RUN: strata-run --module=%t/host.vmfb --device=local-sync --function=depth --input=@%t/depth1x257.s.npy --input=@%t/depth1x257.v.npy --expected_output=@%t/depth1x257.expected.npy
// RUN: strata-run --module=%t/host.vmfb --device=local-sync --function=depth --input=@%t/depth70x600.s.npy --input=@%t/depth70x600.v.npy --expected_output=@%t/depth70x600.expected.npy
// RUN: strata-run --module=%t/host.vmfb --device=local-sync --function=depth --input=@%t/depth2x256.s.npy --input=@%t/depth2x256.v.npy --expected_output=@%t/depth2x256.expected.npy
// RUN: strata-run --module=%t/avx2.vmfb --device=local-task --function=rows --input=@%t/rows0.x.npy --expected_output=@%t/rows0.expected.npy
// RUN: strata-run --module=%t/avx2.vmfb --device=local-task --function=rows --input=@%t/rows1.x.npy --expected_output=@%t/rows1.expected.npy
// RUN: strata-run --module=%t/avx2.vmfb --device=local-task --function=rows --input=@%t/rows5.x.npy --expected_output=@%t/rows5.expected.npy
// RUN: strata-run --module=%t/avx2.vmfb --device=local-task --function=rows --input=@%t/rows70.x.npy --expected_output=@%t/rows70.expected.npy
// RUN: strata-run --module=%t/avx2.vmfb --device=local-task --function=depth --input=@%t/depth1x1.s.npy --input=@%t/depth1x1.v.npy --expected_output=@%t/depth1x1.expected.npy
// RUN: strata-run --module=%t/avx2.vmfb --device=local-task --function=depth --input=@%t/depth1x257.s.npy --input=@%t/depth1x257.v.npy --expected_output=@%t/depth1x257.expected.npy
// RUN: strata-run --module=%t/avx2.vmfb --device=local-task --function=depth --input=@%t/depth70x600.s.npy --input=@%t/depth70x600.v.npy --expected_output=@%t/depth70x600.expected.npy
// RUN: strata-run --module=%t/avx2.vmfb --device=local-task --function=depth --input=@%t/depth2x256.s.npy --input=@%t/depth2x256.v.npy --expected_output=@%t/depth2x256.expected.npy
// RUN: strata-run --module=%t/generic.vmfb --device=local-task --function=rows --input=@%t/rows0.x.npy --expected_output=@%t/rows0.expected.npy
// RUN: strata-run --module=%t/generic.vmfb --device=local-task --function=rows --input=@%t/rows1.x.npy --expected_output=@%t/rows1.expected.npy
// RUN: strata-run --module=%t/generic.vmfb --device=local-task --function=rows --input=@%t/rows5.x.npy --expected_output=@%t/rows5.expected.npy
// RUN: strata-run --module=%t/generic.vmfb --device=local-task --function=rows --input=@%t/rows70.x.npy --expected_output=@%t/rows70.expected.npy
// RUN: strata-run --module=%t/generic.vmfb --device=local-task --function=depth --input=@%t/depth1x1.s.npy --input=@%t/depth1x1.v.npy --expected_output=@%t/depth1x1.expected.npy
// RUN: strata-run --module=%t/generic.vmfb --device=local-task --function=depth --input=@%t/depth1x257.s.npy --input=@%t/depth1x257.v.npy --expected_output=@%t/depth1x257.expected.npy
// RUN: strata-run --module=%t/generic.vmfb --device=local-task --function=depth --input=@%t/depth70x600.s.npy --input=@%t/depth70x600.v.npy --expected_output=@%t/depth70x600.expected.npy
// RUN: strata-run --module=%t/generic.vmfb --device=local-task --function=depth --input=@%t/depth2x256.s.npy --input=@%t/depth2x256.v.npy --expected_output=@%t/depth2x256.expected.npy
