// bytecode_verifier_test.cpp - placeholder; being written.
