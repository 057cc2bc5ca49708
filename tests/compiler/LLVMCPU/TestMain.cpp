// TestMain.cpp - the doctest main of the llvm-cpu tests (suites
// compiler.llvmcpu.*).
#define DOCTEST_CONFIG_IMPLEMENT_WITH_MAIN
#include <doctest/doctest.h>
