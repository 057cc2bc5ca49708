#!/usr/bin/env python3
"""check_contracts.py - each compiler/runtime contract lives once, in schemas/
(or, for the kernel ABI, executable_library.h), and both sides use it.

Usage: check_contracts.py SOURCE_ROOT

The C++ side of the check is in the headers themselves (schemas/hal_imports.h
and the static_asserts of the runtime's hal module
(modules/hal/src/hal_module.cpp) and
compiler/lib/Target/LLVMCPU/LibraryEmitter.cpp), so a disagreement that the
types can see fails the build; the compiler's hal ops are generated from the
table (compiler/tools/gen_hal_import_ops.py). This script checks what they
cannot:

  - no source outside schemas/ and the hal dialect's vm conversion
    (compiler/lib/Dialect/HAL/Conversion/HALToVM) spells an import's name
    ("hal.<row>"): the rest of the compiler builds typed hal ops;
  - the runtime's hal module and the compiler's declarations both expand
    hal_imports.def, and no other source spells a hal function's calling
    convention beside its name (a second table);
  - the compiler's import declarations carry each row's `since` as the
    import's minimum_version, so a compiled module declares the hal version
    it needs (the bytecode writer turns it into a module dependency);
  - common compiler code never compares a target's name (only the
    registry and the targets' own folders know them);
  - the element type codes are defined in schemas/ only;
  - the "$async" suffix is spelled in schemas/calling_convention.h only;
  - the kernel ABI's query symbol, CPU feature bits, versions, dispatch
    return codes and detail kinds are spelled in executable_library.h only
    (the compiler includes it);
  - the compiler includes no runtime-private header (vm/src, hal/src,
    vm/testing) and its meson files name no runtime-private include
    directory or test library.

Exits non-zero with one line per problem.
"""

import os
import re
import sys

CODE_EXTENSIONS = (".c", ".cpp", ".h", ".hpp", ".def")
ROW_RE = re.compile(
    r'STRATA_HAL_IMPORT\(\s*(\w+)\s*,\s*"([^"]+)"\s*,\s*"([^"]*)"\s*,'
    r'\s*((?:"[^"]*"\s*)+),\s*(\d+)\s*\)', re.S)
HAL_TO_VM = os.path.join("compiler", "lib", "Dialect", "HAL", "Conversion",
                         "HALToVM")


def read(path):
    with open(path, encoding="utf-8", errors="replace") as f:
        return f.read()


def strip_comments(text):
    """Removes // and /* */ comments, keeping string literals."""
    out = []
    i = 0
    n = len(text)
    while i < n:
        c = text[i]
        if c == '"' or c == "'":
            j = i + 1
            while j < n and text[j] != c:
                j += 2 if text[j] == "\\" else 1
            out.append(text[i:j + 1])
            i = j + 1
        elif text.startswith("//", i):
            j = text.find("\n", i)
            i = n if j < 0 else j
        elif text.startswith("/*", i):
            j = text.find("*/", i + 2)
            i = n if j < 0 else j + 2
        else:
            out.append(c)
            i += 1
    return "".join(out)


