#include "analyses/time_window.hpp"

#include <algorithm>
#include <stdexcept>

namespace clprof::analyses {

using model::kNoTime;

namespace {

struct Unit {
  std::string_view name;
  int64_t ns;
  int decimals;  // fractional digits that still give whole nanoseconds
};
constexpr Unit kUnits[] = {{"ns", 1, 0}, {"us", 1000, 3}, {"ms", 1000000, 6}, {"s", 1000000000, 9}};

[[noreturn]] void bad(std::string_view whole, const std::string& why) {
  throw std::invalid_argument("bad time window '" + std::string(whole) + "': " + why);
}

// One side: "<digits>[.<digits>]<unit>".
int64_t parse_time(std::string_view s, std::string_view whole) {
  const std::string expected = "expected START:END with times like 1.5ms, 200us, 2s or 500ns";
  size_t n = 0;
  while (n < s.size() && ((s[n] >= '0' && s[n] <= '9') || s[n] == '.')) ++n;
  const std::string_view number = s.substr(0, n), unit_text = s.substr(n);
  if (number.empty()) bad(whole, expected + " (either side may be empty)");
  const Unit* unit = nullptr;
  for (const auto& u : kUnits)
    if (u.name == unit_text) unit = &u;
  if (!unit)
    bad(whole, unit_text.empty()
                   ? "'" + std::string(number) + "' needs a unit: ns, us, ms or s"
                   : "unknown unit '" + std::string(unit_text) + "' (ns, us, ms or s)");
  const size_t dot = number.find('.');
  const std::string_view whole_part = number.substr(0, dot);
  const std::string_view fraction =
      dot == std::string_view::npos ? std::string_view() : number.substr(dot + 1);
  if (whole_part.empty() || fraction.find('.') != std::string_view::npos ||
      (dot != std::string_view::npos && fraction.empty()))
    bad(whole, "'" + std::string(s) + "' is not a number with a unit");
  if (static_cast<int>(fraction.size()) > unit->decimals)
    bad(whole, "'" + std::string(s) + "' is finer than a nanosecond");
  // Exact integer arithmetic with overflow checks: the window may name any int64 ns.
  int64_t v = 0;
  for (char c : whole_part)
    if (__builtin_mul_overflow(v, 10, &v) || __builtin_add_overflow(v, c - '0', &v))
      bad(whole, "too large");
  if (__builtin_mul_overflow(v, unit->ns, &v)) bad(whole, "too large");
  int64_t frac = 0, scale = unit->ns;
  for (char c : fraction) {
    scale /= 10;
    frac += (c - '0') * scale;
  }
  if (__builtin_add_overflow(v, frac, &v)) bad(whole, "too large");
  return v;
}

}  // namespace

TimeWindow parse_time_window(std::string_view text) {
  if (text.size() > 64) bad(text.substr(0, 64), "longer than 64 characters");
  const size_t colon = text.find(':');
  if (colon == std::string_view::npos || text.find(':', colon + 1) != std::string_view::npos)
    bad(text,
        "expected START:END with times like 1.5ms, 200us, 2s or 500ns (either side may be empty)");
  const std::string_view a = text.substr(0, colon), b = text.substr(colon + 1);
  if (a.empty() && b.empty()) bad(text, "give START, END or both");
  TimeWindow w;
  w.text = std::string(text);
  if (!a.empty()) w.begin_ns = parse_time(a, text);
  if (!b.empty()) w.end_ns = parse_time(b, text);
  if (w.begin_ns >= w.end_ns) bad(text, "START is not before END");
  return w;
}

RunClock::RunClock(const model::Run& run, std::optional<int64_t> origin_ns) {
  bool any = false;
  for (const auto& p : run.processes)
    if (p.host_start_ns != kNoTime) {
      origin_ns_ = any ? std::min(origin_ns_, p.host_start_ns) : p.host_start_ns;
      any = true;
    }
  if (origin_ns) origin_ns_ = *origin_ns;
  for (const auto& p : run.processes) {
    int64_t base = 0;
    if (p.host_start_ns != kNoTime && __builtin_sub_overflow(p.host_start_ns, origin_ns_, &base))
      base = 0;
    base_ns_.push_back(base);
  }
  for (const auto& d : run.devices)
    offset_ns_.push_back(d.has_clock_offset ? std::optional<int64_t>(d.device_to_host_offset_ns)
                                            : std::nullopt);
}

std::optional<int64_t> RunClock::at(uint32_t process, int64_t host_ns) const {
  if (host_ns == kNoTime) return std::nullopt;
  const int64_t base = process < base_ns_.size() ? base_ns_[process] : 0;
  int64_t t;
  if (__builtin_add_overflow(base, host_ns, &t)) return std::nullopt;
  return t;
}

std::optional<int64_t> RunClock::command_time(uint32_t process, uint32_t device,
                                              int64_t device_start_ns,
                                              int64_t host_begin_ns) const {
  if (device_start_ns != kNoTime && device > 0 && device <= offset_ns_.size() &&
      offset_ns_[device - 1]) {
    int64_t host;
    if (!__builtin_add_overflow(device_start_ns, *offset_ns_[device - 1], &host))
      if (auto t = at(process, host)) return t;
  }
  return at(process, host_begin_ns);
}

std::optional<int64_t> RunClock::time_of(const model::Launch& l) const {
  return command_time(l.process, l.device, l.start_ns, l.host_begin_ns);
}

std::optional<int64_t> RunClock::time_of(const model::Transfer& t) const {
  return command_time(t.process, t.device, t.start_ns, t.host_begin_ns);
}

uint64_t keep_window(model::Run& run, const TimeWindow& window) {
  const RunClock clock(run, window.origin_ns);
  uint64_t timeless = 0;
  auto keep = [&](std::optional<int64_t> t) {
    if (!t) ++timeless;
    return t && window.contains(*t);
  };
  auto filter = [](auto& items, auto&& pred) {
    items.erase(std::remove_if(items.begin(), items.end(), [&](const auto& x) { return !pred(x); }),
                items.end());
  };
  filter(run.transfers, [&](const model::Transfer& t) { return keep(clock.time_of(t)); });
  filter(run.syncs,
         [&](const model::Sync& s) { return keep(clock.at(s.process, s.host_begin_ns)); });
  filter(run.builds,
         [&](const model::Build& b) { return keep(clock.at(b.process, b.host_begin_ns)); });
  filter(run.api_calls,
         [&](const model::ApiCall& c) { return keep(clock.at(c.process, c.host_begin_ns)); });
  filter(run.marks,
         [&](const model::Run::Mark& m) { return keep(clock.at(m.process, m.host_ns)); });
  return timeless;
}

}  // namespace clprof::analyses
