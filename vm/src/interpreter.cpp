// interpreter.cpp - placeholder; being written.
