#include "alerts/evaluator.h"

#include <algorithm>
#include <cmath>
#include <set>
#include <tuple>

#include "alerts/rule_catalog.h"
#include "core/strings.h"

namespace gpucost::alerts {
namespace {

using Labels = std::map<std::string, std::string>;

void Put(Labels& labels, const std::string& name, const std::string& value) {
  if (!value.empty()) labels[name] = value;
}

Labels NodeLabels(const Node& n) {
  Labels l;
  Put(l, "cluster", n.cluster);
  Put(l, "node", n.name);
  Put(l, "gpu_model", n.gpu_model);
  Put(l, "capacity_type", n.capacity_type);
  Put(l, "instance_type", n.instance_type);
  return l;
}

Labels HolderLabels(const Holder& h, const Node* n) {
  Labels l = n != nullptr ? NodeLabels(*n) : Labels{};
  l.erase("instance_type");
  Put(l, "cluster", h.cluster);
  Put(l, "team", AlertSink::TeamOf(h));
  Put(l, "namespace", h.namespace_name);
  Put(l, "workload", h.workload.empty() ? h.pod : h.workload);
  Put(l, "workload_kind", h.workload_kind);
  Put(l, "pod", h.pod);
  Put(l, "container", h.container);
  return l;
}

Alert Make(std::string_view rule_id, Labels labels, double value, Instant starts_at,
           const AlertSettings& settings, std::string_view detail) {
  const RuleDef* rule = FindRule(rule_id);
  Alert a;
  a.alertname = std::string(rule_id);
  a.severity = rule->severity;
  a.labels = std::move(labels);
  a.value = value;
  a.starts_at = starts_at;
  a.summary = RenderTemplate(rule->summary, a.labels, value, settings);
  a.description = RenderTemplate(rule->description, a.labels, value, settings);
  if (!detail.empty()) a.description += StrCat(" ", detail);
  return a;
}

std::string Fixed2(double h) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.2f", h);
  return buf;
}

// Idle runs that end at as_of: GpuIdleOnDemand and GpuNotebookIdle.
void IdleRules(const AlertSink& sink, std::vector<Alert>& out) {
  const Inventory& inv = sink.inventory();
  const AlertSettings& s = sink.run().settings;
  const Instant as_of = sink.run().window.end;
  for (HolderIndex h = 0; h < inv.holders.size(); ++h) {
    const std::span<const StepUse> tail = sink.HolderTail(h);
    if (tail.empty() || tail.back().held_gpu_hours <= 0) continue;  // not held at as_of
    size_t first = tail.size();
    double held = 0, active = 0;
    while (first > 0) {
      const StepUse& u = tail[first - 1];
      if (u.held_gpu_hours <= 0 || u.unmeasured ||
          u.activity_gpu_hours >= s.idle_threshold * u.held_gpu_hours) {
        break;
      }
      held += u.held_gpu_hours;
      active += u.activity_gpu_hours;
      --first;
    }
    if (first == tail.size()) continue;
    const Instant run_start = sink.StepStart(sink.tail_first_step() + static_cast<int64_t>(first));
    const Duration run = as_of - run_start;
    const bool at_least = first == 0 && sink.tail_first_step() > 0;
    const NodeIndex node = sink.HolderNode(h);
    const Node* n = node < inv.nodes.size() ? &inv.nodes[node] : nullptr;
    const Holder& holder = inv.holders[h];
    const double u = held > 0 ? active / held : 0;
    const double last_step_hours = Hours(as_of - sink.StepStart(sink.last_step()));
    const double gpus = last_step_hours > 0 ? tail.back().held_gpu_hours / last_step_hours : 0;
    const std::string detail =
        StrCat("Idle ", at_least ? "since at least " : "since ", FormatRfc3339(run_start), " (",
               FormatDuration(std::chrono::duration_cast<std::chrono::minutes>(run)), "), ",
               Fixed2(gpus), " GPU-equivalents held.");
    if (n != nullptr && n->capacity_type == "on_demand" && run >= s.idle_for) {
      out.push_back(Make(kGpuIdleOnDemand, HolderLabels(holder, n), u, run_start + s.idle_for, s,
                         detail));
    }
    if (IsNotebook(holder) && run >= s.notebook_idle_for) {
      out.push_back(Make(kGpuNotebookIdle, HolderLabels(holder, n), u,
                         run_start + s.notebook_idle_for, s, detail));
    }
  }
}

// GpuPriceUnknown and GpuTelemetryMissing.
void NodeRules(const AlertSink& sink, const Usage& usage, std::vector<Alert>& out) {
  const Inventory& inv = sink.inventory();
  const AlertSettings& s = sink.run().settings;
  const Window w = sink.run().window;
  std::vector<Instant> newest(inv.nodes.size(), Instant::min());
  auto see = [&](NodeIndex node, const std::vector<UsageSample>& samples) {
    if (node >= newest.size()) return;
    for (auto it = samples.rbegin(); it != samples.rend(); ++it) {
      if (it->t < w.end) {
        newest[node] = std::max(newest[node], it->t);
        break;
      }
    }
  };
  for (const DeviceSeries& d : usage.devices) see(d.node, d.samples);
  for (const HolderDeviceSeries& d : usage.holders) see(d.node, d.samples);

  const double last_step_hours = Hours(w.end - sink.StepStart(sink.last_step()));
  for (NodeIndex i = 0; i < inv.nodes.size(); ++i) {
    const NodeFacts& f = sink.nodes()[i];
    const Node& n = inv.nodes[i];
    if (f.unpriced_gpu_hours > 0) {
      out.push_back(Make(kGpuPriceUnknown, NodeLabels(n), NAN,
                         sink.StepStart(f.first_unpriced_step), s,
                         StrCat(Fixed2(f.unpriced_gpu_hours),
                                " GPU-hours of the evaluated window have no price.")));
    }
    // Held, and unmeasured in the last step: a sample still within the engine's staleness
    // measures the step, whatever its age.
    if (f.last_step_held_gpu_hours <= 0 || f.last_step_unmeasured_gpu_hours <= 0) continue;
    // Without any sample of the node (a ledger holds none), the end of the newest measured step
    // stands for the newest sample, as gpucost_node_last_usage_sample_timestamp_seconds says it.
    const bool from_steps = newest[i] == Instant::min() && f.newest_measured_step >= 0;
    if (from_steps) newest[i] = sink.StepStart(f.newest_measured_step + 1);
    const bool never = newest[i] < w.start;
    const Instant since = never ? w.start : newest[i];
    const Duration silent = w.end - since;
    if (silent < s.telemetry_missing_for) continue;
    const double gpus = last_step_hours > 0 ? f.last_step_held_gpu_hours / last_step_hours : 0;
    const std::string detail =
        never ? StrCat("No usage sample in the evaluated window (from ", FormatRfc3339(w.start),
                       "); ", Fixed2(gpus), " GPU-equivalents held.")
              : StrCat(from_steps ? "Newest measured step ended at " : "Newest usage sample at ",
                       FormatRfc3339(newest[i]), "; ", Fixed2(gpus), " GPU-equivalents held.");
    out.push_back(Make(kGpuTelemetryMissing, NodeLabels(n), Seconds(silent),
                       since + s.telemetry_missing_for, s, detail));
  }
}

// GpuSpotRatioLow and GpuEfficiencyLow over the ratio window.
void TeamRules(const AlertSink& sink, std::vector<Alert>& out) {
  const AlertSettings& s = sink.run().settings;
  const Instant as_of = sink.run().window.end;
  for (const auto& [team, f] : sink.teams()) {
    if (f.gpu_hours < s.min_gpu_hours || f.gpu_hours <= 0) continue;
    const Labels labels = {{"team", team}};
    if (f.known_capacity_gpu_hours > 0) {
      const double ratio = f.spot_gpu_hours / f.known_capacity_gpu_hours;
      if (ratio < s.spot_ratio_target) {
        out.push_back(Make(kGpuSpotRatioLow, labels, ratio, as_of, s,
                           StrCat(Fixed2(f.spot_gpu_hours), " of ",
                                  Fixed2(f.known_capacity_gpu_hours),
                                  " GPU-hours on known capacity types were spot.")));
      }
    }
    if (f.measured_allocated_usd > 0) {
      const double eff = f.measured_effective_usd / f.measured_allocated_usd;
      if (eff < s.efficiency_target) {
        out.push_back(Make(kGpuEfficiencyLow, labels, eff, as_of, s,
                           StrCat("Effective ", FormatUsd(f.measured_effective_usd), " of ",
                                  FormatUsd(f.measured_allocated_usd), " allocated.")));
      }
    }
  }
}

BudgetTable Budgets(const AlertSink& sink, const BudgetFile& file, std::vector<Alert>& out) {
  const AlertSettings& s = sink.run().settings;
  const Window w = sink.run().window;
  BudgetTable table;
  table.month = sink.month();
  table.as_of = w.end;
  std::set<std::string> names;
  for (const auto& [team, usd] : file.budgets_usd) names.insert(team);
  for (const auto& [team, f] : sink.teams()) {
    if (f.priced_gpu_hours > 0 || f.unpriced_gpu_hours > 0) names.insert(team);
  }
  static const TeamFacts kNone;
  for (const std::string& team : names) {
    auto it = sink.teams().find(team);
    const TeamFacts& f = it == sink.teams().end() ? kNone : it->second;
    TeamBudget b;
    b.team = team;
    b.budget_usd = file.For(team);
    b.month_to_date_usd = f.month_to_date_usd;
    b.priced_gpu_hours = f.priced_gpu_hours;
    b.unpriced_gpu_hours = f.unpriced_gpu_hours;
    b.month_unpriced_gpu_hours = f.month_unpriced_gpu_hours;
    ForecastInput in;
    in.month = table.month;
    in.as_of = w.end;
    in.data_start = w.start;
    in.month_to_date_usd = f.month_to_date_usd;
    in.recent_usd = f.recent_usd;
    in.lookback = s.forecast_lookback;
    b.forecast = Forecast(in);
    if (b.over()) {
      const std::string floor = b.exact() ? "" : " at least";
      out.push_back(Make(
          kGpuBudgetForecastOverrun, {{"team", team}}, b.forecast.forecast_usd, w.end, s,
          StrCat("Month-to-date", floor, " ", FormatUsd(b.month_to_date_usd), ", run rate",
                 floor, " ", FormatUsd(b.forecast.run_rate_usd_per_day), "/day over the last ",
                 Fixed2(b.forecast.rate_days), " days, forecast", floor, " ",
                 FormatUsd(b.forecast.forecast_usd), " for ", MonthName(table.month.start),
                 " against a budget of ", FormatUsd(*b.budget_usd), ".")));
    }
    table.teams.push_back(std::move(b));
  }
  return table;
}

int SeverityRank(const std::string& s) {
  if (s == "critical") return 0;
  if (s == "warning") return 1;
  return 2;
}

}  // namespace

AlertReport Evaluate(const AlertSink& sink, const Usage& usage, const BudgetFile* budgets) {
  AlertReport report;
  report.window = sink.run().window;
  report.as_of = report.window.end;
  IdleRules(sink, report.alerts);
  NodeRules(sink, usage, report.alerts);
  TeamRules(sink, report.alerts);
  if (budgets != nullptr) report.budgets = Budgets(sink, *budgets, report.alerts);
  std::sort(report.alerts.begin(), report.alerts.end(), [](const Alert& a, const Alert& b) {
    const int ra = SeverityRank(a.severity), rb = SeverityRank(b.severity);
    return std::tie(ra, a.alertname, a.labels) < std::tie(rb, b.alertname, b.labels);
  });
  return report;
}

}  // namespace gpucost::alerts
