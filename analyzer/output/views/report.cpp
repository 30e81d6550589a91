#include "output/views/report.hpp"
#include "analyses/stats.hpp"

#include <algorithm>
#include <ctime>
#include <functional>
#include <map>
#include <optional>

#include "format.hpp"
#include "output/tables/api.hpp"
#include "output/tables/builds.hpp"
#include "output/tables/compare.hpp"
#include "output/tables/gemm.hpp"
#include "output/tables/kernels.hpp"
#include "output/tables/layers.hpp"
#include "output/tables/ranks.hpp"
#include "output/tables/summary.hpp"
#include "output/tables/transfers.hpp"
#include "output/views/report_charts.hpp"
#include "output/views/report_table.hpp"
#include "output/views/svg.hpp"

namespace clprof::output::report {

namespace {

using svg::escape;

// Print-friendly, readable without colour; system fonts only (nothing is fetched).
constexpr const char* kStyle = R"css(
:root{--ink:#222;--muted:#5f6670;--line:#e2e5e9;--bg:#f5f6f8;--accent:#4477AA}
*{box-sizing:border-box}
body{margin:0;font:14px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,"Helvetica Neue","Noto Sans","DejaVu Sans",Arial,sans-serif;color:var(--ink);background:var(--bg)}
header{background:#1f2d3d;color:#fff;padding:18px 32px 16px}
header h1{margin:0;font-size:21px;font-weight:600;letter-spacing:.01em}
header .sub{color:#c5d0dc;margin:4px 0 0;font-size:13px;word-break:break-all}
nav{position:sticky;top:0;z-index:2;background:#fff;border-bottom:1px solid var(--line);padding:7px 32px;font-size:13px}
nav a{margin-right:18px;color:var(--accent);text-decoration:none}
nav a:hover{text-decoration:underline}
main{max-width:1400px;margin:0 auto;padding:12px 32px 40px}
section{background:#fff;border:1px solid var(--line);border-radius:8px;padding:16px 20px 14px;margin:14px 0}
h2{font-size:17px;margin:0 0 2px}
h3{font-size:15px;margin:14px 0 4px}
h4{font-size:13px;margin:12px 0 4px;color:#333}
.lead{color:var(--muted);margin:0 0 10px;font-size:13px}
.cards{display:grid;grid-template-columns:repeat(auto-fill,minmax(165px,1fr));gap:12px;margin:4px 0}
.card{border:1px solid var(--line);border-top:3px solid var(--accent);border-radius:8px;padding:10px 14px;background:#fff}
.card .k{color:var(--muted);font-size:11.5px;text-transform:uppercase;letter-spacing:.05em}
.card .v{font-size:23px;font-weight:600;margin-top:2px;font-variant-numeric:tabular-nums;white-space:nowrap}
.card .s{color:var(--muted);font-size:12px}
.card .s .slower{color:#CC3311;font-weight:600}.card .s .faster{color:#117733;font-weight:600}
svg.chart{width:100%;max-width:1200px;height:auto;display:block;margin:6px 0;font-family:inherit}
section{overflow-x:auto}
svg .tick{font-size:11px;fill:#666}
svg .label{font-size:12px;fill:#222}
svg .value{font-size:11px;fill:#444}
svg .value.slower{fill:#CC3311;font-weight:600}
svg .value.faster{fill:#117733;font-weight:600}
svg .legend{font-size:12px;fill:#333}
svg .axis-label{font-size:12px;fill:#555}
svg .peak-label{font-size:12px;fill:#CC3311;font-weight:600}
svg rect.bar:hover,svg rect.seg:hover,svg rect.span:hover,svg circle.point:hover{opacity:.75}
svg circle.point{stroke:#fff;stroke-width:1.2}
svg circle.outlier{stroke:#555;stroke-width:1}
svg rect.box{stroke:#4477AA;stroke-width:1.2}
.note{color:var(--muted);font-size:12.5px;margin:4px 0}
ol.findings{margin:4px 0;padding-left:22px}
ol.findings li{margin:0 0 10px;overflow-wrap:anywhere}
ol.findings li.warning::marker{color:#CC3311;font-weight:600}
ol.findings .rule{color:var(--muted);font-size:12px}
ol.findings em{color:#CC3311;font-style:normal;font-weight:600}
.table-wrap{max-height:480px;overflow:auto;border:1px solid var(--line);border-radius:6px;margin:6px 0 10px}
table{border-collapse:collapse;width:100%;font-size:12.5px;font-variant-numeric:tabular-nums}
th,td{padding:4px 9px;border-bottom:1px solid var(--line);text-align:left;white-space:nowrap}
td:first-child{max-width:460px;overflow:hidden;text-overflow:ellipsis}
.num{text-align:right}
table.sortable th{position:sticky;top:0;background:#eef1f5;cursor:pointer;user-select:none}
table.sortable th:hover{background:#e2e7ee}
th[aria-sort=ascending]::after{content:" \25B2"}
th[aria-sort=descending]::after{content:" \25BC"}
tbody tr:hover{background:#f4f7fb}
table.kv{width:auto;margin:6px 0 10px}
table.kv th{background:none;color:var(--muted);font-weight:normal;cursor:default}
details>summary{cursor:pointer;font-weight:600;margin:6px 0;font-size:14px}
footer{color:var(--muted);font-size:12px;max-width:1400px;margin:0 auto;padding:0 32px 28px}
@media (max-width:1000px){main{padding:8px 10px 30px}section{padding:12px 12px 10px}
header,nav{padding-left:12px;padding-right:12px}footer{padding:0 12px 20px}
svg.chart{width:900px;max-width:none}}
@media print{nav{display:none}body{background:#fff}section{break-inside:avoid;border:none;padding:0}
.table-wrap{max-height:none;overflow:visible}header{background:#fff;color:#000}header .sub{color:#333}}
)css";

// Sorts a table by the clicked column: numbers (data-v) largest first, texts A-Z, unknown
// values last either way; a second click reverses.
constexpr const char* kScript = R"js(
document.querySelectorAll('table.sortable').forEach(function (t) {
  var heads = t.tHead.rows[0].cells;
  Array.prototype.forEach.call(heads, function (th, i) {
    th.addEventListener('click', function () {
      var num = th.getAttribute('data-type') === 'num';
      var was = th.getAttribute('aria-sort');
      var asc = was ? was === 'descending' : !num;
      Array.prototype.forEach.call(heads, function (h) { h.removeAttribute('aria-sort'); });
      th.setAttribute('aria-sort', asc ? 'ascending' : 'descending');
      var body = t.tBodies[0], rows = Array.prototype.slice.call(body.rows);
      rows.sort(function (a, b) {
        var x = a.cells[i], y = b.cells[i];
        if (num) {
          var p = x.getAttribute('data-v'), q = y.getAttribute('data-v');
          if (p === null || q === null) return p === q ? 0 : (p === null ? 1 : -1);
          var d = parseFloat(p) - parseFloat(q);
          return asc ? d : -d;
        }
        var c = x.textContent.localeCompare(y.textContent);
        return asc ? c : -c;
      });
      rows.forEach(function (r) { body.appendChild(r); });
    });
  });
});
)js";

std::string date_text(int64_t unix_ns) {
  const std::time_t s = static_cast<std::time_t>(unix_ns / 1000000000);
  std::tm tm{};
  if (!gmtime_r(&s, &tm)) return "";
  char buf[64];
  std::strftime(buf, sizeof buf, "%Y-%m-%d %H:%M UTC", &tm);
  return buf;
}

struct Card {
  std::string key, value, sub;
};

std::string cards_html(const std::vector<Card>& cards) {
  std::string h = "<div class=\"cards\">";
  for (const auto& c : cards)
    h += "<div class=\"card\"><div class=\"k\">" + escape(c.key) + "</div><div class=\"v\">" +
         escape(c.value) + "</div><div class=\"s\">" + c.sub + "</div></div>";  // sub: already HTML
  return h + "</div>";
}

// The figures of the cards, as text (unknown: "–") and as a number (for the change).
struct Figure {
  std::string key, sub;
  std::function<std::optional<double>(const analyses::Summary&)> value;
  std::function<std::string(double)> text;
};

std::vector<Figure> figures() {
  using S = analyses::Summary;
  auto dur = [](double ns) { return svg::si_ns(ns, 4); };
  return {
      {"Wall time", "first to last host event",
       [](const S& s) -> std::optional<double> {
         return s.run.wall_ns ? std::optional<double>(static_cast<double>(*s.run.wall_ns))
                              : std::nullopt;
       },
       dur},
      {"Device busy", "union of kernel intervals",
       [](const S& s) -> std::optional<double> {
         return s.launches_known ? std::optional<double>(static_cast<double>(s.run.device_busy_ns))
                                 : std::nullopt;
       },
       dur},
      {"Utilisation", "device busy / wall time", [](const S& s) { return s.run.utilization; },
       [](double v) { return format_fixed(v, 1) + " %"; }},
      {"Launches", "kernel launches",
       [](const S& s) -> std::optional<double> {
         return s.launches_known ? std::optional<double>(static_cast<double>(s.run.launches))
                                 : std::nullopt;
       },
       [](double v) { return std::to_string(static_cast<uint64_t>(v)); }},
      {"GEMM work", "2·M·N·K·batch of decoded GEMMs",
       [](const S& s) -> std::optional<double> {
         return s.launches_known && s.run.gflop_total
                    ? std::optional<double>(*s.run.gflop_total * 1e9)
                    : std::nullopt;
       },
       [](double v) { return svg::si(v, "FLOP"); }},
      {"Bytes moved", "reads, writes, copies, fills",
       [](const S& s) -> std::optional<double> {
         return s.transfers_known ? std::optional<double>(static_cast<double>(s.run.transfer_bytes))
                                  : std::nullopt;
       },
       [](double v) { return format_bytes(static_cast<uint64_t>(v)); }},
  };
}

std::string single_cards(const RunReport& r) {
  std::vector<Card> cards;
  for (const auto& f : figures()) {
    const auto v = f.value(r.summary);
    std::string sub = escape(f.sub);
    if (f.key == "Launches" && v)
      sub = escape(std::to_string(r.summary.run.kernels_distinct) + " distinct kernels");
    if (f.key == "Bytes moved" && v) {
      sub = std::to_string(r.summary.run.transfers) + " transfers";
      if (r.summary.run.mapped_bytes)
        sub += ", " + format_bytes(r.summary.run.mapped_bytes) + " mapped";
      sub = escape(sub);
    }
    if (f.key == "GEMM work" && v && *v == 0 && r.gemm.calls > 0) {
      cards.push_back(
          {f.key, "–", escape(std::to_string(r.gemm.calls) + " GEMM calls, sizes unknown")});
      continue;
    }
    cards.push_back({f.key, v ? f.text(*v) : "–", sub});
  }
  return cards_html(cards);
}

std::string change_html(double base, double other, bool higher_is_better) {
  if (base == 0) return "";
  const double p = 100.0 * (other - base) / base;
  const bool good = higher_is_better ? p > 0 : p < 0;
  const char* cls = p == 0 ? "" : good ? "faster" : "slower";
  return " <span class=\"" + std::string(cls) + "\">" + (p > 0 ? "+" : "") + format_fixed(p, 1) +
         "%</span>";
}

std::string compare_cards(const RunReport& base, const RunReport& other,
                          const analyses::Comparison& c) {
  std::vector<Card> cards;
  const auto sp = c.total_speedup();
  cards.push_back({"Kernel time", svg::si_ns(static_cast<double>(c.other_total_ns), 4),
                   escape(std::string(analyses::stat_name(c.stat)) + " " + c.sections.front().unit +
                          "; was " + svg::si_ns(static_cast<double>(c.base_total_ns), 4)) +
                       change_html(static_cast<double>(c.base_total_ns),
                                   static_cast<double>(c.other_total_ns), false)});
  cards.push_back({"Speedup", sp ? format_fixed(*sp, 3) + "×" : "–", "BASE / OTHER kernel time"});
  for (const auto& f : figures()) {
    const auto a = f.value(base.summary), b = f.value(other.summary);
    std::string sub = "was " + escape(a ? f.text(*a) : "–");
    const bool better_up = f.key == "Utilisation";
    if (a && b && f.key == "Utilisation") {
      // A change of a percentage reads as points, not as a percentage of a percentage.
      const double d = *b - *a;
      sub += std::string(" <span class=\"") +
             (d > 0   ? "faster"
              : d < 0 ? "slower"
                      : "") +
             "\">" + (d > 0 ? "+" : "") + format_fixed(d, 1) + " points</span>";
    } else if (a && b && f.key != "Launches" && f.key != "GEMM work" && f.key != "Bytes moved") {
      sub += change_html(*a, *b, better_up);
    }
    cards.push_back({f.key, b ? f.text(*b) : "–", sub});
  }
  return cards_html(cards);
}

std::string section(const std::string& id, const std::string& title, const std::string& lead,
                    const std::string& body) {
  return "<section id=\"" + escape(id) + "\"><h2>" + escape(title) + "</h2>" +
         (lead.empty() ? "" : "<p class=\"lead\">" + escape(lead) + "</p>") + body + "</section>";
}

// The ids of the kernels, transfers and builds tables' rows (row_anchor): "What to fix first"
// links each finding's subjects to them.
std::string kernel_rows(const std::string& p) {
  return p + "row-kernel-";
}
std::string transfer_rows(const std::string& p) {
  return p + "row-transfer-";
}
std::string build_rows(const std::string& p) {
  return p + "row-build-";
}

std::string run_tables(const RunReport& r, double peak, const std::string& p) {
  std::string h;
  h += "<details open><summary>Summary (clprof summary)</summary>" +
       html_tables(tables::summary_result(r.summary)) + "</details>";
  int64_t total = 0;
  for (const auto& k : r.kernels) analyses::add_to(total, k.stats.total_ns);
  h += "<details open><summary>Kernels (clprof kernels)</summary>" +
       html_tables(tables::kernels_result(r.kernels, false, total, r.kernels.size(), std::nullopt),
                   kMaxTableRows, {kernel_rows(p), "name"}) +
       "</details>";
  if (!r.layers.empty())
    h += "<details open><summary>Layers (clprof layers --no-kernels)</summary>" +
         html_tables(tables::layers_result(r.layers, false, false)) + "</details>";
  if (!r.gemm.groups.empty()) {
    auto g = tables::gemm_group_result(r.gemm, peak > 0);
    tables::add_gemm_notes(g, r.gemm);
    h += "<details open><summary>GEMM shapes (clprof gemm --group)</summary>" + html_tables(g) +
         "</details>";
  }
  if (!r.transfers.empty())
    h += "<details open><summary>Transfers (clprof transfers)</summary>" +
         html_tables(tables::transfers_result(r.transfers, analyses::GroupBy::None), kMaxTableRows,
                     {transfer_rows(p), "op"}) +
         "</details>";
  if (!r.builds.empty())
    h += "<details open><summary>Builds (clprof builds)</summary>" +
         html_tables(tables::builds_result(r.builds), kMaxTableRows,
                     {build_rows(p), "source_hash"}) +
         "</details>";
  if (r.ranks)
    h += "<details open><summary>Ranks (clprof ranks)</summary>" +
         html_tables(tables::ranks_result(*r.ranks)) + "</details>";
  if (!r.api.empty())
    h += "<details><summary>API calls (clprof api)</summary>" +
         html_tables(tables::api_result(r.api, analyses::GroupBy::None, nullptr)) + "</details>";
  return h;
}

// The section of the page that holds a rule's evidence (its id without the prefix).
std::string evidence_section(const std::string& rule) {
  static const std::map<std::string, std::string> where = {{"sync-after-each-launch", "timeline"},
                                                           {"blocking-transfer", "timeline"},
                                                           {"device-idle", "timeline"},
                                                           {"queue-serialisation", "timeline"},
                                                           {"launch-bound", "distributions"},
                                                           {"default-local-size", "kernels"},
                                                           {"local-size-not-multiple", "kernels"},
                                                           {"gemm-padding", "gemm"},
                                                           {"gemm-below-peak", "gemm"},
                                                           {"rank-imbalance", "ranks"}};
  auto it = where.find(rule);
  return it == where.end() ? "tables" : it->second;
}

// Links from a finding's subjects to the kernels, transfers and builds table rows that name
// them (" · rows: a, b"); "" when it names none.
std::string subject_links(const RunReport& r, const std::string& p,
                          const analyses::advice::Finding& f) {
  std::string h;
  for (const auto& s : f.subjects) {
    std::string id;
    for (const auto& k : r.kernels)
      if (id.empty() && k.name == s) id = row_anchor(kernel_rows(p), s);
    for (const auto& t : r.transfers)
      if (id.empty() && t.group.empty() && t.op == s) id = row_anchor(transfer_rows(p), s);
    for (const auto& b : r.builds)
      if (id.empty() && !b.source_hash.empty() && b.source_hash == s)
        id = row_anchor(build_rows(p), s);
    if (!id.empty())
      h += std::string(h.empty() ? " · rows: " : ", ") + "<a href=\"#" + escape(id) + "\">" +
           escape(s) + "</a>";
  }
  return h;
}

// "What to fix first": clprof advise's findings, ranked by impact, each linked to the section
// with its evidence; with `base`, a finding whose rule and subjects BASE lacks is marked new.
std::string fix_first(const RunReport& r, const std::string& p, const RunReport* base,
                      bool has_ranks) {
  if (r.advice.findings.empty() && r.advice.not_evaluated.empty())
    return note("clprof advise found nothing to fix in this run.");
  std::vector<const analyses::advice::Finding*> fresh_ones;
  if (base) fresh_ones = analyses::advice::new_findings(base->advice, r.advice);
  std::string h = "<ol class=\"findings\">";
  for (const auto& f : r.advice.findings) {
    const bool fresh = std::find(fresh_ones.begin(), fresh_ones.end(), &f) != fresh_ones.end();
    std::string target = evidence_section(f.rule);
    if (target == "ranks" && !has_ranks) target = "kernels";
    const std::string severity = analyses::advice::severity_name(f.severity);
    h += "<li class=\"" + severity + "\"><b>" + escape(f.title) + "</b> <span class=\"rule\">" +
         escape(f.rule) + " · " + severity +
         (f.impact_ns ? " · saves up to " + escape(format_ns(*f.impact_ns)) : std::string()) +
         (fresh ? " · <em>new in OTHER</em>" : "") + "</span><br>" + escape(f.evidence) +
         "<br><i>" + escape(f.advice) + "</i> <a href=\"#" + escape(p + target) +
         "\">evidence</a>" + subject_links(r, p, f) + "</li>";
  }
  h += "</ol>";
  if (!r.advice.not_evaluated.empty()) {
    std::string ne;
    for (const auto& n : r.advice.not_evaluated)
      ne += (ne.empty() ? "" : "; ") + n.rule + ": " + n.why;
    h += note("Not evaluated: " + ne + ".");
  }
  return h;
}

// The sections of one run; ids prefixed by `p` (two runs on one page).
std::string run_sections(const RunReport& r, const std::string& p, double peak, bool with_cards,
                         const RunReport* base = nullptr) {
  std::string h = section(p + "fix", "What to fix first",
                          "clprof advise's findings, the largest estimated saving first; each "
                          "links to its evidence (docs/advice.md).",
                          fix_first(r, p, base, r.ranks.has_value()));
  if (with_cards) h += section(p + "summary", "Summary", "", single_cards(r));
  if (r.ranks)
    h += section(p + "ranks", "Time per rank",
                 "Kernel time of each rank (process) of the job, in rank order.", ranks_chart(r));
  h += section(p + "kernels", "Time per kernel",
               "Device time of each kernel over the run, most first.", kernels_chart(r));
  h += section(p + "layers", "Time per layer",
               r.iterations.size() < 2
                   ? "Kernel time of each layer (range path), in execution order."
                   : "Kernel time of each iteration, stacked by layer (path below '" +
                         r.iteration_range + "').",
               layers_chart(r));
  h += section(p + "gemm", "GEMM throughput",
               "One point per GEMM shape (call or kernel, M, N, K, batch): GFLOPS = 2·M·N·K·batch "
               "/ call time.",
               gemm_chart(r, peak));
  h += section(
      p + "distributions", "Launch times",
      "How the launches of each kernel spread: outliers, warm-up and bimodal kernels show here.",
      distributions_chart(r));
  h += section(p + "timeline", "Timeline", "When each queue was busy, and with what.",
               timeline_overview(r));
  h += section(p + "tables", "Tables", "The rows of the clprof commands; click a column to sort.",
               run_tables(r, peak, p));
  return h;
}

std::string header(const std::vector<RunReport>& runs) {
  const RunReport& r = runs.back();
  std::string title = runs.size() == 2 ? runs[0].label + " → " + runs[1].label : r.label;
  std::string sub;
  auto add = [&sub](const std::string& s) { sub += (sub.empty() ? "" : " · ") + s; };
  if (!r.devices.empty()) {
    std::string d;
    for (const auto& n : r.devices) d += (d.empty() ? "" : ", ") + n;
    add("device " + d);
  }
  if (!r.command_line.empty()) add("command " + svg::clip(r.command_line, 120));
  if (r.start_unix_ns) add("recorded " + date_text(*r.start_unix_ns));
  return "<header><h1>clprof report — " + escape(title) + "</h1><p class=\"sub\">" + escape(sub) +
         "</p></header>";
}

std::string nav(const std::vector<std::pair<std::string, std::string>>& links) {
  std::string h = "<nav>";
  for (const auto& [id, text] : links)
    h += "<a href=\"#" + escape(id) + "\">" + escape(text) + "</a>";
  return h + "</nav>";
}

}  // namespace

std::string render_page(const std::vector<RunReport>& runs, const analyses::Comparison* c,
                        const PageOptions& o) {
  std::string body;
  std::vector<std::pair<std::string, std::string>> links;
  if (runs.size() == 2 && c) {
    links = {{"other-fix", "What to fix first"},
             {"summary", "Summary"},
             {"compare", "Comparison"},
             {"other", "OTHER run"},
             {"base", "BASE run"}};
    body += section("summary", "Summary",
                    "OTHER (" + c->other_label + ") against BASE (" + c->base_label + ").",
                    compare_cards(runs[0], runs[1], *c));
    std::string cmp = compare_kernels_chart(*c) + "<h3>Layers</h3>" + compare_layers_chart(*c);
    auto table = tables::compare_result({*c});
    cmp += "<h3>Tables (clprof compare)</h3>" + html_tables(table);
    body += section("compare", "Comparison",
                    "Per kernel and layer: BASE (blue) and OTHER (orange); the change in percent, "
                    "red slower, green "
                    "faster.",
                    cmp);
    body += "<div id=\"other\"><details open><summary>OTHER run: " + escape(runs[1].label) +
            "</summary>" + run_sections(runs[1], "other-", o.peak_gflops, true, &runs[0]) +
            "</details></div>";
    body += "<div id=\"base\"><details><summary>BASE run: " + escape(runs[0].label) + "</summary>" +
            run_sections(runs[0], "base-", o.peak_gflops, true) + "</details></div>";
  } else {
    links = {
        {"fix", "What to fix first"}, {"summary", "Summary"}, {"kernels", "Kernels"},
        {"layers", "Layers"},         {"gemm", "GEMM"},       {"distributions", "Launch times"},
        {"timeline", "Timeline"},     {"tables", "Tables"}};
    if (runs.front().ranks) links.insert(links.begin() + 2, {"ranks", "Ranks"});
    body += run_sections(runs.front(), "", o.peak_gflops, true);
  }
  std::string sources;
  for (const auto& r : runs)
    for (const auto& s : r.sources) sources += (sources.empty() ? "" : ", ") + s;
  std::string footer = "Made by clprof " + o.version + " from " + sources + ".";
  if (!o.selection.empty()) footer += " Selection: " + o.selection + ".";
  footer += " Charts are drawn by clprof; hover a mark for its figures. Limits: " +
            std::to_string(kMaxBars) + " kernels per bar chart, " + std::to_string(kMaxIterations) +
            " iterations, " + std::to_string(kMaxPoints) + " GEMM shapes, " +
            std::to_string(kMaxBoxes) + " box plots, " + std::to_string(kMaxLanes) + " queues, " +
            std::to_string(kMaxTableRows) +
            " rows per table; a note under a chart says when one was reached.";
  std::string title = runs.size() == 2 ? runs[0].label + " → " + runs[1].label : runs.front().label;
  return "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
         "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">"
         "<meta name=\"generator\" content=\"clprof " +
         escape(o.version) + "\"><title>clprof report — " + escape(title) + "</title><style>" +
         kStyle + "</style></head><body>" + header(runs) + nav(links) + "<main>" + body +
         "</main><footer>" + escape(footer) + "</footer><script>" + kScript +
         "</script></body></html>\n";
}

}  // namespace clprof::output::report
