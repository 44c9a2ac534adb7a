// HTML: one self-contained page (inline CSS, inline SVG, no scripts, fonts or anything fetched)
// with, per team, the statement, a daily chart of allocated cost split into effective, waste
// and unmeasured, and the same split by workload, each named with its namespace (the top
// consumers; the rest as one "N others" bar, listed under the chart). Periods read as people
// write them ("Oct 1–Oct 7, 2026", the last day included); the one waste figure is the
// report's (allocated − effective), idle time is given in hours.
#include <cmath>
#include <ostream>
#include <string>
#include <vector>

#include "chargeback/format.h"
#include "chargeback/render.h"
#include "chargeback/statement_text.h"
#include "chargeback/svg_chart.h"
#include "core/strings.h"

namespace gpucost::chargeback {
namespace {

constexpr std::string_view kStyle = R"(
body{font:14px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;color:#1d2430;
  margin:0;background:#f5f6f8}
main{max-width:820px;margin:0 auto;padding:24px}
h1{font-size:22px;margin:0 0 4px}h2{font-size:18px;margin:0 0 4px}
h3{font-size:14px;margin:20px 0 6px;color:#4a5568}
.period{color:#4a5568;margin:0 0 16px}
section{background:#fff;border:1px solid #dde1e7;border-radius:8px;padding:20px;margin:0 0 24px}
table{border-collapse:collapse;width:100%}
th,td{padding:5px 8px;border-bottom:1px solid #e6e9ee;text-align:left}
td.n,th.n{text-align:right;font-variant-numeric:tabular-nums}
tfoot td{font-weight:600;border-bottom:none}
dl{display:grid;grid-template-columns:max-content 1fr;gap:4px 12px;margin:14px 0 0}
dt{color:#4a5568}dd{margin:0}
.missed{color:#b42318}
.others,.nochart{color:#4a5568;margin:4px 0 0}
svg.chart{width:100%;height:auto;font-size:11px}
svg.chart .grid{stroke:#e6e9ee}svg.chart .axis{fill:#4a5568}
)";

const std::vector<ChartSeries>& Series() {
  static const std::vector<ChartSeries> kSeries = {
      {"effective", "#2b7a4b"}, {"waste", "#e0862d"}, {"unmeasured", "#b8bec8"}};
  return kSeries;
}

ChartBar Bar(std::string label, const ChargeTotals& t) {
  const double waste = t.waste_usd();
  return ChartBar{std::move(label),
                  {t.measured_allocated_usd > 0 ? t.effective_usd : 0,
                   std::isfinite(waste) ? waste : 0, t.unmeasured_allocated_usd()},
                  !t.prices_known()};
}

std::string Fact(std::string_view name, const std::string& text) {
  const bool missed = text.find("missed)") != std::string::npos;
  return StrCat("<dt>", name, "</dt><dd", missed ? " class=\"missed\"" : "", ">", EscapeXml(text),
                "</dd>");
}

// The top consumers' table; `names` are the statement's qualified workload names.
void RenderConsumers(const StatementText& t, const std::vector<std::string>& names,
                     std::ostream& out) {
  if (t.consumers.empty()) return;
  out << "<h3>Top consumers</h3>\n<table>\n<thead><tr><th class=\"n\">#</th><th>workload</th>"
         "<th class=\"n\">"
      << t.hours_heading << "</th><th class=\"n\">amount</th></tr></thead>\n<tbody>\n";
  for (const StatementText::Consumer& c : t.consumers) {
    out << "<tr><td class=\"n\">" << c.rank << "</td><td>"
        << EscapeXml(names[static_cast<size_t>(c.rank - 1)]) << "</td><td class=\"n\">" << c.hours
        << "</td><td class=\"n\">" << EscapeXml(c.amount) << "</td></tr>\n";
  }
  out << "</tbody>\n</table>\n";
}

void RenderStatement(const StatementSet& set, const Statement& s, std::ostream& out) {
  const StatementText t = DescribeStatement(set, s);
  out << "<section>\n<h2>" << EscapeXml(t.title) << "</h2>\n";
  out << "<p class=\"period\">" << EscapeXml(t.readable_period) << "</p>\n";
  out << "<table>\n<thead><tr><th>" << t.thing << " and capacity</th><th class=\"n\">"
      << t.hours_heading
      << "</th><th class=\"n\">rate</th><th class=\"n\">amount</th></tr></thead>\n<tbody>\n";
  for (const StatementText::Line& l : t.lines) {
    out << "<tr><td>" << EscapeXml(l.label) << "</td><td class=\"n\">" << l.hours
        << "</td><td class=\"n\">" << EscapeXml(l.rate) << "</td><td class=\"n\">"
        << EscapeXml(l.amount) << "</td></tr>\n";
  }
  if (!t.shared_idle.empty()) {
    out << "<tr><td>" << EscapeXml(t.shared_idle_label) << "</td><td></td><td></td><td class=\"n\">"
        << EscapeXml(t.shared_idle) << "</td></tr>\n";
  }
  if (!t.rounding.empty()) {
    out << "<tr><td>Rounding</td><td></td><td></td><td class=\"n\">" << EscapeXml(t.rounding)
        << "</td></tr>\n";
  }
  out << "</tbody>\n<tfoot><tr><td>Total</td><td class=\"n\">" << t.hours
      << "</td><td></td><td class=\"n\">" << EscapeXml(t.total) << "</td></tr></tfoot>\n</table>\n";
  out << "<dl>"
      << Fact("Waste", t.waste_usd == "unknown"
                           ? std::string("unknown: its hours have no price")
                           : StrCat(t.waste_usd,
                                    " of the allocated cost went unused (effective "
                                    "cost ",
                                    t.effective_usd, ")"))
      << Fact("Efficiency", t.efficiency) << Fact("Idle time", t.idle_time)
      << Fact("Spot ratio", t.spot);
  if (!t.unmeasured.empty()) out << Fact("Unmeasured", t.unmeasured);
  out << "</dl>\n";

  if (!s.totals.any_priced()) {
    // Every bar would be $0 on an axis of nothing: no cost chart, and why.
    out << "<p class=\"nochart\">No cost charts: none of the team's " << t.hours
        << " has a price, so "
        << (s.shared_idle_usd != 0 ? "their money is unknown (the total is the idle shared to it)"
                                   : "its money is unknown")
        << ". Add a price rule or --price-per-gpu-hour (docs/pricing.md).</p>\n";
    RenderConsumers(t, QualifiedWorkloadLabels(s), out);
    out << "</section>\n";
    return;
  }
  std::vector<ChartBar> days;
  for (const DayUsage& d : s.days) days.push_back(Bar(FormatDate(d.start).substr(5), d.totals));
  const int every = days.size() > 16 ? 5 : days.size() > 8 ? 2 : 1;
  out << "<h3>Allocated cost by day: effective, waste, unmeasured</h3>\n"
      << ColumnChart(Series(), days, "Allocated cost by day", every) << "\n";

  std::vector<ChartBar> workloads;
  const std::vector<std::string> names = QualifiedWorkloadLabels(s);
  ChargeTotals others;
  size_t n_others = 0;
  std::string others_list;
  const size_t top = static_cast<size_t>(std::max(1, set.settings.top));
  for (size_t i = 0; i < s.workloads.size(); ++i) {
    if (i < top) {
      workloads.push_back(Bar(names[i], s.workloads[i].totals));
    } else {
      ++n_others;
      others_list += StrCat(others_list.empty() ? "" : ", ", names[i]);
      others.allocated_usd += s.workloads[i].totals.allocated_usd;
      others.measured_allocated_usd += s.workloads[i].totals.measured_allocated_usd;
      others.effective_usd += s.workloads[i].totals.effective_usd;
      others.unpriced_gpu_hours += s.workloads[i].totals.unpriced_gpu_hours;
    }
  }
  if (n_others > 0) {
    workloads.push_back(
        Bar(StrCat(n_others, n_others == 1 ? " other workload" : " other workloads"), others));
  }
  out << "<h3>Allocated cost by workload</h3>\n"
      << BarChart(Series(), workloads, "Allocated cost by workload") << "\n";
  if (n_others > 0) {
    out << "<p class=\"others\">The " << n_others << " other workload" << (n_others == 1 ? "" : "s")
        << ": " << EscapeXml(others_list) << "</p>\n";
  }

  RenderConsumers(t, names, out);
  out << "</section>\n";
}

}  // namespace

void RenderHtml(const StatementSet& set, std::ostream& out) {
  const std::string heading = set.period.month.empty()
                                  ? std::string("GPU chargeback")
                                  : StrCat("GPU chargeback, ", set.period.month);
  out << "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
      << "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
      << "<title>" << EscapeXml(heading) << "</title>\n<style>" << kStyle << "</style>\n"
      << "</head>\n<body>\n<main>\n<h1>" << EscapeXml(heading) << "</h1>\n"
      << "<p class=\"period\" title=\"" << FormatRfc3339(set.period.window.start) << " to "
      << FormatRfc3339(set.period.window.end) << " (end excluded)\">"
      << EscapeXml(FormatReadablePeriod(set.period.window)) << "</p>\n";
  for (const Statement& s : set.statements) RenderStatement(set, s, out);
  if (set.cluster) {
    const ClusterText c = DescribeCluster(set);
    out << "<section>\n<h2>" << EscapeXml(c.title) << "</h2>\n<table>\n<tbody>\n";
    for (const ClusterText::Part& p : c.parts) {
      out << "<tr><td>" << EscapeXml(p.label) << "</td><td class=\"n\">" << EscapeXml(p.amount)
          << "</td></tr>\n";
    }
    out << "</tbody>\n<tfoot><tr><td>" << c.total_label << "</td><td class=\"n\">"
        << EscapeXml(c.total) << "</td></tr></tfoot>\n</table>\n";
    if (!c.prices.empty())
      out << "<p>Prices: " << EscapeXml(c.prices) << " (docs/pricing.md)</p>\n";
    if (!c.note.empty()) out << "<p>Note: " << EscapeXml(c.note) << "</p>\n";
    out << "</section>\n";
  }
  out << "</main>\n</body>\n</html>\n";
}

}  // namespace gpucost::chargeback
