// `clprof advise`: findings about how a run uses OpenCL, ranked by the time a fix would
// save. Each rule is a pure function of the model (one file per family under
// analyses/advice/); docs/advice.md says what each looks at, its thresholds, where its
// advice comes from and its known false positives.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "model.hpp"
#include "sweep.hpp"

namespace clprof::analyses::advice {

enum class Severity : uint8_t { Info, Warning };
const char* severity_name(Severity s);  // "info" | "warning"
// "info" or "warning"; nullopt for anything else.
std::optional<Severity> parse_severity(const std::string& text);

struct Finding {
  std::string rule;  // stable kebab-case id (rule_catalog)
  Severity severity = Severity::Info;
  std::string title;     // one line
  std::string evidence;  // the figures from the trace that triggered it
  std::string advice;    // what to change
  // Time a fix would save, where it can be estimated (docs/advice.md per rule); nullopt
  // when it cannot (never 0 for "unknown").
  std::optional<int64_t> impact_ns;
  std::vector<std::string> subjects;  // kernels, layers, queues, calls it is about
};

// A rule that could not look at this run: the data it needs is not in the trace.
struct NotEvaluated {
  std::string rule;
  std::string why;
};

struct Threshold {
  std::string key;  // "RULE.KEY"
  double value = 0;
  std::string meaning;
};

struct RuleInfo {
  std::string id;
  std::string summary;
  std::vector<Threshold> thresholds;  // their defaults
  bool evaluated = true;              // false: the trace lacks what it needs (always NotEvaluated)
  std::string missing;                // with evaluated false: what the trace would have to record
};

// Every rule, implemented or not, in docs/advice.md's order.
const std::vector<RuleInfo>& rule_catalog();

// The thresholds in force: the catalog's defaults, overridden by set().
class Thresholds {
 public:
  Thresholds();
  // "RULE.KEY=VALUE": throws std::invalid_argument naming what is wrong (an unknown rule
  // or key, a value that is not a finite number >= 0).
  void set(const std::string& spec);
  // The value of "RULE.KEY" (throws std::out_of_range for a key the catalog lacks: a bug).
  double get(const std::string& rule, const std::string& key) const;
  // The device's peak GFLOPS (advise --peak / --peak-from), for gemm-below-peak; nullopt:
  // not given (the rule is then not evaluated).
  void set_peak_gflops(double gflops) { peak_gflops_ = gflops; }
  std::optional<double> peak_gflops() const { return peak_gflops_; }

 private:
  std::map<std::string, double> values_;
  std::optional<double> peak_gflops_;
};

struct Report {
  std::vector<Finding> findings;  // ranked: impact descending (unknown last), warnings first
  std::vector<NotEvaluated> not_evaluated;
};

// Runs every rule over `run` (its launches and transfers fed through a Commands,
// commands.hpp, as clprof advise streams them); `sweeps` are the run's stored local-size
// sweeps (readers/sweeps.hpp), for local-size-sweep (not evaluated without any).
Report advise(const model::Run& run, const Thresholds& thresholds = Thresholds(),
              const std::vector<model::LocalSweep>& sweeps = {});

// The findings of `other` that `base` lacks: no finding of `base` has the same rule and the
// same subjects (severity, figures and title may differ: the same problem got worse or
// better). In `other`'s order; the pointers point into `other`. `clprof compare`'s
// new_findings and the report's "new in OTHER" mark.
std::vector<const Finding*> new_findings(const Report& base, const Report& other);

class Commands;  // commands.hpp: what advise keeps of the launches and transfers

// The rules' families (rules_*.cpp), each adding its findings and not-evaluated notes; they
// read the run's metadata and the launches and transfers as `c` keeps them.
namespace rules {
void sync(const model::Run& run, const Commands& c, const Thresholds& t,
          Report& out);  // sync-after-each-launch, blocking-transfer
void launches(const model::Run& run, const Commands& c, const Thresholds& t,
              Report& out);  // launch-bound, default-local-size
void builds(const model::Run& run, const Commands& c, const Thresholds& t,
            Report& out);  // repeated-build, build-dominates
void device(const model::Run& run, const Commands& c, const Thresholds& t,
            Report& out);  // device-idle, queue-serialisation
void errors(const model::Run& run, const Commands& c, const Thresholds& t,
            Report& out);  // api-errors
void transfers(const model::Run& run, const Commands& c, const Thresholds& t,
               Report& out);  // transfer-bound
void gemm(const model::Run& run, const Commands& c, const Thresholds& t,
          Report& out);  // gemm-padding
void gemm_peak(const model::Run& run, const Commands& c, const Thresholds& t,
               Report& out);  // gemm-below-peak
void objects(const model::Run& run, const Commands& c, const Thresholds& t,
             Report& out);  // local-size-not-multiple, object-leak
void ranks(const model::Run& run, const Commands& c, const Thresholds& t,
           Report& out);  // rank-imbalance
void local_size_sweep(const model::Run& run, const Commands& c,
                      const std::vector<model::LocalSweep>& sweeps, const Thresholds& t,
                      Report& out);  // local-size-sweep
}  // namespace rules

}  // namespace clprof::analyses::advice
