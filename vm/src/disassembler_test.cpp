// disassembler_test.cpp - placeholder; being written.
