#include "analyses/advice/commands.hpp"

#include <algorithm>

#include "analyses/advice/util.hpp"
#include "analyses/cl_errors.hpp"
#include "analyses/stats.hpp"
#include "readers/gemm_rules/gemm_rules.hpp"

namespace clprof::analyses::advice {

namespace {

bool is_prime(uint64_t n) {
  if (n < 2) return false;
  for (uint64_t d = 2; d * d <= n; ++d)
    if (n % d == 0) return false;
  return true;
}

uint64_t product(const std::vector<uint64_t>& v) {
  uint64_t p = 1;
  for (uint64_t d : v) p *= d;
  return p;
}

// CLBlast's pre/post-processing kernels of the indirect GEMM (analyses/gemm/gemm_groups.cpp).
bool is_helper(const std::string& n) {
  static const std::vector<std::string> bases = {"CopyPadMatrix", "TransposePadMatrix",
                                                 "CopyMatrix", "TransposeMatrix"};
  for (const auto& b : bases)
    if (n == b || n == b + "Batched" || n == b + "StridedBatched" || n == b + "Fast") return true;
  return false;
}

// The indirect path's GEMM kernels (XgemmDirect* runs without helpers: not counted).
bool is_gemm(const std::string& n) {
  return n == "Xgemm" || n == "XgemmBatched" || n == "XgemmStridedBatched";
}

template <typename Map>
void add_counts(Map& into, const Map& from) {
  for (const auto& [k, v] : from) into[k] += v;
}

// op(a1, b1), op(a2, b2), ... for the arguments a1, b1, a2, b2, ...
template <typename Op>
void pairwise(Op) {}
template <typename Op, typename T, typename... Rest>
void pairwise(Op op, T& into, T& from, Rest&... rest) {
  op(into, from);
  pairwise(op, rest...);
}

}  // namespace

std::string sweep_key(uint32_t process, const std::string& name, const std::vector<uint64_t>& gws,
                      const std::optional<std::vector<uint64_t>>& lws) {
  std::string k = std::to_string(process) + '\0' + name + '\0';
  for (uint64_t g : gws) k += std::to_string(g) + ',';
  k += lws ? std::string("\0L", 2) : std::string("\0N", 2);
  if (lws)
    for (uint64_t g : *lws) k += std::to_string(g) + ',';
  return k;
}

void Tallies::merge(Tallies&& o) {
  // Sums by type: counts, checked ns sums, per-name counts.
  pairwise([](uint64_t& a, uint64_t b) { a += b; }, launches, o.launches, transfers, o.transfers,
           ndrange, o.ndrange, null_lws, o.null_lws, prime, o.prime, explicit_lws, o.explicit_lws,
           timed_transfers, o.timed_transfers, transfer_bytes, o.transfer_bytes, small, o.small,
           helpers, o.helpers, gemms, o.gemms, gemm_untimed, o.gemm_untimed, errors, o.errors,
           failed_commands, o.failed_commands, timed_launches, o.timed_launches, lb_timed,
           o.lb_timed, lb_tiny, o.lb_tiny);
  pairwise([](int64_t& a, int64_t b) { add_to(a, b); }, transfer_ns, o.transfer_ns, kernel_ns,
           o.kernel_ns, small_host, o.small_host, helper_ns, o.helper_ns, gemm_ns, o.gemm_ns);
  using Counts = std::map<std::string, uint64_t>;
  pairwise([](Counts& a, const Counts& b) { add_counts(a, b); }, null_names, o.null_names,
           prime_names, o.prime_names, ops, o.ops, small_ops, o.small_ops, helper_names,
           o.helper_names, error_calls, o.error_calls, error_subjects, o.error_subjects, lb_names,
           o.lb_names);
  lb_tiny_enqueue += o.lb_tiny_enqueue;
  lb_first = std::min(lb_first, o.lb_first);
  lb_last = std::max(lb_last, o.lb_last);
  any_map = any_map || o.any_map;
  prime_gws.insert(o.prime_gws.begin(), o.prime_gws.end());  // the earlier file position stays
  for (auto& [k, v] : o.local_sizes) {
    auto [it, fresh] = local_sizes.emplace(k, v);
    if (fresh) continue;  // its `first` was shifted by the caller
    it->second.launches += v.launches;
    it->second.untimed += v.untimed;
    add_to(it->second.device_ns, v.device_ns);
  }
  for (auto& [k, v] : o.captured) captured[k] = std::move(v);  // the later launch wins
  for (auto& [k, v] : o.captured_gws) captured_gws[k] = std::move(v);
  for (const auto& [k, v] : o.like) like[k] += v;
  for (const auto& [p, s] : o.spans) util::see_span(spans, p, s.first, s.second);
  timed_queues.insert(o.timed_queues.begin(), o.timed_queues.end());
}

Commands::Commands(const Thresholds& t, bool gemm_peak)
    : min_prime_(t.get("default-local-size", "min_prime")),
      small_bytes_(t.get("transfer-bound", "small_bytes")),
      tiny_ns_(t.get("launch-bound", "tiny_ns")),
      segments_(1) {
  if (gemm_peak)
    gemm = std::make_unique<GemmAnalysis>(gemm::shared_builtin_rules(), nullptr, false);
}

uint32_t Commands::intern_name(const std::string& s) {
  const auto found = name_ids_.find(s);
  if (found != name_ids_.end()) return found->second;
  name_ids_.emplace(s, static_cast<uint32_t>(names.size()));
  names.push_back(s);
  return static_cast<uint32_t>(names.size() - 1);
}

uint32_t Commands::intern_thread(uint32_t process, uint64_t tid) {
  auto [it, fresh] =
      thread_ids_.try_emplace(std::make_pair(process, tid), static_cast<uint32_t>(threads.size()));
  if (fresh) threads.emplace_back(process, tid);
  return it->second;
}

template <typename Command>
CommandRec Commands::record(const Command& x, uint64_t ordinal, const std::string& name) {
  CommandRec r;
  r.host_begin = x.host_begin_ns;
  r.host_end = x.host_end_ns;
  r.queued = x.queued_ns;
  r.start = x.start_ns;
  r.end = x.end_ns;
  r.range = x.ranges.empty() ? 0 : x.ranges.back();
  r.queue = x.queue_id;
  r.ordinal = ordinal;
  r.thread = intern_thread(x.process, x.tid);
  r.name = intern_name(name);
  r.device = x.device;
  r.rc = x.rc;
  return r;
}

void Commands::add_launch(const model::Launch& l) {
  auto& t = tallies;
  const uint64_t ordinal = t.launches++;
  const auto d = l.duration_ns();
  CommandRec r = record(l, ordinal, l.name);
  r.duration = d ? *d : model::kNoTime;
  segments_.front().log.push(r);
  if (!first_index_.empty()) first_index_.clear();  // is_first's index, rebuilt on demand
  if (r.timed()) {
    ++t.timed_launches;
    t.timed_queues.insert(std::make_tuple(l.process, r.device, r.queue));
  }
  {  // the kernel's first launch: the earliest host begin, the first in the file among equal
    auto [it, fresh] = first_.try_emplace({l.process, r.name}, r.host_begin, ordinal);
    if (!fresh && r.host_begin < it->second.first) it->second = {r.host_begin, ordinal};
  }
  {  // launch-bound
    const int64_t h = util::host_duration(l.host_begin_ns, l.host_end_ns);
    if (r.duration != model::kNoTime && h >= 0) {
      ++t.lb_timed;
      t.lb_first = std::min(t.lb_first, l.host_begin_ns);
      t.lb_last = std::max(t.lb_last, l.host_begin_ns);
      if (r.duration < tiny_ns_ && r.duration < h) {
        ++t.lb_tiny;
        t.lb_tiny_enqueue += h;
        ++t.lb_names[l.name];
      }
    }
  }
  if (gemm) gemm->add_launch(l);
  const bool task = l.api == "clEnqueueTask";

  // default-local-size.
  if (!task) {
    ++t.ndrange;
    if (!l.lws) {
      ++t.null_lws;
      ++t.null_names[l.name];
      bool p = false;
      for (uint64_t g : l.gws) p = p || (g >= min_prime_ && is_prime(g));
      if (p) {
        ++t.prime;
        ++t.prime_names[l.name];
        t.prime_gws.emplace(l.name, output::format_sizes(l.gws));
      }
    }
  }
  // local-size-not-multiple.
  if (l.lws && !task && l.rc == 0) {
    ++t.explicit_lws;
    auto [it, fresh] = t.local_sizes.try_emplace(
        std::make_tuple(l.process, l.program_id, l.name, l.device, product(*l.lws)));
    auto& s = it->second;
    if (fresh) s.first = ordinal;
    ++s.launches;
    if (d)
      add_to(s.device_ns, *d);
    else
      ++s.untimed;
  }
  // transfer-bound's kernel time.
  if (d) add_to(t.kernel_ns, *d);
  // gemm-padding.
  const bool h = is_helper(l.name), g = is_gemm(l.name);
  if (h || g) {
    if (!d) {
      ++t.gemm_untimed;
    } else if (h) {
      add_to(t.helper_ns, *d);
      ++t.helpers;
      t.helper_names[l.name] += *d;
    } else {
      add_to(t.gemm_ns, *d);
      ++t.gemms;
    }
  }
  // api-errors.
  if (l.rc != 0) {
    ++t.errors;
    ++t.error_calls[(l.api.empty() ? "clEnqueueNDRangeKernel" : l.api) + " " + cl_error_name(l.rc)];
    if (!l.name.empty()) ++t.error_subjects[l.name];
  }
  if (l.rc == 0 && l.status == "error") ++t.failed_commands, ++t.error_subjects[l.name];
  // local-size-sweep.
  std::string key = sweep_key(l.process, l.name, l.gws, l.lws);
  if (l.capture) {
    t.captured[{l.process, l.capture}] = key;
    t.captured_gws[{l.process, l.capture}] = output::format_sizes(l.gws);
  }
  ++t.like[std::move(key)];
  // build-dominates.
  util::see_span(t.spans, l.process, l.host_begin_ns, l.host_end_ns);
}

void Commands::add_transfer(const model::Transfer& x) {
  auto& t = tallies;
  CommandRec r = record(x, t.transfers++, x.api);
  r.bytes = x.bytes;
  r.transfer = true;
  r.blocking_rw = x.blocking && (x.op == "read" || x.op == "write");
  segments_.front().log.push(r);
  if (r.timed()) t.timed_queues.insert(std::make_tuple(x.process, r.device, r.queue));

  // transfer-bound.
  if (x.op == "map") t.any_map = true;
  if (x.op != "unmap") {
    if (static_cast<double>(x.bytes) < small_bytes_ && x.op != "map") {
      ++t.small;
      ++t.small_ops[x.api];
      const int64_t h = util::host_duration(x.host_begin_ns, x.host_end_ns);
      if (h > 0) add_to(t.small_host, h);
    }
    if (x.start_ns != model::kNoTime && x.end_ns != model::kNoTime && x.end_ns >= x.start_ns) {
      ++t.timed_transfers;
      add_to(t.transfer_ns, sub_ns(x.end_ns, x.start_ns));
      t.transfer_bytes += x.bytes;
      t.ops[x.op] += x.end_ns - x.start_ns;
    }
  }
  // api-errors.
  if (x.rc != 0) {
    ++t.errors;
    ++t.error_calls[x.api + " " + cl_error_name(x.rc)];
  }
  if (x.rc == 0 && x.status == "error") ++t.failed_commands;
  // build-dominates.
  util::see_span(t.spans, x.process, x.host_begin_ns, x.host_end_ns);
}

void Commands::merge(Analysis&& other) {
  auto& o = static_cast<Commands&>(other);
  // The other's interned ids, in this one's numbering.
  std::vector<uint32_t> name_map(o.names.size()), thread_map(o.threads.size());
  for (size_t i = 0; i < o.names.size(); ++i) name_map[i] = intern_name(o.names[i]);
  for (size_t i = 0; i < o.threads.size(); ++i)
    thread_map[i] = intern_thread(o.threads[i].first, o.threads[i].second);
  // Its logs (moved, not copied), their ids composed with the map above and their file
  // positions after this one's.
  for (auto& seg : o.segments_) {
    if (seg.log.size() == 0) continue;
    auto compose = [](std::vector<uint32_t>& ids, const std::vector<uint32_t>& map) {
      if (ids.empty()) {
        ids = map;
      } else {
        for (auto& id : ids) id = map[id];
      }
    };
    compose(seg.name_map, name_map);
    compose(seg.thread_map, thread_map);
    seg.launch_base += tallies.launches;
    seg.transfer_base += tallies.transfers;
    segments_.push_back(std::move(seg));
  }
  o.segments_.clear();
  // First launches: the other's come later in the file, so they win only when earlier.
  for (const auto& [key, v] : o.first_) {
    const std::pair<int64_t, uint64_t> here{v.first, v.second + tallies.launches};
    auto [it, fresh] = first_.try_emplace({key.first, name_map[key.second]}, here);
    if (!fresh && here.first < it->second.first) it->second = here;
  }
  first_index_.clear();
  // File positions of the other's launches come after this one's.
  for (auto& [k, v] : o.tallies.local_sizes) v.first += tallies.launches;
  tallies.merge(std::move(o.tallies));
  if (gemm && o.gemm) gemm->merge(std::move(*o.gemm));
  host_order_cache.reset();
}

bool Commands::is_first(const CommandRec& r) const {
  if (r.transfer) return false;
  if (first_index_.size() != first_.size()) {
    first_index_.clear();
    for (const auto& [key, v] : first_)
      first_index_[uint64_t{key.first} << 32 | key.second] = v.second;
  }
  const auto it = first_index_.find(uint64_t{process_of(r.thread)} << 32 | r.name);
  return it != first_index_.end() && it->second == r.ordinal;
}

}  // namespace clprof::analyses::advice
