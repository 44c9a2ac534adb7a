// JSON:
// {"window":{start,end},"covered":{start,end,hours,complete},"step_s","currency",
// "price_sources":{source: GPU-hours} (null: not known),"unit_kind_hours":{kind: hours} (only with
// units that are not GPUs),"by","accumulated","idle_policy","idle_scope",
// "rows":[...],"totals":{...}}, null where a value is unknown.
#include <cmath>
#include <nlohmann/json.hpp>
#include <ostream>

#include "report/columns.h"
#include "report/render.h"

namespace gpucost {
namespace {

using Json = nlohmann::ordered_json;

Json Number(double v) { return std::isfinite(v) ? Json(v) : Json(nullptr); }

}  // namespace

void RenderJson(const Report& report, std::ostream& out) {
  Json doc;
  doc["window"] = {{"start", FormatRfc3339(report.window.start)},
                   {"end", FormatRfc3339(report.window.end)}};
  if (report.covered) {
    // What the data covers of the window: a window longer than the data costs only this part.
    const Window& c = *report.covered;
    doc["covered"] = {{"start", FormatRfc3339(c.start)},
                      {"end", FormatRfc3339(c.end)},
                      {"hours", Hours(c.end - c.start)},
                      {"complete", c.start == report.window.start && c.end == report.window.end}};
  }
  // step_s is the rows' bucket length; accumulated rows span the window, and then step_s is the
  // attribution step they were computed with.
  // Calendar-month buckets have no one length: step_s is then the attribution step, and
  // "every":"month" says what the buckets are.
  const Duration step =
      (report.accumulated || report.calendar_months) && report.engine_step.count() > 0
          ? report.engine_step
          : report.step;
  if (step.count() % 1000 == 0) {
    doc["step_s"] = step.count() / 1000;
  } else {
    doc["step_s"] = Seconds(step);
  }
  doc["currency"] = "USD";
  if (report.price_sources_known) {
    Json sources = Json::object();
    for (const auto& [source, hours] : report.price_sources) sources[source] = hours;
    doc["price_sources"] = std::move(sources);
  } else {
    doc["price_sources"] = nullptr;
  }
  // Only where some hours are not GPU-hours, so GPU-only documents stay as they were.
  if (report.unit_kind_hours.size() > 1 ||
      (report.unit_kind_hours.size() == 1 && report.unit_kind_hours[0].first != "gpu")) {
    Json kinds = Json::object();
    for (const auto& [kind, hours] : report.unit_kind_hours) kinds[kind] = hours;
    doc["unit_kind_hours"] = std::move(kinds);
  }
  Json by = Json::array();
  for (const Dimension& d : report.by) by.push_back(d.Name());
  doc["by"] = std::move(by);
  doc["accumulated"] = report.accumulated;
  if (report.calendar_months) doc["every"] = "month";
  doc["idle_policy"] = IdlePolicyName(report.idle.policy);
  doc["idle_scope"] = IdleScopeName(report.idle.scope);

  const bool idle_column = IdleColumnShown(report);
  Json rows = Json::array();
  for (const ReportRow& row : report.rows) {
    Json r = Json::object();
    for (size_t i = 0; i < report.by.size(); ++i) r[report.by[i].Name()] = row.values[i];
    if (!report.accumulated) {
      r["start"] = FormatRfc3339(row.start);
      r["end"] = FormatRfc3339(row.end);
    }
    for (const MetricColumn& c : kMetricColumns) {
      if (ColumnShown(c, report.totals)) r[std::string(c.name)] = Number(row.*c.row);
    }
    r["estimated"] = row.estimated;
    r["oversubscribed"] = row.oversubscribed;
    if (idle_column) r[std::string(kIdleColumn)] = row.is_idle;
    rows.push_back(std::move(r));
  }
  doc["rows"] = std::move(rows);

  const ReportTotals& t = report.totals;
  Json totals = Json::object();
  for (const MetricColumn& c : kMetricColumns) {
    if (ColumnShown(c, t)) totals[std::string(c.name)] = Number(t.*c.total);
  }
  totals[std::string(kCostColumn)] = Number(t.cost_usd);
  totals["estimated"] = t.estimated;
  totals["oversubscribed"] = t.oversubscribed;
  totals[std::string(kPricesKnownColumn)] = t.prices_known;
  // Requests no GPU held: in no row and no money, so that a reader of the JSON alone still sees
  // them; null from a ledger, which keeps no requests.
  totals["unplaced_request_gpu_hours"] = Number(t.unplaced_request_gpu_hours);
  doc["totals"] = std::move(totals);
  // Label values are bytes from outside: what is not UTF-8 is written as U+FFFD (core/utf8.h).
  out << doc.dump(2, ' ', false, Json::error_handler_t::replace) << '\n';
}

}  // namespace gpucost
