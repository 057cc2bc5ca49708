#!/usr/bin/env python3
"""check_mnemonics.py - checks strata-dump disassembly against opcodes.def.

Usage: check_mnemonics.py OPCODES_DEF DUMP...

Every row's mnemonic must appear in the disassembly, and every disassembled
instruction must be a row's mnemonic. A function named after a row (the
generated examples name each function after the row it exercises) must
contain that row's mnemonic: the encoder wrote the op's own opcode, and the
disassembler read it back as the same row.
"""
import re
import sys

ROW_RE = re.compile(r'^STRATA_OP\(\s*(\w+)\s*,\s*0x[0-9A-Fa-f]+\s*,\s*"([^"]+)"')
FUNC_RE = re.compile(r'^func @(\S+) ')
INSN_RE = re.compile(r'^  [0-9a-f]{4}  (\S+)')


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    rows = {}
    with open(sys.argv[1]) as f:
        for line in f:
            m = ROW_RE.match(line)
            if m:
                rows[m.group(1)] = m.group(2)
    mnemonics = set(rows.values())
    seen = set()
    by_function = {}
    function = None
    for path in sys.argv[2:]:
        with open(path) as f:
            for line in f:
                m = FUNC_RE.match(line)
                if m:
                    function = m.group(1)
                    by_function.setdefault(function, set())
                    continue
                m = INSN_RE.match(line)
                if m and function is not None:
                    seen.add(m.group(1))
                    by_function[function].add(m.group(1))
    errors = []
    for mnemonic in sorted(seen - mnemonics):
        errors.append(f"disassembled '{mnemonic}', which no opcodes.def row has")
    for mnemonic in sorted(mnemonics - seen):
        errors.append(f"row mnemonic '{mnemonic}' never came out of the disassembler")
    for name, mnemonic in rows.items():
        if name in by_function and mnemonic not in by_function[name]:
            errors.append(f"function @{name} does not contain '{mnemonic}': "
                          f"got {sorted(by_function[name])}")
    if errors:
        sys.exit("\n".join(errors))
    print(f"all {len(mnemonics)} opcodes round-tripped")


if __name__ == "__main__":
    main()
