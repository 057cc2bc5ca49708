// invocation_test.cpp - placeholder; being written.
