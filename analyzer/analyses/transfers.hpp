// Transfers (clprof transfers): reads, writes, copies, fills, maps and unmaps per device
// kind and op, each with its size classes: count, bytes, bytes moved, device time and
// bandwidth.
//
// Maps are not copies. A map or unmap makes a region visible to the host; whether bytes
// move depends on where the memory lives: on a CPU device nothing moves (the host pointer is
// the memory), on a GPU it may be a copy or a zero-copy mapping, which the trace cannot
// tell. So map and unmap bytes are never counted as moved: `moved_bytes` is 0 for them on a
// CPU device and unknown elsewhere; `bytes` always holds the size the call covered.
//
// Bandwidth (GB/s = bytes / ns) is the bytes moved by the transfers with a device time
// over that time. Fixed memory per (device, op, size class); streams from any thread.
#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "analysis.hpp"

namespace clprof::analyses {

// The size classes, by the bytes a command covers: [0, 4 KiB), [4 KiB, 64 KiB),
// [64 KiB, 1 MiB), [1 MiB, 16 MiB), [16 MiB, ...).
struct SizeClass {
  uint64_t below;  // upper bound (exclusive); UINT64_MAX for the last
  std::string_view label;
};
inline constexpr std::array<SizeClass, 5> kSizeClasses = {{
    {uint64_t{4} << 10, "<4 KiB"},
    {uint64_t{64} << 10, "4-64 KiB"},
    {uint64_t{1} << 20, "64 KiB-1 MiB"},
    {uint64_t{16} << 20, "1-16 MiB"},
    {UINT64_MAX, ">=16 MiB"},
}};
size_t size_class(uint64_t bytes);

// The ops in their display order; others (a future op) sort after them by name.
inline constexpr std::array<std::string_view, 6> kTransferOps = {"read", "write", "copy",
                                                                 "fill", "map",   "unmap"};
bool is_map(std::string_view op);  // map or unmap

// What a row's commands move: all their bytes (read, write, copy, fill), nothing (maps and
// unmaps on a CPU device) or unknown (maps and unmaps elsewhere).
enum class Moves : uint8_t { All, Nothing, Unknown };

// The figures of a set of transfers.
struct TransferFigures {
  uint64_t count = 0;
  uint64_t bytes = 0;        // as recorded: the size each call covered
  uint64_t timed = 0;        // commands with a device time
  int64_t time_ns = 0;       // sum of their device times
  uint64_t timed_bytes = 0;  // bytes of the timed commands
  int64_t max_ns = 0;        // longest device time
  uint64_t host_timed = 0;   // commands with a host time
  int64_t host_ns = 0;       // sum of host time inside the calls (blocking ones wait there)
  uint64_t blocking = 0;

  void add(const model::Transfer& t);
  void merge(const TransferFigures& o);
  std::optional<uint64_t> moved(Moves m) const;
  // Bytes moved / device time, in GB/s (bytes per ns): known when some command was timed
  // and what it moved is known and not nothing.
  std::optional<double> gbps(Moves m) const;
  std::optional<int64_t> mean_ns() const;
};

// Streams transfers into per (device, op, size class) figures (the session selects them:
// cli/session.cpp).
class TransfersAnalysis : public Analysis {
 public:
  void add_launch(const model::Launch&) override {}
  void add_transfer(const model::Transfer& transfer) override;
  void merge(Analysis&& other) override;

  struct Key {
    uint32_t device = 0;
    std::string op;
    bool operator<(const Key& o) const {
      return device != o.device ? device < o.device : op < o.op;
    }
  };
  using Figures = std::array<TransferFigures, kSizeClasses.size()>;
  const std::map<Key, Figures>& figures() const { return figures_; }

 private:
  std::map<Key, Figures> figures_;
};

// One row: a device kind and op, its size classes (only those with transfers).
struct TransferRow {
  std::string group;        // --by: the group's label, else ""
  std::string device_type;  // Device::type ("CPU", "GPU", ...), "" when unknown
  std::string op;
  Moves moves = Moves::All;
  TransferFigures total;
  std::vector<std::pair<std::string_view, TransferFigures>> sizes;  // label, figures
};

// The rows of `analysis` (devices of one kind merged), ordered by device kind, then op
// (read, write, copy, fill, map, unmap, then others by name).
std::vector<TransferRow> transfer_rows(const TransfersAnalysis& analysis, const model::Run& run);

// The totals over `rows`: the commands that move bytes (known), and the maps and unmaps.
struct TransferTotals {
  TransferFigures moved;             // read, write, copy, fill (and any other op)
  TransferFigures maps;              // map, unmap
  uint64_t maps_moving_nothing = 0;  // of `maps`: on a CPU device
};
TransferTotals transfer_totals(const std::vector<TransferRow>& rows);

}  // namespace clprof::analyses
