// GEMM calls (clprof gemm): each matrix multiplication the app asked for, at its logical
// M, N, K and batch, timed as the sum of every kernel it ran (pad, transpose, GEMM, copy
// back), with the main kernel's time and padded ("executed") sizes beside it.
//
// Where the calls come from, in order of trust:
//  1. the trace's BLAS calls (model::BlasCall, CLPROF_HOOK_BLAS): sizes as the app passed
//     them; a call's kernels are the launches with Launch::call == its id;
//  2. CLBlast's indirect kernels outside any recorded call, grouped into calls by
//     gemm_groups.hpp (sizes from the helper kernels' arguments);
//  3. any other launch a GEMM rule (gemm_rules.hpp) decodes: one call per launch.
// The main kernel of a call is the one a GEMM rule decodes; its sizes are the executed
// (padded) ones.
//
// Threads: one GemmAnalysis per reading thread, merged in file order (merge(later));
// finish_gemm on one thread. Not thread-safe.
// Memory (bytes per launch while streaming; ownership: the analysis owns everything, and
// finish_gemm(&&) takes it over and frees it as it goes):
//  * ungrouped mode: per standalone GEMM launch a 56-byte Record, already the result's row
//    (finish_gemm moves the deque into GemmResult::records: no second copy);
//  * grouped mode (`clprof gemm --group`, `clprof summary`, the report): per standalone GEMM
//    launch its duration in shape_durations_ (8 bytes a timed launch; none with
//    group_rows = false, which `clprof summary` uses: its figures need no medians) and a
//    count per shape; an untimed launch adds its position (8 bytes, usually none);
//  * per launch of a group-table kernel a Member (~130 bytes: CLBlast's indirect kernels
//    only; kept until finish: records are not in seq order in a trace, so a call's kernels
//    are grouped once all are in);
//  * per recorded call one CallPart (the run's metadata already holds its BlasCall);
//  * what launches share is interned as a Shape.
// finish_gemm in grouped mode orders the calls without materializing one result Record per
// standalone launch: 8 bytes per call for that sort, freed before the group rows are built
// (gemm_finish.cpp, order_calls).
#pragma once

#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "analyses/gemm/gemm_groups.hpp"
#include "analyses/gemm/gemm_rules.hpp"
#include "analyses/ranges.hpp"
#include "analysis.hpp"

namespace clprof::analyses {

struct GemmResult;

// One GEMM call as finish_gemm's result holds it (GemmResult::Record, compact: row(i) makes
// the strings); ungrouped mode keeps each standalone GEMM launch in this form from the
// start (shape: an analysis shape id until finish_gemm maps it), so that finishing moves the
// records over instead of building a second copy of them.
struct GemmCallRecord {
  uint64_t seq = 0;    // its first kernel's (0: none)
  uint64_t range = 0;  // innermost range id
  int64_t host_begin_ns = model::kNoTime;
  int64_t time_ns = -1;  // GemmAnalysis::kUnknown: untimed
  int64_t main_ns = -1;  // the main kernel's time (kUnknown: untimed or none)
  uint32_t shape = 0;
  uint32_t kernels = 0;
  uint64_t call = 0;  // the recorded library call (model::BlasCall::id, Launch::call); 0: none
};
static_assert(sizeof(GemmCallRecord) <= 56, "a GEMM call should cost 56 bytes at most");

class GemmAnalysis : public Analysis {
 public:
  static constexpr int64_t kUnknown = -1;  // could not be decoded
  static constexpr int64_t kPending = -2;  // comes from the build options (resolved later)
  static constexpr uint32_t kNoShape = UINT32_MAX;

  // What a rule decodes from one GEMM kernel launch (shared by its launches).
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
  // A GEMM launch that is a call by itself (ungrouped mode): kernels 1, time_ns = main_ns =
  // its duration, shape an index in shapes().
  using Record = GemmCallRecord;
  // The launches of one recorded BLAS call, summed.
  struct CallPart {
    uint32_t process = 0;
    uint32_t kernels = 0;
    uint64_t first_seq = UINT64_MAX;
    int64_t total_ns = 0;
    bool untimed = false;  // a kernel without a time: the total is unknown
    bool kept = false;     // a launch passed the selection
    // The main kernel (decoded by a rule; the earliest if several).
    uint64_t main_seq = UINT64_MAX;
    uint32_t main_shape = kNoShape;
    int64_t main_ns = 0;
    bool main_untimed = false;
    uint32_t device = 0;
  };
  // A launch of a group-table kernel outside any recorded call (gemm_groups.hpp).
  struct Member {
    gemm::GroupLaunch group;
    uint32_t process = 0;
    uint32_t shape = kNoShape;  // main kernels: their rule's shape
    uint64_t range = 0;
    int64_t host_begin_ns = model::kNoTime;
    int64_t duration_ns = kUnknown;
    bool kept = false;
  };

