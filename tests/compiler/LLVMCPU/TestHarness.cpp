// TestHarness.cpp - compiling, loading and running llvm-cpu kernels for the
// tests (TestHarness.h).
#include "TestHarness.h"

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <random>
#include <thread>

#include "executable_impl.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "strata/hal/command_buffer.h"
#include "strata/hal/device.h"
#include "strata/hal/semaphore.h"

namespace llvmcpu_test {

// Compiles `source`; on failure returns false and the diagnostics in errors.
bool compile(const std::string &source, CompiledExecutable &out,
             std::string &errors, const LLVMCPUTargetOptions &options) {
  mlir::DialectRegistry registry;
  mlir::strata::registerLLVMCPUTargetDialects(registry);
  mlir::MLIRContext context(registry);
  llvm::raw_string_ostream errorStream(errors);
  mlir::ScopedDiagnosticHandler handler(
      &context, [&](mlir::Diagnostic &diagnostic) {
        errorStream << diagnostic.getLocation() << ": " << diagnostic << "\n";
        return mlir::success();
      });
  mlir::OwningOpRef<mlir::ModuleOp> module =
      mlir::parseSourceString<mlir::ModuleOp>(source, &context, "test.mlir");
  if (!module) {
    return false;
  }
  mlir::FailureOr<CompiledExecutable> compiled =
      mlir::strata::compileExecutable(*module, options);
  if (mlir::failed(compiled)) {
    return false;
  }
  out = std::move(*compiled);
  return true;
}

bool compileAndLoad(const std::string &source, Loaded &loaded) {
  std::string errors;
  if (!compile(source, loaded.compiled, errors)) {
    FAIL_CHECK("compile failed:\n" << errors);
    return false;
  }
  strata_status_t status = strata_hal_executable_load_memory(
      loaded.compiled.library.data(), loaded.compiled.library.size(),
      "llvmcpu_test", strata_allocator_system(), &loaded.executable);
  if (status) {
    char *text = strata_status_to_string(status);
    FAIL_CHECK("load failed: " << (text ? text : "?"));
    free(text);
    strata_status_free(status);
    return false;
  }
  return true;
}

// The dispatch state of one call of an export: its grid, the push
// constants and the bindings (pointer, byte length), which it points into.
struct DispatchState {
  DispatchState(const mlir::strata::ExecutableExportInfo &info,
                const std::vector<std::pair<void *, size_t>> &bindings,
                const std::vector<uint32_t> &constants)
      : constants(constants) {
    for (const auto &binding : bindings) {
      ptrs.push_back(binding.first);
      lengths.push_back(binding.second);
    }
    state.workgroup_count_x = info.workgroupCount[0];
    state.workgroup_count_y = info.workgroupCount[1];
    state.workgroup_count_z = static_cast<uint16_t>(info.workgroupCount[2]);
    state.constant_count = static_cast<uint16_t>(this->constants.size());
    state.constants = this->constants.data();
    state.binding_count = static_cast<uint16_t>(bindings.size());
    state.binding_ptrs = ptrs.data();
    state.binding_lengths = lengths.data();
  }
  DispatchState(const DispatchState &) = delete;
  DispatchState &operator=(const DispatchState &) = delete;

