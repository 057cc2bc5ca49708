#!/usr/bin/env python3
"""check_vm_opcode_coverage.py - every opcodes.def row has exactly one vm op.

Usage: check_vm_opcode_coverage.py LLVM_TBLGEN OPCODES_DEF INCLUDE_DIR... -- TD...

Reads the TableGen records of the given .td files (llvm-tblgen --dump-json),
collects every def derived from VM_OpcodeOp and checks, against opcodes.def:
  - each row has exactly one op, named VM_<Row>Op, with the row's mnemonic;
  - no op names a row that does not exist;
  - no .td file spells an opcode number (the numbers live in opcodes.def only).
Exits non-zero with one line per problem.
"""

import json
import re
import subprocess
import sys

ROW_RE = re.compile(r'^STRATA_OP\(\s*(\w+)\s*,\s*(0x[0-9A-Fa-f]+)\s*,\s*"([^"]+)"')


def main():
    if "--" not in sys.argv:
        sys.exit(__doc__)
    split = sys.argv.index("--")
    tblgen, opcodes_def, *include_dirs = sys.argv[1:split]
    tds = sys.argv[split + 1:]

    rows = {}
    numbers = set()
    with open(opcodes_def, encoding="utf-8") as f:
        for line in f:
            m = ROW_RE.match(line)
            if m:
                rows[m.group(1)] = m.group(3)
                numbers.add(int(m.group(2), 16))

    problems = []
    ops = {}  # def name -> (row name, mnemonic)
    for td in tds:
        args = [tblgen, "--dump-json"]
        for inc in include_dirs:
            args += ["-I", inc]
        result = subprocess.run(args + [td], capture_output=True, text=True)
        if result.returncode != 0:
            sys.exit(f"{td}: llvm-tblgen failed:\n{result.stderr}")
        records = json.loads(result.stdout)
        for name in records["!instanceof"].get("VM_OpcodeOp", []):
            ops[name] = (records[name]["opcodeName"], records[name]["opName"])
        with open(td, encoding="utf-8") as f:
            for lineno, line in enumerate(f, 1):
                if re.search(r"\b0x[0-9A-Fa-f]+\b", line):
                    problems.append(f"{td}:{lineno}: spells an opcode number; "
                                    "numbers belong in opcodes.def only")

    seen = {}
    for def_name, (row, mnemonic) in sorted(ops.items()):
        if row not in rows:
            problems.append(f"{def_name}: names opcode row '{row}', which "
                            "opcodes.def does not have")
            continue
        if row in seen:
            problems.append(f"{def_name}: row '{row}' already has op {seen[row]}")
        seen[row] = def_name
        if def_name != f"VM_{row}Op":
            problems.append(f"{def_name}: the op of row '{row}' must be VM_{row}Op")
        if mnemonic != rows[row]:
            problems.append(f"{def_name}: mnemonic '{mnemonic}' but row '{row}' "
                            f"says '{rows[row]}'")
    for row in rows:
        if row not in seen:
            problems.append(f"opcodes.def row '{row}' has no vm op")

    for p in problems:
        print(p)
    if problems:
        sys.exit(1)
    print(f"{len(rows)} opcodes.def rows, {len(ops)} vm ops: one op per row")


if __name__ == "__main__":
    main()
