// A result whose shape depends on the data (ONNX NonZero): the count
// kernels, an await, the count read back on the host, then the result
// allocated with that count and filled by a dispatch that runs only when
// the result has elements. The read-back is an explicit sync point of the
// schedule.
// REQUIRES: llvm-cpu
// RUN: strata-compile --compile-to=stream %s | FileCheck %s --check-prefix=STREAM
// RUN: strata-compile --output-format=vm-mlir %s -o - | FileCheck %s --check-prefix=VM
// RUN: strata-compile %s -o %t.vmfb
// RUN: strata-run --module=%t.vmfb --input="2x3xf32=1 0 2 0 0 3" --expected_output="2x3xi64=0 0 1 0 2 2"
// RUN: strata-run --module=%t.vmfb --input="2x3xf32=0 0 0 0 0 0" --expected_output="2x0xi64="
// RUN: not strata-run --module=%t.vmfb --input="2x3xf32=0 0 0 0 0 0" --expected_output="2x1xi64=0 0"

// The mask and the three scan steps are one submission; the host awaits
// it, reads the scan's last element and sizes the result with it.
// STREAM-LABEL: func.func @main
// STREAM: %[[SCAN:.*]] = stream.tensor.export {{.*}} -> tensor<6xi64>
// STREAM: %[[COUNTED:.*]] = stream.cmd.execute
// STREAM-COUNT-4: stream.cmd.dispatch
// STREAM-NEXT: }
// STREAM-NEXT: %[[READY:.*]] = stream.timepoint.await %[[COUNTED]] ready(%[[SCAN]] : tensor<6xi64>)
// STREAM-NEXT: %[[LAST:.*]] = tensor.extract %[[READY]][%{{.*}}] : tensor<6xi64>
// STREAM-NEXT: %[[COUNT:.*]] = arith.index_cast %[[LAST]] : i64 to index
// The fill is two dispatches, both run only when the count is not 0: the
// position of each selected element, then its coordinates.
// STREAM: %[[NONEMPTY:.*]] = arith.cmpi ne, %[[COUNT]], %{{.*}} : index
// STREAM: %[[PBYTES:.*]] = arith.muli %{{.*}}, %[[COUNT]] : index
// STREAM: %[[POSITIONS:.*]] = stream.resource.alloc %[[PBYTES]]
// STREAM: %[[NONEMPTY2:.*]] = arith.cmpi ne, %[[COUNT]], %{{.*}} : index
// STREAM: %[[BYTES:.*]] = arith.muli %{{.*}}, %[[COUNT]] : index
// STREAM: %[[RESULT:.*]] = stream.resource.alloc %[[BYTES]]
// STREAM: stream.cmd.execute
// STREAM-NEXT: stream.cmd.dispatch @{{.*}}_D_i64(%[[COUNT]], %[[COUNT]] : index, index) bindings({{.*}}%[[POSITIONS]][{{.*}}]) if(%[[NONEMPTY]])
// STREAM-NEXT: stream.cmd.barrier
// STREAM-NEXT: stream.cmd.dispatch @{{.*}}_2xD_i64({{.*}}) bindings({{.*}}%[[RESULT]][{{.*}}]) if(%[[NONEMPTY2]])
// STREAM-NEXT: }

// The fills' grid is 0 workgroups when the count is 0: the device skips them.
// VM: %[[GRID:.*]] = vm.select %{{.*}}, %{{.*}}, %{{.*}} : i32
// VM-NEXT: vm.call.variadic @hal.command_buffer.dispatch(%{{.*}}, %{{.*}}, %{{.*}}, %[[GRID]],

func.func @main(%x: tensor<2x3xf32>) -> tensor<2x?xi64> {
  %0 = onnx.node "NonZero"(%x) {attrs = {}, domain = "", node_name = "nz", opset = 13 : i64} : (tensor<2x3xf32>) -> tensor<2x?xi64>
  return %0 : tensor<2x?xi64>
}
