// context_test.cpp - placeholder; being written.
