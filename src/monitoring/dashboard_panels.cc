#include "monitoring/dashboard_panels.h"

#include <utility>

#include "core/strings.h"
#include "monitoring/metric_catalog.h"

namespace gpucost::monitoring {
namespace {

// Label filters by the variables a metric's labels allow.
constexpr std::string_view kHolderFilter =
    R"(cluster=~"$cluster", team=~"$team", namespace=~"$namespace")";
constexpr std::string_view kTeamFilter = R"(cluster=~"$cluster", team=~"$team")";
constexpr std::string_view kNodeFilter = R"(cluster=~"$cluster")";

std::string Sel(std::string_view metric, std::string_view filter, std::string_view extra = "") {
  return extra.empty() ? StrCat(metric, "{", filter, "}")
                       : StrCat(metric, "{", filter, ", ", extra, "}");
}

// sum by (<by>) (<fn>(<selector>[<range>])), or sum(...) when `by` is empty.
std::string SumOf(std::string_view fn, const std::string& selector, std::string_view range,
                  std::string_view by = "") {
  const std::string inner = StrCat(fn, "(", selector, "[", range, "])");
  return by.empty() ? StrCat("sum(", inner, ")") : StrCat("sum by (", by, ") (", inner, ")");
}

// A counter of USD or hours as a per-hour rate: rate() is per second.
std::string PerHour(const std::string& selector, std::string_view by) {
  return StrCat(SumOf("rate", selector, "$__rate_interval", by), " * 3600");
}

PanelSpec Panel(std::string title, std::string type, std::string unit, int x, int y, int w, int h,
                std::string description, std::vector<PanelQuery> queries) {
  PanelSpec p;
  p.title = std::move(title);
  p.type = std::move(type);
  p.unit = std::move(unit);
  p.x = x;
  p.y = y;
  p.w = w;
  p.h = h;
  p.description = std::move(description);
  p.queries = std::move(queries);
  return p;
}

}  // namespace

std::vector<VariableSpec> DashboardVariables() {
  const std::string_view m = kAllocatedUsdTotal;
  return {
      {"cluster", StrCat("label_values(", m, ", cluster)")},
      {"team", StrCat("label_values(", m, R"({cluster=~"$cluster"}, team))")},
      {"namespace",
       StrCat("label_values(", m, R"({cluster=~"$cluster", team=~"$team"}, namespace))")},
  };
}

std::vector<PanelSpec> DashboardPanels() {
  const std::string allocated = Sel(kAllocatedUsdTotal, kHolderFilter);
  const std::string effective = Sel(kEffectiveUsdTotal, kHolderFilter);
  const std::string waste = Sel(kWasteUsdTotal, kHolderFilter);
  const std::string hours = Sel(kAllocatedGpuHoursTotal, kHolderFilter);
  const std::string spot_hours =
      Sel(kAllocatedGpuHoursTotal, kHolderFilter, R"(capacity_type="spot")");
  const std::string unmeasured = Sel(kUnmeasuredGpuHoursTotal, kHolderFilter);
  const std::string idle_usd = Sel(kIdleUsdTotal, kNodeFilter);
  const std::string idle_hours = Sel(kIdleGpuHoursTotal, kNodeFilter);
  const std::string spot_ratio_expr =
      StrCat("(", SumOf("increase", spot_hours, "$__range"), " or vector(0)) / ",
             SumOf("increase", hours, "$__range"));

  std::vector<PanelSpec> p;
  // Overview over the dashboard's time range.
  p.push_back(Panel("Allocated cost", "stat", "currencyUSD", 0, 0, 5, 4,
                    "Share held x price x hours over the time range.",
                    {{SumOf("increase", allocated, "$__range"), "allocated", true}}));
  p.push_back(Panel("Effective cost", "stat", "currencyUSD", 5, 0, 5, 4,
                    "Allocated x utilization, over measured time.",
                    {{SumOf("increase", effective, "$__range"), "effective", true}}));
  p.push_back(Panel("Efficiency", "stat", "percentunit", 10, 0, 5, 4,
                    "Effective / allocated cost over the time range.",
                    {{StrCat(SumOf("increase", effective, "$__range"), " / ",
                             SumOf("increase", allocated, "$__range")),
                      "efficiency", true}}));
  p.push_back(Panel("Spot ratio", "stat", "percentunit", 15, 0, 4, 4,
                    "Spot GPU-hours / all GPU-hours held over the time range.",
                    {{spot_ratio_expr, "spot", true}}));
  p.push_back(Panel("Unmeasured GPU-hours", "stat", "none", 19, 0, 5, 4,
                    "GPU-hours held with no usage sample: their effective cost is unknown.",
                    {{SumOf("increase", unmeasured, "$__range"), "unmeasured", true}}));

  // Cost over time per team.
  p.push_back(Panel("Allocated cost per team ($/h)", "timeseries", "currencyUSD", 0, 4, 12, 8,
                    "Allocated cost rate per team.", {{PerHour(allocated, "team"), "{{team}}"}}));
  p.back().stacked = true;
  p.push_back(Panel("Effective cost per team ($/h)", "timeseries", "currencyUSD", 12, 4, 12, 8,
                    "Effective cost rate per team (measured time only).",
                    {{PerHour(effective, "team"), "{{team}}"}}));
  p.back().stacked = true;
  p.push_back(Panel("Waste per team ($/h)", "timeseries", "currencyUSD", 0, 12, 12, 8,
                    "Allocated - effective cost rate per team (measured time only).",
                    {{PerHour(waste, "team"), "{{team}}"}}));
  p.back().stacked = true;
  p.push_back(Panel("Idle capacity cost ($/h)", "timeseries", "currencyUSD", 12, 12, 12, 8,
                    "Cost rate of GPU capacity nobody held, by cluster and GPU model: it "
                    "belongs to no team.",
                    {{PerHour(idle_usd, "cluster, gpu_model"), "{{cluster}} {{gpu_model}}"}}));
  p.back().stacked = true;

  // Efficiency and spot capacity.
  p.push_back(Panel("Efficiency per team", "timeseries", "percentunit", 0, 20, 12, 8,
                    "Effective / allocated cost per team.",
                    {{StrCat(SumOf("rate", effective, "$__rate_interval", "team"), " / ",
                             SumOf("rate", allocated, "$__rate_interval", "team")),
                      "{{team}}"}}));
  p.push_back(Panel("Spot ratio per team", "timeseries", "percentunit", 12, 20, 12, 8,
                    "Spot GPU-hours / all GPU-hours held per team.",
                    {{StrCat("(", SumOf("rate", spot_hours, "$__rate_interval", "team"), " or ",
                             SumOf("rate", hours, "$__rate_interval", "team"), " * 0) / ",
                             SumOf("rate", hours, "$__rate_interval", "team")),
                      "{{team}}"}}));

  // Who spends, and where capacity sits idle.
  p.push_back(Panel("Top workloads by allocated cost", "table", "currencyUSD", 0, 28, 12, 9,
                    "The ten workloads with the highest allocated cost over the time range.",
                    {{StrCat("topk(10, ",
                             SumOf("increase", allocated, "$__range",
                                   "cluster, namespace, workload_kind, workload"),
                             ")"),
                      "allocated ($)", true}}));
  PanelSpec idle =
      Panel("Idle capacity by node", "table", "none", 12, 28, 12, 9,
            "GPU-hours and cost of capacity nobody held, per node, over the time range.",
            {{StrCat("sort_desc(",
                     SumOf("increase", idle_hours, "$__range", "cluster, node, gpu_model"), ")"),
              "idle GPU-hours", true},
             {SumOf("increase", idle_usd, "$__range", "cluster, node, gpu_model"), "idle cost ($)",
              true}});
  idle.merge = true;
  p.push_back(std::move(idle));

  // Unmeasured time and budgets.
  p.push_back(Panel("Unmeasured GPUs per team", "timeseries", "none", 0, 37, 12, 8,
                    "GPU-equivalents held with no usage sample (not idle: unknown).",
                    {{PerHour(unmeasured, "team"), "{{team}}"}}));
  p.push_back(Panel(
      "Budget vs forecast per team", "timeseries", "currencyUSD", 12, 37, 12, 8,
      "The month's budget, cost to date and forecast to the month's end.",
      {{StrCat("sum by (team) (", Sel(kTeamBudgetUsd, kTeamFilter), ")"), "{{team}} budget"},
       {StrCat("sum by (team) (", Sel(kTeamMonthToDateUsd, kTeamFilter), ")"),
        "{{team}} month to date"},
       {StrCat("sum by (team) (", Sel(kTeamForecastUsd, kTeamFilter), ")"), "{{team}} forecast"}}));
  p.push_back(Panel("Forecast / budget", "bargauge", "percentunit", 0, 45, 12, 6,
                    "The month's forecast as a share of the budget; over 100% overruns.",
                    {{StrCat("sum by (team) (", Sel(kTeamForecastUsd, kTeamFilter),
                             ") / sum by (team) (", Sel(kTeamBudgetUsd, kTeamFilter), ")"),
                      "{{team}}", true}}));
  p.push_back(Panel("Nodes without a price", "stat", "none", 12, 45, 12, 6,
                    "Nodes whose GPU price is unknown: their cost is unknown, never zero.",
                    {{StrCat("count(", Sel(kNodePriceKnown, kNodeFilter), " == 0) or vector(0)"),
                      "nodes", true}}));

  // gpucost's own health.
  p.push_back(
      Panel("Scrape errors", "timeseries", "none", 0, 51, 8, 8,
            "Failed scrapes of usage targets per interval.",
            {{StrCat("sum by (target) (increase(", kScrapeErrorsTotal, "[$__rate_interval]))"),
              "{{target}}"}}));
  p.push_back(Panel("Attribution lag", "timeseries", "s", 8, 51, 8, 8,
                    "Seconds between now and the end of the newest attributed step.",
                    {{StrCat("max(", kAttributionLagSeconds, ")"), "lag"}}));
  p.push_back(Panel("Usage sample age by node", "timeseries", "s", 16, 51, 8, 8,
                    "Seconds since each node's newest GPU usage sample.",
                    {{StrCat("time() - max by (cluster, node) (",
                             Sel(kNodeLastUsageSample, kNodeFilter), " > 0)"),
                      "{{node}}"}}));
  return p;
}

}  // namespace gpucost::monitoring
