// bytecode_verifier.cpp - placeholder; being written.
