// finish_gemm: the calls of a run, from what GemmAnalysis collected (gemm.hpp).
#include <algorithm>
#include <array>
#include <tuple>

#include "analyses/gemm/gemm.hpp"
#include "analyses/stats.hpp"
#include "intern.hpp"

namespace clprof::analyses {

namespace {

using Record = GemmResult::Record;
using RShape = GemmResult::Shape;

// Build options per (process, program id): Program::options, else the last successful build.
class ProgramOptions {
 public:
  explicit ProgramOptions(const model::Run& run) {
    for (const auto& b : run.builds)
      if (b.rc == 0) options_[{b.process, b.program_id}] = b.options;
    for (const auto& p : run.programs)
      if (!p.options.empty()) options_[{p.process, p.id}] = p.options;
  }
  const std::string* find(uint32_t process, uint64_t program) const {
    auto it = options_.find({process, program});
    return it == options_.end() ? nullptr : &it->second;
  }

 private:
  std::map<std::pair<uint32_t, uint64_t>, std::string> options_;
};

// Fills pending dims from the build options; records the problems of those that fail.
void resolve(int64_t (&dims)[4], const gemm::Rule& rule, const std::string& name, uint32_t process,
             uint64_t program, const ProgramOptions& options,
             std::map<std::string, uint64_t>& problems, uint64_t weight) {
  const gemm::DimSource* sources[4] = {&rule.m, &rule.n, &rule.k, &rule.batch};
  model::Launch probe;  // only program_id is read for Option sources
  probe.program_id = program;
  std::string problem;
  for (int d = 0; d < 4; ++d) {
    if (dims[d] != GemmAnalysis::kPending) continue;
    auto v = gemm::evaluate(*sources[d], probe, options.find(process, program));
    if (v.value) {
      dims[d] = *v.value;
    } else {
      dims[d] = GemmAnalysis::kUnknown;
      if (problem.empty()) problem = v.problem;
    }
  }
  // Launches already counted with a problem at add time are not counted twice.
  bool already = false;
  for (int d = 0; d < 4; ++d)
    already |=
        dims[d] == GemmAnalysis::kUnknown && sources[d]->kind != gemm::DimSource::Kind::Option;
  if (!problem.empty() && !already && weight > 0) problems[name + ": " + problem] += weight;
}

std::optional<int64_t> known(int64_t v) {
  if (v < 0) return std::nullopt;
  return v;
}

std::optional<double> flops_of(const std::optional<int64_t>& m, const std::optional<int64_t>& n,
                               const std::optional<int64_t>& k, const std::optional<int64_t>& b) {
  if (!m || !n || !k || !b) return std::nullopt;
  return gemm::gemm_flops(*m, *n, *k, *b);
}

// "NT" from a call's transposes ("n", "t", "c").
std::string trans_text(const model::BlasCall& c) {
  auto up = [](const std::string& t) {
    return t.empty() ? std::string("?") : std::string(1, static_cast<char>(t[0] - 'a' + 'A'));
  };
  return up(c.trans_a) + up(c.trans_b);
}

// Interns result shapes (few: one per distinct call shape).
class Shapes {
 public:
  explicit Shapes(GemmResult& out) : out_(out) {}
  uint32_t intern(const RShape& s) {
    auto key = std::make_tuple(s.process, s.device, s.name_id, s.kernel_id, s.rule, s.source,
                               s.padded, s.precision, s.layout, s.trans, s.m, s.n, s.k, s.batch,
                               s.exec_m, s.exec_n, s.exec_k, s.status);
    auto [it, fresh] = ids_.try_emplace(std::move(key), static_cast<uint32_t>(out_.shapes.size()));
    if (fresh) {
      out_.shapes.push_back(s);
      RShape& r = out_.shapes.back();
      r.flops = flops_of(r.m, r.n, r.k, r.batch);
    }
    return it->second;
  }

