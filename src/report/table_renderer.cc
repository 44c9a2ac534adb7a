// Table: aligned columns, a totals row, and money and hours printed with two decimals and
// thousands grouped, each figure
// rounded on its own (RoundUnits, the rule every output shares); a note says what a column's
// printed rows add up to where that is not its printed total. Ratios print as percent; null
// prints as "-". Names and values print as PrintableText (core/utf8.h): bytes that are not UTF-8
// and control characters as U+FFFD, so that a label value cannot break a line or the terminal.
#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <ostream>
#include <string>
#include <vector>

#include "core/money.h"
#include "core/strings.h"
#include "core/utf8.h"
#include "report/columns.h"
#include "report/render.h"

namespace gpucost {
namespace {

constexpr std::string_view kNull = "-";
constexpr int kDecimals = 2;

// 1234567 with 2 decimals -> "12,345.67"; -5 -> "-0.05": figures for people are grouped.
std::string FormatUnits(int64_t units, int decimals) { return FormatGroupedUnits(units, decimals); }

std::string FormatPercent(double ratio) {
  if (std::isnan(ratio)) return std::string(kNull);
  const int64_t tenths = std::llround(ratio * 1000.0);
  return FormatUnits(tenths, 1) + "%";
}

// A money figure that leaves out hours with no known price reads "X + unknown", as the cost_usd
// line and chargeback do: a holder's money where some of its GPU-hours have no price, and a total
// over such rows or over rows whose money is unknown. A holder row's idle received comes from
// priced idle only, so it is whole; an idle row's money is its idle (and waste), never allocated.
constexpr std::string_view kInPart = " + unknown";
bool MoneyInPart(const ReportRow& r, const MetricColumn& m) {
  if (!(r.unpriced_gpu_hours > 0)) return false;
  if (r.is_idle) return m.row == &ReportRow::idle_usd || m.row == &ReportRow::waste_usd;
  return m.row != &ReportRow::idle_usd;
}

struct Column {
  std::string header;
  bool numeric = false;
  std::vector<std::string> cells;  // one per row, then the totals row
};

}  // namespace

void RenderTable(const Report& report, std::ostream& out) {
  const std::vector<ReportRow>& rows = report.rows;
  const size_t n = rows.size();
  std::vector<Column> columns;
  for (size_t d = 0; d < report.by.size(); ++d) {
    Column c{PrintableText(report.by[d].Name()), false, {}};
    for (const ReportRow& r : rows) c.cells.push_back(PrintableText(r.values[d]));
    c.cells.push_back(d == 0 ? "total" : "");
    columns.push_back(std::move(c));
  }
  if (!report.accumulated) {
    Column c{std::string(kStartColumn), false, {}};
    for (const ReportRow& r : rows) c.cells.push_back(FormatRfc3339(r.start));
    c.cells.emplace_back();
    columns.push_back(std::move(c));
  }
  const ReportTotals& totals = report.totals;
  // Each figure is its own value rounded once (RoundUnits), the totals row too, so that a figure
  // prints the same here as in any other table or command; where a column's printed rows do not
  // add up to its printed total, a note after the table says what they add up to.
  std::vector<std::string> rounding;
  for (const MetricColumn& m : kMetricColumns) {
    if (!m.in_table || !ColumnShown(m, totals)) continue;
    if (m.row == &ReportRow::unpriced_gpu_hours && !(totals.unpriced_gpu_hours > 0)) continue;
    Column c{std::string(m.name), true, {}};
    if (m.kind == ColumnKind::kRatio) {
      for (const ReportRow& r : rows) c.cells.push_back(FormatPercent(r.*m.row));
      c.cells.push_back(FormatPercent(totals.*m.total));
    } else {
      int64_t sum = 0;
      bool total_in_part = false;
      for (const ReportRow& r : rows) {
        const double v = r.*m.row;
        const bool in_part = m.kind == ColumnKind::kUsd && MoneyInPart(r, m);
        total_in_part = total_in_part || in_part;
        if (std::isnan(v)) {
          c.cells.emplace_back(kNull);
          continue;
        }
        const int64_t units = RoundUnits(v, kDecimals);
        sum = AddUnits(sum, units);
        c.cells.push_back(StrCat(FormatUnits(units, kDecimals), in_part ? kInPart : ""));
      }
      const double total = totals.*m.total;
      if (std::isnan(total)) {
        c.cells.emplace_back(kNull);
      } else {
        const int64_t units = RoundUnits(total, kDecimals);
        c.cells.push_back(StrCat(FormatUnits(units, kDecimals), total_in_part ? kInPart : ""));
        if (sum != units) rounding.push_back(StrCat(m.name, " ", FormatUnits(sum, kDecimals)));
      }
    }
    columns.push_back(std::move(c));
  }
  {
    Column c{std::string(kEstimatedColumn), false, {}};
    for (const ReportRow& r : rows) c.cells.push_back(r.estimated ? "yes" : "");
    c.cells.push_back(totals.estimated ? "yes" : "");
    columns.push_back(std::move(c));
  }
  if (totals.oversubscribed) {
    Column c{std::string(kOversubscribedColumn), false, {}};
    for (const ReportRow& r : rows) c.cells.push_back(r.oversubscribed ? "yes" : "");
    c.cells.push_back("yes");
    columns.push_back(std::move(c));
  }
  if (IdleColumnShown(report)) {
    Column c{std::string(kIdleColumn), false, {}};
    for (const ReportRow& r : rows) c.cells.push_back(r.is_idle ? "yes" : "");
    c.cells.emplace_back();
    columns.push_back(std::move(c));
  }

  std::vector<size_t> widths;
  for (const Column& c : columns) {
    size_t w = Utf8Length(c.header);
    for (const std::string& cell : c.cells) w = std::max(w, Utf8Length(cell));
    widths.push_back(w);
  }
  const auto write_line = [&](auto cell_of) {
    std::string line;
    for (size_t k = 0; k < columns.size(); ++k) {
      const std::string& text = cell_of(columns[k]);
      const std::string pad(widths[k] - Utf8Length(text), ' ');
      if (k > 0) line += "  ";
      line += columns[k].numeric ? pad + text : text + pad;
    }
    while (!line.empty() && line.back() == ' ') line.pop_back();
    out << line << '\n';
  };
  write_line([](const Column& c) -> const std::string& { return c.header; });
  for (size_t i = 0; i < n; ++i) {
    write_line([i](const Column& c) -> const std::string& { return c.cells[i]; });
  }
  size_t rule = 0;
  for (size_t w : widths) rule += w + 2;
  out << std::string(rule >= 2 ? rule - 2 : 0, '-') << '\n';
  write_line([n](const Column& c) -> const std::string& { return c.cells[n]; });

  out << kCostColumn << ": "
      << (std::isnan(totals.cost_usd)
              ? std::string(kNull)
              : FormatUnits(RoundUnits(totals.cost_usd, kDecimals), kDecimals))
      // Priced and unpriced capacity together: the figure is the priced part, as chargeback's
      // "$X + unknown" says.
      << (!std::isnan(totals.cost_usd) && !totals.prices_known ? " USD + unknown" : " USD")
      << " over " << FormatRfc3339(report.window.start) << " to "
      << FormatRfc3339(report.window.end) << '\n';
  // Hours of units that are not GPUs (AWS Neuron devices) are accelerator-hours.
  bool accelerators = false, by_unit_kind = false;
  for (const auto& [kind, hours] : report.unit_kind_hours)
    accelerators = accelerators || kind != "gpu";
  for (const Dimension& d : report.by)
    by_unit_kind = by_unit_kind || d.kind == DimensionKind::kUnitKind;
  const std::string_view hours_word = accelerators ? "GPU- and accelerator-hours" : "GPU-hours";
  if (!report.price_sources.empty()) {
    // Which prices the money rests on, so that a catalog price or an assumed spot discount is
    // never used without saying so (docs/pricing.md).
    out << "prices:";
    const char* sep = " ";
    for (const auto& [source, hours] : report.price_sources) {
      out << sep << source << " " << FormatUnits(RoundUnits(hours, kDecimals), kDecimals) << ' '
          << hours_word;
      sep = ", ";
    }
    out << " (docs/pricing.md)\n";
  }
  for (const auto& [kind, hours] : report.unit_kind_hours) {
    if (kind == "gpu" || by_unit_kind) continue;
    // A Neuron device is no GPU: its hours are accelerator-hours, counted in gpu_hours with
    // the GPU-hours of the same rows.
    out << "note: gpu_hours include " << FormatUnits(RoundUnits(hours, kDecimals), kDecimals)
        << " accelerator-hours of " << kind << " units (one device for one hour); --by unit_kind "
        << "keeps them apart (docs/report.md, \"Unit kinds\")\n";
  }
  if (report.covered &&
      (report.covered->start != report.window.start || report.covered->end != report.window.end)) {
    const Window& c = *report.covered;
    if (c.end <= c.start) {
      out << "note: the input has no data in this window; nothing is costed\n";
    } else {
      out << "note: the input covers only " << FormatRfc3339(c.start) << " to "
          << FormatRfc3339(c.end) << " of this window; only that part is costed\n";
    }
  }
  if (!rounding.empty()) {
    out << "note: each figure is rounded to the cent on its own (docs/report.md, \"Rounding\"); "
           "the printed rows add up to ";
    for (size_t i = 0; i < rounding.size(); ++i) out << (i > 0 ? ", " : "") << rounding[i];
    out << "\n";
  }
  if (!totals.prices_known) {
    out << "note: " << FormatUnits(RoundUnits(totals.unpriced_gpu_hours, kDecimals), kDecimals)
        << ' ' << hours_word << " have no known price; money covers the priced part only\n";
  }
  if (totals.unplaced_request_gpu_hours > 0) {
    out << "note: " << FormatSmallAmount(totals.unplaced_request_gpu_hours, kDecimals) << ' '
        << hours_word
        << " were requested where no GPU matched the request; they are in no row and no money "
           "(the warnings name each)\n";
  }
  if (totals.unmeasured_gpu_hours > 0) {
    out << "note: " << FormatUnits(RoundUnits(totals.unmeasured_gpu_hours, kDecimals), kDecimals)
        << ' ' << hours_word
        << " had no usage sample; effective and waste cover the measured part only\n";
  }
}

}  // namespace gpucost
