// The unit tests' doctest main (the cases are in base/, recording/, output/ and runtime/).
#define DOCTEST_CONFIG_IMPLEMENT_WITH_MAIN
#include <doctest/doctest.h>