 private:
  using Key = std::tuple<uint32_t, uint32_t, uint32_t, uint32_t, const gemm::Rule*, GemmSource,
                         bool, std::string, std::string, std::string, std::optional<int64_t>,
                         std::optional<int64_t>, std::optional<int64_t>, std::optional<int64_t>,
                         std::optional<int64_t>, std::optional<int64_t>, std::optional<int64_t>,
                         std::optional<int32_t>>;
  GemmResult& out_;
  std::map<Key, uint32_t> ids_;
};

// Everything finish needs about the analysis' shapes once resolved.
struct Resolved {
  std::vector<std::array<int64_t, 4>> dims;  // per analysis shape
};

// The result shape of one kernel decoded by its rule (a call by itself, or a call's main
// kernel with the call's facts filled in afterwards).
RShape kernel_shape(const GemmAnalysis& a, const Resolved& r, uint32_t shape) {
  const auto& s = a.shapes()[shape];
  const auto& d = r.dims[shape];
  RShape out;
  out.process = s.process;
  out.device = s.device;
  out.name_id = s.name_id;
  out.kernel_id = s.name_id;
  out.rule = &a.rules()[static_cast<size_t>(s.rule)];
  out.source = GemmSource::Kernel;
  out.padded = out.rule->padded;
  out.m = known(d[0]);
  out.n = known(d[1]);
  out.k = known(d[2]);
  out.batch = known(d[3]);
  out.exec_m = out.m;
  out.exec_n = out.n;
  out.exec_k = out.k;
  out.exec_flops = flops_of(out.m, out.n, out.k, out.batch);
  return out;
}

}  // namespace

const char* source_name(GemmSource s) {
  switch (s) {
    case GemmSource::Call:
      return "call";
    case GemmSource::Group:
      return "group";
    case GemmSource::Kernel:
      return "kernel";
  }
  return "kernel";
}

std::optional<int64_t> GemmResult::time_ns(const Record& r) const {
  return known(r.time_ns);
}

std::optional<double> GemmResult::gflops(const Record& r) const {
  const auto& s = shapes[r.shape];
  // FLOPs per nanosecond is exactly GFLOP/s.
  if (!s.flops || r.time_ns <= 0) return std::nullopt;
  return *s.flops / static_cast<double>(r.time_ns);
}

GemmRow GemmResult::row(size_t i) const {
  const auto& rec = records[i];
  const auto& s = shapes[rec.shape];
  GemmRow row;
  row.process = s.process;
  if (rec.seq) row.seq = rec.seq;
  row.name = names[s.name_id];
  if (s.kernel_id != kNoName) row.kernel = names[s.kernel_id];
  row.layer = layer(rec);
  if (s.rule) row.rule = s.rule->id;
  row.source = s.source;
  row.precision = s.precision;
  row.layout = s.layout;
  row.trans = s.trans;
  row.padded = s.padded;
  row.m = s.m;
  row.n = s.n;
  row.k = s.k;
  row.batch = s.batch;
  row.exec_m = s.exec_m;
  row.exec_n = s.exec_n;
  row.exec_k = s.exec_k;
  row.kernels = rec.kernels;
  row.time_ns = time_ns(rec);
  row.main_ns = known(rec.main_ns);
  row.gflops = gflops(rec);
  if (s.exec_flops) row.executed_gflop = *s.exec_flops / 1e9;
  if (row.gflops && peak_gflops > 0) row.percent_of_peak = 100.0 * *row.gflops / peak_gflops;
  row.status = s.status;
  return row;
}

GemmResult finish_gemm(const GemmAnalysis& a, const model::Run& run, double peak_gflops,
                       bool gflop_terms) {
  GemmAnalysis copy(a);
  return finish_gemm(std::move(copy), run, peak_gflops, gflop_terms);
}

namespace {

// The calls, as finish_gemm builds them (one instance per finish).
class CallBuilder {
 public:
  // `calls` and `members`: the analysis' (finish_gemm, a friend, hands them over).
  CallBuilder(GemmAnalysis& a, std::unordered_map<uint64_t, GemmAnalysis::CallPart>& calls,
              std::deque<GemmAnalysis::Member>& members, const model::Run& run, GemmResult& out,
              const Resolved& r, const LaunchPredicate& keep)
      : a_(a),
        calls_(calls),
        members_(members),
        run_(run),
        out_(out),
        r_(r),
        keep_(keep),
        shapes_(out) {}

  uint32_t name_id(const std::string& name) {
    return clprof::intern(name, extra_names_, out_.names);
  }

  // The result shape of analysis shape `shape` as a call by itself (interned at first use).
  uint32_t kernel_shape_id(uint32_t shape) {
    if (kernel_ids_.empty()) kernel_ids_.assign(a_.shapes().size(), kNone);
    uint32_t& id = kernel_ids_[shape];
    if (id == kNone) id = shapes_.intern(kernel_shape(a_, r_, shape));
    return id;
  }

  // A launch that is a call by itself (`rec.shape`: its analysis shape) as a result record.
  void standalone(GemmAnalysis::Record rec) {
    // Once per analysis shape, not per launch: the result shape is a function of it.
    rec.shape = kernel_shape_id(rec.shape);
    out_.records.push_back(rec);
  }

