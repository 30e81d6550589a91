// The end-to-end tests' doctest main (the cases are in the *_test.cpp beside it).
#define DOCTEST_CONFIG_IMPLEMENT_WITH_MAIN
#include <doctest/doctest.h>
