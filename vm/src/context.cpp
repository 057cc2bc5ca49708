// context.cpp - placeholder; being written.
