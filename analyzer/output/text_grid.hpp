// The text layout of a table: rows of display texts under headers, as an aligned text table
// (columns separated by two spaces, a header line and a dashed rule) or a markdown table.
// Shrinkable columns are shortened, by character, so that lines fit a width. Used by the
// renderers (output/render.hpp) after the typed values became display texts.
#pragma once

#include <cstddef>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "output/columns.hpp"

namespace clprof::output {

struct GridColumn {
  std::string header;
  Align align = Align::Right;
  bool shrinkable = false;  // may be shortened to fit the width
  Shorten shorten = Shorten::Middle;
  size_t min_width = 16;  // a shrinkable column is never shortened below this (or its header)
};

// The display texts of row `index` (one per column; the reference may be reused).
using GridRows = std::function<const std::vector<std::string>&(size_t index)>;
// Receives the rendered text piece by piece.
using TextSink = std::function<void(std::string_view text)>;

// The aligned text table; asks each row twice (column widths, then the lines), never keeps
// them; a third time where a column is shortened to fit `width`, to collect that column's
// distinct long texts (at most 65,536 per column: past that each is shortened on its own).
// `width` SIZE_MAX: nothing is shortened.
void render_grid_text(const std::vector<GridColumn>& columns, size_t count, const GridRows& rows,
                      size_t width, const TextSink& sink);
// A GitHub-flavoured markdown table ('|' escaped, control characters made visible).
void render_grid_markdown(const std::vector<GridColumn>& columns, size_t count,
                          const GridRows& rows, const TextSink& sink);

// Collects the output in chunks of about 64 KiB before handing them to a sink.
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

// Characters (code points) in UTF-8 `text`: its width in a terminal, wide East Asian
// characters aside.
size_t display_width(std::string_view text);
// `text` with its control characters made visible: \n, \t, \r, and \xHH for the rest
// (and DEL), so that a name from the trace keeps to its row and sends the terminal nothing.
std::string visible_text(std::string_view text);
// Shortens `text` to `width` characters by replacing its middle with "..".
std::string shorten_middle(const std::string& text, size_t width);
// `text` in at most `width` columns, its start kept: "queue 1 (pthread-s..".
std::string shorten_tail(const std::string& text, size_t width);
// The one of the three `how` names.
std::string shorten_as(Shorten how, const std::string& text, size_t width);
// Shortens `text` to `width` characters by replacing its beginning with ".."; a '/'-separated
// path is cut at a separator when that keeps at least half of the width ("../conv2/relu").
std::string shorten_head(const std::string& text, size_t width);
// The distinct `texts` of one column as shown in `width` characters, in the same order: each
// shortened the column's way (`how`), except texts that would then read the same as another
// one (clpeak's "global_bandwidth_v1_global_offset" and "..._v2_..." both became
// "global_bandwi..lobal_offset"): those are shortened another way that tells them apart
// (keeping the end, the part where they differ, or the start), or shown whole if none does.
std::vector<std::string> shorten_column(const std::vector<std::string>& texts, size_t width,
                                        Shorten how);

}  // namespace clprof::output
