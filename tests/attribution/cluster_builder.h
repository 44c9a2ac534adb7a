// Test helpers for the attribution engine: a builder for tiny inventories and usage in code, a
// sink that keeps every record, and price functions. Header-only, test-only.
#pragma once

#include <cmath>
#include <map>
#include <string>
#include <vector>

#include "attribution/attributor.h"
#include "core/money.h"

namespace gpucost::testing {

// Seconds after a fixed, minute-aligned epoch.
inline Instant At(int64_t seconds) { return InstantFromUnixMs((1'790'812'800LL + seconds) * 1000); }

class ClusterBuilder {
 public:
  NodeIndex AddNode(std::string name, SharingMode sharing = SharingMode::kNone) {
    Node n;
    n.cluster = "c1";
    n.name = std::move(name);
    n.sharing = sharing;
    inventory.nodes.push_back(std::move(n));
    return static_cast<NodeIndex>(inventory.nodes.size() - 1);
  }

  UnitIndex AddUnit(NodeIndex node, std::string uuid, Partition partition, double fraction,
                    std::string resource, bool holdable = true) {
    GpuUnit u;
    u.node = node;
    u.gpu_uuid = std::move(uuid);
    u.partition = partition;
    u.fraction = fraction;
    u.resource = std::move(resource);
    u.holdable = holdable;
    if (partition.kind == PartitionKind::kMig) u.gpu_instance_id = partition.index;
    inventory.units.push_back(std::move(u));
    ++inventory.nodes[node].physical_gpus;
    return static_cast<UnitIndex>(inventory.units.size() - 1);
  }

  UnitIndex AddWhole(NodeIndex node, std::string uuid, std::string resource = "nvidia.com/gpu") {
    return AddUnit(node, std::move(uuid), {PartitionKind::kWhole, 0}, 1.0, std::move(resource));
  }

  UnitIndex AddMig(NodeIndex node, std::string uuid, int gi, double fraction, std::string profile,
                   bool holdable = true) {
    const UnitIndex u = AddUnit(node, std::move(uuid), {PartitionKind::kMig, gi}, fraction,
                                "nvidia.com/mig-" + profile, holdable);
    inventory.units[u].mig_profile = profile;
    return u;
  }

  std::vector<UnitIndex> AddReplicas(NodeIndex node, const std::string& uuid, int replicas,
                                     std::string resource = "nvidia.com/gpu") {
    std::vector<UnitIndex> out;
    for (int r = 0; r < replicas; ++r) {
      out.push_back(AddUnit(node, uuid, {PartitionKind::kReplica, r}, 1.0 / replicas, resource));
    }
    return out;
  }

  HolderIndex AddHolder(std::string ns, std::string pod, std::string container = "main") {
    Holder h;
    h.cluster = "c1";
    h.namespace_name = std::move(ns);
    h.pod = std::move(pod);
    h.container = std::move(container);
    h.team = h.namespace_name;
    inventory.holders.push_back(std::move(h));
    return static_cast<HolderIndex>(inventory.holders.size() - 1);
  }

  void Request(HolderIndex h, NodeIndex node, std::string resource, double count, int64_t start_s,
               int64_t end_s, double hami_cores = -1) {
    Holding holding;
    holding.holder = h;
    holding.node = node;
    holding.interval = {At(start_s), At(end_s)};
    holding.request.resource = std::move(resource);
    holding.request.count = count;
    holding.request.hami_cores_percent = hami_cores;
    inventory.holdings.push_back(std::move(holding));
  }

  void HoldUnits(HolderIndex h, std::vector<UnitIndex> units, int64_t start_s, int64_t end_s) {
    Holding holding;
    holding.holder = h;
    holding.node = inventory.units[units.front()].node;
    holding.interval = {At(start_s), At(end_s)};
    holding.units = std::move(units);
    inventory.holdings.push_back(std::move(holding));
  }

  // Samples every `every_s` seconds in [start_s, end_s) with a constant value.
  void DeviceUsage(NodeIndex node, std::string uuid, int gi, double value, int64_t start_s,
                   int64_t end_s, int64_t every_s = 30) {
    DeviceSeries d;
    d.node = node;
    d.gpu_uuid = std::move(uuid);
    d.gpu_instance_id = gi;
    for (int64_t t = start_s; t < end_s; t += every_s) d.samples.push_back({At(t), value});
    usage.devices.push_back(std::move(d));
  }

  Inventory inventory;
  Usage usage;
};

class CollectSink final : public CostSink {
 public:
  void Consume(std::span<const CostRecord> batch) override {
    records.insert(records.end(), batch.begin(), batch.end());
  }

  // Sum of allocated_usd over holder records of `h` (idle with kNoIndex).
  double Allocated(HolderIndex h) const {
    CompensatedSum s;
    for (const CostRecord& r : records) {
      if (r.holder == h) s.Add(r.allocated_usd);
    }
    return s.value();
  }
  double Sum(HolderIndex h, double CostRecord::*field) const {
    CompensatedSum s;
    for (const CostRecord& r : records) {
      if (r.holder == h) s.Add(r.*field);
    }
    return s.value();
  }
  std::vector<CostRecord> Of(HolderIndex h) const {
    std::vector<CostRecord> out;
    for (const CostRecord& r : records) {
      if (r.holder == h) out.push_back(r);
    }
    return out;
  }

  std::vector<CostRecord> records;
};

inline PriceFn ConstantPrice(double usd_per_gpu_hour) {
  return [usd_per_gpu_hour](const Node&, Window w) {
    return std::vector<PricePeriod>{
        {{w.start, w.end}, usd_per_gpu_hour, PriceSource::kCatalog, w.start, "test"}};
  };
}

// Prices per node name; nodes not listed have no known price.
inline PriceFn PricesByNode(std::map<std::string, std::vector<PricePeriod>> table) {
  return [table = std::move(table)](const Node& n, Window) {
    auto it = table.find(n.name);
    return it == table.end() ? std::vector<PricePeriod>{} : it->second;
  };
}

inline AttributionOptions Options(int64_t start_s, int64_t end_s, int64_t step_s = 60) {
  AttributionOptions o;
  o.window = {At(start_s), At(end_s)};
  o.step = std::chrono::seconds(step_s);
  return o;
}

}  // namespace gpucost::testing
