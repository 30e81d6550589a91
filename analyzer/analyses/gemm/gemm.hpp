// GEMM launches (clprof gemm): M, N, K, batch from the rule table, time, GFLOPS.
#pragma once

#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "analyses/ranges.hpp"
#include "analysis.hpp"
#include "analyses/gemm/gemm_rules.hpp"

namespace clprof::analyses {

struct GemmResult;

// Streams launches, keeps only those a rule matches. Everything a launch shares with
// others (kernel name, rule, process, device, decoded sizes, program) is interned once as
// a "shape"; per GEMM launch only a 32-byte Record (seq, range, time, shape id) is kept,
// or in grouped mode its duration (8 bytes). Build-option dimensions are resolved
// afterwards against the Run's programs, so this works on the streaming path.
class GemmAnalysis : public Analysis {
 public:
  static constexpr int64_t kUnknown = -1;  // could not be decoded
  static constexpr int64_t kPending = -2;  // comes from the build options (resolved later)

  struct Shape {
    uint32_t name_id = 0;
    int32_t rule = 0;  // index in rules(); a function of the name
    uint32_t process = 0;
    uint32_t device = 0;
    uint64_t program_id = 0;  // only set when a dimension is pending
    int64_t dims[4] = {kUnknown, kUnknown, kUnknown, kUnknown};  // m, n, k, batch
    bool operator==(const Shape& o) const;
  };
  struct ShapeHash {
    size_t operator()(const Shape& s) const;
  };
  // One GEMM launch (ungrouped mode).
  struct Record {
    uint64_t seq = 0;
    uint64_t range = 0;  // innermost range id
    int64_t duration_ns = kUnknown;
    uint32_t shape = 0;  // index in shapes()
  };
  static_assert(sizeof(Record) <= 32, "a GEMM launch should cost 32 bytes at most");

  GemmAnalysis(std::shared_ptr<const std::vector<gemm::Rule>> rules, LaunchPredicate keep,
               bool group);
  void add_launch(const model::Launch& launch) override;
  void merge(Analysis&& other) override;

  bool grouped() const { return group_; }
  const std::vector<gemm::Rule>& rules() const { return *rules_; }
  const std::vector<std::string>& names() const { return names_; }
  const std::vector<Shape>& shapes() const { return shapes_; }
  // Ungrouped mode: one record per GEMM launch, in no particular order. A deque: no
  // geometric over-allocation, and merge() moves records over block by block.
  const std::deque<Record>& records() const { return records_; }
  // Grouped mode: the durations (kUnknown = untimed) per shape id.
  const std::vector<std::vector<int64_t>>& durations() const { return durations_; }
  // Decoding problems ("XgemmDirectNN: arg 0 is not an integer scalar") -> launches.
  const std::map<std::string, uint64_t>& problems() const { return problems_; }

 private:
  friend GemmResult finish_gemm(GemmAnalysis&& analysis, const model::Run& run, double peak_gflops);
  uint32_t intern(const std::string& name);
  uint32_t intern(const Shape& shape);
  int match(const std::string& name);  // rule index or -1, cached per name

  std::shared_ptr<const std::vector<gemm::Rule>> rules_;
  LaunchPredicate keep_;
  bool group_;
  std::vector<std::string> names_;
  std::unordered_map<std::string, uint32_t> name_ids_;
  std::unordered_map<std::string, int> match_cache_;
  std::vector<Shape> shapes_;
  std::unordered_map<Shape, uint32_t, ShapeHash> shape_ids_;
  std::deque<Record> records_;
  std::vector<std::vector<int64_t>> durations_;
  std::map<std::string, uint64_t> problems_;
};

// One GEMM launch, with its strings (GemmResult::row).
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
  uint64_t timed = 0;  // launches with a kernel time (median and min are over these)
  int64_t total_ns = 0;
  int64_t median_ns = 0;
  int64_t min_ns = 0;
  std::optional<double> gflops_median;  // FLOPs / median time
  std::optional<double> gflops_best;    // FLOPs / min time
  std::optional<double> percent_of_peak;  // of gflops_best
};

struct GemmResult {
  // A shape with its build-option dimensions resolved.
  struct Shape {
    uint32_t process = 0;
    uint32_t device = 0;
    uint32_t name_id = 0;  // index in names
    const gemm::Rule* rule = nullptr;
    std::optional<int64_t> m, n, k, batch;
    std::optional<double> flops;  // 2*M*N*K*batch when all four are known
  };
  // Per-launch mode: the launches stay compact (32 bytes each); row(i) makes the strings.
  // Layer paths are made from the range ids when asked for (a run can have a distinct
  // path per launch, e.g. one top-level range per iteration), over `ranges`, which refers
  // to the Run given to finish_gemm: it must outlive this result.
  std::deque<GemmAnalysis::Record> records;  // by (process, seq) unless re-sorted
  std::vector<Shape> shapes;        // indexed by Record::shape
  std::vector<std::string> names;   // kernel names, indexed by Shape::name_id
  std::shared_ptr<const RangeIndex> ranges;
  double peak_gflops = 0;

  std::vector<GemmGroupRow> groups;   // grouped mode, by total time descending
  std::map<std::string, uint64_t> problems;  // including unresolved build options
  double gflop_total = 0;             // sum of FLOPs / 1e9 over decoded timed launches
  std::map<uint32_t, double> gflop_per_device;  // the same per Device::id
  uint64_t launches = 0;              // GEMM launches seen

  size_t row_count() const { return records.size(); }
  const Shape& shape(const GemmAnalysis::Record& r) const { return shapes[r.shape]; }
  std::optional<int64_t> time_ns(const GemmAnalysis::Record& r) const;
  std::optional<double> gflops(const GemmAnalysis::Record& r) const;
  std::string layer(const GemmAnalysis::Record& r) const { return ranges->path(r.range); }
  GemmRow row(size_t i) const;
};

// Resolves pending dimensions against `run` (which must outlive the result); `peak_gflops` > 0 fills the
// percent-of-peak fields. The rvalue overload takes the launch records over instead of
// copying them (the large part of a big trace).
GemmResult finish_gemm(GemmAnalysis&& analysis, const model::Run& run, double peak_gflops);
GemmResult finish_gemm(const GemmAnalysis& analysis, const model::Run& run, double peak_gflops);

}  // namespace clprof::analyses