  // Ungrouped mode's standalone launches, `records` (the analysis'), made the result's
  // first records in place: the same records, their shapes mapped in order.
  void standalone_records(std::deque<GemmAnalysis::Record>& records) {
    for (auto& rec : records) rec.shape = kernel_shape_id(rec.shape);
    if (out_.records.empty()) {
      out_.records.swap(records);
    } else {
      for (const auto& rec : records) out_.records.push_back(rec);
    }
    records = {};
  }

  // The recorded library calls, with their kernels.
  void library_calls() {
    std::unique_ptr<RangeIndex> index;
    for (const model::BlasCall& c : run_.blas_calls) {
      auto part_it = calls_.find(c.id);
      const GemmAnalysis::CallPart* part = part_it == calls_.end() ? nullptr : &part_it->second;
      if (keep_ && !(part && part->kept)) {
        if (!index) index = std::make_unique<RangeIndex>(run_);
        if (!keep_(probe(c, *index))) continue;
      }
      RShape s;
      if (part && part->main_shape != GemmAnalysis::kNoShape) {
        s = kernel_shape(a_, r_, part->main_shape);
        // The main kernel's sizes are the executed ones; the batch is the call's.
        s.exec_flops = flops_of(s.exec_m, s.exec_n, s.exec_k, s.batch);
      }
      s.process = c.process;
      if (part) s.device = part->device;
      s.name_id = name_id(c.api);
      s.source = GemmSource::Call;
      s.padded = false;
      s.precision = c.precision;
      s.layout = c.layout;
      s.trans = trans_text(c);
      s.m = static_cast<int64_t>(c.m);
      s.n = static_cast<int64_t>(c.n);
      s.k = static_cast<int64_t>(c.k);
      s.batch = static_cast<int64_t>(c.batch);
      s.status = c.status;
      Record rec;
      rec.call = c.id;
      rec.range = c.parent;
      rec.host_begin_ns = c.host_begin_ns;
      if (part) {
        rec.seq = part->first_seq;
        rec.kernels = part->kernels;
        if (!part->untimed && part->kernels > 0) rec.time_ns = part->total_ns;
        if (part->main_shape != GemmAnalysis::kNoShape && !part->main_untimed)
          rec.main_ns = part->main_ns;
        calls_.erase(part_it);
      }
      rec.shape = shapes_.intern(s);
      out_.records.push_back(rec);
      ++out_.from_library;
    }
    // Kernels of a call whose range_begin is not in the trace (cut short): the main
    // kernel's view.
    for (const auto& [id, part] : calls_) {
      if (part.main_shape == GemmAnalysis::kNoShape || !part.kept) continue;
      Record rec;
      rec.call = id;
      rec.seq = part.first_seq;
      rec.kernels = part.kernels;
      if (!part.untimed) rec.time_ns = part.total_ns;
      if (!part.main_untimed) rec.main_ns = part.main_ns;
      rec.shape = shapes_.intern(kernel_shape(a_, r_, part.main_shape));
      out_.records.push_back(rec);
    }
  }

  // CLBlast's kernels outside recorded calls, grouped into calls (gemm_groups.hpp).
  void grouped_calls() {
    std::vector<GemmAnalysis::Member> members(members_.begin(), members_.end());
    members_.clear();
    std::sort(members.begin(), members.end(), [](const auto& x, const auto& y) {
      return std::tie(x.process, x.group.seq) < std::tie(y.process, y.group.seq);
    });
    size_t begin = 0;
    while (begin < members.size()) {
      size_t end = begin;
      while (end < members.size() && members[end].process == members[begin].process) ++end;
      std::vector<gemm::GroupLaunch> launches;
      for (size_t i = begin; i < end; ++i) {
        launches.push_back(members[i].group);
        // A main kernel left out of grouping (sizes not decoded): a call by itself.
        const auto& m = members[i];
        if (m.group.kind < 0 && m.shape != GemmAnalysis::kNoShape && m.kept) {
          GemmAnalysis::Record rec;
          rec.seq = m.group.seq;
          rec.range = m.range;
          rec.host_begin_ns = m.host_begin_ns;
          rec.time_ns = rec.main_ns = m.duration_ns;
          rec.kernels = 1;
          rec.shape = m.shape;
          standalone(rec);
        }
      }
      for (const gemm::FoundCall& f : gemm::group_calls(launches)) add_group(members, begin, f);
      begin = end;
    }
  }

