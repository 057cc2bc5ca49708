// The stream dialect's ops print as they parse.
// RUN: strata-opt %s | strata-opt | FileCheck %s

// CHECK-LABEL: func.func @submission
// CHECK-SAME: (%[[T:.*]]: tensor<?x4xf32>, %[[N:.*]]: index, %[[WAIT:.*]]: !hal.fence, %[[SIGNAL:.*]]: !hal.fence)
// CHECK: %[[SLAB:.*]] = stream.resource.alloca %[[C128:.*]] : !stream.resource
// CHECK: %[[IN:.*]] = stream.tensor.import %[[T]] : tensor<?x4xf32> -> !stream.resource
// CHECK: %[[LEN:.*]] = stream.resource.size %[[IN]] : !stream.resource
// CHECK: %[[W:.*]] = stream.resource.constant dense<[1.000000e+00, 2.000000e+00]> : tensor<2xf32> -> !stream.resource
// CHECK: %[[OUT:.*]] = stream.resource.alloc %[[LEN]] : !stream.resource
// CHECK: %[[VIEW:.*]] = stream.tensor.export %[[OUT]][%{{.*}}, %[[LEN]]] : !stream.resource -> tensor<?x4xf32>{%[[N]]}
// CHECK: %[[ENTRY:.*]] = stream.timepoint.import %[[WAIT]] : !hal.fence
// CHECK: %[[TP:.*]] = stream.cmd.execute await(%[[ENTRY]]) {
// CHECK-NEXT: stream.cmd.dispatch @exe::@first(%[[N]] : index) bindings(%[[IN]][%{{.*}}, %[[LEN]]], %[[W]][%{{.*}}, %{{.*}}], %[[SLAB]][%{{.*}}, %{{.*}}])
// CHECK-NEXT: stream.cmd.barrier
// CHECK-NEXT: stream.cmd.dispatch @exe::@second bindings(%[[SLAB]][%{{.*}}, %{{.*}}], %[[OUT]][%{{.*}}, %[[LEN]]])
// CHECK-NEXT: }
// CHECK: stream.timepoint.chain_external await(%[[TP]]) signal(%[[SIGNAL]])
// CHECK: %[[READY:.*]] = stream.timepoint.await %[[TP]] ready(%[[VIEW]] : tensor<?x4xf32>)
// CHECK: return %[[READY]]
func.func @submission(%t: tensor<?x4xf32>, %n: index, %wait: !hal.fence, %signal: !hal.fence) -> tensor<?x4xf32> {
  %c0 = arith.constant 0 : index
  %c8 = arith.constant 8 : index
  %c128 = arith.constant 128 : index
  %slab = stream.resource.alloca %c128 : !stream.resource
  %in = stream.tensor.import %t : tensor<?x4xf32> -> !stream.resource
  %len = stream.resource.size %in : !stream.resource
  %w = stream.resource.constant dense<[1.0, 2.0]> : tensor<2xf32> -> !stream.resource
  %out = stream.resource.alloc %len : !stream.resource
  %view = stream.tensor.export %out[%c0, %len] : !stream.resource -> tensor<?x4xf32>{%n}
  %entry = stream.timepoint.import %wait : !hal.fence
  %tp = stream.cmd.execute await(%entry) {
    stream.cmd.dispatch @exe::@first(%n : index) bindings(%in[%c0, %len], %w[%c0, %c8], %slab[%c0, %c8])
    stream.cmd.barrier
    stream.cmd.dispatch @exe::@second bindings(%slab[%c0, %c8], %out[%c0, %len])
  }
  stream.timepoint.chain_external await(%tp) signal(%signal)
  %ready = stream.timepoint.await %tp ready(%view : tensor<?x4xf32>)
  return %ready : tensor<?x4xf32>
}

// CHECK-LABEL: func.func @immediate
// CHECK: %[[TP:.*]] = stream.timepoint.immediate : !stream.timepoint
// CHECK: stream.cmd.execute {
// CHECK-NEXT: }
// CHECK: stream.timepoint.await %[[TP]]
// CHECK-NOT: ready
// CHECK: stream.timepoint.chain_external signal(%{{.*}})
func.func @immediate(%signal: !hal.fence) {
  %tp = stream.timepoint.immediate : !stream.timepoint
  %done = stream.cmd.execute {
  }
  stream.timepoint.await %tp
  stream.timepoint.chain_external signal(%signal)
  return
}

// A dispatch that runs only when its i1 is true (a result with elements).
// CHECK-LABEL: func.func @conditional
// CHECK-SAME: (%[[N:.*]]: index, %[[NONEMPTY:.*]]: i1)
// CHECK: stream.cmd.dispatch @exe::@rows(%[[N]] : index) bindings(%{{.*}}[%{{.*}}, %[[N]]]) if(%[[NONEMPTY]])
func.func @conditional(%n: index, %nonempty: i1) {
  %c0 = arith.constant 0 : index
  %out = stream.resource.alloc %n : !stream.resource
  %tp = stream.cmd.execute {
    stream.cmd.dispatch @exe::@rows(%n : index) bindings(%out[%c0, %n]) if(%nonempty)
  }
  return
}
