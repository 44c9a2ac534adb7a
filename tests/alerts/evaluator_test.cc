// The built-in rules evaluated over engine records built by hand: each rule fires on the input
// made to trip it and stays quiet on the near miss beside it.
#include "alerts/evaluator.h"

#include <gtest/gtest.h>

#include <cmath>
#include <memory>
#include <nlohmann/json.hpp>
#include <sstream>
#include <vector>

#include "alerts/alert_sink.h"
#include "alerts/render.h"
#include "alerts/rule_catalog.h"

namespace gpucost::alerts {
namespace {

using std::chrono::hours;
using std::chrono::minutes;

const Instant kT0 = InstantFromUnixMs(1790812800000);  // 2026-10-01T00:00:00Z
constexpr Duration kStep = minutes(15);
constexpr int kSteps = 24;  // 6 hours

// Nodes: 0 on-demand A100, 1 spot A100, 2 on-demand H100 (unpriced in the records), 3 a node of
// unknown capacity type. One unit per node except node 0, which has two (units 0 and 4).
Inventory MakeInventory(const std::vector<Holder>& holders) {
  Inventory inv;
  const char* names[] = {"od-a100", "spot-a100", "od-h100", "onprem"};
  const char* capacity[] = {"on_demand", "spot", "on_demand", ""};
  for (int i = 0; i < 4; ++i) {
    Node n;
    n.cluster = "c1";
    n.name = names[i];
    n.physical_gpus = i == 0 ? 2 : 1;
    n.gpu_model = i == 2 ? "NVIDIA H100 80GB HBM3" : "NVIDIA A100-SXM4-80GB";
    n.capacity_type = capacity[i];
    inv.nodes.push_back(n);
    GpuUnit u;
    u.node = static_cast<NodeIndex>(i);
    u.gpu_model = n.gpu_model;
    inv.units.push_back(u);
  }
  GpuUnit second;
  second.node = 0;
  inv.units.push_back(second);
  inv.holders = holders;
  return inv;
}

Holder Pod(std::string ns, std::string pod, std::string team, std::string workload = "") {
  Holder h;
  h.cluster = "c1";
  h.namespace_name = std::move(ns);
  h.workload = workload.empty() ? pod : std::move(workload);
  h.pod = std::move(pod);
  h.container = "main";
  h.workload_kind = "Job";
  h.team = std::move(team);
  return h;
}

// One step of one unit held by `holder`, a whole GPU at `usd_per_hour`; u NaN: unmeasured.
CostRecord Rec(int64_t step, UnitIndex unit, HolderIndex holder, double u,
               double usd_per_hour = 4.0, double share = 1.0) {
  CostRecord r;
  r.step = step;
  r.unit = unit;
  r.holder = holder;
  r.gpu_hours = share * Hours(kStep);
  r.price_known = std::isfinite(usd_per_hour);
  r.allocated_usd = r.price_known ? r.gpu_hours * usd_per_hour : NAN;
  if (std::isfinite(u)) {
    r.activity_gpu_hours = r.gpu_hours * u;
    r.effective_usd = r.price_known ? r.allocated_usd * u : NAN;
  } else {
    r.unmeasured_gpu_hours = r.gpu_hours;
  }
  return r;
}

struct Case {
  Inventory inventory;
  std::vector<CostRecord> records;
  Usage usage;
  AlertSettings settings;
  Window window{kT0, kT0 + kStep * kSteps};

  AlertReport Evaluate(const BudgetFile* budgets = nullptr) const {
    AlertSink sink(inventory, AlertRun{window, kStep, settings});
    // Two batches in reverse order: the engine promises no order between batches.
    const size_t half = records.size() / 2;
    sink.Consume(std::span<const CostRecord>(records).subspan(half));
    sink.Consume(std::span<const CostRecord>(records).first(half));
    return alerts::Evaluate(sink, usage, budgets);
  }
};

// The alerts of one rule. Holds the report it points into, so that it may be taken from a
// temporary report (`Named(run.Evaluate(), ...)`).
class NamedAlerts {
 public:
  NamedAlerts(AlertReport report, std::string_view name)
      : report_(std::make_shared<const AlertReport>(std::move(report))) {
    for (const Alert& a : report_->alerts) {
      if (a.alertname == name) alerts_.push_back(&a);
    }
  }
  size_t size() const { return alerts_.size(); }
  bool empty() const { return alerts_.empty(); }
  const Alert* operator[](size_t i) const { return alerts_[i]; }
  auto begin() const { return alerts_.begin(); }
  auto end() const { return alerts_.end(); }
  operator const std::vector<const Alert*>&() const { return alerts_; }

