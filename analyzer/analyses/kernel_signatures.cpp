#include "analyses/kernel_signatures.hpp"

#include <cctype>

namespace clprof::analyses {

namespace {

bool ident_char(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) || c == '_';
}

// `source` with comments replaced by spaces (string literals do not occur in kernel
// signatures, so they are not tracked).
std::string without_comments(std::string_view s) {
  std::string out(s);
  for (size_t i = 0; i + 1 < out.size(); ++i) {
    if (out[i] == '/' && out[i + 1] == '/') {
      while (i < out.size() && out[i] != '\n') out[i++] = ' ';
    } else if (out[i] == '/' && out[i + 1] == '*') {
      out[i] = out[i + 1] = ' ';
      for (i += 2; i < out.size() && !(out[i] == '*' && i + 1 < out.size() && out[i + 1] == '/');
           ++i)
        out[i] = ' ';
      if (i + 1 < out.size()) out[i] = out[i + 1] = ' ';
    }
  }
  return out;
}

ScalarType param_type(std::string_view p) {
  if (p.find('*') != std::string_view::npos) return ScalarType::Unknown;
  ScalarType t = ScalarType::Unknown;
  size_t i = 0;
  while (i < p.size()) {
    if (!ident_char(p[i])) {
      ++i;
      continue;
    }
    size_t j = i;
    while (j < p.size() && ident_char(p[j])) ++j;
    const std::string_view word = p.substr(i, j - i);
    if (word == "float")
      t = ScalarType::Float;
    else if (word == "double")
      t = ScalarType::Double;
    else if (word == "half")
      t = ScalarType::Half;
    i = j;
  }
  return t;
}

}  // namespace

std::vector<ScalarType> kernel_param_types(std::string_view source, std::string_view kernel) {
  if (kernel.empty()) return {};
  const std::string s = without_comments(source);
  for (size_t at = s.find(kernel); at != std::string::npos; at = s.find(kernel, at + 1)) {
    const size_t end = at + kernel.size();
    if ((at > 0 && ident_char(s[at - 1])) || (end < s.size() && ident_char(s[end]))) continue;
    // `void` right before the name (a kernel returns void).
    size_t b = at;
    while (b > 0 && std::isspace(static_cast<unsigned char>(s[b - 1]))) --b;
    if (b < 4 || s.compare(b - 4, 4, "void") != 0 || (b > 4 && ident_char(s[b - 5]))) continue;
    size_t p = end;
    while (p < s.size() && std::isspace(static_cast<unsigned char>(s[p]))) ++p;
    if (p >= s.size() || s[p] != '(') continue;
    std::vector<ScalarType> types;
    int depth = 0;
    size_t start = p + 1;
    for (size_t i = p + 1; i < s.size(); ++i) {
      const char c = s[i];
      if (c == '(' || c == '[')
        ++depth;
      else if ((c == ')' || c == ']') && depth > 0)
        --depth;
      else if ((c == ',' || c == ')') && depth == 0) {
        const std::string_view param(s.data() + start, i - start);
        if (c == ')' && types.empty() &&
            param.find_first_not_of(" \t\r\n") == std::string_view::npos)
          return {};
        types.push_back(param_type(param));
        start = i + 1;
        if (c == ')') return types;
      }
    }
    return {};  // unterminated list
  }
  return {};
}

std::vector<ScalarType> arg_type_name_types(const std::vector<std::string>& type_names) {
  std::vector<ScalarType> out;
  out.reserve(type_names.size());
  for (const auto& name : type_names)
    out.push_back(param_type(name));  // a declaration without its name
  return out;
}

}  // namespace clprof::analyses
