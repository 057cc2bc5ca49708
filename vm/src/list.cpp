// list.cpp - placeholder; being written.
