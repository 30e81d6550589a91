// Reading one trace file by every path of the reader: in memory and streamed (1, 2 and 3
// threads, small chunks so that boundaries fall mid-line), each with the fast path on and
// off. Each reading gives the Run (streamed launches and transfers put back into it, in
// file order), the warnings and the error, with the file's path replaced by "FILE".
#pragma once

#include <string>
#include <vector>

#include "model.hpp"
#include "readers/clprof_trace/clprof_trace.hpp"
#include "readers/reader.hpp"
#include "run_child.hpp"
#include "test_util.hpp"

namespace clprof::test {

struct Reading {
  std::string way;
  model::Run run;
  std::vector<std::string> warnings;
  std::string error;  // InputError::what(), "" if none
};

inline std::string without_path(std::string text, const std::string& path) {
  for (size_t at = text.find(path); at != std::string::npos; at = text.find(path, at))
    text.replace(at, path.size(), "FILE");
  return text;
}

inline std::vector<Reading> read_every_way(const std::string& path, size_t chunk_bytes = 64) {
  const std::string content = slurp(path);
  std::vector<Reading> out;
  auto finish = [&](Reading& r, const readers::Diagnostics& d) {
    for (const auto& w : d.warnings) r.warnings.push_back(without_path(w, path));
  };
  for (bool fast : {true, false}) {
    Reading r;
    r.way = std::string("in memory, fast path ") + (fast ? "on" : "off");
    readers::Diagnostics d;
    try {
      readers::detail::read_clprof_trace(path, content, r.run, d, fast);
    } catch (const readers::InputError& e) {
      r.error = without_path(e.what(), path);
    }
    finish(r, d);
    out.push_back(std::move(r));
  }
  for (unsigned threads : {1u, 2u, 3u}) {
    for (bool fast : {true, false}) {
      Reading r;
      r.way =
          "streamed, " + std::to_string(threads) + " threads, fast path " + (fast ? "on" : "off");
      readers::Diagnostics d;
      auto tuning = small_chunks(threads, chunk_bytes);
      tuning.fast_path = fast;
      try {
        auto a = readers::detail::stream_clprof_trace_file(path, r.run, collect_all_factory(), d,
                                                           tuning);
        auto& all = static_cast<CollectAll&>(*a);
        r.run.launches = std::move(all.launches);
        r.run.transfers = std::move(all.transfers);
      } catch (const readers::InputError& e) {
        r.error = without_path(e.what(), path);
      }
      finish(r, d);
      out.push_back(std::move(r));
    }
  }
  return out;
}

}  // namespace clprof::test
