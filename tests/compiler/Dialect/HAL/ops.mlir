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

// The hand-written ops beside the generated ones.
// CHECK-LABEL: func.func @bridges
// CHECK: %[[EXE:.*]] = hal.executable.lookup @exe : !hal.executable
// CHECK: %[[F:.*]] = hal.fence.immediate : !hal.fence
// CHECK: %[[V:.*]] = hal.tensor.export %{{.*}} : tensor<?x4xf32> -> !hal.buffer_view
// CHECK: hal.tensor.import %[[V]] : !hal.buffer_view -> tensor<?x4xf32>{%{{.*}}}
func.func @bridges(%t: tensor<?x4xf32>, %n: index) -> tensor<?x4xf32> {
  %exe = hal.executable.lookup @exe : !hal.executable
  %f = hal.fence.immediate : !hal.fence
  %v = hal.tensor.export %t : tensor<?x4xf32> -> !hal.buffer_view
  %u = hal.tensor.import %v : !hal.buffer_view -> tensor<?x4xf32>{%n}
  return %u : tensor<?x4xf32>
}
