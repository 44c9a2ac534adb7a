// CSV: a header row, then one row per team and charge line, and the statement's other amounts as
// rows of their own (the shared idle it is charged, its rounding line), so that a team's
// `amount_usd` add up to its total as the printed statement's lines do. `amount_usd` is money
// rounded to cents as printed (each on its own, docs/chargeback.md "Rounding"); the other
// numbers carry full precision. Unknown values are empty fields; RFC 4180 quoting. A column
// unit_kind where some line is of AWS Neuron devices, and last, `line`: what the row is.
#include <cmath>
#include <ostream>
#include <string>

#include "chargeback/format.h"
#include "chargeback/render.h"
#include "chargeback/rounding.h"
#include "core/strings.h"

namespace gpucost::chargeback {
namespace {

std::string NumberCell(double v) { return std::isfinite(v) ? FormatDouble(v) : ""; }

std::string CentsCell(int64_t cents) {
  const int64_t abs = cents < 0 ? -cents : cents;
  return StrCat(cents < 0 ? "-" : "", abs / 100, abs % 100 < 10 ? ".0" : ".", abs % 100);
}

}  // namespace

void RenderCsv(const StatementSet& set, std::ostream& out) {
  // A unit_kind column only where some line is of AWS Neuron devices (accelerator-hours), so
  // that GPU statements keep their columns.
  bool unit_kinds = false;
  for (const Statement& s : set.statements) unit_kinds = unit_kinds || HoursNounOf(s).accelerators;
  out << "team,period_start,period_end,gpu_model,capacity_type,rate_usd_per_gpu_hour,gpu_hours,"
         "amount_usd,allocated_usd,effective_usd,waste_usd,idle_gpu_hours,idle_usd,"
         "unmeasured_gpu_hours,spot,price_known"
      << (unit_kinds ? ",unit_kind" : "") << ",line\n";
  const std::string start = FormatRfc3339(set.period.window.start);
  const std::string end = FormatRfc3339(set.period.window.end);
  for (const Statement& s : set.statements) {
    const RoundedStatement r = RoundStatement(s);
    for (size_t i = 0; i < s.lines.size(); ++i) {
      const StatementLine& l = s.lines[i];
      const ChargeTotals& t = l.totals;
      const bool priced = l.priced();
      out << CsvField(s.team) << ',' << start << ',' << end << ',' << CsvField(l.gpu_model) << ','
          << CsvField(l.capacity_type) << ',' << NumberCell(l.rate_usd_per_gpu_hour) << ','
          << NumberCell(t.gpu_hours) << ',' << (r.line_cents[i] ? CentsCell(*r.line_cents[i]) : "")
          << ',' << (priced ? NumberCell(t.allocated_usd) : "") << ','
          << (priced && t.measured_allocated_usd > 0 ? NumberCell(t.effective_usd) : "") << ','
          << (priced ? NumberCell(t.waste_usd()) : "") << ',' << NumberCell(t.idle_gpu_hours) << ','
          << (priced ? NumberCell(t.idle_usd) : "") << ',' << NumberCell(t.unmeasured_gpu_hours())
          << ',' << (l.capacity_type == "spot" ? "true" : "false") << ','
          << (priced ? "true" : "false");
      if (unit_kinds) out << ',' << UnitKindName(l.unit_kind);
      out << ",charge\n";
    }
    // An amount with no GPU-hours of its own: the money in amount_usd (and allocated_usd, full
    // precision), every other field empty.
    const auto amount_row = [&](int64_t cents, std::string_view usd, std::string_view line) {
      out << CsvField(s.team) << ',' << start << ',' << end << ",,,,," << CentsCell(cents) << ','
          << usd << ",,,,,,,true" << (unit_kinds ? "," : "") << ',' << line << "\n";
    };
    if (s.shared_idle_usd != 0) {
      amount_row(r.shared_idle_cents, NumberCell(s.shared_idle_usd), "idle_shared");
    }
    if (r.rounding_cents != 0) amount_row(r.rounding_cents, "", "rounding");
  }
}

}  // namespace gpucost::chargeback
