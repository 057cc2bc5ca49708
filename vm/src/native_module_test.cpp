// native_module_test.cpp - placeholder; being written.
