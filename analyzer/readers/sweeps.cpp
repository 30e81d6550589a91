#include "readers/sweeps.hpp"

#include <simdjson.h>

#include <filesystem>
#include <fstream>
#include <iterator>

#include "readers/json_fields.hpp"
#include "readers/reader.hpp"

namespace clprof::readers {
namespace {

namespace fs = std::filesystem;
namespace dom = simdjson::dom;

// A sweep.json is a few KiB (at most 50 candidates); anything far larger is not one.
constexpr uint64_t kMaxSweepBytes = 1 << 20;
constexpr size_t kMaxCandidates = 1000;

struct SweepFile : JsonFields {
  explicit SweepFile(std::string p) : path(std::move(p)) {}
  std::string path;
  [[noreturn]] void bad(const std::string& why) const override {
    throw InputError(path, 0, 0, "not a clprof sweep (clprof replay --sweep local): " + why);
  }
  int64_t ns(dom::element obj, const char* key) const {
    int64_t x;
    if (at(obj, key).get(x) || x < 0)
      bad(std::string("\"") + key + "\" is not a whole number of ns >= 0");
    return x;
  }
};

model::LocalSweep read_sweep(const std::string& path, uint32_t process) {
  SweepFile f(path);
  std::error_code ec;
  const uintmax_t size = fs::file_size(path, ec);
  if (ec) throw InputError(path, 0, 0, "cannot read the sweep: " + ec.message());
  if (size > kMaxSweepBytes)
    f.bad(std::to_string(size) + " bytes (a sweep has at most " + std::to_string(kMaxSweepBytes) +
          ")");
  std::ifstream in(path, std::ios::binary);
  if (!in) throw InputError(path, 0, 0, "cannot read the sweep");
  const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  dom::parser parser;
  const dom::element root = f.document(parser, text, "clprof-sweep");
  model::LocalSweep s;
  s.file = path;
  s.process = process;
  s.capture = f.uint(root, "capture");
  s.kernel = f.str(root, "kernel");
  s.device = f.str(root, "device");
  s.repeat = f.uint(root, "repeat");
  dom::array list;
  if (f.at(root, "candidates").get(list)) f.bad("\"candidates\" is not an array");
  for (dom::element c : list) {
    if (s.candidates.size() == kMaxCandidates)
      f.bad("more than " + std::to_string(kMaxCandidates) + " candidates");
    model::SweepCandidate cand;
    const dom::element lws = f.at(c, "lws");
    if (!lws.is_null()) {
      dom::array dims;
      if (lws.get(dims)) f.bad("a candidate's \"lws\" is neither null nor an array");
      std::vector<uint64_t> v;
      for (dom::element d : dims) {
        uint64_t x;
        if (d.get(x) || x == 0) f.bad("a candidate's \"lws\" holds a value that is not >= 1");
        v.push_back(x);
      }
      if (v.empty() || v.size() > 3) f.bad("a candidate's \"lws\" does not have 1 to 3 values");
      cand.lws = std::move(v);
    }
    cand.median_ns = f.ns(c, "median_ns");
    cand.min_ns = f.ns(c, "min_ns");
    const dom::element verified = f.at(c, "verified");
    if (!verified.is_null()) {
      bool b;
      if (verified.get(b)) f.bad("a candidate's \"verified\" is neither true, false nor null");
      cand.verified = b;
    }
    cand.app = f.boolean(c, "app");
    s.candidates.push_back(std::move(cand));
  }
  return s;
}

}  // namespace

std::vector<model::LocalSweep> load_sweeps(const model::Run& run) {
  std::vector<model::LocalSweep> out;
  for (uint32_t p = 0; p < run.processes.size(); ++p) {
    const model::Process& proc = run.processes[p];
    if (proc.source.empty()) continue;
    const fs::path folder = fs::path(proc.source).parent_path();
    for (const model::Capture& c : proc.captures) {
      if (c.status != "captured" || c.dir.empty()) continue;
      const fs::path file = folder / c.dir / "sweep.json";
      std::error_code ec;
      if (!fs::is_regular_file(file, ec)) continue;
      model::LocalSweep s = read_sweep(file.string(), p);
      if (s.capture != c.id || s.kernel != c.kernel)
        throw InputError(file.string(), 0, 0,
                         "the sweep is of capture " + std::to_string(s.capture) + " (" +
                             printable(s.kernel) + "), but lies in the folder of capture " +
                             std::to_string(c.id) + " (" + printable(c.kernel) + ")");
      out.push_back(std::move(s));
    }
  }
  return out;
}

}  // namespace clprof::readers