  // Grouped mode, the standalone launches of one analysis shape: how many (file order), and
  // the positions among them (0-based, ascending) of those without a device time.
  struct Standalone {
    uint64_t launches = 0;
    std::vector<uint64_t> untimed_at;
  };

  // `group`: grouped mode (GemmResult::groups and the GFLOP figures, no per-call rows).
  // `group_rows` (grouped mode only): keep the per-shape durations the group rows' medians
  // need; false when only the GFLOP figures are read (`clprof summary`): then no
  // GemmResult::groups, and nothing per timed standalone launch.
  GemmAnalysis(std::shared_ptr<const std::vector<gemm::Rule>> rules, LaunchPredicate keep,
               bool group, bool group_rows = true);
  void add_launch(const model::Launch& launch) override;
  void merge(Analysis&& other) override;

  bool grouped() const { return group_; }
  const std::vector<gemm::Rule>& rules() const { return *rules_; }
  const std::vector<std::string>& names() const { return names_; }
  const std::vector<Shape>& shapes() const { return shapes_; }
  // Ungrouped mode: one record per standalone GEMM launch, in no particular order. A deque:
  // no geometric over-allocation, and merge() moves records over block by block.
  const std::deque<Record>& records() const { return records_; }
  // Grouped mode with group_rows: the device durations (ns) of the timed standalone launches
  // per shape id, in no particular order (an exact multiset: the group rows' medians).
  const std::vector<std::vector<int64_t>>& shape_durations() const { return shape_durations_; }
  // Grouped mode: per shape id, its standalone launches (counts and untimed positions).
  const std::vector<Standalone>& standalone() const { return standalone_; }
  const std::unordered_map<uint64_t, CallPart>& call_parts() const { return calls_; }
  const std::deque<Member>& members() const { return members_; }
  // Decoding problems ("XgemmDirectNN: arg 0 is not an integer scalar") -> launches.
  const std::map<std::string, uint64_t>& problems() const { return problems_; }

 private:
  friend GemmResult finish_gemm(GemmAnalysis&& analysis, const model::Run& run, double peak_gflops,
                                bool gflop_terms);
  // What a kernel name matches, found once per distinct name (one lookup per launch).
  struct NameMatch {
    int rule = -1;                // rule index or -1
    int kind = -1;                // group-table index or -1
    uint32_t name_id = kNoShape;  // in names(); interned at the first launch a rule decodes
  };
  uint32_t intern(const std::string& name);
  uint32_t intern(const Shape& shape);
  NameMatch& match(const std::string& name);
  // The shape of a launch its rule decodes (kNoShape: no rule). Counts its problems.
  uint32_t shape_of(const model::Launch& launch, NameMatch& names);

