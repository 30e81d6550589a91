#include "output/views/partial.hpp"

#include <rapidjson/document.h>
#include <rapidjson/error/en.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <optional>
#include <sstream>
#include <tuple>
#include <type_traits>
#include <utility>

#include "output/json_writer.hpp"
#include "readers/reader.hpp"

namespace clprof::output::partial {

namespace {

constexpr uint64_t kSeqMask = (uint64_t{1} << 40) - 1;

using Acc = analyses::KernelAccumulator;
// The accumulator's counts and sums, by their names in the partial (written and read alike).
constexpr std::pair<const char*, uint64_t Acc::*> kCounts[] = {
    {"untimed", &Acc::untimed},
    {"queued_to_submit_known", &Acc::queued_to_submit_known},
    {"submit_to_start_known", &Acc::submit_to_start_known},
    {"enqueue_known", &Acc::enqueue_known}};
constexpr std::pair<const char*, int64_t Acc::*> kSums[] = {
    {"queued_to_submit_ns", &Acc::queued_to_submit_ns},
    {"submit_to_start_ns", &Acc::submit_to_start_ns},
    {"enqueue_ns", &Acc::enqueue_ns}};

void header(JsonWriter& j, const char* command, size_t processes) {
  j.field("clprof_partial", kVersion);
  j.field("command", command);
  j.field("processes", static_cast<uint64_t>(processes));
}

// One partial file, checked: its command and version; throws InputError naming `path`.
class Partial {
 public:
  Partial(const std::string& path, const char* command) : path_(path) {
    std::ifstream f(path, std::ios::binary);
    if (!f) fail("cannot open the partial");
    std::ostringstream ss;
    ss << f.rdbuf();
    text_ = ss.str();
    doc_.Parse(text_.c_str(), text_.size());
    if (doc_.HasParseError())
      throw readers::InputError(
          path, 0, doc_.GetErrorOffset() + 1,
          std::string("not JSON: ") + rapidjson::GetParseError_En(doc_.GetParseError()));
    if (!doc_.IsObject() || !doc_.HasMember("clprof_partial") || !doc_["clprof_partial"].IsInt() ||
        doc_["clprof_partial"].GetInt() != kVersion)
      fail("not a clprof partial of version " + std::to_string(kVersion) +
           " (clprof CMD --partial writes them)");
    if (!doc_.HasMember("command") || !doc_["command"].IsString() ||
        std::string(doc_["command"].GetString()) != command)
      fail(std::string("not a partial of clprof ") + command);
    processes_ = uint_at(doc_, "processes");
  }
  const rapidjson::Value& array(const char* key) const { return array_at(doc_, key); }
  const rapidjson::Value& array_at(const rapidjson::Value& v, const char* key) const {
    if (!v.IsObject() || !v.HasMember(key) || !v[key].IsArray())
      fail(std::string("no array '") + key + "'");
    return v[key];
  }
  const rapidjson::Value& document() const { return doc_; }
  uint64_t processes() const { return processes_; }

  uint64_t uint_at(const rapidjson::Value& v, const char* key) const {
    if (!v.IsObject() || !v.HasMember(key) || !v[key].IsUint64())
      fail(std::string("'") + key + "' must be an unsigned integer");
    return v[key].GetUint64();
  }
  int64_t int_at(const rapidjson::Value& v, const char* key) const {
    if (!v.IsObject() || !v.HasMember(key) || !v[key].IsInt64())
      fail(std::string("'") + key + "' must be an integer");
    return v[key].GetInt64();
  }
  std::optional<int64_t> int_or_null(const rapidjson::Value& v, const char* key) const {
    if (v.IsObject() && v.HasMember(key) && v[key].IsNull()) return std::nullopt;
    return int_at(v, key);
  }
  std::optional<uint64_t> uint_or_null(const rapidjson::Value& v, const char* key) const {
    if (v.IsObject() && v.HasMember(key) && v[key].IsNull()) return std::nullopt;
    return uint_at(v, key);
  }
  bool bool_at(const rapidjson::Value& v, const char* key) const {
    if (!v.IsObject() || !v.HasMember(key) || !v[key].IsBool())
      fail(std::string("'") + key + "' must be true or false");
    return v[key].GetBool();
  }
  // [a, b] of two integers.
  std::pair<int64_t, int64_t> pair_of(const rapidjson::Value& v, const char* what) const {
    if (!v.IsArray() || v.Size() != 2 || !v[0].IsInt64() || !v[1].IsInt64())
      fail(std::string("'") + what + "' must hold [integer, integer]");
    return {v[0].GetInt64(), v[1].GetInt64()};
  }
  std::string text_at(const rapidjson::Value& v, const char* key) const {
    if (!v.IsObject() || !v.HasMember(key) || !v[key].IsString())
      fail(std::string("'") + key + "' must be a string");
    return std::string(v[key].GetString(), v[key].GetStringLength());
  }
  [[noreturn]] void fail(const std::string& what) const {
    throw readers::InputError(path_, 0, 0, what);
  }

