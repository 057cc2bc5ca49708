// Kernels compiled for a machine this host cannot run are refused when the
// module is loaded, with an error that names the format and where the
// module loads its executable; nothing crashes.
// RUN: strata-compile --target-triple=aarch64-linux-gnu --target-cpu=generic %s -o %t.vmfb
// RUN: strata-dump %t.vmfb | FileCheck %s --check-prefix=DUMP
// DUMP: "embedded-elf-aarch64"
// DUMP: kernel library (ELF shared object, aarch64)
// RUN: not strata-run --module=%t.vmfb --function=double --input="2xf32=1 2" 2>&1 | FileCheck %s
// CHECK: executable format 'embedded-elf-aarch64' is for another architecture
// CHECK: at foreign.__init ({{.*}}foreign-target.mlir:[[@LINE+1]]:1)
module @foreign {
  func.func @double(%a: tensor<2xf32>) -> tensor<2xf32> {
    %e = tensor.empty() : tensor<2xf32>
    %r = linalg.add ins(%a, %a : tensor<2xf32>, tensor<2xf32>) outs(%e : tensor<2xf32>) -> tensor<2xf32>
    return %r : tensor<2xf32>
  }
}
