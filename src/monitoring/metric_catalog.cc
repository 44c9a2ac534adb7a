#include "monitoring/metric_catalog.h"

#include <array>

namespace gpucost::monitoring {
namespace {

constexpr std::array<std::string_view, 7> kHolderLabels = {
    "cluster", "namespace", "team", "workload", "workload_kind", "gpu_model", "capacity_type"};
constexpr std::array<std::string_view, 4> kNodeLabels = {"cluster", "node", "gpu_model",
                                                         "capacity_type"};
constexpr std::array<std::string_view, 5> kPriceLabels = {"cluster", "node", "gpu_model",
                                                          "capacity_type", "price_source"};
constexpr std::array<std::string_view, 2> kTeamLabels = {"cluster", "team"};
constexpr std::array<std::string_view, 1> kTargetLabels = {"target"};
constexpr std::array<std::string_view, 2> kJobTargetLabels = {"job", "target"};
constexpr std::array<std::string_view, 1> kResultLabels = {"result"};
constexpr std::array<std::string_view, 2> kWriterLabels = {"cluster", "writer"};
constexpr std::array<std::string_view, 1> kReasonLabels = {"reason"};
constexpr std::array<std::string_view, 1> kPathLabels = {"path"};
constexpr std::array<std::string_view, 1> kResourceLabels = {"resource"};
constexpr std::array<std::string_view, 0> kNoLabels = {};

constexpr auto C = MetricType::kCounter;
constexpr auto G = MetricType::kGauge;

constexpr std::array<MetricDef, 24> kCatalog = {{
    {kAllocatedUsdTotal, C, kHolderLabels, "Allocated GPU cost: share held x price x hours (USD)."},
    {kEffectiveUsdTotal, C, kHolderLabels,
     "Effective GPU cost: allocated x utilization, over measured steps (USD)."},
    {kWasteUsdTotal, C, kHolderLabels,
     "Wasted GPU cost: allocated - effective, over measured steps (USD)."},
    {kAllocatedGpuHoursTotal, C, kHolderLabels, "GPU-equivalent hours held."},
    {kUnmeasuredGpuHoursTotal, C, kHolderLabels,
     "GPU-equivalent hours held with no usage sample (unmeasured, not idle)."},
    {kIdleGpuHoursHeldTotal, C, kHolderLabels,
     "GPU-equivalent hours held while utilization was under the idle threshold."},
    {kAllocatedUsdPerHour, G, kHolderLabels,
     "Allocated GPU cost rate in the last step (USD/h); absent while a price in it is unknown."},
    {kAllocatedGpus, G, kHolderLabels, "GPU-equivalents held in the last step."},
    {kUtilization, G, kHolderLabels,
     "Utilization (activity / share, 0-1) in the newest step; absent when it was unmeasured."},
    {kIdleUsdTotal, C, kNodeLabels, "Cost of node GPU capacity nobody held (USD)."},
    {kIdleGpuHoursTotal, C, kNodeLabels, "GPU-equivalent hours of capacity nobody held."},
    {kNodeGpus, G, kNodeLabels, "Physical GPUs of the node (never the replica count)."},
    {kNodePriceUsdPerGpuHour, G, kPriceLabels,
     "Price of one GPU-hour on the node and where it came from; absent when unknown."},
    {kNodePriceKnown, G, kNodeLabels, "1 when the node's GPU price is known, 0 when unknown."},
    {kNodeAllocatedGpus, G, kNodeLabels, "GPU-equivalents held on the node in the last step."},
    {kNodeLastUsageSample, G, kNodeLabels,
     "End of the newest step with a GPU usage sample on the node (the ledger keeps steps: up "
     "to the staleness after the sample); 0 when none was ever seen."},
    {kTeamBudgetUsd, G, kTeamLabels, "The team's monthly GPU budget (USD)."},
    {kTeamMonthToDateUsd, G, kTeamLabels,
     "The team's allocated GPU cost this month (USD): the priced part; absent when no hour is "
     "priced."},
    {kTeamForecastUsd, G, kTeamLabels,
     "The team's allocated GPU cost forecast to the end of the month (USD); absent when no hour "
     "is priced."},
    {kTeamMonthToDateUnpricedGpuHours, G, kTeamLabels,
     "GPU-hours the team held this month whose price is unknown (their cost is in no USD gauge)."},
    {kScrapeErrorsTotal, C, kTargetLabels,
     "Failed reads of the source: target=\"source\" for a store or files, each scraped target's "
     "URL, and \"discovery\" for Kubernetes endpoints discovery."},
    {kScrapeUp, G, kJobTargetLabels, "1 when the target's last scrape was accepted, 0 otherwise."},
    {kScrapeDurationSeconds, G, kJobTargetLabels, "How long the target's last scrape took."},
    {kScrapeSamples, G, kJobTargetLabels, "Samples in the target's last accepted scrape."},
}};

constexpr std::array<MetricDef, 16> kHealth = {{
    {kAttributionLagSeconds, G, kNoLabels,
     "Seconds between now and the end of the newest attributed step."},
    {kLedgerBytes, G, kNoLabels, "Size of the ledger on disk (bytes)."},
    {kLedgerDamaged, G, kNoLabels,
     "1 when the ledger failed a check (docs/ledger.md, \"A damaged ledger\"): serve then "
     "writes nothing and answers no numbers until it is repaired; 0 otherwise."},
    {kLedgerWriteErrorsTotal, C, kNoLabels,
     "Attributed chunks the ledger could not keep (disk full, permissions); attributed again "
     "next cycle."},
    {kGapStepsTotal, C, kNoLabels,
     "Steps serve did not attribute as they closed (it was down, or its source failed) that no "
     "source has data for (serve was the scraper, or the store's retention lost them): each got "
     "the holdings of the step before it, unmeasured (docs/serve.md, \"Gaps\")."},
    {kApiBusyTotal, C, kNoLabels,
     "API answers refused with 503 and Retry-After because as many as serve computes at once "
     "were running and none ended within 30 s (docs/serve.md, \"Operating\")."},
    {kLedgerWriter, G, kWriterLabels,
     "1 while this serve writes the cluster's records (it holds the writer lease), 0 while it is "
     "a standby of another serve of the same cluster (writer: this serve's name)."},
    {kLedgerLockWaitSecondsTotal, C, kNoLabels,
     "Seconds serve's ledger transactions waited for other writers of the ledger (the serves of "
     "other clusters) to finish theirs."},
    {kScrapeSpoolBytes, G, kNoLabels,
     "Size of the scrape spool's files (bytes; --scrape): zstd, one frame per scrape."},
    {kScrapeSpoolFiles, G, kNoLabels, "Files in the scrape spool, one per target and minute."},
    {kScrapeSpoolWriteErrorsTotal, C, kNoLabels,
     "Good scrapes the spool could not store (a full disk, permissions): each is dropped, never "
     "written twice; the spool resumes when it can write again."},
    {kScrapeSpoolRemovedFilesTotal, C, kReasonLabels,
     "Spool files removed: reason=\"retention\" past --scrape-retention, \"size\" to keep the "
     "spool within --scrape-spool-max-size before their time."},
    {kDiskFreeBytes, G, kPathLabels,
     "Bytes free to serve on the filesystem of its ledger (path=\"ledger\", a SQLite ledger) and "
     "of its scrape spool (path=\"spool\")."},
    {kKubeApiForbidden, G, kResourceLabels,
     "1 when the Kubernetes API refused serve's account the resource (HTTP 403) in the latest "
     "cycle that read it, 0 when it did not; for the kinds a read goes without (resource.k8s.io "
     "resourceslices and resourceclaims, whose refusal leaves DRA claims unattributed and their "
     "GPUs idle; deviceclasses, whose refusal leaves only the drivers' default classes known)."},
    {kRemoteWriteSamplesTotal, C, kResultLabels,
     "Samples of the cost series remote-written (result: sent, dropped when the queue was full, "
     "rejected by the endpoint)."},
    {kRemoteWriteQueueSamples, G, kNoLabels,
     "Samples waiting for the remote-write endpoint, the request in flight included."},
}};

constexpr auto kAll = [] {
  std::array<MetricDef, kCatalog.size() + kHealth.size()> all{};
  size_t i = 0;
  for (const MetricDef& m : kCatalog) all[i++] = m;
  for (const MetricDef& m : kHealth) all[i++] = m;
  return all;
}();

}  // namespace

std::span<const MetricDef> MetricCatalog() { return kAll; }

const MetricDef* FindMetric(std::string_view name) {
  for (const MetricDef& m : kAll) {
    if (m.name == name) return &m;
  }
  return nullptr;
}

}  // namespace gpucost::monitoring
