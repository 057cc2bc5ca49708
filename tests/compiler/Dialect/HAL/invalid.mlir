// RUN: strata-opt --split-input-file --verify-diagnostics %s

hal.executable @exe format("embedded-elf-x86_64") data("") {
  // expected-error @+1 {{workgroup_count must be 3 positive sizes (x, y, z)}}
  hal.executable.export @d0 ordinal(0) workgroup_count([4, 1])
}

// -----

hal.executable @exe format("embedded-elf-x86_64") data("") {
  // expected-error @+1 {{workgroup_count must be 3 positive sizes (x, y, z)}}
  hal.executable.export @d0 ordinal(0) workgroup_count([4, 0, 1])
}

// -----

// expected-error @+1 {{'hal.executable.export' op expects parent op 'hal.executable'}}
hal.executable.export @d0 ordinal(0) workgroup_count([1, 1, 1])

// -----

hal.executable @exe format("embedded-elf-x86_64") data("") {
  // expected-error @+1 {{'hal.executable.export' op attribute 'ordinal' failed to satisfy constraint: 32-bit signless integer attribute whose value is non-negative}}
  hal.executable.export @d0 ordinal(-1) workgroup_count([1, 1, 1])
}

// -----

// A tuple span is checked member by member against the row's signature.
func.func @binding_tuple(%cb: !hal.command_buffer, %exe: !hal.executable, %i: i32, %b: !hal.buffer, %n: index) {
  // expected-error @+1 {{'bindings' member 1 of tuple 0 must be i64, got 'i32'}}
  hal.command_buffer.dispatch command_buffer(%cb) executable(%exe) ordinal(%i) x(%i) y(%i) z(%i) constants() bindings(%b, %i, %n : !hal.buffer, i32, index)
  return
}

// -----

func.func @binding_count(%cb: !hal.command_buffer, %exe: !hal.executable, %i: i32, %b: !hal.buffer, %n: index) {
  // expected-error @+1 {{'bindings' takes tuples of 3 values, got 2}}
  hal.command_buffer.dispatch command_buffer(%cb) executable(%exe) ordinal(%i) x(%i) y(%i) z(%i) constants() bindings(%b, %n : !hal.buffer, index)
  return
}

// -----

func.func @lookup_unknown() {
  // expected-error @+1 {{'hal.executable.lookup' op '@nowhere' is not a hal.executable}}
  %exe = hal.executable.lookup @nowhere : !hal.executable
  return
}

// -----

func.func @import_dims(%v: !hal.buffer_view) -> tensor<?x?xf32> {
  // expected-error @+1 {{takes 2 dynamic dimensions for 'tensor<?x?xf32>', got 0}}
  %t = hal.tensor.import %v : !hal.buffer_view -> tensor<?x?xf32>
  return %t : tensor<?x?xf32>
}