 private:
  void add_group(const std::vector<GemmAnalysis::Member>& members, size_t base,
                 const gemm::FoundCall& f) {
    bool kept = false;
    Record rec;
    rec.seq = UINT64_MAX;
    int64_t total = 0;
    bool untimed = false;
    for (size_t i : f.members) {
      const auto& m = members[base + i];
      kept |= m.kept;
      if (m.group.seq < rec.seq) {
        rec.seq = m.group.seq;
        rec.host_begin_ns = m.host_begin_ns;
      }
      if (m.duration_ns >= 0) {
        add_to(total, m.duration_ns);
      } else {
        untimed = true;
      }
    }
    if (!kept) return;
    const auto& main = members[base + f.main];
    rec.range = main.range;
    rec.kernels = static_cast<uint32_t>(f.members.size());
    if (!untimed) rec.time_ns = total;
    rec.main_ns = main.duration_ns;
    RShape s = kernel_shape(a_, r_, main.shape);
    s.source = GemmSource::Group;
    s.padded = !f.logical;
    s.m = known(f.m);
    s.n = known(f.n);
    s.k = known(f.k);
    s.batch = known(f.batch);
    rec.shape = shapes_.intern(s);
    out_.records.push_back(rec);
  }

  // A launch standing for call `c` in the selection: its name, and the ranges it was in.
  model::Launch probe(const model::BlasCall& c, const RangeIndex& index) const {
    model::Launch l;
    l.name = c.api;
    l.process = c.process;
    for (uint64_t id = c.parent; id != 0;) {
      l.ranges.insert(l.ranges.begin(), id);
      id = index.parent(id).value_or(0);
      if (l.ranges.size() > 4096) break;  // a cycle in a damaged trace
    }
    return l;
  }

