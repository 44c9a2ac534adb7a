#include "cli/serve_metrics.h"

#include <fmt/format.h>

#include <initializer_list>
#include <string_view>
#include <utility>

#include "monitoring/metric_catalog.h"

namespace gpucost::cli {
namespace {

namespace m = monitoring;

std::string Escape(std::string_view v) {
  std::string out;
  out.reserve(v.size());
  for (char c : v) {
    if (c == '\\' || c == '"') {
      out += '\\';
      out += c;
    } else if (c == '\n') {
      out += "\\n";
    } else {
      out += c;
    }
  }
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

void Header(std::string& out, std::string_view name) {
  const m::MetricDef* def = m::FindMetric(name);
  if (def == nullptr) return;
  out += fmt::format("# HELP {} {}\n# TYPE {} {}\n", name, def->help, name,
                     def->type == m::MetricType::kCounter ? "counter" : "gauge");
}

}  // namespace

std::string ServeMetricsText(const ledger::LedgerTotals& totals, const ServeHealth& health) {
  std::string out;
  struct Field {
    std::string_view name;
    double ledger::HolderTotal::*value;
  };
  const Field fields[] = {
      {m::kAllocatedUsdTotal, &ledger::HolderTotal::allocated_usd},
      {m::kEffectiveUsdTotal, &ledger::HolderTotal::effective_usd},
      {m::kWasteUsdTotal, &ledger::HolderTotal::waste_usd},
      {m::kAllocatedGpuHoursTotal, &ledger::HolderTotal::gpu_hours},
      {m::kUnmeasuredGpuHoursTotal, &ledger::HolderTotal::unmeasured_gpu_hours},
  };
  for (const Field& f : fields) {
    Header(out, f.name);
    for (const ledger::HolderTotal& t : totals.holders) {
      out += fmt::format("{}{} {}\n", f.name,
                         Labels({{"cluster", t.cluster},
                                 {"namespace", t.namespace_name},
                                 {"team", t.team},
                                 {"workload", t.workload},
                                 {"workload_kind", t.workload_kind},
                                 {"gpu_model", t.gpu_model},
                                 {"capacity_type", t.capacity_type}}),
                         t.*(f.value));
    }
  }
  Header(out, m::kIdleUsdTotal);
  for (const ledger::NodeIdleTotal& t : totals.idle) {
    out += fmt::format("{}{} {}\n", m::kIdleUsdTotal,
                       Labels({{"cluster", t.cluster},
                               {"node", t.node},
                               {"gpu_model", t.gpu_model},
                               {"capacity_type", t.capacity_type}}),
                       t.idle_usd);
  }
  Header(out, m::kIdleGpuHoursTotal);
  for (const ledger::NodeIdleTotal& t : totals.idle) {
    out += fmt::format("{}{} {}\n", m::kIdleGpuHoursTotal,
                       Labels({{"cluster", t.cluster},
                               {"node", t.node},
                               {"gpu_model", t.gpu_model},
                               {"capacity_type", t.capacity_type}}),
                       t.idle_gpu_hours);
  }
  Header(out, m::kScrapeErrorsTotal);
  out += fmt::format("{}{} {}\n", m::kScrapeErrorsTotal, Labels({{"target", "source"}}),
                     health.source_errors);
  Header(out, m::kAttributionLagSeconds);
  out += fmt::format("{} {}\n", m::kAttributionLagSeconds, health.lag_seconds);
  Header(out, m::kLedgerBytes);
  out += fmt::format("{} {}\n", m::kLedgerBytes, health.ledger_bytes);
  return out;
}

}  // namespace gpucost::cli
