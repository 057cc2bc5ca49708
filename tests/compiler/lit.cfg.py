# lit.cfg.py - the Strata compiler's lit suite (tests/compiler).
# The build writes lit.site.cfg.py next to the build's copy of the suite; it
# sets the tool paths and then loads this file.

import os
import sys

import lit.formats

config.name = "Strata compiler"
config.test_format = lit.formats.ShTest(execute_external=False)
config.suffixes = [".mlir"]
config.excludes = ["lit.cfg.py", "lit.site.cfg.py"]
config.test_source_root = os.path.dirname(__file__)
config.test_exec_root = config.strata_obj_root

# Tests that compile kernels say `REQUIRES: llvm-cpu`.
if config.target_llvm_cpu:
    config.available_features.add("llvm-cpu")
if config.target_portable:
    config.available_features.add("portable")

# Strata's tools first, then FileCheck/not from LLVM 22 (never the default
# LLVM 14 ones that may come first on PATH).
config.environment["PATH"] = os.pathsep.join(
    config.strata_tools_dirs + [config.llvm_tools_dir,
                                config.environment.get("PATH", "")])

# The file gen_vm_opcode_ops.py writes with every generated vm op in it.
config.substitutions.append(("%vm_opcode_examples", config.vm_opcode_examples))
# The file gen_hal_import_ops.py writes with every generated hal op in it.
config.substitutions.append(("%hal_import_examples", config.hal_import_examples))
# schemas/opcodes.def, for the test that every opcode round-trips.
config.substitutions.append(("%opcodes_def", config.opcodes_def))
config.substitutions.append(("%python", sys.executable))