  GemmAnalysis& a_;
  std::unordered_map<uint64_t, GemmAnalysis::CallPart>& calls_;
  std::deque<GemmAnalysis::Member>& members_;
  const model::Run& run_;
  GemmResult& out_;
  const Resolved& r_;
  const LaunchPredicate& keep_;
  Shapes shapes_;
  static constexpr uint32_t kNone = UINT32_MAX;
  std::vector<uint32_t> kernel_ids_;  // per analysis shape: its standalone result shape
  std::unordered_map<std::string, uint32_t> extra_names_;
};

// The run's GEMM totals, added call by call in the calls' order (finish_gemm's sort).
struct Totals {
  GemmResult& out;
  bool terms;
  void add(const RShape& s, bool timed, uint32_t kernels) {
    ++out.calls;
    out.kernel_launches += kernels;
    if (s.flops && timed) {
      out.gflop_total += *s.flops / 1e9;
      out.gflop_per_device[s.device] += *s.flops / 1e9;
      if (terms) out.gflop_terms_per_device[s.device].push_back(*s.flops / 1e9);
    } else if (!s.flops) {
      ++out.unsized_calls_per_device[s.device];
    }
  }
};

// Grouped mode's standalone launches as calls: one run of `launches` consecutive calls per
// analysis shape, numbered from `start` after the other records (in shape order: where
// finish once appended one Record per launch).
struct StandaloneRun {
  uint64_t start = 0;
  uint32_t shape = 0;         // analysis shape
  uint32_t result_shape = 0;  // its GemmResult shape
};

// A call in the sort of the grouped mode: `index` < the other records' count is one of them
// (GemmResult::records), else a standalone launch (StandaloneRun); `process` its shape's.
template <class Index>
struct Proxy {
  Index index;
  uint32_t process;
};

// The calls in the order of the sort by (process, host begin, seq) of finish_gemm, which
// materialized a Record per call: the same std::sort over 8-byte proxies in the same initial
// order with the same comparisons gives the same permutation, ties included (a standalone
// launch's key is (process, kNoTime, 0): they all tie). The GFLOP sums, added in this order,
// are then bit for bit those of that sort. Calls f(index) in order.
template <class Index, class F>
void order_calls(const GemmResult& out, const std::vector<StandaloneRun>& runs, uint64_t total,
                 const GemmAnalysis& a, F&& f) {
  const size_t others = out.records.size();
  std::vector<Proxy<Index>> order;
  order.reserve(total);
  for (size_t i = 0; i < others; ++i)
    order.push_back({static_cast<Index>(i), out.shapes[out.records[i].shape].process});
  for (const auto& r : runs) {
    const uint64_t n = a.standalone()[r.shape].launches;
    const uint32_t process = out.shapes[r.result_shape].process;
    for (uint64_t j = 0; j < n; ++j) order.push_back({static_cast<Index>(r.start + j), process});
  }
  auto key = [&out, others](const Proxy<Index>& p) {
    if (p.index < others) {
      const Record& r = out.records[p.index];
      return std::make_tuple(p.process, r.host_begin_ns, r.seq);
    }
    return std::make_tuple(p.process, model::kNoTime, uint64_t{0});
  };
  std::sort(order.begin(), order.end(),
            [&key](const Proxy<Index>& x, const Proxy<Index>& y) { return key(x) < key(y); });
  for (const auto& p : order) f(static_cast<uint64_t>(p.index));
}

// Grouped mode's rows and totals (finish_gemm, after the other records are built).
// `durations`: the analysis' shape_durations (taken over).
void finish_grouped(const GemmAnalysis& a, std::vector<std::vector<int64_t>>& durations,
                    CallBuilder& calls, GemmResult& out, double peak_gflops, bool gflop_terms,
                    bool group_rows) {
  std::vector<StandaloneRun> runs;
  uint64_t total = out.records.size();
  for (size_t i = 0; i < a.standalone().size(); ++i) {
    const uint64_t n = a.standalone()[i].launches;
    if (n == 0) continue;
    runs.push_back(
        {total, static_cast<uint32_t>(i), calls.kernel_shape_id(static_cast<uint32_t>(i))});
    total += n;
  }

  // One row per (name, precision, layout, transposes, M, N, K, batch); each result shape
  // belongs to one. A row's shape is that of its first call in the calls' order.
  using Key = std::tuple<std::string, std::string, std::string, std::string, int64_t, int64_t,
                         int64_t, int64_t>;
  struct Merged {
    const RShape* shape = nullptr;
    std::vector<int64_t> durations, mains;
    uint64_t count = 0;
    bool others = false;  // a call that is not a standalone launch (its main time differs)
  };
  std::map<Key, Merged> merged;
  std::vector<Merged*> row_of(out.shapes.size(), nullptr);
  auto row = [&](uint32_t shape) -> Merged& {
    if (shape >= row_of.size()) row_of.resize(out.shapes.size(), nullptr);
    Merged*& m = row_of[shape];
    if (!m) {
      const auto& s = out.shapes[shape];
      m = &merged[{out.names[s.name_id], s.precision, s.layout, s.trans, s.m.value_or(-1),
                   s.n.value_or(-1), s.k.value_or(-1), s.batch.value_or(-1)}];
    }
    return *m;
  };

  Totals totals{out, gflop_terms};
  const size_t others = out.records.size();
  auto visit = [&](uint64_t index) {
    uint32_t shape = 0;
    bool timed = false;
    uint32_t kernels = 1;
    if (index < others) {
      const Record& r = out.records[index];
      shape = r.shape;
      timed = r.time_ns >= 0;
      kernels = r.kernels;
    } else {
      const auto run =
          std::upper_bound(runs.begin(), runs.end(), index,
                           [](uint64_t i, const StandaloneRun& r) { return i < r.start; }) -
          1;
      const auto& untimed = a.standalone()[run->shape].untimed_at;
      shape = run->result_shape;
      timed = !std::binary_search(untimed.begin(), untimed.end(), index - run->start);
    }
    totals.add(out.shapes[shape], timed, kernels);
    if (group_rows) {
      Merged& m = row(shape);
      if (!m.shape) m.shape = &out.shapes[shape];
    }
  };
  if (total <= UINT32_MAX) {
    order_calls<uint32_t>(out, runs, total, a, visit);
  } else {
    order_calls<uint64_t>(out, runs, total, a, visit);
  }
  if (!group_rows) {
    out.records.clear();
    return;
  }

  for (const Record& r : out.records) {
    Merged& m = row(r.shape);
    ++m.count;
    m.others = true;
    if (r.time_ns >= 0) m.durations.push_back(r.time_ns);
    if (r.main_ns >= 0) m.mains.push_back(r.main_ns);
  }
  out.records.clear();
  for (const auto& r : runs) {
    Merged& m = row(r.result_shape);
    m.count += a.standalone()[r.shape].launches;
    auto& d = durations[r.shape];
    // A standalone launch's main time is its time: the same values join the mains.
    if (m.others) m.mains.insert(m.mains.end(), d.begin(), d.end());
    if (m.durations.empty()) {
      m.durations.swap(d);
    } else {
      m.durations.insert(m.durations.end(), d.begin(), d.end());
    }
    std::vector<int64_t>().swap(d);
  }
  for (auto& [key, m] : merged) {
    const RShape& s = *m.shape;
    GemmGroupRow g;
    g.name = std::get<0>(key);
    g.precision = s.precision;
    g.layout = s.layout;
    g.trans = s.trans;
    g.m = s.m;
    g.n = s.n;
    g.k = s.k;
    g.batch = s.batch;
    if (s.rule) g.rule = s.rule->id;
    g.padded = s.padded;
    if (s.exec_flops) g.executed_gflop = *s.exec_flops / 1e9;
    g.count = m.count;
    const auto st = compute_stats(m.durations);
    g.timed = st.count;
    g.total_ns = st.total_ns;
    g.median_ns = st.median_ns;
    g.min_ns = st.min_ns;
    if (!m.others) {
      // The mains are the durations: their median is the one just computed.
      if (st.count > 0) g.main_median_ns = st.median_ns;
    } else if (!m.mains.empty()) {
      g.main_median_ns = compute_stats(m.mains).median_ns;
    }
    if (s.flops && st.count > 0) {
      if (st.median_ns > 0) g.gflops_median = *s.flops / static_cast<double>(st.median_ns);
      if (st.min_ns > 0) g.gflops_best = *s.flops / static_cast<double>(st.min_ns);
      if (g.gflops_best && peak_gflops > 0)
        g.percent_of_peak = 100.0 * *g.gflops_best / peak_gflops;
    }
    std::vector<int64_t>().swap(m.durations);
    std::vector<int64_t>().swap(m.mains);
    out.groups.push_back(std::move(g));
  }
  std::stable_sort(out.groups.begin(), out.groups.end(), [](const auto& x, const auto& y) {
    if (x.total_ns != y.total_ns) return x.total_ns > y.total_ns;
    return x.name < y.name;
  });
}

}  // namespace

GemmResult finish_gemm(GemmAnalysis&& a, const model::Run& run, double peak_gflops,
                       bool gflop_terms) {
  GemmResult out;
  out.problems = a.problems();
  out.names = a.names();
  out.rules = a.rules_;
  out.peak_gflops = peak_gflops;
  const ProgramOptions options(run);

  // Launches per shape: the weight of a shape's decoding problem.
  std::vector<uint64_t> count(a.shapes().size(), 0);
  for (const auto& r : a.records_) ++count[r.shape];
  for (size_t i = 0; i < a.standalone_.size(); ++i) count[i] += a.standalone_[i].launches;
  for (const auto& [id, c] : a.calls_)
    if (c.main_shape != GemmAnalysis::kNoShape) ++count[c.main_shape];
  for (const auto& m : a.members_)
    if (m.shape != GemmAnalysis::kNoShape) ++count[m.shape];

  // Resolve every shape once (not once per launch).
  Resolved resolved;
  resolved.dims.resize(a.shapes().size());
  for (size_t i = 0; i < a.shapes().size(); ++i) {
    const auto& s = a.shapes()[i];
    int64_t dims[4] = {s.dims[0], s.dims[1], s.dims[2], s.dims[3]};
    resolve(dims, a.rules()[static_cast<size_t>(s.rule)], a.names()[s.name_id], s.process,
            s.program_id, options, out.problems, count[i]);
    std::copy(std::begin(dims), std::end(dims), resolved.dims[i].begin());
  }

  CallBuilder calls(a, a.calls_, a.members_, run, out, resolved, a.keep_);
  calls.standalone_records(a.records_);
  calls.library_calls();
  calls.grouped_calls();

  if (a.grouped()) {
    finish_grouped(a, a.shape_durations_, calls, out, peak_gflops, gflop_terms, a.group_rows_);
    a.standalone_.clear();
    a.shape_durations_.clear();
    return out;
  }

  std::sort(out.records.begin(), out.records.end(), [&out](const Record& x, const Record& y) {
    return std::make_tuple(out.shapes[x.shape].process, x.host_begin_ns, x.seq) <
           std::make_tuple(out.shapes[y.shape].process, y.host_begin_ns, y.seq);
  });
  Totals totals{out, gflop_terms};
  for (const auto& rec : out.records)
    totals.add(out.shapes[rec.shape], rec.time_ns >= 0, rec.kernels);
  if (!out.records.empty()) out.ranges = std::make_shared<const RangeIndex>(run);
  return out;
}

}  // namespace clprof::analyses
