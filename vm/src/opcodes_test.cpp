// opcodes_test.cpp - placeholder; being written.
