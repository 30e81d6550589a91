#include "output/text_grid.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <functional>
#include <map>
#include <set>
#include <stdexcept>

namespace clprof::output {

size_t display_width(std::string_view text) {
  size_t n = 0;
  for (const char ch : text) n += (static_cast<unsigned char>(ch) & 0xC0) != 0x80;
  return n;
}

std::string visible_text(std::string_view text) {
  std::string out;
  out.reserve(text.size() + 8);
  for (const char ch : text) {
    const auto b = static_cast<unsigned char>(ch);
    if (b >= 0x20 && b != 0x7F) {
      out += ch;
    } else if (ch == '\n') {
      out += "\\n";
    } else if (ch == '\t') {
      out += "\\t";
    } else if (ch == '\r') {
      out += "\\r";
    } else {
      static const char* hex = "0123456789abcdef";
      out += "\\x";
      out += hex[b >> 4];
      out += hex[b & 15];
    }
  }
  return out;
}

namespace {

// A UTF-8 text addressed by character (code point), as the terminal shows it: size() and
// substr() count characters, so that a cut never splits one.
class Chars {
 public:
  explicit Chars(const std::string& text) : text_(text) {
    for (size_t i = 0; i < text.size(); ++i)
      if ((static_cast<unsigned char>(text[i]) & 0xC0) != 0x80) starts_.push_back(i);
  }
  size_t size() const { return starts_.size(); }
  std::string substr(size_t pos, size_t n = std::string::npos) const {
    if (pos >= starts_.size()) return std::string();
    const size_t end = n >= starts_.size() - pos ? text_.size() : starts_[pos + n];
    return text_.substr(starts_[pos], end - starts_[pos]);
  }

