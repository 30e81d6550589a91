#include "output/table.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace clprof::output {

Cell text_cell(std::string text) { return Cell{text, text}; }

Cell int_cell(std::optional<int64_t> value) {
  if (!value) return Cell{"-", ""};
  return Cell{std::to_string(*value), std::to_string(*value)};
}

Cell ns_cell(std::optional<int64_t> ns) {
  if (!ns) return Cell{"-", ""};
  return Cell{format_ns(*ns), std::to_string(*ns)};
}

Cell fixed_cell(std::optional<double> value, int decimals) {
  if (!value || !std::isfinite(*value)) return Cell{"-", ""};
  char buf[64];
  // %.17g round-trips a double, so CSV consumers get the exact value we computed.
  std::snprintf(buf, sizeof buf, "%.17g", *value);
  return Cell{format_fixed(*value, decimals), buf};
}

Cell bytes_cell(uint64_t bytes) { return Cell{format_bytes(bytes), std::to_string(bytes)}; }

void Table::add_row(std::vector<Cell> row) {
  if (row.size() != columns_.size()) throw std::logic_error("table row has the wrong width");
  rows_.push_back(std::move(row));
}

std::string shorten_middle(const std::string& text, size_t width) {
  if (text.size() <= width) return text;
  if (width < 4) return text.substr(0, width);
  const size_t keep = width - 2;
  const size_t head = (keep + 1) / 2;
  return text.substr(0, head) + ".." + text.substr(text.size() - (keep - head));
}

std::string shorten_head(const std::string& text, size_t width) {
  if (text.size() <= width) return text;
  if (width < 4) return text.substr(text.size() - width);
  const size_t keep = width - 2;
  std::string tail = text.substr(text.size() - keep);
  // Start at a path separator rather than in the middle of a name, if that loses little.
  const size_t slash = tail.find('/');
  if (slash != std::string::npos && slash > 0 && tail.size() - slash - 1 >= (keep + 1) / 2)
    tail.erase(0, slash);
  return ".." + tail;
}

namespace {

static std::string csv_field(const std::string& s) {
  if (s.find_first_of(",\"\n\r") == std::string::npos) return s;
  std::string q = "\"";
  for (char ch : s) {
    if (ch == '"') q += '"';
    q += ch;
  }
  return q + "\"";
}

static std::string md_escape(const std::string& s) {
  std::string r;
  for (char ch : s) {
    if (ch == '|') r += '\\';
    r += ch;
  }
  return r;
}

// Collects the output in chunks of about 64 KiB before handing them to the sink.
class Buffered {
 public:
  explicit Buffered(const TextSink& sink) : sink_(sink) {}
  std::string& text() { return buf_; }
  void line_done() {
    if (buf_.size() >= (64u << 10)) flush();
  }
  void flush() {
    if (!buf_.empty()) sink_(buf_);
    buf_.clear();
  }

