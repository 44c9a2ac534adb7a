// The metrics gpucost exports (`gpucost serve` on /metrics and by remote-write): names, types,
// labels and help, in one table so that the server, the generated alert rules
// (`gpucost rules`) and the Grafana dashboard (`gpucost grafana-dashboard`) agree by
// construction. docs/metrics.md lists the same table. Label names are the report's column names
// (DESIGN.md "Output contract").
#pragma once

#include <span>
#include <string_view>

namespace gpucost::monitoring {

enum class MetricType : uint8_t { kCounter, kGauge };

struct MetricDef {
  std::string_view name;
  MetricType type;
  std::span<const std::string_view> labels;
  std::string_view help;
};

// Holder-level cost series: one per (cluster, namespace, team, workload, workload_kind,
// gpu_model, capacity_type).
inline constexpr std::string_view kAllocatedUsdTotal = "gpucost_allocated_usd_total";
inline constexpr std::string_view kEffectiveUsdTotal = "gpucost_effective_usd_total";
inline constexpr std::string_view kWasteUsdTotal = "gpucost_waste_usd_total";
inline constexpr std::string_view kAllocatedGpuHoursTotal = "gpucost_allocated_gpu_hours_total";
inline constexpr std::string_view kUnmeasuredGpuHoursTotal = "gpucost_unmeasured_gpu_hours_total";
inline constexpr std::string_view kIdleGpuHoursHeldTotal = "gpucost_idle_held_gpu_hours_total";
inline constexpr std::string_view kAllocatedUsdPerHour = "gpucost_allocated_usd_per_hour";
inline constexpr std::string_view kAllocatedGpus = "gpucost_allocated_gpus";
inline constexpr std::string_view kUtilization = "gpucost_utilization_ratio";
// Node-level series: one per (cluster, node, gpu_model, capacity_type).
inline constexpr std::string_view kIdleUsdTotal = "gpucost_idle_usd_total";
inline constexpr std::string_view kIdleGpuHoursTotal = "gpucost_idle_gpu_hours_total";
inline constexpr std::string_view kNodeGpus = "gpucost_node_gpus";
inline constexpr std::string_view kNodePriceUsdPerGpuHour = "gpucost_node_price_usd_per_gpu_hour";
inline constexpr std::string_view kNodePriceKnown = "gpucost_node_price_known";
// GPU-equivalents held on the node in the last step: what the telemetry-missing alert rule
// (`gpucost rules`) needs to tell held GPUs from idle ones per node.
inline constexpr std::string_view kNodeAllocatedGpus = "gpucost_node_allocated_gpus";
inline constexpr std::string_view kNodeLastUsageSample =
    "gpucost_node_last_usage_sample_timestamp_seconds";
// Team budgets: one per (cluster, team).
inline constexpr std::string_view kTeamBudgetUsd = "gpucost_team_budget_usd";
inline constexpr std::string_view kTeamMonthToDateUsd = "gpucost_team_month_to_date_usd";
inline constexpr std::string_view kTeamForecastUsd = "gpucost_team_month_forecast_usd";
inline constexpr std::string_view kTeamMonthToDateUnpricedGpuHours =
    "gpucost_team_month_to_date_unpriced_gpu_hours";
// gpucost's own health.
inline constexpr std::string_view kScrapeErrorsTotal = "gpucost_scrape_errors_total";
inline constexpr std::string_view kScrapeUp = "gpucost_scrape_up";
inline constexpr std::string_view kScrapeDurationSeconds = "gpucost_scrape_duration_seconds";
inline constexpr std::string_view kScrapeSamples = "gpucost_scrape_samples";
inline constexpr std::string_view kAttributionLagSeconds = "gpucost_attribution_lag_seconds";
inline constexpr std::string_view kLedgerBytes = "gpucost_ledger_bytes";
inline constexpr std::string_view kLedgerDamaged = "gpucost_ledger_damaged";
inline constexpr std::string_view kLedgerWriteErrorsTotal = "gpucost_ledger_write_errors_total";
inline constexpr std::string_view kGapStepsTotal = "gpucost_gap_steps_total";
inline constexpr std::string_view kApiBusyTotal = "gpucost_api_busy_total";
inline constexpr std::string_view kLedgerWriter = "gpucost_ledger_writer";
inline constexpr std::string_view kLedgerLockWaitSecondsTotal =
    "gpucost_ledger_lock_wait_seconds_total";
inline constexpr std::string_view kScrapeSpoolBytes = "gpucost_scrape_spool_bytes";
inline constexpr std::string_view kScrapeSpoolFiles = "gpucost_scrape_spool_files";
inline constexpr std::string_view kScrapeSpoolWriteErrorsTotal =
    "gpucost_scrape_spool_write_errors_total";
inline constexpr std::string_view kScrapeSpoolRemovedFilesTotal =
    "gpucost_scrape_spool_removed_files_total";
inline constexpr std::string_view kDiskFreeBytes = "gpucost_disk_free_bytes";
inline constexpr std::string_view kKubeApiForbidden = "gpucost_kube_api_forbidden";
inline constexpr std::string_view kRemoteWriteSamplesTotal = "gpucost_remote_write_samples_total";
inline constexpr std::string_view kRemoteWriteQueueSamples = "gpucost_remote_write_queue_samples";

// Every exported metric, in the order docs/metrics.md lists them.
std::span<const MetricDef> MetricCatalog();

// The definition of `name`, or nullptr when gpucost exports no such metric.
const MetricDef* FindMetric(std::string_view name);

}  // namespace gpucost::monitoring
