// status_test.cpp - placeholder; being written.
