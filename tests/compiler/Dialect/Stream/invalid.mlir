// RUN: strata-opt --split-input-file --verify-diagnostics %s

func.func @not_a_command() {
  %tp = stream.cmd.execute {
    // expected-error @+1 {{'arith.constant' op cannot be recorded in a 'stream.cmd.execute'; only dispatches and barriers can}}
    %c0 = arith.constant 0 : index
  }
  return
}

// -----

func.func @outside() {
  // expected-error @+1 {{'stream.cmd.barrier' op expects parent op 'stream.cmd.execute'}}
  stream.cmd.barrier
  return
}

// -----

func.func @flat_entry(%r: !stream.resource, %c0: index) {
  %tp = stream.cmd.execute {
    // expected-error @+1 {{entry point @d0 must be @executable::@export}}
    stream.cmd.dispatch @d0 bindings(%r[%c0, %c0])
  }
  return
}

// -----

func.func @vector_constant(%v: vector<4xf32>) {
  %tp = stream.cmd.execute {
    // expected-error @+1 {{push constant of type 'vector<4xf32>' is not a scalar}}
    stream.cmd.dispatch @exe::@d0(%v : vector<4xf32>) bindings()
  }
  return
}

// -----

func.func @export_dims(%r: !stream.resource, %c0: index) -> tensor<?x4xf32> {
  // expected-error @+1 {{has 0 dynamic dimension sizes for 'tensor<?x4xf32>', which has 1}}
  %t = stream.tensor.export %r[%c0, %c0] : !stream.resource -> tensor<?x4xf32>
  return %t : tensor<?x4xf32>
}

// -----

func.func @dynamic_constant() -> !stream.resource {
  // expected-error @+1 {{value must be a static tensor of integers or floats, not 'vector<2xf32>'}}
  %w = stream.resource.constant dense<[1.0, 2.0]> : vector<2xf32> -> !stream.resource
  return %w : !stream.resource
}