 private:
  const std::string& text_;
  std::vector<size_t> starts_;
};

// Whether `text` is at most `width` characters (bytes bound characters from above).
bool fits(const std::string& text, size_t width) {
  return text.size() <= width || display_width(text) <= width;
}

}  // namespace

std::string shorten_tail(const std::string& text, size_t width) {
  if (fits(text, width)) return text;
  const Chars chars(text);
  if (width < 4) return chars.substr(0, width);
  return chars.substr(0, width - 2) + "..";
}

std::string shorten_as(Shorten how, const std::string& text, size_t width) {
  switch (how) {
    case Shorten::Head:
      return shorten_head(text, width);
    case Shorten::Tail:
      return shorten_tail(text, width);
    case Shorten::Middle:
      break;
  }
  return shorten_middle(text, width);
}

std::string shorten_middle(const std::string& text, size_t width) {
  if (fits(text, width)) return text;
  const Chars chars(text);
  if (width < 4) return chars.substr(0, width);
  const size_t keep = width - 2;
  const size_t head = (keep + 1) / 2;
  return chars.substr(0, head) + ".." + chars.substr(chars.size() - (keep - head));
}

namespace {

// `text` shortened to `width` with the part at `diff` (where it differs from texts that
// would otherwise read the same) kept: a few leading characters, "..", a window from a
// little before `diff`, and ".." unless the window reaches the end.
// (`diff` counts characters.)
std::string shorten_around(const std::string& text, size_t width, size_t diff) {
  if (fits(text, width)) return text;
  const Chars chars(text);
  if (width < 10 || diff >= chars.size()) return shorten_middle(text, width);
  const size_t head = std::min<size_t>(8, (width - 4) / 3);
  const size_t to_end = width - 2 - head;  // a window that runs to the end, after one ".."
  if (chars.size() - to_end <= diff)
    return chars.substr(0, head) + ".." + chars.substr(chars.size() - to_end);
  const size_t window = width - 4 - head;
  const size_t start = std::max(head, diff - std::min(diff, window / 3));
  if (start <= head) return chars.substr(0, width - 2) + "..";
  return chars.substr(0, head) + ".." + chars.substr(start, window) + "..";
}

// Characters a and b share at their start.
size_t common_prefix(const std::string& a, const std::string& b) {
  size_t n = 0;
  while (n < a.size() && n < b.size() && a[n] == b[n]) ++n;
  return display_width(std::string_view(a).substr(0, n));  // a split character: not shared
}

}  // namespace

std::vector<std::string> shorten_column(const std::vector<std::string>& texts, size_t width,
                                        Shorten how) {
  const auto preferred = [&](const std::string& t) { return shorten_as(how, t, width); };
  std::vector<std::string> shown;
  shown.reserve(texts.size());
  for (const std::string& t : texts) shown.push_back(preferred(t));
  std::map<std::string, std::vector<size_t>> by_shown;
  for (size_t i = 0; i < texts.size(); ++i) by_shown[shown[i]].push_back(i);
  std::set<std::string> taken;  // what every text reads as, kept current as groups change
  for (const auto& [text, members] : by_shown) taken.insert(text);
  for (const auto& group : by_shown) {
    // Not a structured binding: lambdas below capture `members` (C++20; clang 14 refuses).
    const std::string& text = group.first;
    const std::vector<size_t>& members = group.second;
    if (members.size() < 2) continue;
    // Where each member differs from the others of its group (the furthest first difference).
    std::vector<size_t> diff(members.size(), 0);
    for (size_t a = 0; a < members.size(); ++a)
      for (size_t b = 0; b < members.size(); ++b)
        if (a != b)
          diff[a] = std::max(diff[a], common_prefix(texts[members[a]], texts[members[b]]));
    const std::function<std::string(size_t)> ways[] = {
        [&](size_t k) { return shorten_head(texts[members[k]], width); },
        [&](size_t k) { return shorten_around(texts[members[k]], width, diff[k]); },
        [&](size_t k) {
          const std::string& t = texts[members[k]];
          return fits(t, width) ? t : Chars(t).substr(0, width - 2) + "..";
        },
        [&](size_t k) { return texts[members[k]]; },  // whole: wider than the column
    };
    taken.erase(text);
    for (const auto& way : ways) {
      std::vector<std::string> candidate;
      std::set<std::string> seen;
      bool distinct = true;
      for (size_t k = 0; k < members.size() && distinct; ++k) {
        candidate.push_back(way(k));
        distinct = seen.insert(candidate.back()).second && taken.count(candidate.back()) == 0;
      }
      if (!distinct) continue;
      for (size_t k = 0; k < members.size(); ++k) {
        shown[members[k]] = candidate[k];
        taken.insert(candidate[k]);
      }
      break;
    }
  }
  return shown;
}

std::string shorten_head(const std::string& text, size_t width) {
  if (fits(text, width)) return text;
  const Chars chars(text);
  if (width < 4) return chars.substr(chars.size() - width);
  const size_t keep = width - 2;
  std::string tail = chars.substr(chars.size() - keep);
  // Start at a path separator rather than in the middle of a name, if that loses little.
  const size_t slash = tail.find('/');
  if (slash != std::string::npos && slash > 0 &&
      display_width(std::string_view(tail).substr(slash + 1)) >= (keep + 1) / 2)
    tail.erase(0, slash);
  return ".." + tail;
}

namespace {

static std::string md_escape(const std::string& s) {
  std::string r;
  for (char ch : visible_text(s)) {
    if (ch == '|') r += '\\';
    r += ch;
  }
  return r;
}

// `text` as the terminal is to show it: itself (no copy) unless it holds control
// characters, which would break the row or reach the terminal as commands (visible_text).
const std::string& visible(const std::string& text, std::string& scratch) {
  for (const char ch : text) {
    const auto b = static_cast<unsigned char>(ch);
    if (b < 0x20 || b == 0x7F) {
      scratch = visible_text(text);
      return scratch;
    }
  }
  return text;
}

template <typename Rows>
void stream_text(const std::vector<GridColumn>& cols, size_t count, const Rows& rows, size_t width,
                 const TextSink& sink) {
  std::vector<size_t> w(cols.size());
  std::vector<size_t> narrowest(cols.size());
  for (size_t c = 0; c < cols.size(); ++c) {
    w[c] = display_width(cols[c].header);
    narrowest[c] = cols[c].shrinkable ? std::max(cols[c].min_width, w[c]) : SIZE_MAX;
  }
  std::string scratch;
  for (size_t i = 0; i < count; ++i) {
    const std::vector<std::string>& row = rows(i);
    for (size_t c = 0; c < cols.size(); ++c)
      w[c] = std::max(w[c], display_width(visible(row[c], scratch)));
  }
  const std::vector<size_t> widest = w;  // before any shortening
  // Give the excess to the shrinkable columns (kernel and layer names are the only long
  // cells), never below their minimum width, so the numbers stay visible in 80 columns.
  // The widest shrink first: every shrinkable column is capped at one width `cap`, the
  // largest that fits (a 150-character kernel list gives way before 14 characters of build
  // options), and no column below its floor.
  size_t total = 0;
  for (size_t c = 0; c < cols.size(); ++c) total += w[c] + (c ? 2 : 0);
  if (total > width) {
    auto floor_of = [&](size_t c) {
      return std::max(cols[c].min_width, display_width(cols[c].header));
    };
    auto total_at = [&](size_t cap) {
      size_t t = 0;
      for (size_t c = 0; c < cols.size(); ++c) {
        const size_t cw = cols[c].shrinkable ? std::min(w[c], std::max(floor_of(c), cap)) : w[c];
        t += cw + (c ? 2 : 0);
      }
      return t;
    };
    size_t lo = 0, hi = 0;  // the largest cap in [lo, hi] whose total fits (lo: all at floors)
    for (size_t c = 0; c < cols.size(); ++c) hi = std::max(hi, w[c]);
    while (lo < hi) {
      const size_t mid = lo + (hi - lo + 1) / 2;
      if (total_at(mid) <= width)
        lo = mid;
      else
        hi = mid - 1;
    }
    // One more character of cap would not fit for all capped columns together: what is
    // left goes to them one each, left to right.
    size_t left = width > total_at(lo) ? width - total_at(lo) : 0;
    for (size_t c = 0; c < cols.size(); ++c) {
      if (!cols[c].shrinkable) continue;
      const size_t capped = std::min(w[c], std::max(floor_of(c), lo));
      const bool more = left > 0 && capped == lo && w[c] > lo;
      w[c] = capped + (more ? 1 : 0);
      left -= more ? 1 : 0;
    }
  }
  // The distinct texts of each column that is shortened (a text of it is wider than its
  // width now), longer than the column's narrowest: a further pass over the rows, only then
  // (a table that fits, and any table not cut to a width, keeps nothing per row). Few where
  // kernel and layer names repeat; past kMaxShortenedTexts in one column (numbered layer
  // paths) the column's texts are each shortened its way, without the check that they read
  // apart, so that the memory stays bounded.
  constexpr size_t kMaxShortenedTexts = 65536;
  std::vector<std::set<std::string>> distinct(cols.size());
  std::vector<bool> collect(cols.size(), false);
  bool any = false;
  for (size_t c = 0; c < cols.size(); ++c) any |= collect[c] = widest[c] > w[c];
  for (size_t i = 0; any && i < count; ++i) {
    const std::vector<std::string>& row = rows(i);
    for (size_t c = 0; c < cols.size(); ++c) {
      if (!collect[c]) continue;
      const std::string& text = visible(row[c], scratch);
      if (display_width(text) <= narrowest[c]) continue;
      distinct[c].insert(text);
      if (distinct[c].size() > kMaxShortenedTexts) {
        distinct[c].clear();
        collect[c] = false;
      }
    }
  }
  // How each text of a shortened column reads: texts must not read alike.
  std::vector<std::map<std::string, std::string>> shown(cols.size());
  for (size_t c = 0; c < cols.size(); ++c) {
    if (distinct[c].empty()) continue;
    const std::vector<std::string> texts(distinct[c].begin(), distinct[c].end());
    const std::vector<std::string> as = shorten_column(texts, w[c], cols[c].shorten);
    for (size_t k = 0; k < texts.size(); ++k) shown[c].emplace(texts[k], as[k]);
  }
  Buffered out(sink);
  auto emit = [&](size_t c, const std::string& text) {
    std::string& o = out.text();
    const std::string& s = visible(text, scratch);
    std::string v = s;
    if (cols[c].shrinkable && !fits(s, w[c])) {
      const auto it = shown[c].find(s);
      // (Every text wider than the column was collected above; the rest is a safeguard.)
      v = it != shown[c].end() ? it->second : shorten_as(cols[c].shorten, s, w[c]);
    }
    const bool last = c + 1 == cols.size();
    if (c) o += "  ";
    const size_t chars = display_width(v);
    if (cols[c].align == Align::Right) o.append(w[c] - std::min(w[c], chars), ' ');
    o += v;
    if (cols[c].align == Align::Left && !last) o.append(w[c] - std::min(w[c], chars), ' ');
  };
  for (size_t c = 0; c < cols.size(); ++c) emit(c, cols[c].header);
  out.text() += '\n';
  for (size_t c = 0; c < cols.size(); ++c) {
    if (c) out.text() += "  ";
    out.text().append(w[c], '-');
  }
  out.text() += '\n';
  for (size_t i = 0; i < count; ++i) {
    const std::vector<std::string>& row = rows(i);
    for (size_t c = 0; c < cols.size(); ++c) emit(c, row[c]);
    // Blank cells at the end of a line (a nested row's missing columns) leave no spaces.
    std::string& t = out.text();
    while (!t.empty() && t.back() == ' ') t.pop_back();
    t += '\n';
    out.line_done();
  }
  out.flush();
}

template <typename Rows>
void stream_markdown(const std::vector<GridColumn>& cols, size_t count, const Rows& rows,
                     const TextSink& sink) {
  Buffered out(sink);
  out.text() += "|";
  for (const auto& c : cols) out.text() += " " + md_escape(c.header) + " |";
  out.text() += "\n|";
  for (const auto& c : cols) out.text() += c.align == Align::Right ? "---:|" : "---|";
  out.text() += '\n';
  for (size_t i = 0; i < count; ++i) {
    const std::vector<std::string>& row = rows(i);
    out.text() += "|";
    for (const auto& cell : row) out.text() += " " + md_escape(cell) + " |";
    out.text() += '\n';
    out.line_done();
  }
  out.flush();
}

}  // namespace

void render_grid_text(const std::vector<GridColumn>& columns, size_t count, const GridRows& rows,
                      size_t width, const TextSink& sink) {
  stream_text(columns, count, rows, width, sink);
}

void render_grid_markdown(const std::vector<GridColumn>& columns, size_t count,
                          const GridRows& rows, const TextSink& sink) {
  stream_markdown(columns, count, rows, sink);
}

}  // namespace clprof::output
