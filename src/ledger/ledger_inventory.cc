// Reading back the units (with their nodes) and holders a window's records and roll-ups name
// (Ledger::ReadInventory, for Ledger::Read).
#include <algorithm>
#include <cstdlib>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "core/strings.h"
#include "ledger/ledger.h"
#include "ledger/sql_db.h"

namespace gpucost::ledger {
namespace {

LabelSet LabelsFromJson(const std::string& text) {
  const nlohmann::json o = nlohmann::json::parse(text, nullptr, false);
  if (!o.is_object()) return {};
  std::vector<Label> labels;
  for (auto it = o.begin(); it != o.end(); ++it) {
    if (it.value().is_string()) labels.push_back({it.key(), it.value().get<std::string>()});
  }
  Result<LabelSet> set = LabelSet::Make(std::move(labels));
  return set.ok() ? std::move(*set) : LabelSet();
}

Partition ParsePartition(const std::string& text) {
  Partition p;
  const size_t colon = text.find(':');
  if (colon == std::string::npos) return p;
  const std::string kind = text.substr(0, colon);
  p.index = std::atoi(text.c_str() + colon + 1);
  p.kind = kind == "mig"       ? PartitionKind::kMig
           : kind == "replica" ? PartitionKind::kReplica
           : kind == "core"    ? PartitionKind::kCore
           : kind == "xcp"     ? PartitionKind::kXcp
                               : PartitionKind::kWhole;
  return p;
}

}  // namespace

// The units (with their nodes) and holders named, read in id order over the range of ids named:
// one query each rather than one per id.
Status Ledger::ReadInventory(std::vector<UnitIndex>& units, std::vector<HolderIndex>& holders,
                             LedgerWindow& out) {
  // The first and last id named.
  const auto range = [](const std::vector<uint32_t>& index) {
    int64_t lo = -1, hi = -1;
    for (size_t i = 0; i < index.size(); ++i) {
      if (index[i] != kNamed) continue;
      if (lo < 0) lo = static_cast<int64_t>(i);
      hi = static_cast<int64_t>(i);
    }
    return std::pair<int64_t, int64_t>(lo, hi);
  };
  const auto wanted = [](std::vector<uint32_t>& index, int64_t id) -> uint32_t* {
    const auto i = static_cast<size_t>(id);
    return i < index.size() && index[i] == kNamed ? &index[i] : nullptr;
  };
  // Reserved: a month of a fleet names tens of thousands of each, and growing the vectors
  // moved them a dozen times (a fifth of the fleet report's time).
  out.inventory.units.reserve(static_cast<size_t>(std::count(units.begin(), units.end(), kNamed)));
  out.inventory.holders.reserve(
      static_cast<size_t>(std::count(holders.begin(), holders.end(), kNamed)));
  std::map<int64_t, NodeIndex> nodes;
  if (const auto [lo, hi] = range(units); lo >= 0) {
    Result<std::unique_ptr<Statement>> uq = db_->Prepare(
        "SELECT u.id, u.gpu_uuid, u.partition, u.fraction, u.gpu_model, u.mig_profile, "
        "u.resource, u.holdable, u.gpu_instance_id, n.id, n.cluster, n.name, n.gpu_model, "
        "n.physical_gpus, n.gpu_memory_mib, n.instance_type, n.capacity_type, n.region, "
        "n.zone, n.provider_id, n.sharing, n.replicas, n.mig_single FROM units u JOIN "
        "nodes n ON n.id = u.node_id WHERE u.id >= $1 AND u.id <= $2 ORDER BY u.id");
    if (!uq.ok()) return Fail("reading GPU units", uq.status());
    Statement& u = **uq;
    u.Bind(1, lo).Bind(2, hi);
    for (;;) {
      Result<bool> row = u.Step();
      if (!row.ok()) return Fail("reading GPU units", row.status());
      if (!*row) break;
      uint32_t* const index = wanted(units, u.Int(0));
      if (index == nullptr) continue;
      const int64_t node_id = u.Int(9);
      auto [nit, fresh] =
          nodes.try_emplace(node_id, static_cast<NodeIndex>(out.inventory.nodes.size()));
      if (fresh) {
        Node n;
        n.cluster = u.Text(10);
        n.name = u.Text(11);
        n.gpu_model = u.Text(12);
        n.physical_gpus = static_cast<int>(u.Int(13));
        n.gpu_memory_mib = u.Int(14);
        n.instance_type = u.Text(15);
        n.capacity_type = u.Text(16);
        n.region = u.Text(17);
        n.zone = u.Text(18);
        n.provider_id = u.Text(19);
        n.sharing = static_cast<SharingMode>(u.Int(20));
        n.replicas = static_cast<int>(u.Int(21));
        n.mig_single = u.Int(22) != 0;
        n.present.push_back(out.window.start < out.window.end
                                ? Interval{out.window.start, out.window.end}
                                : Interval{});
        out.inventory.nodes.push_back(std::move(n));
      }
      GpuUnit g;
      g.node = nit->second;
      g.gpu_uuid = u.Text(1);
      g.partition = ParsePartition(u.Text(2));
      g.fraction = u.Double(3);
      g.gpu_model = u.Text(4);
      g.mig_profile = u.Text(5);
      g.resource = u.Text(6);
      g.holdable = u.Int(7) != 0;
      g.gpu_instance_id = static_cast<int>(u.Int(8));
      *index = static_cast<UnitIndex>(out.inventory.units.size());
      out.inventory.units.push_back(std::move(g));
    }
    if (const auto [missing, _] = range(units); missing >= 0) {
      return Damaged(StrCat("GPU unit ", missing, ", which records name, is missing"));
    }
  }
  const auto [lo, hi] = range(holders);
  if (lo < 0) return Status::Ok();
  Result<std::unique_ptr<Statement>> hq = db_->Prepare(
      "SELECT id, kind, cluster, namespace, pod, container, pod_uid, workload, workload_kind, "
      "team, labels, billing_per_gpu_hour FROM holders WHERE id >= $1 AND id <= $2 ORDER BY id");
  if (!hq.ok()) return Fail("reading holders", hq.status());
  Statement& h = **hq;
  h.Bind(1, lo).Bind(2, hi);
  for (;;) {
    Result<bool> row = h.Step();
    if (!row.ok()) return Fail("reading holders", row.status());
    if (!*row) break;
    uint32_t* const index = wanted(holders, h.Int(0));
    if (index == nullptr) continue;
    Holder x;
    x.kind = static_cast<HolderKind>(h.Int(1));
    x.cluster = h.Text(2);
    x.namespace_name = h.Text(3);
    x.pod = h.Text(4);
    x.container = h.Text(5);
    x.pod_uid = h.Text(6);
    x.workload = h.Text(7);
    x.workload_kind = h.Text(8);
    x.team = h.Text(9);
    x.labels = LabelsFromJson(h.Text(10));
    x.billing_per_gpu_hour = h.Double(11);
    *index = static_cast<HolderIndex>(out.inventory.holders.size());
    out.inventory.holders.push_back(std::move(x));
  }
  if (const auto [missing, _] = range(holders); missing >= 0) {
    return Damaged(StrCat("holder ", missing, ", which records name, is missing"));
  }
  return Status::Ok();
}

}  // namespace gpucost::ledger
