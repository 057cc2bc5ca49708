// A 1 MiB constant weight feeding a matmul stays on the host: the module
// stores it once, 64-byte aligned in its rodata, and the dispatch binds it
// in place (hal.buffer.wrap); the kernel library holds no copy of it. On
// x86-64 with AVX-512 it is stored in the microkernel's panel layout
// (16 panels of 512 x 32: --strata-pack-weights). The program is generated
// (Inputs/gen_weights.py: 1.7 MB of MLIR text).
// RUN: python3 %S/Inputs/gen_weights.py %t.mlir %t.input.npy %t.expected.npy
// RUN: strata-compile %t.mlir -o %t.vmfb
// RUN: strata-compile %t.mlir --target-cpu=x86-64-v4 --compile-to=stream --mlir-elide-elementsattrs-if-larger=16 | FileCheck %s --check-prefix=STREAM
// STREAM: %[[W:.*]] = stream.resource.constant dense_resource<__elided__> : tensor<16x512x32xf32> -> !stream.resource
// STREAM: stream.cmd.dispatch @module_linked_llvm_cpu::@predict_dispatch_0_matmul_4x512x512_f32 bindings(%{{.*}}, %[[W]][%{{.*}}, %{{.*}}], %{{.*}})
// STREAM: flow.executable @module_linked_llvm_cpu {
// STREAM-NOT: dense_resource
// RUN: strata-dump --no-disassembly %t.vmfb | FileCheck %s --check-prefix=DUMP
// DUMP: rodata segments
// DUMP: size 1048576 align 64 bytes
// DUMP-NOT: size 1048576
// DUMP: kernel library (ELF shared object
// The weight is stored once and the rest (kernel library included) is
// small: a copy of the weight anywhere else would double the file.
// RUN: python3 -c "import os,sys; n=os.path.getsize(sys.argv[1]); print(n); sys.exit(0 if 1048576 < n < 1048576 + 131072 else 1)" %t.vmfb
// RUN: strata-run --module=%t.vmfb --function=predict --device=local-sync --input=@%t.input.npy --expected_output=@%t.expected.npy
// RUN: strata-run --module=%t.vmfb --function=predict --device=local-task --input=@%t.input.npy --expected_output=@%t.expected.npy
