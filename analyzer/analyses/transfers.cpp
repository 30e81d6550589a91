#include "analyses/transfers.hpp"
#include "analyses/stats.hpp"

#include <algorithm>

namespace clprof::analyses {

using model::kNoTime;

size_t size_class(uint64_t bytes) {
  for (size_t i = 0; i < kSizeClasses.size(); ++i)
    if (bytes < kSizeClasses[i].below) return i;
  return kSizeClasses.size() - 1;
}

bool is_map(std::string_view op) {
  return op == "map" || op == "unmap";
}

void TransferFigures::add(const model::Transfer& t) {
  ++count;
  add_to(bytes, t.bytes);
  blocking += t.blocking ? 1 : 0;
  if (t.start_ns != kNoTime && t.end_ns != kNoTime && t.end_ns >= t.start_ns) {
    const int64_t d = sub_ns(t.end_ns, t.start_ns);
    ++timed;
    add_to(time_ns, d);
    add_to(timed_bytes, t.bytes);
    max_ns = std::max(max_ns, d);
  }
  if (t.host_begin_ns != kNoTime && t.host_end_ns != kNoTime && t.host_end_ns >= t.host_begin_ns) {
    ++host_timed;
    add_to(host_ns, sub_ns(t.host_end_ns, t.host_begin_ns));
  }
}

void TransferFigures::merge(const TransferFigures& o) {
  count += o.count;
  add_to(bytes, o.bytes);
  timed += o.timed;
  add_to(time_ns, o.time_ns);
  add_to(timed_bytes, o.timed_bytes);
  max_ns = std::max(max_ns, o.max_ns);
  host_timed += o.host_timed;
  add_to(host_ns, o.host_ns);
  blocking += o.blocking;
}

std::optional<uint64_t> TransferFigures::moved(Moves m) const {
  switch (m) {
    case Moves::All:
      return bytes;
    case Moves::Nothing:
      return 0;
    case Moves::Unknown:
      break;
  }
  return std::nullopt;
}

std::optional<double> TransferFigures::gbps(Moves m) const {
  if (m != Moves::All || timed == 0 || time_ns <= 0) return std::nullopt;
  return static_cast<double>(timed_bytes) / static_cast<double>(time_ns);
}

std::optional<int64_t> TransferFigures::mean_ns() const {
  if (timed == 0) return std::nullopt;
  // Rounded to nearest without forming time_ns + timed / 2, which overflows when the total
  // saturated at INT64_MAX (a hostile trace's sum, said elsewhere as out of range).
  const auto n = static_cast<int64_t>(timed);
  int64_t q = time_ns / n;
  const int64_t r = time_ns % n;
  if (r >= n - r) ++q;  // r >= n / 2 with n odd or even, never overflowing
  return q;
}

void TransfersAnalysis::add_transfer(const model::Transfer& t) {
  figures_[Key{t.device, t.op}][size_class(t.bytes)].add(t);
}

void TransfersAnalysis::merge(Analysis&& other) {
  auto& o = dynamic_cast<TransfersAnalysis&>(other);
  for (const auto& [key, f] : o.figures_) {
    auto& mine = figures_[key];
    for (size_t i = 0; i < f.size(); ++i) mine[i].merge(f[i]);
  }
  o.figures_.clear();
}

namespace {

size_t op_rank(const std::string& op) {
  for (size_t i = 0; i < kTransferOps.size(); ++i)
    if (kTransferOps[i] == op) return i;
  return kTransferOps.size();
}

}  // namespace

std::vector<TransferRow> transfer_rows(const TransfersAnalysis& a, const model::Run& run) {
  std::map<std::pair<std::string, std::string>, TransfersAnalysis::Figures> merged;  // (type, op)
  for (const auto& [key, f] : a.figures()) {
    const std::string type =
        key.device > 0 && key.device <= run.devices.size() ? run.devices[key.device - 1].type : "";
    auto& m = merged[{type, key.op}];
    for (size_t i = 0; i < f.size(); ++i) m[i].merge(f[i]);
  }
  std::vector<TransferRow> rows;
  for (const auto& [key, f] : merged) {
    TransferRow r;
    r.device_type = key.first;
    r.op = key.second;
    // Device types may list several kinds ("CPU ACCELERATOR"); CPU among them is enough.
    if (is_map(r.op))
      r.moves = r.device_type.find("CPU") != std::string::npos ? Moves::Nothing : Moves::Unknown;
    for (size_t i = 0; i < f.size(); ++i) {
      if (f[i].count == 0) continue;
      r.total.merge(f[i]);
      r.sizes.emplace_back(kSizeClasses[i].label, f[i]);
    }
    if (r.total.count) rows.push_back(std::move(r));
  }
  std::stable_sort(rows.begin(), rows.end(), [](const TransferRow& x, const TransferRow& y) {
    if (x.device_type != y.device_type) return x.device_type < y.device_type;
    const size_t rx = op_rank(x.op), ry = op_rank(y.op);
    if (rx != ry) return rx < ry;
    return x.op < y.op;
  });
  return rows;
}

TransferTotals transfer_totals(const std::vector<TransferRow>& rows) {
  TransferTotals t;
  for (const auto& r : rows) {
    if (r.moves == Moves::All) {
      t.moved.merge(r.total);
    } else {
      t.maps.merge(r.total);
      if (r.moves == Moves::Nothing) t.maps_moving_nothing += r.total.count;
    }
  }
  return t;
}

}  // namespace clprof::analyses
