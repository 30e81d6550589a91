#include "output/tables/advise.hpp"

namespace clprof::output::tables {

const Schema& advise_schema() {
  static const Schema s =
      schema("advise", "one row per finding: what to fix first, with the figures that triggered it",
             {
                 column("rule", "Rule", Type::Text, "", "the rule's stable id (docs/advice.md)"),
                 column("severity", "Severity", Type::Text, "", "info or warning"),
                 column("title", "Title", Type::Text, "", "the finding in one line").unsortable(),
                 column("impact_ns", "Impact", Type::Duration, "ns",
                        "time a fix would save, where the rule can estimate it (docs/advice.md "
                        "says how; often an upper bound)")
                     .allow_null()
                     .alias("impact"),
                 column("evidence", "Evidence", Type::Text, "",
                        "the figures from the trace that triggered it")
                     .unsortable(),
                 column("advice", "Advice", Type::Text, "", "what to change").unsortable(),
                 column("subjects", "Subjects", Type::Text, "",
                        "the kernels, calls, queues, devices or sources it is about, "
                        "comma-separated")
                     .unsortable(),
             })
          .ordered_by("estimated impact, descending (unknown last), then warnings first")
          .laid_out(Layout::Record);
  return s;
}

std::string subjects_text(const analyses::advice::Finding& f) {
  std::string subjects;
  for (const auto& s : f.subjects) subjects += (subjects.empty() ? "" : ", ") + s;
  return subjects;
}

Result advise_result(const analyses::advice::Report& report) {
  Result out(advise_schema());
  for (const auto& f : report.findings) {
    const std::string subjects = subjects_text(f);
    out.rows.push_back({Value::text(f.rule),
                        Value::text(analyses::advice::severity_name(f.severity)),
                        Value::text(f.title), Value::integer(f.impact_ns), Value::text(f.evidence),
                        Value::text(f.advice), Value::text(subjects)});
  }
  size_t warnings = 0;
  for (const auto& f : report.findings)
    warnings += f.severity == analyses::advice::Severity::Warning;
  out.notes.push_back(std::to_string(report.findings.size()) +
                      (report.findings.size() == 1 ? " finding" : " findings") + " (" +
                      std::to_string(warnings) + " warning" + (warnings == 1 ? "" : "s") + ").");
  for (const auto& n : report.not_evaluated)
    out.notes.push_back("not evaluated: " + n.rule + ": " + n.why);
  return out;
}

}  // namespace clprof::output::tables
