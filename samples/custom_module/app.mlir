// app.mlir - the custom_module sample's program, compiled by strata-compile
// into app.vmfb. It calls the native "custom" module (custom_module.cpp):
// a function of another module is declared as a private func.func named
// `module.function`, and its calls become calls of that import.
module @app {
  func.func private @custom.add(i32) -> i32
  func.func private @custom.reverse(!vm.buffer) -> !vm.buffer

  // Adds n to this context's counter twice; returns both running totals.
  func.func @run(%n: i32) -> (i32, i32) {
    %first = func.call @custom.add(%n) : (i32) -> i32
    %second = func.call @custom.add(%n) : (i32) -> i32
    return %first, %second : i32, i32
  }

  // A new buffer with the bytes of `bytes` reversed.
  func.func @flip(%bytes: !vm.buffer) -> !vm.buffer {
    %reversed = func.call @custom.reverse(%bytes) : (!vm.buffer) -> !vm.buffer
    return %reversed : !vm.buffer
  }
}
