#include "fake_config.hpp"

#include <cstdio>
#include <cstdlib>
#include <limits>
#include <utility>

namespace clprof::fake {

Injection::Injection(std::string name, std::vector<Rule> rules)
    : name_(std::move(name)), rules_(std::move(rules)) {}

cl_int Injection::hit() {
  const std::uint64_t n = calls_.fetch_add(1, std::memory_order_relaxed) + 1;
  for (const Rule& r : rules_)
    if (n >= r.first && n <= r.last && (r.every == 0 || n % r.every == 0)) return r.code;
  return CL_SUCCESS;
}

namespace {

std::string env_or(const char* name, const char* fallback) {
  const char* v = std::getenv(name);
  return v ? std::string(v) : std::string(fallback);
}

std::vector<std::string> split(const std::string& s, char sep) {
  std::vector<std::string> out;
  std::string cur;
  for (char c : s) {
    if (c == sep) {
      out.push_back(cur);
      cur.clear();
    } else {
      cur += c;
    }
  }
  out.push_back(cur);
  return out;
}

bool parse_u64(const std::string& s, std::uint64_t& out) {
  if (s.empty()) return false;
  char* end = nullptr;
  out = std::strtoull(s.c_str(), &end, 10);
  return end && *end == '\0';
}

// A malformed spec is a bug in the test that set it: say so loudly instead of silently
// running the test without the injected behaviour.
void complain(const char* var, const std::string& value) {
  std::fprintf(stderr, "clprof fake ICD: ignoring malformed %s=\"%s\"\n", var, value.c_str());
}

void parse_fail_spec(Config& cfg) {
  const std::string spec = env_or("FAKE_CL_FAIL", "");
  if (spec.empty()) return;
  // Several rules may name the same entry point; each entry point gets one call counter.
  std::vector<std::pair<std::string, std::vector<Injection::Rule>>> rules;
  for (const std::string& item : split(spec, ',')) {
    const std::vector<std::string> parts = split(item, ':');
    if (parts.size() != 3) {
      complain("FAKE_CL_FAIL", item);
      continue;
    }
    Injection::Rule rule{};
    const std::string& when = parts[1];
    std::uint64_t n = 0;
    if (when == "*") {
      rule.first = 1;
      rule.last = std::numeric_limits<std::uint64_t>::max();
    } else if (!when.empty() && when.back() == '+' &&
               parse_u64(when.substr(0, when.size() - 1), n) && n > 0) {
      rule.first = n;
      rule.last = std::numeric_limits<std::uint64_t>::max();
    } else if (!when.empty() && when[0] == '%' && parse_u64(when.substr(1), n) && n > 0) {
      rule.first = 1;
      rule.last = std::numeric_limits<std::uint64_t>::max();
      rule.every = n;
    } else if (parse_u64(when, n) && n > 0) {
      rule.first = rule.last = n;
    } else {
      complain("FAKE_CL_FAIL", item);
      continue;
    }
    char* end = nullptr;
    const long code = std::strtol(parts[2].c_str(), &end, 10);
    if (parts[2].empty() || *end != '\0') {
      complain("FAKE_CL_FAIL", item);
      continue;
    }
    rule.code = static_cast<cl_int>(code);
    auto it = rules.begin();
    while (it != rules.end() && it->first != parts[0]) ++it;
    if (it == rules.end()) {
      rules.emplace_back(parts[0], std::vector<Injection::Rule>{});
      it = rules.end() - 1;
    }
    it->second.push_back(rule);
  }
  for (auto& [name, list] : rules) cfg.injections.push_back(new Injection(name, list));
}

void parse_event_mode(Config& cfg) {
  const std::string mode = env_or("FAKE_CL_EVENT_MODE", "immediate");
  if (mode == "immediate") {
    cfg.event_mode = EventMode::kImmediate;
  } else if (mode == "on_wait") {
    cfg.event_mode = EventMode::kOnWait;
  } else if (mode == "never") {
    cfg.event_mode = EventMode::kNever;
  } else if (mode.rfind("polls:", 0) == 0) {
    std::uint64_t k = 0;
    if (parse_u64(mode.substr(6), k) && k < 1000000) {
      cfg.event_mode = EventMode::kPolls;
      cfg.event_polls = static_cast<int>(k);
    } else {
      complain("FAKE_CL_EVENT_MODE", mode);
    }
  } else {
    complain("FAKE_CL_EVENT_MODE", mode);
  }
  cfg.event_mode_kernel = env_or("FAKE_CL_EVENT_MODE_KERNEL", "");
}

// FAKE_CL_EXEC_ERROR=KERNEL:CODE (CODE negative).
void parse_exec_error(Config& cfg) {
  const std::string spec = env_or("FAKE_CL_EXEC_ERROR", "");
  if (spec.empty()) return;
  const std::size_t colon = spec.rfind(':');
  std::uint64_t code = 0;
  if (colon == std::string::npos || colon == 0 || spec.compare(colon + 1, 1, "-") != 0 ||
      !parse_u64(spec.substr(colon + 2), code) || code == 0 || code > 1000000) {
    complain("FAKE_CL_EXEC_ERROR", spec);
    return;
  }
  cfg.exec_error_kernel = spec.substr(0, colon);
  cfg.exec_error_code = -static_cast<int>(code);
}

Config* load() {
  auto* cfg = new Config();
  parse_fail_spec(*cfg);
  parse_event_mode(*cfg);
  parse_exec_error(*cfg);
  const std::string timer = env_or("FAKE_CL_HOST_TIMER", "1");
  if (timer == "0") {
    cfg->host_timer = false;
  } else if (timer != "1") {
    complain("FAKE_CL_HOST_TIMER", timer);
  }
  const char* token = std::getenv("FAKE_CL_BUILD_FAIL_TOKEN");
  if (token && *token) cfg->build_fail_token = token;
  const char* report = std::getenv("FAKE_CL_REPORT");
  if (report && *report) cfg->report_path = report;
  const std::string delay = env_or("FAKE_CL_QUERY_DELAY_US", "0");
  std::uint64_t us = 0;
  if (parse_u64(delay, us) && us <= 1000000) {
    cfg->query_delay_ns = us * 1000;
  } else {
    complain("FAKE_CL_QUERY_DELAY_US", delay);
  }
  const std::string refcount_delay = env_or("FAKE_CL_REFCOUNT_DELAY_US", "0");
  if (parse_u64(refcount_delay, us) && us <= 1000000) {
    cfg->refcount_delay_ns = us * 1000;
  } else {
    complain("FAKE_CL_REFCOUNT_DELAY_US", refcount_delay);
  }
  return cfg;
}

}  // namespace

const Config& config() {
  // Leaked on purpose: the app (and the shim) may call OpenCL from atexit handlers and
  // static destructors, after our own statics would have been destroyed.
  static const Config* cfg = load();
  return *cfg;
}

Injection* find_injection(std::string_view name) {
  for (Injection* inj : config().injections)
    if (inj->name() == name) return inj;
  return nullptr;
}

}  // namespace clprof::fake
