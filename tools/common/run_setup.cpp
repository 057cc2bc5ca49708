// run_setup.cpp - the instance and modules of strata-run and
// strata-benchmark, made from their shared flags.
#include "run_setup.h"

#include "check_module.h"

namespace strata::tools {

RunSetup::~RunSetup() {
  for (strata_vm_module_t* module : modules) {
    strata_vm_module_release(module);
  }
  strata_runtime_instance_release(instance);
}

std::string setUpRun(const RunFlags& flags, RunSetup* setup) {
  // The signature policy: the key is read before any module is.
  uint8_t public_key[STRATA_RUNTIME_PUBLIC_KEY_SIZE];
  if (!flags.require_signature.empty()) {
    strata_status_t status = strata_vm_key_file_read(
        flags.require_signature.c_str(), public_key, sizeof(public_key));
    if (status) {
      return "--require-signature: " + consumeStatusLine(status);
    }
  }
  // The instance: the device and the hal module, so modules naming HAL
  // types load and their hal.* imports link.
  strata_runtime_instance_options_t options;
  strata_runtime_instance_options_initialize(&options);
  options.device = flags.device.c_str();
  options.task_worker_count = flags.task_workers;
  options.required_public_key =
      flags.require_signature.empty() ? nullptr : public_key;
  options.no_native_kernels = flags.no_native_kernels;
  strata_status_t status = strata_runtime_instance_create(
      &options, setup->allocator, &setup->instance);
  if (status) {
    return "creating device " + flags.device + ": " + consumeStatusLine(status);
  }
  // The check module first, so test programs with check.* ops run too.
  strata_vm_module_t* check = nullptr;
  status = createCheckModule(setup->allocator, &check);
  if (status) {
    return "creating the check module: " + consumeStatusLine(status);
  }
  setup->modules.push_back(check);
  for (const std::string& path : flags.modules) {
    // The header is checked before the rest is read (module.h), and the
    // instance's signature policy applies.
    strata_vm_module_t* module = nullptr;
    status =
        strata_runtime_module_load_file(setup->instance, path.c_str(), &module);
    if (status) {
      return consumeStatusLine(status);
    }
    setup->modules.push_back(module);
  }
  return "";
}

}  // namespace strata::tools
