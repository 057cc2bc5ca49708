// ref_test.cpp - placeholder; being written.