 private:
  std::string path_, text_;
  rapidjson::Document doc_;
  uint64_t processes_ = 0;
};

// Each bucket of the histogram `key` of `v` ([value, count], as write_histogram writes it),
// as add(value, count).
template <class Add>
void read_buckets(const Partial& p, const rapidjson::Value& v, const char* key, Add&& add) {
  const std::string what = std::string("'") + key + "' must be an array of [value, count]";
  if (!v.HasMember(key) || !v[key].IsArray()) p.fail(what);
  for (const auto& d : v[key].GetArray()) {
    if (!d.IsArray() || d.Size() != 2 || !d[0].IsInt64() || !d[1].IsUint64()) p.fail(what);
    const uint64_t n = d[1].GetUint64();
    if (n > (uint64_t{1} << 40)) p.fail(std::string("a count past 2^40 in '") + key + "'");
    add(d[0].GetInt64(), n);
  }
}

// The histogram appended to `out` (its counts bounded by the memory ceiling), or added to
// a sample (each bucket one count: cheap however large).
void read_histogram(const Partial& p, const rapidjson::Value& v, const char* key,
                    std::vector<int64_t>& out) {
  read_buckets(p, v, key, [&out](int64_t value, uint64_t n) { out.insert(out.end(), n, value); });
}
void read_histogram(const Partial& p, const rapidjson::Value& v, const char* key,
                    analyses::DurationSample& out) {
  read_buckets(p, v, key, [&out](int64_t value, uint64_t n) { out.add(value, n); });
}

}  // namespace

namespace {

// (first_process, first_seq) of a launch_order (both null: none).
void write_order(JsonWriter& j, uint64_t first_order) {
  if (first_order == UINT64_MAX) {
    j.field("first_process", std::optional<uint64_t>());
    j.field("first_seq", std::optional<uint64_t>());
  } else {
    j.field("first_process", first_order >> 40);
    j.field("first_seq", first_order & kSeqMask);
  }
}

// `sample` as a histogram under `key`: each distinct value and its count, ascending (1 ns
// buckets: exact).
void write_histogram(JsonWriter& j, const char* key, const analyses::DurationSample& sample) {
  j.key(key);
  j.begin_array();
  sample.for_each_sorted([&j](int64_t value, uint64_t count) {
    j.begin_array();
    j.value(value);
    j.value(count);
    j.end_array();
  });
  j.end_array();
}

void write_histogram(JsonWriter& j, const char* key, const std::vector<int64_t>& values) {
  analyses::DurationSample sample;
  for (int64_t v : values) sample.add(v);
  write_histogram(j, key, sample);
}

// One kernel variant's object of a kernels (or layers) partial.
void write_kernel(JsonWriter& j, const analyses::KernelVariant& variant,
                  const analyses::KernelAccumulator& k) {
  j.begin_object();
  j.field("name", variant.name);
  const auto known = [&variant](const std::string& text) {
    return variant.known ? std::optional<std::string>(text) : std::nullopt;
  };
  j.field("source_hash", known(variant.source_hash));
  j.field("options", known(variant.options));
  for (const auto& [key, member] : kCounts) j.field(key, k.*member);
  for (const auto& [key, member] : kSums) j.field(key, k.*member);
  write_order(j, k.first_order);
  j.field("first_ns", k.first_ns);
  write_histogram(j, "durations", k.durations_ns);
  j.end_object();
}

}  // namespace

namespace {

// A partial of `command` whose entries, under the key `command`, `entries(j)` writes.
template <typename Entries>
std::string partial_of(const char* command, size_t processes, Entries&& entries) {
  JsonWriter j;
  j.begin_object();
  header(j, command, processes);
  j.key(command);
  j.begin_array();
  entries(j);
  j.end_array();
  j.end_object();
  return j.str();
}

}  // namespace

std::string kernels_json(const analyses::VariantKernels& kernels, size_t processes) {
  return partial_of("kernels", processes, [&kernels](JsonWriter& j) {
    for (const auto& [variant, k] : kernels) write_kernel(j, variant, k);
  });
}

std::string layers_json(const analyses::LayerGroups& groups, size_t processes) {
  return partial_of("layers", processes, [&groups](JsonWriter& j) {
    for (const auto& [path, g] : groups) {
      j.begin_object();
      j.field("layer", path);
      // The launches outside every range are one instance of the whole run, not one per process:
      // the merge adds their times (read_layers, scripts/clprof-dask).
      j.field("one_instance", path == analyses::kNoLayer);
      write_order(j, g.first_order);
      write_histogram(j, "instances", g.instance_totals);
      j.key("kernels");
      j.begin_array();
      for (const auto& [variant, k] : g.kernels) write_kernel(j, variant, k);
      j.end_array();
      j.end_object();
    }
  });
}

std::string ranks_json(const analyses::RankTable& table, const analyses::ProcessKernels& kernels) {
  std::vector<const analyses::RankRow*> rows;
  for (const auto& r : table.rows) rows.push_back(&r);
  std::sort(rows.begin(), rows.end(),
            [](const auto* a, const auto* b) { return a->process < b->process; });
  JsonWriter j;
  j.begin_object();
  header(j, "ranks", rows.size());
  j.key("ranks");
  j.begin_array();
  for (const auto* r : rows) {
    j.begin_object();
    j.field("rank", r->rank);
    j.field("world_size", r->world_size);
    j.field("host", r->host);
    j.field("pid", r->pid);
    j.field("file", r->file);
    j.field("wall_ns", r->wall_ns);
    j.field("busy_ns", r->busy_ns);
    j.key("kernels");
    j.begin_array();
    if (auto k = kernels.per_process.find(r->process); k != kernels.per_process.end())
      for (const auto& [name, t] : k->second) {
        j.begin_object();
        j.field("name", name);
        j.field("launches", t.launches);
        j.field("total_ns", t.total_ns);
        j.field("timed", t.timed);
        j.end_object();
      }
    j.end_array();
    j.end_object();
  }
  j.end_array();
  j.end_object();
  return j.str();
}

namespace {

using Device = analyses::SummaryAnalysis::PerDevice;

// A double exactly, as C99's hexadecimal floating point ("0x1.8p+1").
std::string hex_double(double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%a", v);
  return buf;
}

// One shard's summary inputs from its object `v` in `p`.
analyses::SummaryInputs summary_shard(const Partial& p, const rapidjson::Value& v) {
  analyses::SummaryInputs in;
  in.processes = p.uint_at(v, "processes");
  if (in.processes >= (uint64_t{1} << 31)) p.fail("'processes' out of range");
  in.truncated_processes = p.uint_at(v, "truncated_processes");
  in.traces = p.bool_at(v, "traces");
  in.builds = p.bool_at(v, "builds");
  in.build_ns = p.int_at(v, "build_ns");
  in.iteration_wall_ns = p.int_or_null(v, "iteration_wall_ns");
  if (!v.HasMember("window_ns")) p.fail("no 'window_ns'");
  if (!v["window_ns"].IsNull()) in.window_ns = p.pair_of(v["window_ns"], "window_ns");
  for (const auto& s : p.array_at(v, "spans").GetArray()) {
    if (!s.IsArray() || s.Size() != 3 || !s[0].IsUint64() || s[0].GetUint64() >= in.processes ||
        !s[1].IsInt64() || !s[2].IsInt64())
      p.fail("'spans' must hold [process, begin, end] of the shard's processes");
    in.spans[static_cast<uint32_t>(s[0].GetUint64())] = {s[1].GetInt64(), s[2].GetInt64()};
  }
  for (const auto& d : p.array_at(v, "device_names").GetArray()) {
    analyses::SummaryInputs::DeviceName n;
    n.name = p.text_at(d, "name");
    n.pid = p.int_at(d, "pid");
    in.device_names.push_back(std::move(n));
  }
  if (in.device_names.size() >= (uint64_t{1} << 31)) p.fail("too many devices");
  const auto device_id = [&](const rapidjson::Value& d) {
    const uint64_t id = p.uint_at(d, "device");
    if (id > in.device_names.size()) p.fail("a device id past 'device_names'");
    return static_cast<uint32_t>(id);
  };
  for (const auto& d : p.array_at(v, "devices").GetArray()) {
    const uint32_t id = device_id(d);
    if (in.devices.count(id)) p.fail("device " + std::to_string(id) + " twice");
    auto& dev = in.devices[id];
    Device::each_sum(dev, [&](const char* key, auto& figure) {
      if constexpr (std::is_same_v<std::decay_t<decltype(figure)>, uint64_t>)
        figure = p.uint_at(d, key);
      else
        figure = p.int_at(d, key);
    });
    read_histogram(p, d, "starts", dev.intervals.mutable_starts());
    read_histogram(p, d, "ends", dev.intervals.mutable_ends());
    if (dev.intervals.starts().size() != dev.intervals.ends().size())
      p.fail("device " + std::to_string(id) + ": 'starts' and 'ends' must hold as many values");
    try {
      (void)dev.intervals.length_ns();
    } catch (const std::invalid_argument&) {
      p.fail("device " + std::to_string(id) + ": an interval ends before it starts ('ends')");
    }
    for (const auto& k : p.array_at(d, "kernels").GetArray()) {
      if (!k.IsString()) p.fail("'kernels' must hold names");
      auto& on = in.kernel_names[std::string(k.GetString(), k.GetStringLength())];
      if (std::find(on.begin(), on.end(), id) == on.end()) on.push_back(id);
    }
  }
  for (const auto& g : p.array_at(v, "gemm").GetArray()) {
    const uint32_t id = device_id(g);
    auto& terms = in.gflop_terms[id];
    for (const auto& t : p.array_at(g, "gflop_terms").GetArray()) {
      char* end = nullptr;
      const double x = t.IsString() ? std::strtod(t.GetString(), &end) : NAN;
      if (!t.IsString() || end != t.GetString() + t.GetStringLength() || !std::isfinite(x))
        p.fail("'gflop_terms' must hold finite numbers in hexadecimal floating point");
      terms.push_back(x);
    }
    if (terms.empty()) in.gflop_terms.erase(id);
    if (const uint64_t n = p.uint_at(g, "unsized_calls")) in.unsized_gemm_calls[id] = n;
  }
  return in;
}

}  // namespace

std::string summary_json(analyses::SummaryInputs& in, const model::Run& run) {
  JsonWriter j;
  j.begin_object();
  header(j, "summary", in.processes);
  j.field("truncated_processes", in.truncated_processes);
  j.field("traces", in.traces);
  j.field("builds", in.builds);
  j.field("build_ns", in.build_ns);
  j.field("iteration_wall_ns", in.iteration_wall_ns);
  j.key("window_ns");
  if (in.window_ns) {
    j.begin_array();
    j.value(in.window_ns->first);
    j.value(in.window_ns->second);
    j.end_array();
  } else {
    j.null();
  }
  // Each process's start (null: unknown): scripts/clprof-dask takes the run's start from them.
  j.key("process_starts");
  j.begin_array();
  for (const auto& p : run.processes)
    j.value(p.host_start_ns == model::kNoTime ? std::nullopt
                                              : std::optional<int64_t>(p.host_start_ns));
  j.end_array();
  j.key("spans");
  j.begin_array();
  for (const auto& [process, span] : in.spans) {
    j.begin_array();
    j.value(static_cast<uint64_t>(process));
    j.value(span.first);
    j.value(span.second);
    j.end_array();
  }
  j.end_array();
  j.key("device_names");
  j.begin_array();
  for (const auto& n : in.device_names) {
    j.begin_object();
    j.field("name", n.name);
    j.field("pid", n.pid);
    j.end_object();
  }
  j.end_array();
  std::map<uint32_t, std::vector<const std::string*>> names;
  for (const auto& [name, devices] : in.kernel_names)
    for (uint32_t d : devices) names[d].push_back(&name);
  j.key("devices");
  j.begin_array();
  for (auto& [id, d] : in.devices) {
    // A known device is one process's, so one shard's: its union is measured here. The
    // unknown device 0 may be several shards': its intervals go whole.
    if (id != 0) {
      d.union_ns = analyses::add_ns(d.union_ns, d.intervals.length_ns());
      d.intervals = analyses::IntervalUnion();
    }
    j.begin_object();
    j.field("device", static_cast<uint64_t>(id));
    Device::each_sum(d, [&j](const char* key, const auto& figure) { j.field(key, figure); });
    // Unpaired: the union needs only the sorted starts and ends (interval_union.hpp).
    write_histogram(j, "starts", d.intervals.starts());
    write_histogram(j, "ends", d.intervals.ends());
    j.key("kernels");
    j.begin_array();
    for (const auto* n : names[id]) j.value(*n);
    j.end_array();
    j.end_object();
  }
  j.end_array();
  std::map<uint32_t, std::pair<const std::vector<double>*, uint64_t>> gemm;
  for (const auto& [id, terms] : in.gflop_terms) gemm[id].first = &terms;
  for (const auto& [id, n] : in.unsized_gemm_calls) gemm[id].second = n;
  j.key("gemm");
  j.begin_array();
  for (const auto& [id, g] : gemm) {
    j.begin_object();
    j.field("device", static_cast<uint64_t>(id));
    j.key("gflop_terms");
    j.begin_array();
    if (g.first)
      for (double t : *g.first) j.value(hex_double(t));
    j.end_array();
    j.field("unsized_calls", g.second);
    j.end_object();
  }
  j.end_array();
  j.end_object();
  return j.str();
}

analyses::SummaryInputs read_summary(const std::vector<std::string>& paths) {
  analyses::SummaryInputs all;
  bool first = true;
  for (const auto& path : paths) {
    const Partial p(path, "summary");
    const auto& doc = p.document();
    std::vector<const rapidjson::Value*> shards;
    if (doc.HasMember("shards")) {
      for (const auto& s : p.array("shards").GetArray()) shards.push_back(&s);
    } else {
      shards.push_back(&doc);
    }
    uint64_t processes = 0;
    for (const auto* s : shards) {
      auto in = summary_shard(p, *s);
      processes += in.processes;
      try {
        if (first)
          all = std::move(in);
        else
          analyses::merge_summary_inputs(all, std::move(in));
        first = false;
      } catch (const std::invalid_argument& e) {
        p.fail(e.what());
      }
    }
    if (processes != p.processes()) p.fail("'processes' is not the sum of its shards'");
    if (all.processes >= (uint64_t{1} << 31)) p.fail("more than 2^31 processes");
  }
  return all;
}

namespace {

// A launch_order from (first_process, first_seq) of `v`, its processes `offset` after the
// earlier files' (UINT64_MAX: both null).
uint64_t read_order(const Partial& p, const rapidjson::Value& v, uint64_t offset) {
  const auto process = p.uint_or_null(v, "first_process");
  const auto seq = p.uint_or_null(v, "first_seq");
  if (!process || !seq) return UINT64_MAX;
  if (*process + offset >= (uint64_t{1} << 24) || *seq > kSeqMask)
    p.fail("first_process or first_seq out of range");
  return ((*process + offset) << 40) | *seq;
}

// One kernel variant's object, as write_kernel writes it, merged into `into`.
void read_kernel(const Partial& p, const rapidjson::Value& v, uint64_t offset,
                 analyses::VariantKernels& into) {
  analyses::KernelAccumulator k;
  for (const auto& [key, member] : kCounts) k.*member = p.uint_at(v, key);
  for (const auto& [key, member] : kSums) k.*member = p.int_at(v, key);
  k.first_order = read_order(p, v, offset);
  k.first_ns = p.int_or_null(v, "first_ns");
  read_histogram(p, v, "durations", k.durations_ns);
  analyses::KernelVariant variant;
  variant.name = p.text_at(v, "name");
  // Partials written before variants have neither: their kernels are by name alone.
  const bool hash = v.HasMember("source_hash") && !v["source_hash"].IsNull();
  const bool options = v.HasMember("options") && !v["options"].IsNull();
  if (hash != options) p.fail("'source_hash' and 'options' must both be strings or both null");
  if (hash) {
    variant.known = true;
    variant.source_hash = p.text_at(v, "source_hash");
    variant.options = p.text_at(v, "options");
  }
  into[std::move(variant)].merge(std::move(k));
}

}  // namespace

analyses::VariantKernels read_kernels(const std::vector<std::string>& paths) {
  analyses::VariantKernels all;
  uint64_t offset = 0;  // processes of the files before
  for (const auto& path : paths) {
    const Partial p(path, "kernels");
    for (const auto& v : p.array("kernels").GetArray()) read_kernel(p, v, offset, all);
    offset += p.processes();
  }
  return all;
}

analyses::LayerGroups read_layers(const std::vector<std::string>& paths) {
  analyses::LayerGroups all;
  uint64_t offset = 0;  // processes of the files before
  for (const auto& path : paths) {
    const Partial p(path, "layers");
    for (const auto& v : p.array("layers").GetArray()) {
      auto& g = all[p.text_at(v, "layer")];
      if (all.size() > analyses::kMaxLayerBuckets)
        p.fail("more than " + std::to_string(analyses::kMaxLayerBuckets) +
               " layers, the ceiling of clprof layers");
      g.first_order = std::min(g.first_order, read_order(p, v, offset));
      if (p.bool_at(v, "one_instance")) {
        std::vector<int64_t> parts;
        read_histogram(p, v, "instances", parts);
        if (!parts.empty() && g.instance_totals.empty()) g.instance_totals.push_back(0);
        for (int64_t t : parts) analyses::add_to(g.instance_totals[0], t);
      } else {
        read_histogram(p, v, "instances", g.instance_totals);
      }
      if (!v.HasMember("kernels") || !v["kernels"].IsArray()) p.fail("'kernels' must be an array");
      for (const auto& k : v["kernels"].GetArray()) read_kernel(p, k, offset, g.kernels);
    }
    offset += p.processes();
  }
  return all;
}

RanksPartial read_ranks(const std::vector<std::string>& paths) {
  RanksPartial out;
  for (const auto& path : paths) {
    const Partial p(path, "ranks");
    for (const auto& v : p.array("ranks").GetArray()) {
      analyses::RankRow r;
      r.process = static_cast<uint32_t>(out.rows.size());
      std::tie(r.rank, r.world_size) =
          std::pair(p.uint_or_null(v, "rank"), p.uint_or_null(v, "world_size"));
      std::tie(r.host, r.file) = std::pair(p.text_at(v, "host"), p.text_at(v, "file"));
      std::tie(r.pid, r.wall_ns, r.busy_ns) =
          std::tuple(p.int_at(v, "pid"), p.int_or_null(v, "wall_ns"), p.int_at(v, "busy_ns"));
      if (!v.HasMember("kernels") || !v["kernels"].IsArray()) p.fail("'kernels' must be an array");
      auto& mine = out.kernels.per_process[r.process];
      for (const auto& k : v["kernels"].GetArray()) {
        auto& t = mine[p.text_at(k, "name")];
        t.launches += p.uint_at(k, "launches");
        t.total_ns = analyses::add_ns(t.total_ns, p.int_at(k, "total_ns"));
        t.timed += p.uint_at(k, "timed");
      }
      analyses::set_kernel_figures(r, mine);
      out.rows.push_back(std::move(r));
    }
  }
  return out;
}

}  // namespace clprof::output::partial