  std::shared_ptr<const std::vector<gemm::Rule>> rules_;
  LaunchPredicate keep_;
  bool group_;
  std::vector<std::string> names_;
  std::unordered_map<std::string, uint32_t> name_ids_;
  std::unordered_map<std::string, NameMatch> match_cache_;
  std::vector<Shape> shapes_;
  std::unordered_map<Shape, uint32_t, ShapeHash> shape_ids_;
  bool group_rows_;
  std::deque<Record> records_;
  // The exact per-shape duration lists (grouped mode with group_rows_): the one member to
  // change for a compressed exact multiset (analyses::DurationSample).
  std::vector<std::vector<int64_t>> shape_durations_;
  std::vector<Standalone> standalone_;            // grouped mode, per shape id
  std::unordered_map<uint64_t, CallPart> calls_;  // by Launch::call
  std::deque<Member> members_;
  std::map<std::string, uint64_t> problems_;
};

// Where a call's sizes come from.
enum class GemmSource : uint8_t {
  Call,    // the library call's arguments (logical)
  Group,   // CLBlast's kernels grouped (logical, or padded when they disagree)
  Kernel,  // one kernel, its rule
};

// One GEMM call, with its strings (GemmResult::row).
struct GemmRow {
  uint32_t process = 0;
  std::optional<uint64_t> seq;  // its first kernel's
  std::string name;             // the entry point, or the main kernel
  std::string kernel;           // the main kernel ("" if none was decoded)
  std::string layer;
  std::string rule;  // the main kernel's rule ("" if none)
  GemmSource source = GemmSource::Kernel;
  std::string precision, layout, trans;  // from the call ("" otherwise)
  bool padded = false;                   // m, n, k are padded sizes (no logical ones known)
  std::optional<int64_t> m, n, k, batch;
  std::optional<int64_t> exec_m, exec_n, exec_k;
  uint32_t kernels = 0;
  std::optional<int64_t> time_ns, main_ns;
  std::optional<double> gflops, executed_gflop;
  std::optional<double> percent_of_peak;
  std::optional<int32_t> status;
};

struct GemmGroupRow {
  std::string name;
  std::string rule;
  std::string precision, layout, trans;
  bool padded = false;
  std::optional<int64_t> m, n, k, batch;
  std::optional<double> executed_gflop;  // per call
  uint64_t count = 0;
  uint64_t timed = 0;  // calls with a time (median and min are over these)
  int64_t total_ns = 0;
  int64_t median_ns = 0;
  int64_t min_ns = 0;
  std::optional<int64_t> main_median_ns;
  std::optional<double> gflops_median;    // FLOPs / median time
  std::optional<double> gflops_best;      // FLOPs / min time
  std::optional<double> percent_of_peak;  // of gflops_best
};

struct GemmResult {
  static constexpr uint32_t kNoName = UINT32_MAX;
  // What calls share: names, sizes, the library call's facts.
  struct Shape {
    uint32_t process = 0;
    uint32_t device = 0;
    uint32_t name_id = 0;              // the row's name, index in names
    uint32_t kernel_id = kNoName;      // the main kernel's name
    const gemm::Rule* rule = nullptr;  // the main kernel's rule
    GemmSource source = GemmSource::Kernel;
    bool padded = false;
    std::string precision, layout, trans;
    std::optional<int64_t> m, n, k, batch;
    std::optional<int64_t> exec_m, exec_n, exec_k;
    std::optional<double> flops;       // 2*M*N*K*batch when all four are known
    std::optional<double> exec_flops;  // 2*Mp*Np*Kp*batch of the main kernel
    std::optional<int32_t> status;
  };
  // One call (compact; row(i) makes the strings); shape: an index in shapes.
  using Record = GemmCallRecord;
  // Layer paths are made from the range ids when asked for, over `ranges`, which refers
  // to the Run given to finish_gemm: it must outlive this result.
  std::deque<Record> records;  // by (process, host begin, seq)
  std::vector<Shape> shapes;
  std::vector<std::string> names;
  std::shared_ptr<const RangeIndex> ranges;
  // The rules Shape::rule points into: kept alive with the result.
  std::shared_ptr<const std::vector<gemm::Rule>> rules;
  double peak_gflops = 0;

  std::vector<GemmGroupRow> groups;             // grouped mode, by total time descending
  std::map<std::string, uint64_t> problems;     // including unresolved build options
  double gflop_total = 0;                       // sum of FLOPs / 1e9 over timed calls
  std::map<uint32_t, double> gflop_per_device;  // the same per Device::id
  // Its terms, in the order summed (clprof summary --partial carries them: docs/scale.md).
  std::map<uint32_t, std::vector<double>> gflop_terms_per_device;
  // Per Device::id: the calls whose FLOPs are unknown (a size not decoded), which
  // gflop_per_device cannot count.
  std::map<uint32_t, uint64_t> unsized_calls_per_device;
  uint64_t calls = 0;            // GEMM calls found
  uint64_t kernel_launches = 0;  // the launches they ran
  uint64_t from_library = 0;     // calls recorded from a library entry point

  size_t row_count() const { return records.size(); }
  const Shape& shape(const Record& r) const { return shapes[r.shape]; }
  std::optional<int64_t> time_ns(const Record& r) const;
  std::optional<double> gflops(const Record& r) const;
  std::string layer(const Record& r) const {
    return ranges ? ranges->path(r.range) : std::string(kNoLayer);
  }
  GemmRow row(size_t i) const;
};

// Builds the calls: resolves pending dimensions against `run` (which must outlive the
// result) and groups kernels into calls; `peak_gflops` > 0 fills the percent-of-peak
// fields. The rvalue overload takes the records over instead of copying them.
// `gflop_terms`: fill gflop_terms_per_device (8 bytes per timed call of known size: what
// `clprof summary --partial` writes); without it gflop_per_device holds the same sums,
// bit for bit (each device's terms summed from 0.0 in the calls' order).
GemmResult finish_gemm(GemmAnalysis&& analysis, const model::Run& run, double peak_gflops,
                       bool gflop_terms = true);
GemmResult finish_gemm(const GemmAnalysis& analysis, const model::Run& run, double peak_gflops,
                       bool gflop_terms = true);

// "call", "group" or "kernel".
const char* source_name(GemmSource s);

}  // namespace clprof::analyses
