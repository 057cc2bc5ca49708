// The hal dialect's ops print as they parse.
// RUN: strata-opt %s | strata-opt | FileCheck %s

// CHECK: hal.executable @exe format("embedded-elf-x86_64") data("\7FELF") {
// CHECK-NEXT: hal.executable.export @main_dispatch_0 ordinal(0) workgroup_count([4, 1, 1])
// CHECK-NEXT: hal.executable.export @main_dispatch_1 ordinal(1) workgroup_count([1, 2, 3])
// CHECK-NEXT: }
hal.executable @exe format("embedded-elf-x86_64") data("\7FELF") {
  hal.executable.export @main_dispatch_0 ordinal(0) workgroup_count([4, 1, 1])
  hal.executable.export @main_dispatch_1 ordinal(1) workgroup_count([1, 2, 3])
}
