// Internal to the clprof trace reader: what was wrong with a file's records, short of a
// fatal error. Records that do not match the schema (or come after the end record, or
// repeat a seq, or close a range that is not open) are skipped and counted; launches and
// transfers whose device end precedes their start are kept untimed and counted. Each
// kind becomes one warning naming the first such record as FILE:LINE:COLUMN. Positions
// are byte offsets in the file. One owner at a time (a reading thread, then the caller,
// which merges the threads' tallies).
#pragma once

#include <cstdint>
#include <limits>
#include <string>
#include <utility>

#include "readers/reader.hpp"

namespace clprof::readers::detail {

struct Problems {
  static constexpr uint64_t kNone = std::numeric_limits<uint64_t>::max();
  struct Tally {
    uint64_t count = 0;
    uint64_t first_offset = kNone;  // of the first record in file order
    std::string first;              // what was wrong with it (printable)
    void add(uint64_t offset, std::string message) {
      ++count;
      if (offset < first_offset) {
        first_offset = offset;
        first = std::move(message);
      }
    }
    void merge(Tally&& o) {
      if (o.first_offset < first_offset) {
        first_offset = o.first_offset;
        first = std::move(o.first);
      }
      count += o.count;
    }
  };
  Tally skipped;  // records left out
  Tally untimed;  // launches/transfers with device end < start

  void merge(Problems&& o) {
    skipped.merge(std::move(o.skipped));
    untimed.merge(std::move(o.untimed));
  }

  // Appends the warnings for `path`; locate(offset) gives {line, column} (1-based).
  template <class Locate>
  void report(const std::string& path, Locate&& locate, Diagnostics& diagnostics) const {
    auto where = [&](uint64_t offset) {
      auto [line, column] = locate(offset);
      return path + ":" + std::to_string(line) + ":" + std::to_string(column) + ": ";
    };
    if (skipped.count)
      diagnostics.warnings.push_back(
          where(skipped.first_offset) + "skipped " + std::to_string(skipped.count) +
          (skipped.count == 1 ? " record that does not" : " records that do not") +
          " match the trace schema (docs/trace-format.md); the first: " + skipped.first);
    if (untimed.count)
      diagnostics.warnings.push_back(
          where(untimed.first_offset) + std::to_string(untimed.count) +
          (untimed.count == 1 ? " command ends" : " commands end") +
          " before it starts on the device (device_ns end < start), counted as untimed; the "
          "first: " +
          untimed.first);
  }
};

}  // namespace clprof::readers::detail