 private:
  std::shared_ptr<const AlertReport> report_;
  std::vector<const Alert*> alerts_;
};

NamedAlerts Named(AlertReport r, std::string_view name) { return NamedAlerts(std::move(r), name); }

// The alert of `alerts` whose label `name` is `value`; nullptr when none.
const Alert* With(const std::vector<const Alert*>& alerts, const std::string& name,
                  const std::string& value) {
  for (const Alert* a : alerts) {
    auto it = a->labels.find(name);
    if (it != a->labels.end() && it->second == value) return a;
  }
  return nullptr;
}

std::string Label(const Alert* a, const std::string& name) {
  auto it = a->labels.find(name);
  return it == a->labels.end() ? "" : it->second;
}

// Utilization 0.9 until `idle_from`, then `idle_u`, on `unit`, for every step of the window.
void Busy(Case& run, UnitIndex unit, HolderIndex holder, int idle_from, double idle_u = 0.01) {
  for (int s = 0; s < kSteps; ++s)
    run.records.push_back(Rec(s, unit, holder, s < idle_from ? 0.9 : idle_u));
}

TEST(AlertsIdleOnDemand, FiresOnceIdleForTwoHoursAndNotBefore) {
  Case run;
  run.inventory = MakeInventory({Pod("ml", "train-0", "ml", "train"), Pod("ml", "eval-0", "ml"),
                                 Pod("ml", "spot-0", "ml")});
  Busy(run, 0, 0, kSteps - 8);          // idle the last 2 h: fires
  Busy(run, 3, 1, kSteps - 7);          // idle 1 h 45 m on a node of unknown capacity: no
  Busy(run, 1, 2, 0);                   // idle 6 h, but on spot: no
  const AlertReport r = run.Evaluate();
  const auto idle = Named(r, kGpuIdleOnDemand);
  ASSERT_EQ(idle.size(), 1u);
  EXPECT_EQ(Label(idle[0], "pod"), "train-0");
  EXPECT_EQ(Label(idle[0], "workload"), "train");
  EXPECT_EQ(Label(idle[0], "node"), "od-a100");
  EXPECT_EQ(Label(idle[0], "team"), "ml");
  EXPECT_EQ(Label(idle[0], "capacity_type"), "on_demand");
  EXPECT_NEAR(idle[0]->value, 0.01, 1e-6);
  EXPECT_EQ(idle[0]->starts_at, r.as_of);  // idle since as_of - 2h, for 2h
  EXPECT_EQ(idle[0]->severity, "warning");
  EXPECT_NE(idle[0]->description.find("since 2026-10-01T04:00:00Z (2h)"), std::string::npos)
      << idle[0]->description;
  EXPECT_NE(idle[0]->summary.find("ml/train"), std::string::npos) << idle[0]->summary;

  // One step short of 2 h: quiet.
  Case shorter = run;
  shorter.records.clear();
  Busy(shorter, 0, 0, kSteps - 7);
  EXPECT_TRUE(Named(shorter.Evaluate(), kGpuIdleOnDemand).empty());
}

TEST(AlertsIdleOnDemand, TheThresholdIsStrictAndUnmeasuredIsNotIdle) {
  Case run;
  run.inventory = MakeInventory({Pod("a", "at-threshold", "a"), Pod("b", "unmeasured", "b"),
                                 Pod("c", "released", "c")});
  Busy(run, 0, 0, 0, 0.05);  // 5% is not under 5%
  for (int s = 0; s < kSteps; ++s) {
    // Idle all along, but the last step has no usage sample: not idle at as_of.
    run.records.push_back(Rec(s, 4, 1, s == kSteps - 1 ? NAN : 0.0));
  }
  for (int s = 0; s < kSteps - 1; ++s) run.records.push_back(Rec(s, 2, 2, 0.0));  // gone at as_of
  EXPECT_TRUE(Named(run.Evaluate(), kGpuIdleOnDemand).empty());

  run.settings.idle_threshold = 0.06;  // now 5% is idle
  const auto idle = Named(run.Evaluate(), kGpuIdleOnDemand);
  ASSERT_EQ(idle.size(), 1u);
  EXPECT_EQ(Label(idle[0], "pod"), "at-threshold");
}

TEST(AlertsIdleOnDemand, AHolderIsIdleOnlyWhenAllItsGpusTogetherAre) {
  Case run;
  run.inventory = MakeInventory({Pod("ml", "two-gpus", "ml")});
  for (int s = 0; s < kSteps; ++s) {
    run.records.push_back(Rec(s, 0, 0, 0.0));
    run.records.push_back(Rec(s, 4, 0, 0.2));  // together 10%: not idle
  }
  EXPECT_TRUE(Named(run.Evaluate(), kGpuIdleOnDemand).empty());
  run.settings.idle_threshold = 0.11;
  ASSERT_EQ(Named(run.Evaluate(), kGpuIdleOnDemand).size(), 1u);
  EXPECT_NEAR(Named(run.Evaluate(), kGpuIdleOnDemand)[0]->value, 0.1, 1e-6);
}

TEST(AlertsNotebookIdle, ByNameOrKubeflowLabelAfterOneHour) {
  Case run;
  Holder kubeflow = Pod("kf", "ana-0", "research", "ana");
  kubeflow.labels = LabelSet{{"notebook-name", "ana"}};
  run.inventory = MakeInventory({Pod("research", "notebook-bob-0", "research", "notebook-bob"),
                                 kubeflow, Pod("research", "jupyter-carol", "research"),
                                 Pod("research", "trainer-0", "research")});
  Busy(run, 1, 0, kSteps - 4);  // 1 h idle on spot: fires
  Busy(run, 3, 1, kSteps - 4);  // labelled notebook: fires
  Busy(run, 2, 2, kSteps - 3);  // 45 min: not yet
  Busy(run, 0, 3, 0);           // no notebook (but idle on demand)
  const AlertReport r = run.Evaluate();
  const auto nb = Named(r, kGpuNotebookIdle);
  ASSERT_EQ(nb.size(), 2u);
  ASSERT_NE(With(nb, "namespace", "kf"), nullptr);
  const Alert* bob = With(nb, "pod", "notebook-bob-0");
  ASSERT_NE(bob, nullptr);
  EXPECT_EQ(Label(bob, "capacity_type"), "spot");
  EXPECT_EQ(bob->starts_at, r.as_of);
  const auto od = Named(r, kGpuIdleOnDemand);
  ASSERT_EQ(od.size(), 1u);
  EXPECT_EQ(Label(od[0], "pod"), "trainer-0");
}

TEST(AlertsTeamRatios, SpotRatioAndEfficiencyAgainstTheirTargets) {
  Case run;
  run.inventory = MakeInventory({Pod("a", "a-od", "low-spot"), Pod("a", "a-spot", "low-spot"),
                                 Pod("b", "b-spot", "mostly-spot"), Pod("b", "b-od", "mostly-spot"),
                                 Pod("c", "c-0", "onprem"), Pod("d", "d-0", "tiny")});
  for (int s = 0; s < kSteps; ++s) {
    run.records.push_back(Rec(s, 0, 0, 0.9));                   // 6 h on demand
    if (s < 8) run.records.push_back(Rec(s, 1, 1, 0.9));       // 2 h spot: 25%
    run.records.push_back(Rec(s, 1, 2, s < 12 ? 0.2 : NAN));   // 6 h spot, half unmeasured
    if (s < 6) run.records.push_back(Rec(s, 4, 3, 0.9));       // 1.5 h on demand: 80% spot
    run.records.push_back(Rec(s, 3, 4, 0.1));                  // unknown capacity type
  }
  run.records.push_back(Rec(0, 4, 5, 0.0));  // 0.25 GPU-hours: under min-gpu-hours
  const AlertReport r = run.Evaluate();
  const auto spot = Named(r, kGpuSpotRatioLow);
  ASSERT_EQ(spot.size(), 1u);
  EXPECT_EQ(Label(spot[0], "team"), "low-spot");
  EXPECT_NEAR(spot[0]->value, 2.0 / 8, 1e-9);
  EXPECT_EQ(spot[0]->severity, "info");

  // Efficiency: low-spot 0.9; mostly-spot (0.2 x 3 h + 0.9 x 1.5 h) / 4.5 h over its measured
  // hours only; onprem 0.1; tiny skipped.
  const auto eff = Named(r, kGpuEfficiencyLow);
  ASSERT_EQ(eff.size(), 2u);
  EXPECT_EQ(Label(eff[0], "team"), "mostly-spot");
  EXPECT_NEAR(eff[0]->value, (0.2 * 3 + 0.9 * 1.5) / 4.5, 1e-9);
  EXPECT_EQ(Label(eff[1], "team"), "onprem");
  EXPECT_NEAR(eff[1]->value, 0.1, 1e-9);

  run.settings.spot_ratio_target = 0.2;
  run.settings.efficiency_target = 0.05;
  const AlertReport quiet = run.Evaluate();
  EXPECT_TRUE(Named(quiet, kGpuSpotRatioLow).empty());
  EXPECT_TRUE(Named(quiet, kGpuEfficiencyLow).empty());
}

TEST(AlertsTeamRatios, OnlyTheTrailingRatioWindowCounts) {
  Case run;
  run.inventory = MakeInventory({Pod("a", "a-0", "a")});
  run.settings.ratio_window = hours(3);
  run.settings.spot_ratio_target = 0.4;
  for (int s = 0; s < kSteps; ++s) {
    run.records.push_back(Rec(s, s < 12 ? 1 : 0, 0, 0.9));  // spot 3 h, then on demand 3 h
  }
  const auto spot = Named(run.Evaluate(), kGpuSpotRatioLow);
  ASSERT_EQ(spot.size(), 1u);
  EXPECT_NEAR(spot[0]->value, 0.0, 1e-12);
  run.settings.ratio_window = hours(6);
  EXPECT_TRUE(Named(run.Evaluate(), kGpuSpotRatioLow).empty());  // 50% over 6 h
}

TEST(AlertsNodeRules, PriceUnknownWhereAnyHourHasNoPrice) {
  Case run;
  run.inventory = MakeInventory({Pod("p", "bench-0", "platform")});
  for (int s = 0; s < kSteps; ++s) run.records.push_back(Rec(s, 0, 0, 0.9));
  CostRecord idle = Rec(5, 2, kNoIndex, NAN, NAN);  // unheld capacity of the H100 node
  run.records.push_back(idle);
  const AlertReport r = run.Evaluate();
  const auto unknown = Named(r, kGpuPriceUnknown);
  ASSERT_EQ(unknown.size(), 1u);
  EXPECT_EQ(Label(unknown[0], "node"), "od-h100");
  EXPECT_EQ(Label(unknown[0], "gpu_model"), "NVIDIA H100 80GB HBM3");
  EXPECT_EQ(unknown[0]->starts_at, kT0 + kStep * 5);
  EXPECT_NE(unknown[0]->description.find("0.25 GPU-hours"), std::string::npos);
  run.records.pop_back();
  EXPECT_TRUE(Named(run.Evaluate(), kGpuPriceUnknown).empty());
}

TEST(AlertsNodeRules, TelemetryMissingWhenHeldWithoutSamples) {
  Case run;
  run.inventory = MakeInventory({Pod("a", "a-0", "a"), Pod("b", "b-0", "b"), Pod("c", "c-0", "c"),
                                 Pod("d", "d-0", "d")});
  const Instant end = run.window.end;
  for (int s = 0; s < kSteps; ++s) {
    // od-a100: sampled 20 min ago, unmeasured in the last step; spot-a100 likewise but sampled
    // 10 min ago; od-h100 never sampled; onprem never sampled but not held at the end.
    run.records.push_back(Rec(s, 0, 0, s < kSteps - 1 ? 0.5 : NAN));
    run.records.push_back(Rec(s, 1, 1, s < kSteps - 1 ? 0.5 : NAN));
    run.records.push_back(Rec(s, 2, 2, NAN));
    if (s < 10) run.records.push_back(Rec(s, 3, 3, NAN));
  }
  auto series = [](NodeIndex node, Instant last) {
    DeviceSeries d;
    d.node = node;
    d.samples = {{last - minutes(30), 0.5}, {last, 0.5}};
    return d;
  };
  run.usage.devices = {series(0, end - minutes(20)), series(1, end - minutes(10))};
  const AlertReport r = run.Evaluate();
  const auto missing = Named(r, kGpuTelemetryMissing);
  ASSERT_EQ(missing.size(), 2u);
  EXPECT_EQ(Label(missing[0], "node"), "od-a100");
  EXPECT_DOUBLE_EQ(missing[0]->value, 20 * 60);
  EXPECT_EQ(missing[0]->starts_at, end - minutes(5));
  EXPECT_NE(missing[0]->description.find("20m 0s"), std::string::npos) << missing[0]->description;
  EXPECT_EQ(Label(missing[1], "node"), "od-h100");
  EXPECT_DOUBLE_EQ(missing[1]->value, 6 * 3600);
  EXPECT_NE(missing[1]->description.find("No usage sample"), std::string::npos);

  // Held but measured in the last step (a sample within the staleness): no alert, however old
  // the newest sample.
  Case measured = run;
  for (CostRecord& rec : measured.records) {
    if (rec.unit == 0 && rec.step == kSteps - 1) rec = Rec(rec.step, 0, 0, 0.5);
  }
  const auto stale_but_measured = Named(measured.Evaluate(), kGpuTelemetryMissing);
  ASSERT_EQ(stale_but_measured.size(), 1u);
  EXPECT_EQ(Label(stale_but_measured[0], "node"), "od-h100");

  run.settings.telemetry_missing_for = minutes(25);
  const auto later = Named(run.Evaluate(), kGpuTelemetryMissing);
  ASSERT_EQ(later.size(), 1u);
  EXPECT_EQ(Label(later[0], "node"), "od-h100");
}

// A week of data, 2026-10-10 to 2026-10-17, hourly: ml holds one GPU at $2/h, search one at
// $1/h, platform one nothing prices.
TEST(AlertsBudgets, TableAndRuleFromMonthToDateAndRunRate) {
  const Instant start = InstantFromUnixMs(1791590400000);  // 2026-10-10T00:00:00Z
  const Duration step = hours(1);
  Inventory inv = MakeInventory({Pod("ml", "train-0", "ml"), Pod("search", "rank-0", "search"),
                                 Pod("platform", "burn-0", "platform")});
  std::vector<CostRecord> records;
  for (int s = 0; s < 7 * 24; ++s) {
    const double price[] = {2.0, 1.0, NAN};
    for (HolderIndex h = 0; h < 3; ++h) {
      CostRecord r;
      r.step = s;
      r.unit = h;
      r.holder = h;
      r.gpu_hours = 1;
      r.price_known = std::isfinite(price[h]);
      r.allocated_usd = price[h];
      r.activity_gpu_hours = 0.9;
      r.effective_usd = price[h] * 0.9;
      records.push_back(r);
    }
  }
  AlertSettings settings;
  AlertSink sink(inv, AlertRun{Window{start, start + step * (7 * 24)}, step, settings});
  sink.Consume(records);
  BudgetFile file;
  file.budgets_usd = {{"ml", 1000}, {"finance", 50}};
  file.default_usd = 5000;
  const AlertReport r = Evaluate(sink, Usage{}, &file);
  ASSERT_TRUE(r.budgets.has_value());
  EXPECT_EQ(MonthName(r.budgets->month.start), "2026-10");
  ASSERT_EQ(r.budgets->teams.size(), 4u);  // finance (no usage), ml, platform, search
  const TeamBudget& finance = r.budgets->teams[0];
  const TeamBudget& ml = r.budgets->teams[1];
  const TeamBudget& platform = r.budgets->teams[2];
  const TeamBudget& search = r.budgets->teams[3];
  EXPECT_EQ(finance.team, "finance");
  EXPECT_DOUBLE_EQ(finance.forecast.forecast_usd, 0);
  EXPECT_FALSE(finance.over());
  // ml: $336 in the 7 days (all of October's data), $48/day, 15 days left: 336 + 48 x 15.
  EXPECT_EQ(ml.team, "ml");
  EXPECT_DOUBLE_EQ(ml.month_to_date_usd, 336);
  EXPECT_DOUBLE_EQ(ml.forecast.run_rate_usd_per_day, 48);
  EXPECT_DOUBLE_EQ(ml.forecast.remaining_days, 15);
  EXPECT_DOUBLE_EQ(ml.forecast.forecast_usd, 1056);
  EXPECT_TRUE(ml.forecast.partial_month);
  EXPECT_TRUE(ml.over());
  EXPECT_EQ(*search.budget_usd, 5000);  // the default
  EXPECT_DOUBLE_EQ(search.forecast.forecast_usd, 168 + 24 * 15);
  EXPECT_FALSE(search.over());
  EXPECT_FALSE(platform.amounts_known());  // unknown, never $0
  EXPECT_FALSE(platform.over());
  const auto over = Named(r, kGpuBudgetForecastOverrun);
  ASSERT_EQ(over.size(), 1u);
  EXPECT_EQ(Label(over[0], "team"), "ml");
  EXPECT_DOUBLE_EQ(over[0]->value, 1056);
  // Money grouped alike in every figure of the text (the rule's template and the evaluator's).
  EXPECT_NE(over[0]->description.find("forecast at $1,056.00"), std::string::npos)
      << over[0]->description;
  EXPECT_EQ(over[0]->description.find("$1056.00"), std::string::npos) << over[0]->description;
  EXPECT_NE(over[0]->description.find("budget of $1,000.00"), std::string::npos);

  file.budgets_usd["ml"] = 1056;  // forecast exactly at budget: not over
  EXPECT_TRUE(Named(Evaluate(sink, Usage{}, &file), kGpuBudgetForecastOverrun).empty());
  EXPECT_TRUE(Named(Evaluate(sink, Usage{}, nullptr), kGpuBudgetForecastOverrun).empty());
}

// A run rate that reaches back into a month nothing priced leaves the month to date exact: maps
// holds a GPU September 28 to October 3, unpriced in September and at $2/h in October.
TEST(AlertsBudgets, AMonthToDateOfPricedHoursIsExactWhateverTheRunRateHolds) {
  const Instant start = InstantFromUnixMs(1790553600000);  // 2026-09-28T00:00:00Z
  const Duration step = hours(1);
  Inventory inv = MakeInventory({Pod("maps", "tiles-0", "maps"), Pod("old", "gone-0", "old")});
  std::vector<CostRecord> records;
  for (int s = 0; s < 3 * 24; ++s) {  // old: September only, unpriced
    CostRecord r;
    r.step = s;
    r.unit = 1;
    r.holder = 1;
    r.gpu_hours = 1;
    r.price_known = false;
    r.allocated_usd = NAN;
    r.activity_gpu_hours = 0.5;
    r.effective_usd = NAN;
    records.push_back(r);
  }
  for (int s = 0; s < 5 * 24; ++s) {
    CostRecord r;
    r.step = s;
    r.unit = 0;
    r.holder = 0;
    r.gpu_hours = 1;
    r.price_known = s >= 3 * 24;  // from October 1
    r.allocated_usd = r.price_known ? 2.0 : NAN;
    r.activity_gpu_hours = 0.5;
    r.effective_usd = r.price_known ? 1.0 : NAN;
    records.push_back(r);
  }
  AlertSettings settings;
  AlertSink sink(inv, AlertRun{Window{start, start + step * (5 * 24)}, step, settings});
  sink.Consume(records);
  BudgetFile file;
  file.default_usd = 5000;
  const AlertReport r = Evaluate(sink, Usage{}, &file);
  ASSERT_TRUE(r.budgets.has_value());
  ASSERT_EQ(r.budgets->teams.size(), 2u);
  const TeamBudget& maps = r.budgets->teams[0];
  EXPECT_DOUBLE_EQ(maps.month_to_date_usd, 96);
  EXPECT_DOUBLE_EQ(maps.month_unpriced_gpu_hours, 0);
  EXPECT_DOUBLE_EQ(maps.unpriced_gpu_hours, 72);  // the run rate's September hours
  EXPECT_TRUE(maps.month_exact());
  EXPECT_FALSE(maps.exact());
  std::ostringstream text;
  RenderAlerts(r, settings, AlertFormat::kText, text);
  EXPECT_NE(text.str().find("maps  $5,000.00  $96.00  "), std::string::npos) << text.str();
  EXPECT_NE(text.str().find(" + unknown"), std::string::npos) << text.str();  // the forecast
  // old held nothing this month: its month to date is $0.00 exactly, its forecast unknown.
  const TeamBudget& old = r.budgets->teams[1];
  EXPECT_TRUE(old.month_exact());
  EXPECT_FALSE(old.amounts_known());
  std::ostringstream json;
  RenderAlerts(r, settings, AlertFormat::kJson, json);
  const nlohmann::json doc = nlohmann::json::parse(json.str());
  EXPECT_EQ(doc["budgets"]["teams"][1]["month_to_date_usd"], 0.0) << json.str();
  EXPECT_TRUE(doc["budgets"]["teams"][1]["forecast_usd"].is_null()) << json.str();
}

}  // namespace
}  // namespace gpucost::alerts
