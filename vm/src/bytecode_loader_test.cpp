// bytecode_loader_test.cpp - placeholder; being written.
