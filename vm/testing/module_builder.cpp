// module_builder.cpp - placeholder; being written.
