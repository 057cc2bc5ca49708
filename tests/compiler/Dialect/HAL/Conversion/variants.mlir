// A multi-ISA executable (hal.executable.variant) is loaded with
// hal.executable.create_first over its (format, library) pairs, best first;
// equal bytes (the format text, a library two variants share) are one rodata.
// RUN: strata-opt --strata-schedule-execution --strata-convert-stream-to-hal --strata-convert-to-vm %s | FileCheck %s

// CHECK-LABEL: vm.module @multi
// CHECK: vm.import @hal.executable.create_first {minimum_version = 3 : i32, variadic_spans = array<i32: 1, 2>} : (!vm.ref<?>, !vm.buffer, !vm.buffer) -> !vm.ref<?>
// CHECK-DAG: vm.rodata @__executable_library "\7FELF-v4"
// CHECK-DAG: vm.rodata @__executable_format "embedded-elf-x86_64"
// CHECK-DAG: vm.rodata @__executable_library_variant_1 "\7FELF-v3"
// CHECK-NOT: vm.rodata
// CHECK: vm.initializer @__init {
// CHECK: %[[LIB:.*]] = vm.const.ref.rodata @__executable_library{{$}}
// CHECK-NEXT: %[[FMT:.*]] = vm.const.ref.rodata @__executable_format
// CHECK-NEXT: %[[V1:.*]] = vm.const.ref.rodata @__executable_library_variant_1
// CHECK-NEXT: %[[FMT1:.*]] = vm.const.ref.rodata @__executable_format
// CHECK-NEXT: %[[V2:.*]] = vm.const.ref.rodata @__executable_library_variant_1
// CHECK-NEXT: %[[FMT2:.*]] = vm.const.ref.rodata @__executable_format
// CHECK-NEXT: %[[EXE:.*]] = vm.call.variadic @hal.executable.create_first(%{{.*}}, %[[FMT]], %[[LIB]], %[[FMT1]], %[[V1]], %[[FMT2]], %[[V2]]) segments [3]
// CHECK-NEXT: vm.global.store.ref %[[EXE]], @__executable
module @multi {
  hal.executable @exe format("embedded-elf-x86_64") data("\7FELF-v4") {
    hal.executable.variant target("x86-64-v3") format("embedded-elf-x86_64") data("\7FELF-v3")
    hal.executable.variant target("x86-64-v3-again") format("embedded-elf-x86_64") data("\7FELF-v3")
    hal.executable.export @add ordinal(0) workgroup_count([1, 1, 1])
  }
  func.func @f(%x: tensor<80xf32>) -> tensor<80xf32> {
    %0 = flow.dispatch @exe::@add(%x, %x) : (tensor<80xf32>, tensor<80xf32>) -> tensor<80xf32>
    return %0 : tensor<80xf32>
  }
}