 private:
  const TextSink& sink_;
  std::string buf_;
};

template <typename Rows>
void stream_text(const std::vector<Column>& cols, size_t count, const Rows& rows, size_t width,
                 const TextSink& sink) {
  std::vector<size_t> w(cols.size());
  for (size_t c = 0; c < cols.size(); ++c) w[c] = cols[c].header.size();
  for (size_t i = 0; i < count; ++i) {
    const std::vector<Cell>& row = rows(i);
    for (size_t c = 0; c < cols.size(); ++c) w[c] = std::max(w[c], row[c].display.size());
  }
  // Give the excess to the shrinkable columns (kernel and layer names are the only long
  // cells), never below their minimum width, so the numbers stay visible in 80 columns.
  size_t total = 0;
  for (size_t c = 0; c < cols.size(); ++c) total += w[c] + (c ? 2 : 0);
  for (size_t c = 0; c < cols.size() && total > width; ++c) {
    if (!cols[c].shrinkable) continue;
    const size_t floor = std::max(cols[c].min_width, cols[c].header.size());
    if (w[c] <= floor) continue;
    const size_t cut = std::min(w[c] - floor, total - width);
    w[c] -= cut;
    total -= cut;
  }
  Buffered out(sink);
  auto emit = [&](size_t c, const std::string& s) {
    std::string& o = out.text();
    const std::string v = !cols[c].shrinkable                     ? s
                          : cols[c].shorten == Shorten::Head ? shorten_head(s, w[c])
                                                              : shorten_middle(s, w[c]);
    const bool last = c + 1 == cols.size();
    if (c) o += "  ";
    if (cols[c].align == Align::Right) o.append(w[c] - std::min(w[c], v.size()), ' ');
    o += v;
    if (cols[c].align == Align::Left && !last) o.append(w[c] - std::min(w[c], v.size()), ' ');
  };
  for (size_t c = 0; c < cols.size(); ++c) emit(c, cols[c].header);
  out.text() += '\n';
  for (size_t c = 0; c < cols.size(); ++c) {
    if (c) out.text() += "  ";
    out.text().append(w[c], '-');
  }
  out.text() += '\n';
  for (size_t i = 0; i < count; ++i) {
    const std::vector<Cell>& row = rows(i);
    for (size_t c = 0; c < cols.size(); ++c) emit(c, row[c].display);
    out.text() += '\n';
    out.line_done();
  }
  out.flush();
}

template <typename Rows>
void stream_csv(const std::vector<Column>& cols, size_t count, const Rows& rows, const TextSink& sink) {
  Buffered out(sink);
  for (size_t c = 0; c < cols.size(); ++c) out.text() += (c ? "," : "") + csv_field(cols[c].key);
  out.text() += '\n';
  for (size_t i = 0; i < count; ++i) {
    const std::vector<Cell>& row = rows(i);
    for (size_t c = 0; c < cols.size(); ++c) out.text() += (c ? "," : "") + csv_field(row[c].raw);
    out.text() += '\n';
    out.line_done();
  }
  out.flush();
}

template <typename Rows>
void stream_markdown(const std::vector<Column>& cols, size_t count, const Rows& rows,
                     const TextSink& sink) {
  Buffered out(sink);
  out.text() += "|";
  for (const auto& c : cols) out.text() += " " + md_escape(c.header) + " |";
  out.text() += "\n|";
  for (const auto& c : cols) out.text() += c.align == Align::Right ? "---:|" : "---|";
  out.text() += '\n';
  for (size_t i = 0; i < count; ++i) {
    const std::vector<Cell>& row = rows(i);
    out.text() += "|";
    for (const auto& cell : row) out.text() += " " + md_escape(cell.display) + " |";
    out.text() += '\n';
    out.line_done();
  }
  out.flush();
}

// The rows of a Table, by reference.
struct TableRows {
  const Table& table;
  const std::vector<Cell>& operator()(size_t i) const { return table.rows()[i]; }
};

// The rows of a RowSource, in one reused buffer (checked: one cell per column).
struct SourceRows {
  const RowSource& source;
  size_t width;
  mutable std::vector<Cell> row;
  const std::vector<Cell>& operator()(size_t i) const {
    row.clear();
    source(i, row);
    if (row.size() != width) throw std::logic_error("table row has the wrong width");
    return row;
  }
};

std::string collect(const std::function<void(const TextSink&)>& render) {
  std::string out;
  render([&out](std::string_view s) { out.append(s); });
  return out;
}

}  // namespace

void render_stream(const std::vector<Column>& columns, size_t count, const RowSource& source,
                   Format format, size_t width, const TextSink& sink) {
  switch (format) {
    case Format::Csv: stream_csv(columns, count, SourceRows{source, columns.size(), {}}, sink); break;
    case Format::Markdown: stream_markdown(columns, count, SourceRows{source, columns.size(), {}}, sink); break;
    default: stream_text(columns, count, SourceRows{source, columns.size(), {}}, width, sink); break;
  }
}

std::string render_text(const Table& table, size_t width) {
  return collect([&](const TextSink& sink) {
    stream_text(table.columns(), table.rows().size(), TableRows{table}, width, sink);
  });
}

std::string render_csv(const Table& table) {
  return collect([&](const TextSink& sink) {
    stream_csv(table.columns(), table.rows().size(), TableRows{table}, sink);
  });
}

std::string render_markdown(const Table& table) {
  return collect([&](const TextSink& sink) {
    stream_markdown(table.columns(), table.rows().size(), TableRows{table}, sink);
  });
}

std::string render(const Table& table, Format format, size_t width) {
  switch (format) {
    case Format::Csv: return render_csv(table);
    case Format::Markdown: return render_markdown(table);
    default: return render_text(table, width);
  }
}

}  // namespace clprof::output
