// list_test.cpp - placeholder; being written.
