// Table: aligned columns, a totals row, and money and hours printed with two decimals rounded by
// largest remainder (RoundPreservingTotal) per column, so every printed column adds up to its
// printed total; allocated (holder rows) and idle (idle rows) are rounded together as the parts
// of the printed cost. Ratios print as percent; null prints as "-".
#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <ostream>
#include <string>
#include <vector>

#include "core/money.h"
#include "core/strings.h"
#include "report/columns.h"
#include "report/render.h"

namespace gpucost {
namespace {

constexpr std::string_view kNull = "-";
constexpr int kDecimals = 2;

// 12345 with 2 decimals -> "123.45"; -5 -> "-0.05".
std::string FormatUnits(int64_t units, int decimals) {
  const bool negative = units < 0;
  const uint64_t abs =
      negative ? static_cast<uint64_t>(-(units + 1)) + 1 : static_cast<uint64_t>(units);
  uint64_t scale = 1;
  for (int i = 0; i < decimals; ++i) scale *= 10;
  std::string frac = std::to_string(abs % scale);
  frac.insert(0, static_cast<size_t>(decimals) - frac.size(), '0');
  return StrCat(negative ? "-" : "", abs / scale, ".", frac);
}

std::string FormatPercent(double ratio) {
  if (std::isnan(ratio)) return std::string(kNull);
  const int64_t tenths = std::llround(ratio * 1000.0);
  return FormatUnits(tenths, 1) + "%";
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
    Column c{report.by[d].Name(), false, {}};
    for (const ReportRow& r : rows) c.cells.push_back(r.values[d]);
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
  // Allocated on holder rows and idle on idle rows are the parts of one total, the GPU cost: they
  // are rounded together so that the printed parts add up to the printed cost, which is the true
  // cost rounded once.
  std::vector<double> cost_parts(n);
  bool any_cost = false;
  for (size_t i = 0; i < n; ++i) {
    const double v = rows[i].is_idle ? rows[i].idle_usd : rows[i].allocated_usd;
    cost_parts[i] = std::isnan(v) ? 0.0 : v;
    any_cost = any_cost || !std::isnan(v);
  }
  int64_t printed_cost = 0;
  const std::vector<int64_t> cost_units = RoundPreservingTotal(cost_parts, kDecimals, &printed_cost);
  for (const MetricColumn& m : kMetricColumns) {
    if (!m.in_table || !ColumnShown(m, totals)) continue;
    if (m.row == &ReportRow::unpriced_gpu_hours && !(totals.unpriced_gpu_hours > 0)) continue;
    Column c{std::string(m.name), true, {}};
    if (m.kind == ColumnKind::kRatio) {
      for (const ReportRow& r : rows) c.cells.push_back(FormatPercent(r.*m.row));
      c.cells.push_back(FormatPercent(totals.*m.total));
    } else {
      std::vector<double> values(n);
      bool any = false;
      for (size_t i = 0; i < n; ++i) {
        const double v = rows[i].*m.row;
        values[i] = std::isnan(v) ? 0.0 : v;
        any = any || !std::isnan(v);
      }
      int64_t total_units = 0;
      std::vector<int64_t> units = RoundPreservingTotal(values, kDecimals, &total_units);
      if (m.row == &ReportRow::allocated_usd || m.row == &ReportRow::idle_usd) {
        total_units = 0;
        for (size_t i = 0; i < n; ++i) {
          const bool part_of_cost =
              rows[i].is_idle ? m.row == &ReportRow::idle_usd : m.row == &ReportRow::allocated_usd;
          if (part_of_cost) units[i] = cost_units[i];
          if (!std::isnan(rows[i].*m.row)) total_units += units[i];
        }
      }
      for (size_t i = 0; i < n; ++i) {
        const double v = rows[i].*m.row;
        c.cells.push_back(std::isnan(v) ? std::string(kNull) : FormatUnits(units[i], kDecimals));
      }
      c.cells.push_back(any ? FormatUnits(total_units, kDecimals) : std::string(kNull));
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

  std::vector<size_t> widths;
  for (const Column& c : columns) {
    size_t w = c.header.size();
    for (const std::string& cell : c.cells) w = std::max(w, cell.size());
    widths.push_back(w);
  }
  const auto write_line = [&](auto cell_of) {
    std::string line;
    for (size_t k = 0; k < columns.size(); ++k) {
      const std::string& text = cell_of(columns[k]);
      const std::string pad(widths[k] - text.size(), ' ');
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
      << (any_cost ? FormatUnits(printed_cost, kDecimals) : std::string(kNull)) << " USD over "
      << FormatRfc3339(report.window.start) << " to " << FormatRfc3339(report.window.end) << '\n';
  if (!report.price_sources.empty()) {
    // Which prices the money rests on, so that a catalog price or an assumed spot discount is
    // never used without saying so (docs/pricing.md).
    out << "prices:";
    const char* sep = " ";
    for (const auto& [source, hours] : report.price_sources) {
      out << sep << source << " " << FormatUnits(std::llround(hours * 100), kDecimals)
          << " GPU-hours";
      sep = ", ";
    }
    out << " (docs/pricing.md)\n";
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
  if (!totals.prices_known) {
    out << "note: " << FormatUnits(std::llround(totals.unpriced_gpu_hours * 100), kDecimals)
        << " GPU-hours have no known price; money covers the priced part only\n";
  }
  if (totals.unmeasured_gpu_hours > 0) {
    out << "note: " << FormatUnits(std::llround(totals.unmeasured_gpu_hours * 100), kDecimals)
        << " GPU-hours had no usage sample; effective and waste cover the measured part only\n";
  }
}

}  // namespace gpucost
