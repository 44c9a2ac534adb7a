// The built-in alert rules, in one table: id (the alertname), group, severity, the settings it
// reads, its PromQL over gpucost's metrics (monitoring/metric_catalog.h), dcgm-exporter's or
// Kueue's, and its summary and description as Prometheus templates. `gpucost alerts` evaluates
// the "gpucost" group itself over the engine's records; `gpucost rules` writes every group.
// Built once, immutable afterwards; thread-safe.
#pragma once

#include <map>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "alerts/alert_settings.h"

namespace gpucost::alerts {

// Ids of the rules `gpucost alerts` evaluates.
inline constexpr std::string_view kGpuIdleOnDemand = "GpuIdleOnDemand";
inline constexpr std::string_view kGpuNotebookIdle = "GpuNotebookIdle";
inline constexpr std::string_view kGpuSpotRatioLow = "GpuSpotRatioLow";
inline constexpr std::string_view kGpuEfficiencyLow = "GpuEfficiencyLow";
inline constexpr std::string_view kGpuBudgetForecastOverrun = "GpuBudgetForecastOverrun";
inline constexpr std::string_view kGpuPriceUnknown = "GpuPriceUnknown";
inline constexpr std::string_view kGpuTelemetryMissing = "GpuTelemetryMissing";

// Rule groups, as named in the generated rule files.
inline constexpr std::string_view kGroupCost = "gpucost";
inline constexpr std::string_view kGroupDcgm = "gpucost-dcgm";
inline constexpr std::string_view kGroupKueue = "gpucost-kueue";
// Over what `gpucost serve` says of its own inputs (`gpucost rules` only).
inline constexpr std::string_view kGroupServe = "gpucost-serve";

struct RuleDef {
  std::string id;        // the alertname
  std::string group;     // kGroupCost, kGroupDcgm, kGroupKueue or kGroupServe
  std::string severity;  // "warning" or "info"
  std::vector<std::string> settings;  // the settings it reads
  std::string expr;      // PromQL, with ${setting} placeholders (ExpandSettings)
  std::string for_duration;  // "${idle-for}" or "" (fires at once)
  std::string summary;  // Prometheus templates: {{ $labels.team }}, {{ $value }}, ${setting:text}
  std::string description;
  bool evaluated_by_alerts = false;  // `gpucost alerts` evaluates it over the engine's records
};

// Every rule, grouped, in the order docs/alerts.md lists them.
std::span<const RuleDef> RuleCatalog();
// The rule with this id; nullptr when there is none.
const RuleDef* FindRule(std::string_view id);

// Renders the subset of Prometheus' template language the catalogue uses, for alerts evaluated
// here: {{ $labels.NAME }} (empty when absent), {{ $value }}, and {{ $value | humanize }},
// {{ $value | humanizePercentage }}, {{ $value | humanizeDuration }}; ${setting...} as
// ExpandSettings. Anything else is left as written.
std::string RenderTemplate(std::string_view text, const std::map<std::string, std::string>& labels,
                           double value, const AlertSettings& settings);

// Prometheus' humanize forms: 0.034 -> "3.4%"; 9000 -> "2h 30m 0s"; 1234.5 -> "1.234k".
std::string HumanizePercentage(double ratio);
std::string HumanizeDuration(double seconds);
std::string Humanize(double v);

}  // namespace gpucost::alerts
