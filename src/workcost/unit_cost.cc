#include "workcost/unit_cost.h"

#include <algorithm>
#include <map>
#include <tuple>
#include <unordered_map>

#include "core/strings.h"

namespace gpucost::workcost {
namespace {

struct Column {
  std::string_view name;
  bool wanted = false;
};

// The key columns `by` asks for, in a fixed order; workload and pod imply their namespace.
std::vector<std::string> KeyColumns(const std::vector<GroupBy>& by) {
  auto has = [&](GroupBy g) { return std::find(by.begin(), by.end(), g) != by.end(); };
  const bool workload = has(GroupBy::kWorkload);
  const bool pod = has(GroupBy::kPod);
  const Column columns[] = {
      {"cluster", has(GroupBy::kCluster)},
      {"team", has(GroupBy::kTeam)},
      {"namespace", has(GroupBy::kNamespace) || workload || pod},
      {"workload_kind", workload},
      {"workload", workload},
      {"pod", pod},
  };
  std::vector<std::string> out;
  for (const Column& c : columns) {
    if (c.wanted) out.emplace_back(c.name);
  }
  return out;
}

std::string KeyValue(const Holder& h, std::string_view column) {
  if (column == "cluster") return h.cluster;
  if (column == "team") return h.team.empty() ? h.namespace_name : h.team;
  if (column == "namespace") return h.namespace_name;
  if (column == "workload_kind") return h.workload_kind;
  if (column == "workload") return h.workload.empty() ? h.pod : h.workload;
  return h.pod;
}

double PerN(double value, double work, double per) {
  return work > 0 && std::isfinite(value) ? value / work * per : NAN;
}

struct Group {
  CompensatedSum gpu_hours;
  CompensatedSum allocated;
  CompensatedSum effective;
  CompensatedSum unmeasured;
  CompensatedSum unpriced;
  CompensatedSum work;
  bool has_effective = false;
  bool has_cost = false;
  int64_t series = 0;
  int64_t resets = 0;

