// GEMM launches (clprof gemm): M, N, K, batch from the rule table, time, GFLOPS.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "analyses/ranges.hpp"
#include "analysis.hpp"
#include "gemm_rules.hpp"

namespace clprof::analyses {

// Streams launches, keeps only those a rule matches: ~80 bytes per GEMM launch, or 8
// bytes per launch (its duration) in grouped mode. Build-option dimensions are resolved
// afterwards against the Run's programs, so this works on the streaming path.
class GemmAnalysis : public Analysis {
 public:
  static constexpr int64_t kUnknown = -1;  // could not be decoded
  static constexpr int64_t kPending = -2;  // comes from the build options (resolved later)

  struct Record {
    uint32_t name_id = 0;
    int32_t rule = 0;
    uint32_t process = 0;
    uint32_t device = 0;
    uint64_t program_id = 0;
    uint64_t seq = 0;
    uint64_t range = 0;  // innermost range id
    int64_t dims[4] = {kUnknown, kUnknown, kUnknown, kUnknown};  // m, n, k, batch
    int64_t duration_ns = kUnknown;
  };
  struct GroupKey {
    uint32_t name_id;
    int32_t rule;
    int64_t dims[4];
    uint32_t device;
    uint32_t process;     // only set when a dimension is pending
    uint64_t program_id;  // idem
    bool operator<(const GroupKey& o) const;
  };

  GemmAnalysis(std::shared_ptr<const std::vector<gemm::Rule>> rules, LaunchPredicate keep,
               bool group);
  void add_launch(const model::Launch& launch) override;
  void merge(Analysis&& other) override;

  const std::vector<gemm::Rule>& rules() const { return *rules_; }
  const std::vector<std::string>& names() const { return names_; }
  const std::vector<Record>& records() const { return records_; }
  const std::map<GroupKey, std::vector<int64_t>>& groups() const { return groups_; }
  // Decoding problems ("XgemmDirectNN: arg 0 is not an integer scalar") -> launches.
  const std::map<std::string, uint64_t>& problems() const { return problems_; }

 private:
  uint32_t intern(const std::string& name);
  int match(const std::string& name);  // rule index or -1, cached per name

  std::shared_ptr<const std::vector<gemm::Rule>> rules_;
  LaunchPredicate keep_;
  bool group_;
  std::vector<std::string> names_;
  std::unordered_map<std::string, uint32_t> name_ids_;
  std::unordered_map<std::string, int> match_cache_;
  std::vector<Record> records_;
  std::map<GroupKey, std::vector<int64_t>> groups_;
  std::map<std::string, uint64_t> problems_;
};

struct GemmRow {
  uint32_t process = 0;
  uint64_t seq = 0;
  std::string name;
  std::string layer;
  std::string rule;
  bool padded = false;
  std::optional<int64_t> m, n, k, batch;
  std::optional<int64_t> time_ns;
  std::optional<double> gflops;
  std::optional<double> percent_of_peak;
};

struct GemmGroupRow {
  std::string name;
  std::string rule;
  bool padded = false;
  std::optional<int64_t> m, n, k, batch;
  uint64_t count = 0;
  int64_t total_ns = 0;
  int64_t median_ns = 0;
  int64_t min_ns = 0;
  std::optional<double> gflops_median;  // FLOPs / median time
  std::optional<double> gflops_best;    // FLOPs / min time
  std::optional<double> percent_of_peak;  // of gflops_best
};

struct GemmResult {
  std::vector<GemmRow> rows;          // per launch, by (process, seq); empty in grouped mode
  std::vector<GemmGroupRow> groups;   // grouped mode, by total time descending
  std::map<std::string, uint64_t> problems;  // including unresolved build options
  double gflop_total = 0;             // sum of FLOPs / 1e9 over decoded timed launches
  std::map<uint32_t, double> gflop_per_device;  // the same per Device::id
  uint64_t launches = 0;              // GEMM launches seen
};

// Resolves pending dimensions and layers against `run`; `peak_gflops` > 0 fills the
// percent-of-peak fields.
GemmResult finish_gemm(const GemmAnalysis& analysis, const model::Run& run, double peak_gflops);

}  // namespace clprof::analyses