def sources(root, top, skip_tests=True):
    for dirpath, dirnames, filenames in os.walk(os.path.join(root, top)):
        dirnames[:] = [d for d in dirnames if not d.startswith(".")]
        for name in sorted(filenames):
            if not name.endswith(CODE_EXTENSIONS):
                continue
            # Tests may pin a contract independently (hal_module_testing.h
            # writes the hal table out again, so that a change fails there).
            if skip_tests and (name.endswith("_test.cpp") or
                               name.endswith("_testing.h")):
                continue
            yield os.path.join(dirpath, name)


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    root = sys.argv[1]
    rel = lambda p: os.path.relpath(p, root)
    problems = []

    rows = {}
    for m in ROW_RE.finditer(read(os.path.join(root, "schemas",
                                               "hal_imports.def"))):
        rows[m.group(2)] = m.group(3)
    if not rows:
        sys.exit("schemas/hal_imports.def: no STRATA_HAL_IMPORT rows found")

    # Import names: only the table and the one conversion that calls them.
    hal_to_vm_cpp = os.path.join(root, HAL_TO_VM, "HALToVM.cpp")
    text = read(hal_to_vm_cpp)
    named = re.compile(r'"hal\.(%s)"' % "|".join(re.escape(n) for n in rows))
    for top in ["compiler", "hal", "modules", "vm", "runtime", "tools",
                "python"]:
        for path in sources(root, top):
            if rel(path).startswith(HAL_TO_VM):
                continue
            for m in named.finditer(strip_comments(read(path))):
                problems.append(f"{rel(path)}: spells the import name "
                                f"hal.{m.group(1)}; build the typed hal op "
                                "(the vm conversion of the hal dialect alone "
                                "names imports)")

    # Both sides expand the table; nobody else writes one.
    for side in [os.path.join(root, "modules", "hal", "src", "hal_module.cpp"),
                 os.path.join(root, "schemas", "hal_imports.h")]:
        if '#include "hal_imports.def"' not in read(side) and \
           '#include "hal_imports.h"' not in read(side):
            problems.append(f"{rel(side)}: does not expand "
                            "schemas/hal_imports.def")
    if '#include "hal_imports.h"' not in text:
        problems.append(f"{rel(hal_to_vm_cpp)}: does not include "
                        "hal_imports.h")
    if not re.search(r"vm::ImportOp::create\((?:[^;]*?)row\.since\b", text,
                     re.S):
        problems.append(f"{rel(hal_to_vm_cpp)}: does not give each "
                        "vm.import its row's `since` as minimum_version")
    spelled = re.compile(r'"(?:hal\.)?(%s)"\s*,\s*"0[iIfFrCD]*_[iIfFr]*"' %
                         "|".join(re.escape(n) for n in rows))
    for top in ["compiler", "hal", "modules", "vm", "runtime", "tools",
                "python"]:
        for path in sources(root, top):
            for m in spelled.finditer(strip_comments(read(path))):
                problems.append(f"{rel(path)}: spells the calling convention "
                                f"of hal.{m.group(1)}; it belongs in "
                                "schemas/hal_imports.def only")

    # Element types, $async, the kernel ABI's symbol and feature bits.
    single = [
        (re.compile(r"#\s*define\s+STRATA_HAL_(ELEMENT|NUMERICAL)_TYPE"),
         "schemas/include/strata/schemas/element_types.h",
         "defines element type codes"),
        (re.compile(r'"\$async"'), "schemas/calling_convention.h",
         'spells the "$async" suffix'),
        (re.compile(r'"strata_hal_executable_library_query"'),
         "hal/include/strata/hal/executable_library.h",
         "spells the library query symbol"),
        (re.compile(r"#\s*define\s+STRATA_HAL_CPU_FEATURE_|"
                    r"kFeature\w+\s*=\s*1ull"),
         "hal/include/strata/hal/executable_library.h",
         "defines CPU feature bits"),
        (re.compile(r"#\s*define\s+STRATA_HAL_EXECUTABLE_(LIBRARY_VERSION|"
                    r"DISPATCH)_"),
         "hal/include/strata/hal/executable_library.h",
         "defines the kernel ABI's versions, dispatch codes or detail "
         "kinds"),
    ]
    for top in ["schemas", "compiler", "hal", "modules", "vm", "runtime",
                "tools", "python", "base"]:
        for path in sources(root, top):
            code = strip_comments(read(path))
            for pattern, home, what in single:
                if rel(path) != home and pattern.search(code):
                    problems.append(f"{rel(path)}: {what}; that is {home}'s "
                                    "job")

    # Common compiler code asks a target through TargetBackend queries, never
    # by name: a name is compared only in the registry and the targets' own
    # folders (compiler/lib/Target/<Name>/, compiler/lib/Codegen/<Name>/).
    target_names = set()
    for path in sources(root, os.path.join("compiler", "lib", "Target")):
        target_names.update(re.findall(
            r'getName\(\)\s*const\s*override\s*\{\s*return\s*"([a-z0-9-]+)"',
            read(path)))
    if not target_names:
        problems.append("compiler/lib/Target: no TargetBackend::getName() "
                        "found (the target-name check reads them)")
    target_names = sorted(target_names)
    by_name = re.compile(r'(==|!=)\s*"(%s)"|"(%s)"\s*(==|!=)|'
                         r'(Case|equals)\("(%s)"' % (("|".join(map(re.escape,
                                                                  target_names)),) * 3))
    for path in sources(root, "compiler"):
        r = rel(path)
        if r.startswith(os.path.join("compiler", "lib", "Target")) or \
           r.startswith(os.path.join("compiler", "lib", "Codegen")):
            continue
        for m in by_name.finditer(strip_comments(read(path))):
            problems.append(f"{r}: compares a target's name "
                            f"({m.group(0)}); ask the target through "
                            "TargetBackend instead")

    # The compiler includes no runtime-private header and links no test
    # library.
    private_include = re.compile(
        r'#\s*include\s+"(module_builder\.h|vm_harness\.h|opcodes\.h|'
        r'bytecode_module\.h|[a-z_]+_impl\.h|strata/vm/[^"]+|'
        r'strata/modules/[^"]+|'
        r'strata/hal/(?!executable_library\.h)[^"]+)"')
    for path in sources(root, "compiler", skip_tests=False):
        for m in private_include.finditer(read(path)):
            problems.append(f"{rel(path)}: includes {m.group(1)}, a header "
                            "of the runtime's (use schemas/)")
    private_meson = re.compile(r"\b(vm_src_inc|hal_src_inc|vm_testing_lib|"
                               r"vm_testing_dep|vm_internal_dep|"
                               r"hal_internal_dep|vm_inc|vm_dep|hal_dep|modules_hal_dep|"
                               r"modules_hal_inc|vm_ref_dep)\b")
    for dirpath, _, filenames in os.walk(os.path.join(root, "compiler")):
        if "meson.build" in filenames:
            path = os.path.join(dirpath, "meson.build")
            for lineno, line in enumerate(read(path).splitlines(), 1):
                code = line.split("#", 1)[0]
                m = private_meson.search(code)
                if m:
                    problems.append(f"{rel(path)}:{lineno}: names "
                                    f"{m.group(1)}; the compiler depends on "
                                    "schemas/ (and the kernel ABI header) "
                                    "only")

    for problem in problems:
        print(problem)
    if problems:
        return 1
    print(f"contracts: {len(rows)} hal functions (named only by the table "
          "and the hal dialect's vm conversion), element types, $async, "
          "kernel ABI: one place each")
    return 0


if __name__ == "__main__":
    sys.exit(main())
