// CSV: one header row, then one line per report row; no totals line, so the file sums cleanly.
#include <cmath>
#include <ostream>

#include "core/strings.h"
#include "report/columns.h"
#include "report/render.h"

namespace gpucost {
namespace {

void WriteField(std::ostream& out, std::string_view v) { out << CsvField(v); }

}  // namespace

void RenderCsv(const Report& report, std::ostream& out) {
  bool first = true;
  const auto sep = [&] {
    if (!first) out << ',';
    first = false;
  };
  for (const Dimension& d : report.by) {
    sep();
    WriteField(out, d.Name());
  }
  if (!report.accumulated) {
    sep();
    out << kStartColumn;
    sep();
    out << kEndColumn;
  }
  for (const MetricColumn& c : kMetricColumns) {
    if (!ColumnShown(c, report.totals)) continue;
    sep();
    out << c.name;
  }
  sep();
  out << kEstimatedColumn;
  sep();
  out << kOversubscribedColumn;
  const bool idle_column = IdleColumnShown(report);
  if (idle_column) {
    sep();
    out << kIdleColumn;
  }
  out << '\n';
  for (const ReportRow& row : report.rows) {
    first = true;
    for (const std::string& v : row.values) {
      sep();
      WriteField(out, v);
    }
    if (!report.accumulated) {
      sep();
      out << FormatRfc3339(row.start);
      sep();
      out << FormatRfc3339(row.end);
    }
    for (const MetricColumn& c : kMetricColumns) {
      if (!ColumnShown(c, report.totals)) continue;
      sep();
      const double v = row.*c.row;
      if (!std::isnan(v)) out << FormatDouble(v);  // null: empty field
    }
    sep();
    out << (row.estimated ? "true" : "false");
    sep();
    out << (row.oversubscribed ? "true" : "false");
    if (idle_column) {
      sep();
      out << (row.is_idle ? "true" : "false");
    }
    out << '\n';
  }
}

}  // namespace gpucost
