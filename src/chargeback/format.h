// Text forms shared by the statement renderers: money and hours with thousands separators,
// percents, rates, short GPU names ("NVIDIA A100-SXM4-80GB" -> "A100"), capacity types and
// dates. Stateless and thread-safe.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "chargeback/statement.h"
#include "core/time.h"

namespace gpucost::chargeback {

// 284700 units with 2 decimals -> "2,847.00"; 0 decimals -> "284,700".
std::string FormatUnits(int64_t units, int decimals);
// 2846.9 hours with 0 decimals -> "2,847".
std::string FormatHours(double hours, int decimals);
// 342867 cents -> "$3,428.67".
std::string FormatCents(int64_t cents);
// 0.851 -> "85.1%"; NaN -> "-".
std::string FormatPercent(double ratio);
// A target as given: 0.8 -> "80%", 0.725 -> "72.5%".
std::string FormatTarget(double ratio);
// $/GPU-hour with the decimals every rate of the statement set prints with (StatementRateDecimals;
// core/money.h, FormatRateUsd): (3.06, 2) -> "$3.06", (3.06, 4) -> "$3.0600"; NaN -> "unknown
// price".
std::string FormatRate(double usd_per_gpu_hour, int decimals);
// The decimals of the rates of every line of every statement of `set`: the fewest, from 2 to 6,
// that show each to the micro-dollar (RateDecimals), so that all teams' rates line up alike.
int StatementRateDecimals(const StatementSet& set);
// "2026-10-01".
std::string FormatDate(Instant t);
// A window for people, its last day included: [Oct 1, Oct 8) -> "Oct 1–Oct 7, 2026", one day ->
// "Oct 1, 2026", across years -> "Dec 28, 2026–Jan 3, 2027"; a window that does not start and
// end at UTC midnight shows its times: "Oct 1, 2026, 00:00–01:00 UTC",
// "Oct 1, 2026 06:00–Oct 3, 2026 12:00 UTC".
std::string FormatReadablePeriod(Window w);

// Escapes &, <, >, " and ' for HTML and SVG text and attributes, and writes bytes that are not
// UTF-8 and control characters as U+FFFD (PrintableText, core/utf8.h): a control character is
// not allowed in XML, so one in a name would make the SVG unreadable.
std::string EscapeXml(std::string_view text);

// What a statement's hours are hours of, from its lines' unit kinds: "GPU-hours",
// "accelerator-hours" (AWS Neuron devices only) or "GPU- and accelerator-hours" (both), so that a
// statement of GPUs only reads as it always has (docs/chargeback.md, "Accelerators").
struct HoursNoun {
  bool gpus = false;
  bool accelerators = false;
  // "GPU-hours", "accelerator-hours", "GPU- and accelerator-hours"
  std::string Hours() const;
  // "GPU-hrs", "accelerator-hrs", "GPU- and accelerator-hrs"
  std::string Hrs() const;
  // The same, capitalised: "GPU-hours", "Accelerator-hours", "GPU- and accelerator-hours".
  std::string HoursCapitalised() const;
  // "GPU", "Accelerator", "GPU and accelerator"
  std::string Thing() const;
};
HoursNoun HoursNounOf(const Statement& statement);
// Of unit kinds with hours (Report::unit_kind_hours: "gpu", "neuron_device").
HoursNoun HoursNounOf(const std::vector<std::pair<std::string, double>>& unit_kind_hours);

// The GPU's name without its vendor and variant: "NVIDIA A100-SXM4-80GB" -> "A100",
// "Tesla T4" -> "T4", "NVIDIA GeForce RTX 4090" -> "GeForce RTX 4090"; "" -> "GPU".
std::string GpuShortName(std::string_view model);
// "on_demand" -> "on-demand"; "" -> "unknown capacity".
std::string CapacityLabel(std::string_view capacity_type);
// "A100 on-demand" per line; models that share a short name in the statement keep their full
// name so the lines stay distinguishable.
std::vector<std::string> LineLabels(const Statement& statement);
// Workload names, with the namespace where two workloads of the statement share a name.
std::vector<std::string> WorkloadLabels(const Statement& statement);
// "namespace/workload" for every workload of the statement (the HTML page, where a chart bar
// names a workload on its own).
std::vector<std::string> QualifiedWorkloadLabels(const Statement& statement);

}  // namespace gpucost::chargeback
