// disassembler.cpp - placeholder; being written.
