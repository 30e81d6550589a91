// The unit tests' doctest main (the cases are in output/, recording/ and runtime/).
#define DOCTEST_CONFIG_IMPLEMENT_WITH_MAIN
#include <doctest/doctest.h>
