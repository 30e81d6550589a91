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

std::string render_text(const Table& table, size_t width) {
  const auto& cols = table.columns();
  std::vector<size_t> w(cols.size());
  for (size_t c = 0; c < cols.size(); ++c) {
    w[c] = cols[c].header.size();
    for (const auto& row : table.rows()) w[c] = std::max(w[c], row[c].display.size());
  }
  // Give the excess to the shrinkable columns (kernel and layer names are the only long
  // cells), never below 16 characters, so the numbers stay visible in 80 columns.
  size_t total = 0;
  for (size_t c = 0; c < cols.size(); ++c) total += w[c] + (c ? 2 : 0);
  for (size_t c = 0; c < cols.size() && total > width; ++c) {
    if (!cols[c].shrinkable) continue;
    const size_t floor = std::max<size_t>(16, cols[c].header.size());
    if (w[c] <= floor) continue;
    const size_t cut = std::min(w[c] - floor, total - width);
    w[c] -= cut;
    total -= cut;
  }
  std::string out;
  auto emit = [&](size_t c, const std::string& s) {
    const std::string v = cols[c].shrinkable ? shorten_middle(s, w[c]) : s;
    const bool last = c + 1 == cols.size();
    if (c) out += "  ";
    if (cols[c].align == Align::Right) out += std::string(w[c] - std::min(w[c], v.size()), ' ');
    out += v;
    if (cols[c].align == Align::Left && !last) out += std::string(w[c] - std::min(w[c], v.size()), ' ');
  };
  for (size_t c = 0; c < cols.size(); ++c) emit(c, cols[c].header);
  out += '\n';
  for (size_t c = 0; c < cols.size(); ++c) {
    if (c) out += "  ";
    out += std::string(w[c], '-');
  }
  out += '\n';
  for (const auto& row : table.rows()) {
    for (size_t c = 0; c < cols.size(); ++c) emit(c, row[c].display);
    out += '\n';
  }
  return out;
}

static std::string csv_field(const std::string& s) {
  if (s.find_first_of(",\"\n\r") == std::string::npos) return s;
  std::string q = "\"";
  for (char ch : s) {
    if (ch == '"') q += '"';
    q += ch;
  }
  return q + "\"";
}

std::string render_csv(const Table& table) {
  std::string out;
  const auto& cols = table.columns();
  for (size_t c = 0; c < cols.size(); ++c) out += (c ? "," : "") + csv_field(cols[c].key);
  out += '\n';
  for (const auto& row : table.rows()) {
    for (size_t c = 0; c < cols.size(); ++c) out += (c ? "," : "") + csv_field(row[c].raw);
    out += '\n';
  }
  return out;
}

static std::string md_escape(const std::string& s) {
  std::string r;
  for (char ch : s) {
    if (ch == '|') r += '\\';
    r += ch;
  }
  return r;
}

std::string render_markdown(const Table& table) {
  const auto& cols = table.columns();
  std::string out = "|";
  for (const auto& c : cols) out += " " + md_escape(c.header) + " |";
  out += "\n|";
  for (const auto& c : cols) out += c.align == Align::Right ? "---:|" : "---|";
  out += '\n';
  for (const auto& row : table.rows()) {
    out += "|";
    for (const auto& cell : row) out += " " + md_escape(cell.display) + " |";
    out += '\n';
  }
  return out;
}

std::string render(const Table& table, Format format, size_t width) {
  switch (format) {
    case Format::Csv: return render_csv(table);
    case Format::Markdown: return render_markdown(table);
    default: return render_text(table, width);
  }
}

}  // namespace clprof::output
