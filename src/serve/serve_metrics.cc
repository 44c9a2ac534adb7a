#include "serve/serve_metrics.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <initializer_list>
#include <map>
#include <set>
#include <string_view>
#include <utility>

#include "core/labels.h"
#include "ingest/exposition.h"
#include "monitoring/metric_catalog.h"

namespace gpucost::serve {
namespace {

namespace m = monitoring;

class SeriesCollector final : public ExpositionHandler {
 public:
  explicit SeriesCollector(int64_t timestamp_ms) : timestamp_ms_(timestamp_ms) {}
  void OnSample(const SampleView& sample) override {
    promsource::WriteSeries s;
    s.labels.reserve(sample.labels.size() + 1);
    s.labels.emplace_back("__name__", std::string(sample.name));
    for (const LabelView& l : sample.labels) s.labels.emplace_back(l.name, l.value);
    s.samples.emplace_back(sample.has_timestamp ? sample.timestamp_ms : timestamp_ms_,
                           sample.value);
    series.push_back(std::move(s));
  }
  std::vector<promsource::WriteSeries> series;

 private:
  int64_t timestamp_ms_;
};

// Label values with Prometheus escaping, and what is not UTF-8 as U+FFFD: Prometheus refuses a
// whole scrape over one label value that is not (core/labels.h).
std::string Escape(std::string_view v) {
  std::string out;
  out.reserve(v.size());
  AppendExportedLabelValue(out, v);
  return out;
}

std::string Labels(std::initializer_list<std::pair<std::string_view, std::string_view>> labels) {
  std::string out = "{";
  bool first = true;
  for (const auto& [k, v] : labels) {
    if (!first) out += ',';
    first = false;
    out += fmt::format("{}=\"{}\"", k, Escape(v));
  }
  return out + "}";
}

// The labels with unit_kind="neuron_device" where the series counts accelerator-hours of AWS
// Neuron devices; GPU series carry no unit_kind, as they always have (docs/metrics.md).
std::string WithUnitKind(std::string labels, std::string_view unit_kind) {
  if (unit_kind.empty() || unit_kind == "gpu") return labels;
  labels.insert(labels.size() - 1, fmt::format(",unit_kind=\"{}\"", Escape(unit_kind)));
  return labels;
}

void Header(std::string& out, std::string_view name) {
  const m::MetricDef* def = m::FindMetric(name);
  if (def == nullptr) return;
  out += fmt::format("# HELP {} {}\n# TYPE {} {}\n", name, def->help, name,
                     def->type == m::MetricType::kCounter ? "counter" : "gauge");
}

// A holder's labels, for the newest step's gauges (HolderGauge) and the counters (HolderTotal).
template <typename HolderRow>
std::string HolderLabels(const HolderRow& t) {
  return WithUnitKind(Labels({{"cluster", t.cluster},
                              {"namespace", t.namespace_name},
                              {"team", t.team},
                              {"workload", t.workload},
                              {"workload_kind", t.workload_kind},
                              {"gpu_model", t.gpu_model},
                              {"capacity_type", t.capacity_type}}),
                      t.unit_kind);
}

std::string NodeLabels(const ledger::NodeGauge& n) {
  return WithUnitKind(Labels({{"cluster", n.cluster},
                              {"node", n.node},
                              {"gpu_model", n.gpu_model},
                              {"capacity_type", n.capacity_type}}),
                      n.unit_kind);
}

void Gauges(std::string& out, const ledger::LedgerLatest& latest) {
  Header(out, m::kAllocatedGpus);
  for (const auto& g : latest.holders) {
    out += fmt::format("{}{} {}\n", m::kAllocatedGpus, HolderLabels(g), g.gpus);
  }
  Header(out, m::kAllocatedUsdPerHour);
  for (const auto& g : latest.holders) {
    if (std::isnan(g.usd_per_hour)) continue;  // a price is unknown: absent, never zero
    out += fmt::format("{}{} {}\n", m::kAllocatedUsdPerHour, HolderLabels(g), g.usd_per_hour);
  }
  Header(out, m::kUtilization);
  for (const auto& g : latest.holders) {
    if (std::isnan(g.utilization)) continue;  // unmeasured: no sample, not zero
    out += fmt::format("{}{} {}\n", m::kUtilization, HolderLabels(g), g.utilization);
  }
  Header(out, m::kNodeGpus);
  for (const auto& n : latest.nodes) {
    out += fmt::format("{}{} {}\n", m::kNodeGpus, NodeLabels(n), n.physical_gpus);
  }
  Header(out, m::kNodeAllocatedGpus);
  for (const auto& n : latest.nodes) {
    out += fmt::format("{}{} {}\n", m::kNodeAllocatedGpus, NodeLabels(n), n.allocated_gpus);
  }
  Header(out, m::kNodePriceKnown);
  for (const auto& n : latest.nodes) {
    out += fmt::format("{}{} {}\n", m::kNodePriceKnown, NodeLabels(n), n.price_known ? 1 : 0);
  }
  Header(out, m::kNodePriceUsdPerGpuHour);
  for (const auto& n : latest.nodes) {
    if (std::isnan(n.usd_per_gpu_hour)) continue;  // unknown: absent, never zero
    out += fmt::format("{}{} {}\n", m::kNodePriceUsdPerGpuHour,
                       WithUnitKind(Labels({{"cluster", n.cluster},
                                            {"node", n.node},
                                            {"gpu_model", n.gpu_model},
                                            {"capacity_type", n.capacity_type},
                                            {"price_source", PriceSourceName(n.price_source)}}),
                                    n.unit_kind),
                       n.usd_per_gpu_hour);
  }
  Header(out, m::kNodeLastUsageSample);
  for (const auto& n : latest.nodes) {
    out += fmt::format("{}{} {}\n", m::kNodeLastUsageSample, NodeLabels(n),
                       n.last_usage ? UnixSeconds(*n.last_usage) : 0.0);
  }
}

}  // namespace

std::vector<TeamBudgetGauge> TeamBudgetGauges(ledger::Ledger& ledger,
                                              const alerts::BudgetFile& budgets, Duration lookback,
                                              const std::string& cluster,
                                              const ledger::LedgerLatest& latest,
                                              const std::vector<std::string>& clusters) {
  std::vector<TeamBudgetGauge> out;
  if (!latest.step_start) return out;
  Result<std::optional<Window>> span = ledger.Span();
  if (!span.ok() || !*span) return out;
  const Instant as_of = *latest.step_start + latest.step;
  const Window month = alerts::MonthOf(as_of - Duration(1));
  const Instant data_start = (*span)->start;
  const Window rate = alerts::RateWindow(as_of, data_start, lookback);
  Result<std::map<std::string, ledger::CostSum>> mtd =
      ledger.Costs({std::max(month.start, data_start), as_of}, clusters);
  Result<std::map<std::string, ledger::CostSum>> recent = ledger.Costs(rate, clusters);
  if (!mtd.ok() || !recent.ok()) return out;
  std::set<std::string> teams;
  for (const auto& [team, usd] : *mtd) teams.insert(team);
  for (const auto& [team, budget] : budgets.budgets_usd) teams.insert(team);
  for (const std::string& team : teams) {
    const std::optional<double> budget = budgets.For(team);
    if (!budget) continue;
    alerts::ForecastInput in;
    in.month = month;
    in.as_of = as_of;
    in.data_start = data_start;
    const ledger::CostSum month_cost = mtd->count(team) ? mtd->at(team) : ledger::CostSum{};
    const ledger::CostSum recent_cost = recent->count(team) ? recent->at(team) : ledger::CostSum{};
    in.month_to_date_usd = month_cost.usd;
    in.recent_usd = recent_cost.usd;
    in.lookback = lookback;
    // Unknown prices make money unknown, never 0: as `gpucost alerts` (BudgetStatus::
    // amounts_known) over the hours of the month and of the run rate together, with some priced
    // hours the amounts are the priced part (a floor), with unpriced hours and none priced they
    // are absent.
    const bool known =
        (month_cost.unpriced_gpu_hours == 0 && recent_cost.unpriced_gpu_hours == 0) ||
        month_cost.priced_gpu_hours > 0 || recent_cost.priced_gpu_hours > 0;
    // The month to date alone is exact when the month's hours are all priced.
    const bool month_exact = month_cost.unpriced_gpu_hours == 0;
    out.push_back({cluster, team, *budget, known || month_exact ? month_cost.usd : NAN,
                   known ? alerts::Forecast(in).forecast_usd : NAN, month_cost.unpriced_gpu_hours});
  }
  return out;
}

std::string ServeMetricsText(const ledger::LedgerTotals& totals, const ledger::LedgerLatest& latest,
                             const std::vector<TeamBudgetGauge>& budgets,
                             const ServeHealth& health) {
  std::string out;
  struct CounterField {
    std::string_view name;
    double ledger::HolderTotal::*value;
    bool money;
  };
  // Money counters only where some of the hours had a price: unknown is absent, never 0.
  const CounterField fields[] = {
      {m::kAllocatedUsdTotal, &ledger::HolderTotal::allocated_usd, true},
      {m::kEffectiveUsdTotal, &ledger::HolderTotal::effective_usd, true},
      {m::kWasteUsdTotal, &ledger::HolderTotal::waste_usd, true},
      {m::kAllocatedGpuHoursTotal, &ledger::HolderTotal::gpu_hours, false},
      {m::kUnmeasuredGpuHoursTotal, &ledger::HolderTotal::unmeasured_gpu_hours, false},
  };
  for (const CounterField& f : fields) {
    Header(out, f.name);
    for (const ledger::HolderTotal& t : totals.holders) {
      if (f.money && !t.money_known()) continue;
      out += fmt::format("{}{} {}\n", f.name, HolderLabels(t), t.*(f.value));
    }
  }
  Header(out, m::kIdleUsdTotal);
  for (const ledger::NodeIdleTotal& t : totals.idle) {
    if (!t.money_known()) continue;
    out += fmt::format("{}{} {}\n", m::kIdleUsdTotal,
                       WithUnitKind(Labels({{"cluster", t.cluster},
                                            {"node", t.node},
                                            {"gpu_model", t.gpu_model},
                                            {"capacity_type", t.capacity_type}}),
                                    t.unit_kind),
                       t.idle_usd);
  }
  Header(out, m::kIdleGpuHoursTotal);
  for (const ledger::NodeIdleTotal& t : totals.idle) {
    out += fmt::format("{}{} {}\n", m::kIdleGpuHoursTotal,
                       WithUnitKind(Labels({{"cluster", t.cluster},
                                            {"node", t.node},
                                            {"gpu_model", t.gpu_model},
                                            {"capacity_type", t.capacity_type}}),
                                    t.unit_kind),
                       t.idle_gpu_hours);
  }
  Gauges(out, latest);
  const struct {
    std::string_view name;
    double TeamBudgetGauge::*value;
  } team_fields[] = {
      {m::kTeamBudgetUsd, &TeamBudgetGauge::budget_usd},
      {m::kTeamMonthToDateUsd, &TeamBudgetGauge::month_to_date_usd},
      {m::kTeamForecastUsd, &TeamBudgetGauge::forecast_usd},
      {m::kTeamMonthToDateUnpricedGpuHours, &TeamBudgetGauge::month_to_date_unpriced_gpu_hours}};
  for (const auto& f : team_fields) {
    if (budgets.empty()) break;
    Header(out, f.name);
    for (const TeamBudgetGauge& b : budgets) {
      if (std::isnan(b.*(f.value))) continue;
      out += fmt::format("{}{} {}\n", f.name, Labels({{"cluster", b.cluster}, {"team", b.team}}),
                         b.*(f.value));
    }
  }
  Header(out, m::kScrapeErrorsTotal);
  out += fmt::format("{}{} {}\n", m::kScrapeErrorsTotal, Labels({{"target", "source"}}),
                     health.source_errors);
  if (health.scrape) {
    for (const scrape::TargetHealth& t : health.scrape->targets) {
      out += fmt::format("{}{} {}\n", m::kScrapeErrorsTotal, Labels({{"target", t.url}}),
                         t.failures_total);
    }
    out += fmt::format("{}{} {}\n", m::kScrapeErrorsTotal, Labels({{"target", "discovery"}}),
                       health.scrape->discovery_errors);
    const struct {
      std::string_view name;
      double (*value)(const scrape::TargetHealth&);
    } per_target[] = {
        {m::kScrapeUp, [](const scrape::TargetHealth& t) { return t.up ? 1.0 : 0.0; }},
        {m::kScrapeDurationSeconds,
         [](const scrape::TargetHealth& t) {
           return std::chrono::duration<double>(t.last_duration).count();
         }},
        {m::kScrapeSamples,
         [](const scrape::TargetHealth& t) { return static_cast<double>(t.last_samples); }},
    };
    for (const auto& f : per_target) {
      Header(out, f.name);
      for (const scrape::TargetHealth& t : health.scrape->targets) {
        out += fmt::format("{}{} {}\n", f.name, Labels({{"job", t.job}, {"target", t.url}}),
                           f.value(t));
      }
    }
  }
  if (health.scrape) {
    const scrape::SpoolStats& spool = health.scrape->spool;
    Header(out, m::kScrapeSpoolBytes);
    out += fmt::format("{} {}\n", m::kScrapeSpoolBytes, spool.bytes);
    Header(out, m::kScrapeSpoolFiles);
    out += fmt::format("{} {}\n", m::kScrapeSpoolFiles, spool.files);
    Header(out, m::kScrapeSpoolWriteErrorsTotal);
    out += fmt::format("{} {}\n", m::kScrapeSpoolWriteErrorsTotal, spool.write_errors);
    Header(out, m::kScrapeSpoolRemovedFilesTotal);
    out += fmt::format("{}{} {}\n", m::kScrapeSpoolRemovedFilesTotal,
                       Labels({{"reason", "retention"}}), spool.removed_for_age);
    out += fmt::format("{}{} {}\n", m::kScrapeSpoolRemovedFilesTotal, Labels({{"reason", "size"}}),
                       spool.removed_for_size);
  }
  // By role, never by path: a PostgreSQL ledger's URI is not shown, and has no local disk.
  const bool spool_free = health.scrape && health.scrape->spool_free_bytes.has_value();
  if (health.ledger_free_bytes || spool_free) Header(out, m::kDiskFreeBytes);
  if (health.ledger_free_bytes) {
    out += fmt::format("{}{} {}\n", m::kDiskFreeBytes, Labels({{"path", "ledger"}}),
                       *health.ledger_free_bytes);
  }
  if (spool_free) {
    out += fmt::format("{}{} {}\n", m::kDiskFreeBytes, Labels({{"path", "spool"}}),
                       *health.scrape->spool_free_bytes);
  }
  // Every kind the API may refuse, 0 while it is read: an alert needs no absent() to resolve.
  if (!health.kube_kinds.empty()) Header(out, m::kKubeApiForbidden);
  for (const KubeKindAccess& kind : health.kube_kinds) {
    out += fmt::format("{}{} {}\n", m::kKubeApiForbidden, Labels({{"resource", kind.resource}}),
                       kind.forbidden.empty() ? 0 : 1);
  }
  Header(out, m::kAttributionLagSeconds);
  out += fmt::format("{} {}\n", m::kAttributionLagSeconds, health.lag_seconds);
  Header(out, m::kLedgerBytes);
  out += fmt::format("{} {}\n", m::kLedgerBytes, health.ledger_bytes);
  Header(out, m::kLedgerDamaged);
  out += fmt::format("{} {}\n", m::kLedgerDamaged, health.ledger_damaged ? 1 : 0);
  Header(out, m::kLedgerWriteErrorsTotal);
  out += fmt::format("{} {}\n", m::kLedgerWriteErrorsTotal, health.ledger_write_errors);
  Header(out, m::kGapStepsTotal);
  out += fmt::format("{} {}\n", m::kGapStepsTotal, health.gap_steps);
  Header(out, m::kApiBusyTotal);
  out += fmt::format("{} {}\n", m::kApiBusyTotal, health.api_busy);
  Header(out, m::kLedgerLockWaitSecondsTotal);
  out += fmt::format("{} {}\n", m::kLedgerLockWaitSecondsTotal, health.lock_wait_seconds);
  if (!health.clusters.empty()) Header(out, m::kLedgerWriter);
  for (const std::string& cluster : health.clusters) {
    out += fmt::format("{}{} {}\n", m::kLedgerWriter,
                       Labels({{"cluster", cluster}, {"writer", health.writer}}),
                       health.writing ? 1 : 0);
  }
  if (health.remote_write) {
    const promsource::RemoteWriteStats& rw = *health.remote_write;
    Header(out, m::kRemoteWriteSamplesTotal);
    for (const auto& [result, n] : {std::pair<const char*, uint64_t>{"sent", rw.samples_sent},
                                    {"dropped", rw.samples_dropped_queue_full},
                                    {"rejected", rw.samples_rejected}}) {
      out += fmt::format("{}{} {}\n", m::kRemoteWriteSamplesTotal, Labels({{"result", result}}), n);
    }
    Header(out, m::kRemoteWriteQueueSamples);
    out += fmt::format("{} {}\n", m::kRemoteWriteQueueSamples,
                       rw.queued_samples + rw.in_flight_samples);
  }
  return out;
}

Result<std::vector<promsource::WriteSeries>> SeriesOfExposition(std::string_view text,
                                                                int64_t timestamp_ms) {
  std::unique_ptr<ByteSource> in = StringByteSource(std::string(text), "/metrics");
  ParseOptions options;
  options.format = ExpositionFormat::kText;
  options.strict = true;
  SeriesCollector collector(timestamp_ms);
  GPUCOST_RETURN_IF_ERROR(ParseExposition(*in, options, collector).status());
  return std::move(collector.series);
}

}  // namespace gpucost::serve
