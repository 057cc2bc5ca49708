// value.cpp - placeholder; being written.
