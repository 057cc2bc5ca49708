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
