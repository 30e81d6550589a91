#include "output/views/partial.hpp"

#include <rapidjson/document.h>
#include <rapidjson/error/en.h>

#include <algorithm>
#include <fstream>
#include <optional>
#include <sstream>
#include <tuple>
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
  const rapidjson::Value& array(const char* key) const {
    if (!doc_.HasMember(key) || !doc_[key].IsArray()) fail(std::string("no array '") + key + "'");
    return doc_[key];
  }
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

}  // namespace

std::string kernels_json(const analyses::VariantKernels& kernels, size_t processes) {
  JsonWriter j;
  j.begin_object();
  header(j, "kernels", processes);
  j.key("kernels");
  j.begin_array();
  for (const auto& [variant, k] : kernels) {
    j.begin_object();
    j.field("name", variant.name);
    // Not a lambda over `variant`: clang (the fuzz build) refuses to capture a structured
    // binding before C++20.
    const bool variant_known = variant.known;
    const auto known = [variant_known](const std::string& text) {
      return variant_known ? std::optional<std::string>(text) : std::nullopt;
    };
    j.field("source_hash", known(variant.source_hash));
    j.field("options", known(variant.options));
    for (const auto& [key, member] : kCounts) j.field(key, k.*member);
    for (const auto& [key, member] : kSums) j.field(key, k.*member);
    if (k.first_order == UINT64_MAX) {
      j.field("first_process", std::optional<uint64_t>());
      j.field("first_seq", std::optional<uint64_t>());
    } else {
      j.field("first_process", k.first_order >> 40);
      j.field("first_seq", k.first_order & kSeqMask);
    }
    j.field("first_ns", k.first_ns);
    // The histogram: each distinct duration and its count, ascending (1 ns buckets: exact).
    std::vector<int64_t> sorted = k.durations_ns;
    std::sort(sorted.begin(), sorted.end());
    j.key("durations");
    j.begin_array();
    for (size_t i = 0; i < sorted.size();) {
      size_t e = i;
      while (e < sorted.size() && sorted[e] == sorted[i]) ++e;
      j.begin_array();
      j.value(sorted[i]);
      j.value(static_cast<uint64_t>(e - i));
      j.end_array();
      i = e;
    }
    j.end_array();
    j.end_object();
  }
  j.end_array();
  j.end_object();
  return j.str();
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

analyses::VariantKernels read_kernels(const std::vector<std::string>& paths) {
  analyses::VariantKernels all;
  uint64_t offset = 0;  // processes of the files before
  for (const auto& path : paths) {
    const Partial p(path, "kernels");
    for (const auto& v : p.array("kernels").GetArray()) {
      analyses::KernelAccumulator k;
      for (const auto& [key, member] : kCounts) k.*member = p.uint_at(v, key);
      for (const auto& [key, member] : kSums) k.*member = p.int_at(v, key);
      const auto process = p.uint_or_null(v, "first_process");
      const auto seq = p.uint_or_null(v, "first_seq");
      if (process && seq) {
        if (*process + offset >= (uint64_t{1} << 24) || *seq > kSeqMask)
          p.fail("first_process or first_seq out of range");
        k.first_order = ((*process + offset) << 40) | *seq;
      }
      k.first_ns = p.int_or_null(v, "first_ns");
      if (!v.HasMember("durations") || !v["durations"].IsArray())
        p.fail("'durations' must be an array of [duration, count]");
      for (const auto& d : v["durations"].GetArray()) {
        if (!d.IsArray() || d.Size() != 2 || !d[0].IsInt64() || !d[1].IsUint64())
          p.fail("'durations' must be an array of [duration, count]");
        const uint64_t n = d[1].GetUint64();
        if (n > (uint64_t{1} << 40)) p.fail("a duration count past 2^40");
        k.durations_ns.insert(k.durations_ns.end(), n, d[0].GetInt64());
      }
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
      all[std::move(variant)].merge(std::move(k));
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
