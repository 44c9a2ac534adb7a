// JSON: {"currency","period","covered","settings","statements":[{team, totals, lines, workloads,
// days}]}. Lines of AWS Neuron devices carry "unit_kind" (their hours are accelerator-hours), and
// the cluster "unit_kind_hours" where some capacity is not GPUs. `amount_usd` fields are cents as
// printed (lines and workloads add up to `total_usd`); the
// `*_usd` sums beside them carry full precision; null where a value is unknown.
#include <cmath>
#include <nlohmann/json.hpp>
#include <optional>
#include <ostream>

#include "chargeback/format.h"
#include "chargeback/render.h"
#include "chargeback/rounding.h"

namespace gpucost::chargeback {
namespace {

using Json = nlohmann::ordered_json;

Json JsonNumber(double v) { return std::isfinite(v) ? Json(v) : Json(nullptr); }

Json Cents(std::optional<int64_t> cents) {
  return cents ? Json(static_cast<double>(*cents) / 100.0) : Json(nullptr);
}

// The sums every group reports; money is null when none of its hours had a price.
void PutTotals(const ChargeTotals& t, Json& j) {
  const bool priced = t.any_priced();
  j["gpu_hours"] = t.gpu_hours;
  j["allocated_usd"] = priced ? Json(t.allocated_usd) : Json(nullptr);
  j["effective_usd"] =
      priced && t.measured_allocated_usd > 0 ? Json(t.effective_usd) : Json(nullptr);
  j["waste_usd"] = JsonNumber(t.waste_usd());
  j["efficiency"] = JsonNumber(t.efficiency());
  j["idle_gpu_hours"] = t.idle_gpu_hours;
  // No idle hour costs $0 whatever the price; idle hours none of which is priced, unknown (as the
  // text statement says).
  const bool idle_unknown = t.idle_gpu_hours > 0 && t.idle_unpriced_gpu_hours >= t.idle_gpu_hours;
  j["idle_usd"] = idle_unknown ? Json(nullptr) : Json(t.idle_usd);
  j["unmeasured_gpu_hours"] = t.unmeasured_gpu_hours();
  j["unpriced_gpu_hours"] = t.unpriced_gpu_hours;
  j["spot_gpu_hours"] = t.spot_gpu_hours;
}

Json StatementJson(const StatementSet& set, const Statement& s) {
  const RoundedStatement r = RoundStatement(s);
  const ChargeTotals& t = s.totals;
  const ChargebackSettings& cfg = set.settings;
  Json j;
  j["team"] = s.team;
  j["total_usd"] = s.total_known() ? Cents(r.total_cents) : Json(nullptr);
  // The total less the lines' amounts, each rounded to the cent on its own.
  j["rounding_usd"] = s.total_known() ? Cents(r.rounding_cents) : Json(nullptr);
  j["shared_idle_usd"] = s.shared_idle_usd;
  j["prices_known"] = t.prices_known();
  PutTotals(t, j);
  j["idle_ratio"] = JsonNumber(t.idle_ratio());
  j["spot_ratio"] = JsonNumber(t.spot_ratio());
  j["efficiency_met"] =
      std::isfinite(t.efficiency()) ? Json(t.efficiency() > cfg.efficiency_target) : Json(nullptr);
  j["spot_ratio_met"] =
      std::isfinite(t.spot_ratio()) ? Json(t.spot_ratio() > cfg.spot_ratio_target) : Json(nullptr);
  const std::vector<std::string> labels = LineLabels(s);
  Json lines = Json::array();
  for (size_t i = 0; i < s.lines.size(); ++i) {
    const StatementLine& l = s.lines[i];
    Json line;
    line["label"] = labels[i];
    line["gpu_model"] = l.gpu_model;
    line["capacity_type"] = l.capacity_type;
    line["rate_usd_per_gpu_hour"] = JsonNumber(l.rate_usd_per_gpu_hour);
    line["amount_usd"] = Cents(r.line_cents[i]);
    // Only on lines of AWS Neuron devices (accelerator-hours), so GPU statements stay as they were.
    if (l.unit_kind != UnitKind::kGpu) line["unit_kind"] = UnitKindName(l.unit_kind);
    PutTotals(l.totals, line);
    lines.push_back(std::move(line));
  }
  j["lines"] = std::move(lines);
  Json workloads = Json::array();
  for (size_t i = 0; i < s.workloads.size(); ++i) {
    const WorkloadUsage& w = s.workloads[i];
    Json wl;
    wl["rank"] = i + 1;
    wl["namespace"] = w.namespace_name;
    wl["workload"] = w.workload;
    wl["workload_kind"] = w.workload_kind;
    wl["amount_usd"] = Cents(r.workload_cents[i]);
    PutTotals(w.totals, wl);
    workloads.push_back(std::move(wl));
  }
  j["workloads"] = std::move(workloads);
  Json days = Json::array();
  for (const DayUsage& d : s.days) {
    Json day;
    day["date"] = FormatDate(d.start);
    PutTotals(d.totals, day);
    days.push_back(std::move(day));
  }
  j["days"] = std::move(days);
  return j;
}

}  // namespace

void RenderJson(const StatementSet& set, std::ostream& out) {
  Json doc;
  doc["currency"] = "USD";
  doc["period"] = {{"start", FormatRfc3339(set.period.window.start)},
                   {"end", FormatRfc3339(set.period.window.end)},
                   {"month", set.period.month.empty() ? Json(nullptr) : Json(set.period.month)}};
  if (set.covered) {
    const Window& c = *set.covered;
    doc["covered"] = {{"start", FormatRfc3339(c.start)},
                      {"end", FormatRfc3339(c.end)},
                      {"hours", Hours(c.end - c.start)},
                      {"complete", c == set.period.window}};
  }
  doc["settings"] = {{"idle_threshold", set.settings.idle_threshold},
                     {"efficiency_target", set.settings.efficiency_target},
                     {"spot_ratio_target", set.settings.spot_ratio_target},
                     {"top", set.settings.top}};
  Json statements = Json::array();
  for (const Statement& s : set.statements) statements.push_back(StatementJson(set, s));
  doc["statements"] = std::move(statements);
  if (set.cluster) {
    const ClusterSummary& c = *set.cluster;
    Json prices = Json::object();
    for (const auto& [source, hours] : c.price_sources) prices[source] = hours;
    // A part with hours and no price is null (unknown), never 0; one priced in part is the
    // priced hours' money, as `prices_known: false` and unpriced_gpu_hours say.
    const auto usd = [](const ClusterPart& part) {
      const std::optional<double> known = part.Known();
      return known ? Json(*known) : Json(nullptr);
    };
    doc["cluster"] = {{"stated_teams_usd", usd(c.stated_teams)},
                      {"other_teams_usd", usd(c.other_teams)},
                      {"idle_usd", usd(c.idle)},
                      {"cost_usd", usd(c.cost)},
                      {"prices_known", !c.cost.some_unpriced},
                      {"idle_gpu_hours", c.idle_gpu_hours},
                      {"unpriced_gpu_hours", c.unpriced_gpu_hours},
                      {"idle_policy", c.idle_policy},
                      {"idle_scope", c.idle_scope},
                      {"price_sources", std::move(prices)}};
    if (HoursNounOf(c.unit_kind_hours).accelerators) {
      Json kinds = Json::object();
      for (const auto& [kind, hours] : c.unit_kind_hours) kinds[kind] = hours;
      doc["cluster"]["unit_kind_hours"] = std::move(kinds);
    }
  }
  out << doc.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) << "\n";
}

}  // namespace gpucost::chargeback