  void AddCost(const HolderCost& c) {
    gpu_hours.Add(c.gpu_hours);
    allocated.Add(c.priced_allocated_usd);
    effective.Add(c.effective_usd);
    unmeasured.Add(c.unmeasured_gpu_hours);
    unpriced.Add(c.unpriced_gpu_hours);
    has_effective = has_effective || c.has_effective;
    has_cost = true;
  }
  void Merge(const Group& o) {
    gpu_hours.Add(o.gpu_hours);
    allocated.Add(o.allocated);
    effective.Add(o.effective);
    unmeasured.Add(o.unmeasured);
    unpriced.Add(o.unpriced);
    work.Add(o.work);
    has_effective = has_effective || o.has_effective;
    has_cost = has_cost || o.has_cost;
    series += o.series;
    resets += o.resets;
  }
  UnitCostRow Row(double per) const {
    UnitCostRow r;
    r.work = work.value();
    r.series = series;
    r.resets = resets;
    r.gpu_hours = gpu_hours.value();
    r.unmeasured_gpu_hours = unmeasured.value();
    r.unpriced_gpu_hours = unpriced.value();
    // Part of the GPU time without a price makes the group's money unknown: a partial sum
    // would understate what its work cost.
    const bool priced = r.unpriced_gpu_hours <= 0 && r.gpu_hours > 0;
    r.allocated_usd = priced ? allocated.value() : NAN;
    r.effective_usd = priced && has_effective ? effective.value() : NAN;
    r.allocated_usd_per_n = PerN(r.allocated_usd, r.work, per);
    r.effective_usd_per_n = PerN(r.effective_usd, r.work, per);
    r.gpu_hours_per_n = PerN(r.gpu_hours, r.work, per);
    return r;
  }
};

using PodKey = std::tuple<std::string, std::string, std::string>;  // cluster, namespace, pod

}  // namespace

void HolderCostSink::Consume(std::span<const CostRecord> records) {
  for (const CostRecord& r : records) {
    if (r.is_idle() || r.holder >= costs_.size()) continue;
    HolderCost& c = costs_[r.holder];
    c.gpu_hours.Add(r.gpu_hours);
    c.unmeasured_gpu_hours.Add(r.unmeasured_gpu_hours);
    if (!r.price_known || !std::isfinite(r.allocated_usd)) {
      c.unpriced_gpu_hours.Add(r.gpu_hours);
      continue;
    }
    c.priced_allocated_usd.Add(r.allocated_usd);
    if (std::isfinite(r.effective_usd)) {
      c.effective_usd.Add(r.effective_usd);
      c.has_effective = true;
    }
  }
}

Result<std::vector<GroupBy>> ParseGroupBy(std::string_view comma_list) {
  std::vector<GroupBy> out;
  for (const std::string& name : SplitList(comma_list)) {
    GroupBy g;
    if (name == "cluster") {
      g = GroupBy::kCluster;
    } else if (name == "team") {
      g = GroupBy::kTeam;
    } else if (name == "namespace") {
      g = GroupBy::kNamespace;
    } else if (name == "workload") {
      g = GroupBy::kWorkload;
    } else if (name == "pod") {
      g = GroupBy::kPod;
    } else {
      return Status::InvalidArgument(StrCat("--by: unknown grouping \"", name,
                                            "\" (cluster, team, namespace, workload, pod)"));
    }
    if (std::find(out.begin(), out.end(), g) != out.end()) {
      return Status::InvalidArgument(StrCat("--by: \"", name, "\" given twice"));
    }
    out.push_back(g);
  }
  if (out.empty()) return Status::InvalidArgument("--by: no grouping named");
  return out;
}

Result<UnitCostTable> BuildUnitCost(const Inventory& inventory, std::span<const HolderCost> costs,
                                    std::span<const WorkSeries> series,
                                    const UnitCostSettings& settings) {
  if (costs.size() != inventory.holders.size()) {
    return Status::Internal("holder costs do not match the inventory's holders");
  }
  if (!(settings.per > 0) || !std::isfinite(settings.per)) {
    return Status::InvalidArgument("--per must be a positive number");
  }
  UnitCostTable table;
  table.settings = settings;
  table.columns = KeyColumns(settings.by);

  std::map<std::vector<std::string>, Group> groups;
  std::map<PodKey, std::vector<std::string>> pod_groups;  // pods that held GPUs in the window
  for (size_t i = 0; i < inventory.holders.size(); ++i) {
    const Holder& h = inventory.holders[i];
    if (!settings.workload_kind.empty() && h.workload_kind != settings.workload_kind) continue;
    if (!(costs[i].gpu_hours.value() > 0)) continue;
    std::vector<std::string> key;
    for (const std::string& c : table.columns) key.push_back(KeyValue(h, c));
    groups[key].AddCost(costs[i]);
    pod_groups.emplace(PodKey{h.cluster, h.namespace_name, h.pod}, key);
  }
  std::map<PodKey, std::string> other_kind;  // GPU pods left out by the workload-kind filter
  if (!settings.workload_kind.empty()) {
    for (size_t i = 0; i < inventory.holders.size(); ++i) {
      const Holder& h = inventory.holders[i];
      if (h.workload_kind != settings.workload_kind && costs[i].gpu_hours.value() > 0) {
        other_kind.emplace(PodKey{h.cluster, h.namespace_name, h.pod}, h.workload_kind);
      }
    }
  }

  std::string unmatched_example;
  for (const WorkSeries& s : series) {
    const CounterIncrease inc = IncreaseOver(s.samples, settings.window, settings.lookback);
    const PodKey pod{s.cluster, s.namespace_name, s.pod};
    auto it = pod_groups.find(pod);
    if (it == pod_groups.end()) {
      if (other_kind.contains(pod)) continue;
      if (inc.samples == 0) continue;  // no sample in the window: nothing to leave out
      table.unmatched_work += inc.increase;
      if (table.unmatched_series++ == 0) {
        unmatched_example = StrCat(s.labels.ToString(), " (", s.first_seen, ")");
      }
      continue;
    }
    Group& g = groups[it->second];
    g.work.Add(inc.increase);
    g.series += 1;
    g.resets += inc.resets;
  }
  if (table.unmatched_series > 0) {
    table.warnings.push_back(
        StrCat(settings.metric, ": ", table.unmatched_series,
               " series of pods that held no GPU in the window (first: ", unmatched_example,
               ") left out, with ", FormatDouble(table.unmatched_work), " ", settings.unit,
               " (check --work-pod-label and --work-namespace-label)"));
  }

  Group total;
  for (const auto& [key, g] : groups) {
    UnitCostRow row = g.Row(settings.per);
    row.keys = key;
    table.rows.push_back(std::move(row));
    total.Merge(g);
  }
  table.totals = total.Row(settings.per);
  return table;
}

}  // namespace gpucost::workcost
