#include "attribution/attributor.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>
#include <span>
#include <string_view>
#include <utility>

#include "attribution/placement.h"
#include "attribution/price_spans.h"
#include "attribution/step_walker.h"
#include "attribution/timeline.h"
#include "attribution/usage_index.h"
#include "core/strings.h"

namespace gpucost {
namespace {

using attribution::Span;

Status ValidateOptions(const AttributionOptions& options) {
  if (options.step.count() <= 0) {
    return Status::InvalidArgument(
        StrCat("attribution step must be positive, got ", FormatDuration(options.step)));
  }
  if (options.window.empty()) {
    return Status::InvalidArgument(StrCat("attribution window is empty: [",
                                          FormatRfc3339(options.window.start), ", ",
                                          FormatRfc3339(options.window.end), ")"));
  }
  if (options.staleness.count() < 0) {
    return Status::InvalidArgument(
        StrCat("usage staleness must not be negative, got ", options.staleness.count(), "ms"));
  }
  return Status::Ok();
}

Status ValidateUnits(const Inventory& inv) {
  for (size_t u = 0; u < inv.units.size(); ++u) {
    const GpuUnit& unit = inv.units[u];
    if (unit.node >= inv.nodes.size()) {
      return Status::InvalidArgument(StrCat("unit ", u, " (", unit.gpu_uuid, "): node index ",
                                            unit.node, " out of range (", inv.nodes.size(),
                                            " nodes)"));
    }
    if (!std::isfinite(unit.fraction) || unit.fraction <= 0) {
      return Status::InvalidArgument(StrCat(
          "unit ", u, " (", unit.gpu_uuid, " ", unit.partition.ToString(), " on node ",
          inv.nodes[unit.node].name, "): GPU fraction must be positive, got ", unit.fraction));
    }
  }
  return Status::Ok();
}

// A catalog price is the instance's split over its GPUs: a node that reports another count (a
// GPU gone from the bus, a corrupt capacity) costs that many GPUs' share of the instance, not the
// instance. Said, once per node.
void WarnOfAnotherGpuCount(const Node& node, const std::vector<PricePeriod>& periods,
                           attribution::Warnings& warnings) {
  for (const PricePeriod& p : periods) {
    if (p.instance_gpus <= 0 || node.physical_gpus <= 0 || node.physical_gpus == p.instance_gpus) {
      continue;
    }
    warnings.Add(StrCat(
        "node ", node.name, " reports ", node.physical_gpus, " GPUs where its ", node.instance_type,
        " has ", p.instance_gpus, " in the price catalog: each is priced at 1/", p.instance_gpus,
        " of the instance, so the node costs ", node.physical_gpus, "/", p.instance_gpus,
        " of its price (a GPU gone from the node, or a wrong "
        "capacity?)"));
    return;
  }
}

}  // namespace

Result<AttributionSummary> Attribute(const Inventory& inventory, const Usage& usage,
                                     const PriceFn& price, const AttributionOptions& options,
                                     CostSink& sink) {
  GPUCOST_RETURN_IF_ERROR(ValidateOptions(options));
  GPUCOST_RETURN_IF_ERROR(ValidateUnits(inventory));
  if (!price && !inventory.units.empty()) {
    return Status::InvalidArgument("attribution needs a price function");
  }
  const Span window = attribution::ToSpan(options.window.start, options.window.end);
  const int64_t step_ms = options.step.count();
  attribution::Warnings warnings;

  // Prices: one call per node that has units, for the whole window.
  std::vector<std::vector<attribution::PriceSpan>> prices(inventory.nodes.size());
  std::vector<bool> has_units(inventory.nodes.size(), false);
  for (const GpuUnit& unit : inventory.units) has_units[unit.node] = true;
  for (NodeIndex n = 0; n < inventory.nodes.size(); ++n) {
    if (!has_units[n]) continue;
    const std::vector<PricePeriod> periods = price(inventory.nodes[n], options.window);
    WarnOfAnotherGpuCount(inventory.nodes[n], periods, warnings);
    GPUCOST_ASSIGN_OR_RETURN(prices[n],
                             attribution::BuildPriceSpans(inventory.nodes[n], window, periods));
  }

  GPUCOST_ASSIGN_OR_RETURN(attribution::UsageIndex usage_index,
                           attribution::UsageIndex::Build(usage, options.staleness.count()));

  std::vector<std::vector<Span>> presence(inventory.units.size());
  for (UnitIndex u = 0; u < inventory.units.size(); ++u) {
    presence[u] = attribution::UnitPresence(inventory, u, window);
  }
  std::vector<PoolDraw> open_draws;
  double unplaced_request_gpu_hours = 0;
  GPUCOST_ASSIGN_OR_RETURN(
      std::vector<attribution::ClaimSpan> claims,
      attribution::PlaceHoldings(inventory, options, window, presence, warnings, &open_draws,
                                 &unplaced_request_gpu_hours));
  // Holdings of units while they were not seen (a node gone, or its GPUs' series stopped, while
  // its pods still ran): no evidence of the GPU, so nothing is charged; counted and said per node.
  {
    struct Absent {
      double gpu_hours = 0;
      int64_t first = INT64_MAX, last = INT64_MIN;
    };
    std::map<NodeIndex, Absent> absent;
    // A pod's last phase sample holds for the staleness after its node's last one (a node removed
    // with its pods): that edge, and the same before a unit is first seen, is no finding.
    const int64_t edge = options.staleness.count();
    for (const attribution::ClaimSpan& c : claims) {
      int64_t at = c.span.start;
      const std::vector<Span>& seen = presence[c.unit];
      const auto add = [&](int64_t from, int64_t to) {
        const bool after_seen =
            std::any_of(seen.begin(), seen.end(), [from](const Span& p) { return p.end == from; });
        const bool before_seen =
            std::any_of(seen.begin(), seen.end(), [to](const Span& p) { return p.start == to; });
        if (after_seen) from += edge;
        if (before_seen) to -= edge;
        if (to <= from) return;
        Absent& a = absent[inventory.units[c.unit].node];
        a.gpu_hours += c.share * Hours(Duration(to - from));
        a.first = std::min(a.first, from);
        a.last = std::max(a.last, to);
      };
      for (const Span& p : seen) {
        if (p.end <= at) continue;
        if (p.start >= c.span.end) break;
        add(at, p.start);
        at = std::max(at, p.end);
      }
      add(at, c.span.end);
    }
    for (const auto& [n, a] : absent) {
      unplaced_request_gpu_hours += a.gpu_hours;
      if (a.gpu_hours < 1.0 / 60) continue;  // slivers of a minute are the series' own edges
      warnings.Add(StrCat("node ", inventory.nodes[n].name, ": pods held its GPUs for ",
                          FormatDouble(std::round(a.gpu_hours * 100) / 100), " GPU-hours between ",
                          FormatRfc3339(InstantFromUnixMs(a.first)), " and ",
                          FormatRfc3339(InstantFromUnixMs(a.last)),
                          " while its GPUs were not seen: nothing is charged for that time"));
    }
  }
  // Timelines are built and walked one physical GPU at a time, so the engine holds one GPU's
  // pieces at a time whatever the number of holdings.
  attribution::TimelineBuilder builder(inventory, std::move(claims), presence, warnings);
  attribution::UnitTimelines timelines;
  attribution::StepWalker walker(timelines, usage, usage_index, window, step_ms, sink);
  int64_t gpus = 0;
  int64_t gpus_done = 0;
  if (options.on_gpu) {
    std::set<std::pair<NodeIndex, std::string_view>> distinct;
    for (const GpuUnit& unit : inventory.units) distinct.emplace(unit.node, unit.gpu_uuid);
    gpus = static_cast<int64_t>(distinct.size());
  }
  for (std::span<const UnitIndex> gpu = builder.Next(timelines); !gpu.empty();
       gpu = builder.Next(timelines)) {
    for (const UnitIndex u : gpu) {
      const GpuUnit& unit = inventory.units[u];
      const bool mig = MeasuredAlone(unit.partition.kind);
      // Per-holder series apply to whole-GPU and replica units (HAMi and time-slicing fractions).
      if (!mig && !usage.holders.empty()) {
        const attribution::UnitTimeline& t = timelines.units[u];
        for (uint32_t s = t.first_slot; s < t.first_slot + t.n_slots; ++s) {
          timelines.slots[s].holder_series =
              usage_index.FindHolder(timelines.slots[s].holder, unit.node, unit.gpu_uuid);
        }
      }
      attribution::UnitWork work;
      work.unit = u;
      work.fraction = unit.fraction;
      work.mig = mig;
      const int gi = mig ? (unit.gpu_instance_id >= 0 ? unit.gpu_instance_id : unit.partition.index)
                         : -1;
      const int32_t d = usage_index.FindDevice(unit.node, unit.gpu_uuid, gi);
      if (d >= 0) {
        work.device = &usage.devices[static_cast<size_t>(d)].samples;
        work.device_hold_ms = usage_index.DeviceHoldMs(d);
      }
      work.prices = prices[unit.node];
      walker.Walk(work);
    }
    if (options.on_gpu) options.on_gpu(++gpus_done, std::max(gpus, gpus_done));
  }
  walker.FinishTotals();

  const attribution::Totals& totals = walker.totals();
  AttributionSummary summary;
  summary.steps = StepCount(options.window, options.step);
  summary.records = totals.records;
  summary.node_cost_usd = totals.node_cost_usd.value();
  summary.allocated_usd = totals.allocated_usd.value();
  summary.idle_usd = totals.idle_usd.value();
  summary.unpriced_gpu_hours = totals.unpriced_gpu_hours.value();
  summary.unplaced_request_gpu_hours = unplaced_request_gpu_hours;
  summary.oversubscribed_unit_steps = totals.oversubscribed_unit_steps;
  summary.warnings = warnings.Take();
  summary.open_draws = std::move(open_draws);
  return summary;
}

}  // namespace gpucost
