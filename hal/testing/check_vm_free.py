#!/usr/bin/env python3
"""check_vm_free.py - hal/ knows nothing of the VM but strata/vm/ref.h.

Usage: check_vm_free.py HAL_DIR

HAL objects (buffers, devices, fences, ...) start with a
strata_vm_ref_object_t so that VM registers hold them without a wrapper;
ref.h is header-only (inline retain/release) and links nothing. Every other
VM header, and every call into the VM library, belongs to the VM's binding of
the HAL in modules/hal. Exits non-zero with one line per offending include.
"""

import os
import re
import sys

ALLOWED = {"strata/vm/ref.h"}
INCLUDE_RE = re.compile(r'^\s*#\s*include\s*[<"]([^">]+)[">]', re.M)
VM_PRIVATE = ("vm_harness.h", "module_builder.h", "bytecode_module.h",
              "context_impl.h", "module_impl.h")


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    hal = sys.argv[1]
    problems = []
    checked = 0
    for dirpath, dirnames, filenames in os.walk(hal):
        dirnames[:] = [d for d in dirnames if not d.startswith(".")]
        for name in sorted(filenames):
            if not name.endswith((".c", ".cpp", ".h", ".hpp")):
                continue
            path = os.path.join(dirpath, name)
            checked += 1
            with open(path, encoding="utf-8") as f:
                text = f.read()
            for include in INCLUDE_RE.findall(text):
                if (include.startswith("strata/vm/") and
                        include not in ALLOWED) or include in VM_PRIVATE:
                    problems.append(f"{os.path.relpath(path, hal)}: includes "
                                    f"{include}; hal/ may include only "
                                    "strata/vm/ref.h (the VM binding is "
                                    "modules/hal)")
    if checked == 0:
        problems.append(f"{hal}: no sources found")
    for p in problems:
        print(p)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