  std::vector<uint32_t> constants;
  std::vector<void *> ptrs;
  std::vector<size_t> lengths;
  strata_hal_executable_dispatch_state_v0_t state = {};
};

// Runs every workgroup of export `ordinal` in a shuffled order; each call
// must return 0.
void dispatch(const Loaded &loaded, uint32_t ordinal,
              const std::vector<std::pair<void *, size_t>> &bindings,
              unsigned threads) {
  const mlir::strata::ExecutableExportInfo &info =
      loaded.compiled.exports[ordinal];
  REQUIRE(info.bindingCount == bindings.size());
  DispatchState dispatchState(info, bindings, {});
  const strata_hal_executable_dispatch_state_v0_t &state = dispatchState.state;
  std::vector<strata_hal_executable_workgroup_state_v0_t> workgroups;
  for (uint32_t z = 0; z < info.workgroupCount[2]; ++z) {
    for (uint32_t y = 0; y < info.workgroupCount[1]; ++y) {
      for (uint32_t x = 0; x < info.workgroupCount[0]; ++x) {
        strata_hal_executable_workgroup_state_v0_t workgroup = {};
        workgroup.workgroup_id_x = x;
        workgroup.workgroup_id_y = y;
        workgroup.workgroup_id_z = static_cast<uint16_t>(z);
        workgroups.push_back(workgroup);
      }
    }
  }
  std::shuffle(workgroups.begin(), workgroups.end(), std::mt19937(7));
  strata_hal_executable_dispatch_v0_t function =
      strata::hal::exportFunction(loaded.executable, ordinal);
  const strata_hal_executable_environment_v0_t *environment =
      strata_hal_executable_environment(loaded.executable);
  // Workers take workgroups from a shared counter, as the task device's do.
  std::atomic<size_t> next{0};
  std::atomic<int> failures{0};
  const strata_hal_executable_dispatch_attrs_v0_t *attrs =
      strata_hal_executable_export_attrs(loaded.executable, ordinal);
  REQUIRE(attrs);
  uint32_t localMemorySize = attrs->local_memory_size;
  auto work = [&] {
    // Each worker has its own local memory, as the devices give.
    std::vector<uint64_t> localMemory((localMemorySize + 7) / 8);
    for (size_t i = next++; i < workgroups.size(); i = next++) {
      // The kernels are version 1: the state carries a detail pointer.
      strata_hal_executable_dispatch_detail_v1_t detail = {};
      strata_hal_executable_workgroup_state_v1_t stateV1 = {workgroups[i],
                                                            &detail};
      strata_hal_executable_workgroup_state_v0_t &workgroup = stateV1.v0;
      workgroup.local_memory = localMemory.data();
      workgroup.local_memory_size = localMemorySize;
      if (function(environment, &state, &workgroup) != 0) {
        ++failures;
      }
    }
  };
  std::vector<std::thread> workers;
  for (unsigned t = 1; t < threads; ++t) {
    workers.emplace_back(work);
  }
  work();
  for (std::thread &worker : workers) {
    worker.join();
  }
  REQUIRE(failures == 0);
}

int dispatchWorkgroup(const Loaded &loaded, uint32_t ordinal,
                      const std::vector<std::pair<void *, size_t>> &bindings,
                      const std::vector<uint32_t> &constants, uint32_t x,
                      strata_hal_executable_dispatch_detail_v1_t *outDetail) {
  DispatchState dispatchState(loaded.compiled.exports[ordinal], bindings,
                              constants);
  const strata_hal_executable_dispatch_state_v0_t &state = dispatchState.state;
  const strata_hal_executable_dispatch_attrs_v0_t *attrs =
      strata_hal_executable_export_attrs(loaded.executable, ordinal);
  std::vector<uint64_t> localMemory((attrs->local_memory_size + 7) / 8);
  // The kernels are version 1: a failing one writes the detail.
  strata_hal_executable_dispatch_detail_v1_t detail = {};
  strata_hal_executable_workgroup_state_v1_t stateV1 = {{}, &detail};
  strata_hal_executable_workgroup_state_v0_t &workgroup = stateV1.v0;
  workgroup.workgroup_id_x = x;
  workgroup.local_memory = localMemory.data();
  workgroup.local_memory_size = attrs->local_memory_size;
  int code = strata::hal::exportFunction(loaded.executable, ordinal)(
      strata_hal_executable_environment(loaded.executable), &state, &workgroup);
  if (outDetail) {
    *outDetail = detail;
  }
  return code;
}

std::vector<float> ramp(size_t count, float scale, float offset) {
  std::vector<float> values(count);
  for (size_t i = 0; i < count; ++i) {
    values[i] = static_cast<float>((i * 37) % 101) * scale + offset;
  }
  return values;
}

uint32_t workgroupTotal(const mlir::strata::ExecutableExportInfo &info) {
  return info.workgroupCount[0] * info.workgroupCount[1] *
         info.workgroupCount[2];
}

// "OK" or the status's code and message (consumed).
std::string consume(strata_status_t status) {
  if (!status) {
    return "OK";
  }
  std::string text = strata_status_code_name(strata_status_code(status));
  text += ": ";
  text += strata_status_message(status);
  strata_status_free(status);
  return text;
}

// Runs export `ordinal` once on a device (local-sync, or local-task with
// `workers` threads) through a command buffer, as compiled programs will.
// `buffers` are the bindings, allocated and filled by the caller.
std::string runOnDevice(const Loaded &loaded, uint32_t ordinal,
                        const char *deviceName, uint32_t workers,
                        const std::vector<strata_hal_buffer_t *> &buffers) {
  strata_hal_device_options_t options = {deviceName, workers};
  strata_hal_device_t *device = nullptr;
  strata_hal_command_buffer_t *commands = nullptr;
  strata_hal_fence_t *done = nullptr;
  std::string result = consume(
      strata_hal_device_create(&options, strata_allocator_system(), &device));
  if (result == "OK") {
    result = consume(strata_hal_command_buffer_create(
        STRATA_HAL_COMMAND_BUFFER_MODE_ONE_SHOT, strata_allocator_system(),
        &commands));
  }
  if (result == "OK") {
    std::vector<strata_hal_buffer_binding_t> bindings;
    for (strata_hal_buffer_t *buffer : buffers) {
      bindings.push_back({buffer, 0, UINT64_MAX});
    }
    result = consume(strata_hal_command_buffer_dispatch(
        commands, loaded.executable, ordinal,
        loaded.compiled.exports[ordinal].workgroupCount, nullptr, 0,
        bindings.data(), bindings.size()));
  }
  if (result == "OK") {
    result = consume(strata_hal_command_buffer_finalize(commands));
  }
  if (result == "OK") {
    result = consume(
        strata_hal_fence_create_pending(strata_allocator_system(), &done));
  }
  if (result == "OK") {
    result = consume(
        strata_hal_device_queue_execute(device, nullptr, done, &commands, 1));
  }
  if (result == "OK") {
    result = consume(strata_hal_fence_wait(
        done, strata_hal_deadline_after_ns(10ll * 1000 * 1000 * 1000)));
  }
  if (done) {
    strata_hal_fence_release(done);
  }
  if (commands) {
    strata_hal_command_buffer_release(commands);
  }
  if (device) {
    strata_hal_device_release(device);
  }
  return result;
}

} // namespace llvmcpu_test
