// Test helper: checks that two advise reports hold the same findings (rule, severity, title,
// evidence, impact, subjects, in order) and the same not-evaluated notes. Header-only, for
// the advise tests that read one run two ways (merged Commands, spilled logs).
#pragma once

#include <doctest/doctest.h>

#include <tuple>

#include "analyses/advice/advice.hpp"

namespace clprof::test {

inline void check_same_report(const analyses::advice::Report& x,
                              const analyses::advice::Report& y) {
  REQUIRE(x.findings.size() == y.findings.size());
  for (size_t i = 0; i < x.findings.size(); ++i) {
    const auto &a = x.findings[i], &b = y.findings[i];
    CAPTURE(b.rule);
    CAPTURE(a.evidence);
    CAPTURE(b.evidence);
    CHECK((std::tie(a.rule, a.severity, a.title, a.evidence, a.impact_ns, a.subjects) ==
           std::tie(b.rule, b.severity, b.title, b.evidence, b.impact_ns, b.subjects)));
  }
  REQUIRE(x.not_evaluated.size() == y.not_evaluated.size());
  for (size_t i = 0; i < x.not_evaluated.size(); ++i)
    CHECK((std::tie(x.not_evaluated[i].rule, x.not_evaluated[i].why) ==
           std::tie(y.not_evaluated[i].rule, y.not_evaluated[i].why)));
}

}  // namespace clprof::test
