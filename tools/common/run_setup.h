// run_setup.h - what strata-run and strata-benchmark make from their shared
// flags (cli.h's RunFlags) before they call anything: the signature policy's
// key, the instance with its device, the check module and the --module
// files, in order.
//
// For tools: uses the STL freely, reports errors as strings, and is
// thread-compatible.
#ifndef STRATA_TOOLS_COMMON_RUN_SETUP_H_
#define STRATA_TOOLS_COMMON_RUN_SETUP_H_

#include <string>
#include <vector>

#include "cli.h"
#include "strata/base/allocator.h"
#include "strata/runtime.h"

namespace strata::tools {

/// The instance and the modules of a run. Owns both: the destructor
/// releases the modules, then the instance.
struct RunSetup {
  RunSetup() = default;
  RunSetup(const RunSetup&) = delete;
  RunSetup& operator=(const RunSetup&) = delete;
  ~RunSetup();

  strata_allocator_t allocator = strata_allocator_system();
  strata_runtime_instance_t* instance = nullptr;
  /// The check module (the check.* imports of test programs), then the
  /// --module files in order; the last is the main module.
  std::vector<strata_vm_module_t*> modules;
};

/// Reads the --require-signature key (before any module), creates the
/// instance on the --device with --task_workers, the check module, and
/// loads every --module under the instance's signature policy. Returns ""
/// on success, else one line naming what failed (without the tool's name).
std::string setUpRun(const RunFlags& flags, RunSetup* setup);

}  // namespace strata::tools

#endif  // STRATA_TOOLS_COMMON_RUN_SETUP_H_
