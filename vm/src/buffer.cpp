// buffer.cpp - placeholder; being written.
