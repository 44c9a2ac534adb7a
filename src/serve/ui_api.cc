#include "serve/ui_api.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <nlohmann/json.hpp>
#include <utility>

#include "core/strings.h"
#include "core/time.h"

namespace gpucost::serve {
namespace {

using nlohmann::json;

json NumberOrNull(double v) { return std::isfinite(v) ? json(v) : json(nullptr); }

std::string_view PartitionKindName(PartitionKind k) {
  switch (k) {
    case PartitionKind::kMig:
      return "mig";
    case PartitionKind::kReplica:
      return "replica";
    case PartitionKind::kCore:
      return "core";
    case PartitionKind::kXcp:
      return "xcp";
    case PartitionKind::kWhole:
      break;
  }
  return "whole";
}

std::string Dump(const json& j) {
  return j.dump(-1, ' ', false, json::error_handler_t::replace) + "\n";
}

// What one holder had of one unit over the step.
struct HolderPart {
  double gpu_hours = 0, allocated_usd = 0, activity_gpu_hours = 0, measured_gpu_hours = 0;
  bool priced = true, estimated = false;
};

struct UnitState {
  std::map<HolderIndex, HolderPart> holders;
  double idle_gpu_hours = 0;
  double gpu_hours = 0;  // held and idle: the unit's fraction times the hours it was present
};

struct NodePrice {
  double usd = 0, gpu_hours = 0;
  PriceSource source = PriceSource::kUnknown;
};

}  // namespace

std::string FleetJsonOf(const Inventory& inventory, const std::vector<CostRecord>& records,
                        Window window) {
  const double step_hours = std::chrono::duration<double>(window.length()).count() / 3600.0;
  std::vector<UnitState> units(inventory.units.size());
  std::vector<NodePrice> prices(inventory.nodes.size());
  for (const CostRecord& r : records) {
    if (r.unit >= units.size()) continue;
    UnitState& u = units[r.unit];
    u.gpu_hours += r.gpu_hours;
    const NodeIndex node = inventory.units[r.unit].node;
    if (node < prices.size() && r.price_known && r.gpu_hours > 0) {
      prices[node].usd += r.allocated_usd;
      prices[node].gpu_hours += r.gpu_hours;
      prices[node].source = r.price_source;
    }
    if (r.is_idle()) {
      u.idle_gpu_hours += r.gpu_hours;
      continue;
    }
    HolderPart& p = u.holders[r.holder];
    p.gpu_hours += r.gpu_hours;
    if (r.price_known) p.allocated_usd += r.allocated_usd;
    p.priced = p.priced && r.price_known;
    p.estimated = p.estimated || r.estimated;
    if (std::isfinite(r.activity_gpu_hours)) {
      p.activity_gpu_hours += r.activity_gpu_hours;
      p.measured_gpu_hours += r.gpu_hours - r.unmeasured_gpu_hours;
    }
  }
  // Nodes by cluster and name; each node's GPUs by UUID, each GPU's units by partition.
  std::vector<NodeIndex> order(inventory.nodes.size());
  for (NodeIndex i = 0; i < order.size(); ++i) order[i] = i;
  std::sort(order.begin(), order.end(), [&](NodeIndex a, NodeIndex b) {
    const Node& x = inventory.nodes[a];
    const Node& y = inventory.nodes[b];
    return std::tie(x.cluster, x.name) < std::tie(y.cluster, y.name);
  });
  std::vector<std::map<std::string, std::vector<UnitIndex>>> gpus(inventory.nodes.size());
  for (UnitIndex i = 0; i < inventory.units.size(); ++i) {
    const GpuUnit& u = inventory.units[i];
    if (u.node < gpus.size()) gpus[u.node][u.gpu_uuid].push_back(i);
  }
  json nodes = json::array();
  for (NodeIndex n : order) {
    if (gpus[n].empty()) continue;
    const Node& node = inventory.nodes[n];
    // How long the node was seen in the step: its units' held and idle hours cover exactly the
    // time each was present (conservation), so the longest of them over its fraction. A node
    // first scraped, or gone, in the middle of the step shows what it held while it was seen
    // (with `seen_fraction` below 1), so that held and idle add up to its GPUs.
    double seen_hours = 0;
    for (const auto& [uuid, list] : gpus[n]) {
      for (UnitIndex ui : list) {
        const double f = inventory.units[ui].fraction;
        if (f > 0) seen_hours = std::max(seen_hours, units[ui].gpu_hours / f);
      }
    }
    seen_hours = std::min(seen_hours, step_hours);
    const double per = seen_hours > 0 ? seen_hours : step_hours;
    double held = 0, idle = 0;
    json gpu_list = json::array();
    for (auto& [uuid, list] : gpus[n]) {
      std::sort(list.begin(), list.end(), [&](UnitIndex a, UnitIndex b) {
        return inventory.units[a].partition.index < inventory.units[b].partition.index;
      });
      json unit_list = json::array();
      for (UnitIndex ui : list) {
        const GpuUnit& unit = inventory.units[ui];
        const UnitState& st = units[ui];
        json holders = json::array();
        for (const auto& [hi, p] : st.holders) {
          const Holder& h = inventory.holders[hi];
          const double gpus_held = per > 0 ? p.gpu_hours / per : 0;
          held += gpus_held;
          holders.push_back({
              {"cluster", h.cluster},
              {"namespace", h.namespace_name},
              {"pod", h.pod},
              {"container", h.container},
              {"workload", h.workload},
              {"team", h.team},
              {"gpus", gpus_held},
              {"utilization", p.measured_gpu_hours > 0
                                  ? json(std::min(1.0, p.activity_gpu_hours / p.measured_gpu_hours))
                                  : json(nullptr)},
              {"estimated", p.estimated},
              {"usd_per_hour", p.priced && per > 0 ? json(p.allocated_usd / per) : json(nullptr)},
          });
        }
        const double idle_gpus = per > 0 ? st.idle_gpu_hours / per : 0;
        idle += idle_gpus;
        unit_list.push_back({
            {"kind", PartitionKindName(unit.partition.kind)},
            {"index", unit.partition.index},
            {"mig_profile", unit.mig_profile},
            {"fraction", unit.fraction},
            {"holdable", unit.holdable},
            {"idle_gpus", idle_gpus},
            {"holders", std::move(holders)},
        });
      }
      gpu_list.push_back({{"uuid", uuid}, {"units", std::move(unit_list)}});
    }
    const NodePrice& price = prices[n];
    // A node's units are of one kind: its devices are GPUs or AWS Neuron devices.
    const UnitKind kind = inventory.units[gpus[n].begin()->second.front()].kind();
    json node_json = {
        {"cluster", node.cluster},
        {"name", node.name},
        {"gpu_model", node.gpu_model},
        {"instance_type", node.instance_type},
        {"capacity_type", node.capacity_type},
        {"sharing", SharingModeName(node.sharing)},
        {"replicas", node.replicas},
        {"physical_gpus", node.physical_gpus},
        {"allocated_gpus", held},
        {"idle_gpus", idle},
        {"seen_fraction", step_hours > 0 ? seen_hours / step_hours : 0.0},
        {"usd_per_gpu_hour",
         price.gpu_hours > 0 ? NumberOrNull(price.usd / price.gpu_hours) : json(nullptr)},
        {"price_source", PriceSourceName(price.source)},
        {"gpus", std::move(gpu_list)},
    };
    // Only on nodes of AWS Neuron devices (their hours are accelerator-hours), so that a fleet of
    // GPUs reads as it always has.
    if (kind != UnitKind::kGpu) node_json["unit_kind"] = UnitKindName(kind);
    nodes.push_back(std::move(node_json));
  }
  return Dump(
      {{"window", {{"start", FormatRfc3339(window.start)}, {"end", FormatRfc3339(window.end)}}},
       {"nodes", std::move(nodes)}});
}

Result<std::string> FleetJson(const std::string& ledger_target,
                              const std::vector<std::string>& clusters) {
  GPUCOST_ASSIGN_OR_RETURN(std::unique_ptr<ledger::Ledger> l, ledger::Ledger::Open(ledger_target));
  GPUCOST_ASSIGN_OR_RETURN(std::optional<Window> span, l->Span());
  GPUCOST_ASSIGN_OR_RETURN(Duration step, l->NewestStep());
  if (!span || step.count() <= 0) {
    return Dump({{"window", nullptr}, {"nodes", json::array()}});
  }
  const Window last{span->end - step, span->end};
  ledger::ReadOptions read;
  read.clusters = clusters;
  GPUCOST_ASSIGN_OR_RETURN(ledger::LedgerWindow stored, l->Read(last, read));
  return FleetJsonOf(stored.inventory, stored.records, stored.window);
}

Result<std::string> LedgerInfoJson(const std::string& ledger_target) {
  GPUCOST_ASSIGN_OR_RETURN(std::unique_ptr<ledger::Ledger> l, ledger::Ledger::Open(ledger_target));
  GPUCOST_ASSIGN_OR_RETURN(std::optional<Window> span, l->Span());
  GPUCOST_ASSIGN_OR_RETURN(Duration step, l->NewestStep());
  GPUCOST_ASSIGN_OR_RETURN(std::vector<ledger::ScopeState> scopes, l->Scopes());
  json clusters = json::array();
  for (const ledger::ScopeState& s : scopes) clusters.push_back(s.cluster);
  // Every team the ledger has counted (its running totals keep them past retention): the web UI
  // gives each its colour from the whole list, so that a team is one colour on every page.
  GPUCOST_ASSIGN_OR_RETURN(const ledger::LedgerTotals totals, l->Totals());
  std::set<std::string> team_set;
  for (const ledger::HolderTotal& t : totals.holders) team_set.insert(t.team);
  json window = nullptr;
  if (span) window = {{"start", FormatRfc3339(span->start)}, {"end", FormatRfc3339(span->end)}};
  return Dump({{"window", std::move(window)},
               {"step_s", std::chrono::duration_cast<std::chrono::seconds>(step).count()},
               {"clusters", std::move(clusters)},
               {"teams", json(std::vector<std::string>(team_set.begin(), team_set.end()))}});
}

}  // namespace gpucost::serve
