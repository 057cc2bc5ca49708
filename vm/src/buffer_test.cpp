// buffer_test.cpp - placeholder; being written.
