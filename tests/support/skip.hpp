// A doctest case that cannot run here (a tool missing, a sanitizer build, not root) says
// why and counts as skipped, never as passed: CLPROF_SKIP("why", ...) prints
// "SKIPPED: why" and returns from the case (CLPROF_SKIP_PART: a part of it, the case goes
// on). When the run ends with no failure and at least one skip, the binary exits
// kSkipExitCode (77) instead of 0, and ctest shows the entry as "Skipped" (every test has
// SKIP_RETURN_CODE 77: tests/support/CMakeLists.txt).
// A case that may skip is best given its own ctest entry, so that the skip does not hide
// the cases beside it (tests/analyzer/CMakeLists.txt: clprof_cli_cases_that_may_skip).
//
// Include it in any number of files of a doctest binary: the listener registers once.
// Threads: CLPROF_SKIP runs on a test case's thread (doctest runs cases on one thread).
#pragma once

#include <doctest/doctest.h>

#include <cstdio>
#include <cstdlib>
#include <iostream>

namespace clprof::test {

inline constexpr int kSkipExitCode = 77;

// How many cases of this run skipped.
inline int& skipped_cases() {
  static int count = 0;
  return count;
}

// At exit after a run without failures in which cases skipped: the skip status. Runs
// first among the exit handlers (registered last); std::_Exit skips the rest.
inline void exit_as_skipped() {
  std::cout << "SKIPPED: " << skipped_cases()
            << " case(s) could not run here (their SKIPPED lines say why)" << std::endl;
  std::fflush(nullptr);
  std::_Exit(kSkipExitCode);
}

// Sees the end of the run; only its test_run_end does anything.
class SkipListener : public doctest::IReporter {
 public:
  explicit SkipListener(const doctest::ContextOptions&) {}
  void report_query(const doctest::QueryData&) override {}
  void test_run_start() override {}
  void test_run_end(const doctest::TestRunStats& stats) override {
    if (skipped_cases() > 0 && stats.numTestCasesFailed == 0 && stats.numAssertsFailed == 0)
      std::atexit(&exit_as_skipped);
  }
  void test_case_start(const doctest::TestCaseData&) override {}
  void test_case_reenter(const doctest::TestCaseData&) override {}
  void test_case_end(const doctest::CurrentTestCaseStats&) override {}
  void test_case_exception(const doctest::TestCaseException&) override {}
  void subcase_start(const doctest::SubcaseSignature&) override {}
  void subcase_end() override {}
  void log_assert(const doctest::AssertData&) override {}
  void log_message(const doctest::MessageData&) override {}
  void test_case_skipped(const doctest::TestCaseData&) override {}
};

// One registration per file that includes this; doctest keeps the first of a name.
REGISTER_LISTENER("clprof_skips", 0, SkipListener);

}  // namespace clprof::test

// Says why (MESSAGE's arguments) and counts the skip: a part of a case that cannot run here
// (one mode of several); the case goes on with the rest.
#define CLPROF_SKIP_PART(...)          \
  do {                                 \
    MESSAGE("SKIPPED: ", __VA_ARGS__); \
    ++::clprof::test::skipped_cases(); \
  } while (0)

// The same for the whole case: counts the skip and returns from the test case.
#define CLPROF_SKIP(...)           \
  do {                             \
    CLPROF_SKIP_PART(__VA_ARGS__); \
    return;                        \
  } while (0)
