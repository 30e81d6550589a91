#include "output/output_names.hpp"

#include <cstdio>

namespace clprof::shim {

std::string expand_output_path(std::string_view pattern, long pid, long root_pid,
                               bool suffix_children, const NameFields& fields) {
  const std::string pid_text = std::to_string(pid);
  std::string host = fields.host;
  for (char& c : host)
    if (c == '/') c = '_';
  std::string out;
  bool had_pid = false;
  for (std::size_t i = 0; i < pattern.size(); ++i) {
    const char next = i + 1 < pattern.size() ? pattern[i + 1] : '\0';
    if (pattern[i] == '%' && next == 'p') {
      out += pid_text;
      had_pid = true;
      ++i;
    } else if (pattern[i] == '%' && next == 'r') {
      out += fields.rank;
      ++i;
    } else if (pattern[i] == '%' && next == 'h') {
      out += host;
      ++i;
    } else {
      out += pattern[i];
    }
  }
  if (had_pid || !suffix_children || root_pid == 0 || root_pid == pid) return out;
  return insert_before_extension(out, "." + pid_text);
}

std::string insert_before_extension(std::string_view path, std::string_view text) {
  const std::size_t slash = path.rfind('/');
  const std::size_t base = slash == std::string::npos ? 0 : slash + 1;
  std::size_t dot = path.rfind('.');
  // "run.json.zst": the extension is ".json.zst" (run.<pid>.json.zst).
  if (dot != std::string::npos && dot > base && path.substr(dot) == ".zst") {
    const std::size_t inner = path.rfind('.', dot - 1);
    if (inner != std::string::npos && inner > base) dot = inner;
  }
  // A leading dot (".trace") is a hidden file's name, not an extension.
  if (dot == std::string::npos || dot <= base) return std::string(path) + std::string(text);
  return std::string(path.substr(0, dot)) + std::string(text) + std::string(path.substr(dot));
}

std::uint64_t fnv1a64(std::uint64_t state, const void* data, std::size_t n) {
  const auto* p = static_cast<const unsigned char*>(data);
  for (std::size_t i = 0; i < n; ++i) {
    state ^= p[i];
    state *= 0x100000001b3ULL;
  }
  return state;
}

std::string source_hash_text(std::uint64_t hash) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "fnv1a64:%016llx", static_cast<unsigned long long>(hash));
  return buf;
}

}  // namespace clprof::shim
