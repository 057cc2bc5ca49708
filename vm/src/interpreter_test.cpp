// interpreter_test.cpp - placeholder; being written.
