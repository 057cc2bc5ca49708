// bytecode_loader.cpp - placeholder; being written.
