# lit.cfg.py - end-to-end tests (`meson test --suite e2e`): programs in the
# standard MLIR dialects compiled by strata-compile and run by strata-run.
# The build writes lit.site.cfg.py with the tool paths; it loads this file.

import os

import lit.formats

config.name = "Strata e2e"
config.test_format = lit.formats.ShTest(execute_external=False)
config.suffixes = [".mlir"]
config.excludes = ["lit.cfg.py", "lit.site.cfg.py", "Inputs"]
config.test_source_root = os.path.dirname(__file__)
config.test_exec_root = config.strata_obj_root

# Tests that compile kernels say `REQUIRES: llvm-cpu`.
if config.target_llvm_cpu:
    config.available_features.add("llvm-cpu")
# Tests of the portable target (tests/e2e/portable) say `REQUIRES: portable`.
if config.target_portable:
    config.available_features.add("portable")

# Strata's tools first, then FileCheck/not from LLVM 22.
config.environment["PATH"] = os.pathsep.join(
    config.strata_tools_dirs + [config.llvm_tools_dir,
                                config.environment.get("PATH", "")])
