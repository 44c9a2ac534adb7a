#include "core/strings.h"
#include "model/capacity.h"
#include "model/holder.h"
#include "model/price.h"

namespace gpucost {

std::string Partition::ToString() const {
  switch (kind) {
    case PartitionKind::kWhole: return "whole";
    case PartitionKind::kMig: return StrCat("mig:", index);
    case PartitionKind::kReplica: return StrCat("replica:", index);
    case PartitionKind::kCore:
      return StrCat("core:", index);
    case PartitionKind::kXcp:
      return StrCat("xcp:", index);
  }
  return "whole";
}

bool IsNotebook(const Holder& holder) {
  const auto has = [](std::string_view text, std::string_view a, std::string_view b) {
    const std::string lower = ToLower(text);
    return lower.find(a) != std::string::npos || lower.find(b) != std::string::npos;
  };
  const std::string container = ToLower(holder.container);
  return holder.labels.Has("notebook-name") || holder.labels.Has("notebook_name") ||
         holder.labels.Get("component") == "singleuser-server" ||
         has(holder.workload, "notebook", "jupyter") || has(holder.pod, "notebook", "jupyter") ||
         has(holder.labels.Get("app.kubernetes.io/name"), "notebook", "jupyter") ||
         container == "notebook" || container.starts_with("jupyter");
}

std::string_view UnitKindName(UnitKind k) {
  switch (k) {
    case UnitKind::kGpu:
      return "gpu";
    case UnitKind::kNeuronDevice:
      return "neuron_device";
  }
  return "gpu";
}

UnitKind UnitKindOfResource(std::string_view resource) {
  return resource.starts_with("aws.amazon.com/neuron") ? UnitKind::kNeuronDevice : UnitKind::kGpu;
}

// '\x1f' (unit separator) cannot appear in Kubernetes names.
std::string NodeIdentity(const Node& node) { return StrCat(node.cluster, '\x1f', node.name); }

std::string UnitIdentity(const Node& node, const GpuUnit& unit) {
  return StrCat(NodeIdentity(node), '\x1f', unit.gpu_uuid, '\x1f', unit.partition.ToString());
}

std::string HolderIdentity(const Holder& h) {
  return StrCat(static_cast<int>(h.kind), '\x1f', h.cluster, '\x1f', h.namespace_name, '\x1f',
                h.pod, '\x1f', h.container, '\x1f', h.pod_uid);
}

std::string_view SharingModeName(SharingMode m) {
  switch (m) {
    case SharingMode::kNone: return "none";
    case SharingMode::kMig: return "mig";
    case SharingMode::kTimeSlicing: return "time-slicing";
    case SharingMode::kMps: return "mps";
    case SharingMode::kHami: return "hami";
    case SharingMode::kDra:
      return "dra";
  }
  return "none";
}

std::string_view PriceSourceName(PriceSource s) {
  switch (s) {
    case PriceSource::kUnknown: return "unknown";
    case PriceSource::kDefault: return "default";
    case PriceSource::kCatalog: return "catalog";
    case PriceSource::kRateCard: return "rate_card";
    case PriceSource::kOverride: return "override";
    case PriceSource::kSpot: return "spot";
    case PriceSource::kBill: return "bill";
    case PriceSource::kCommitment: return "commitment";
  }
  return "unknown";
}

}  // namespace gpucost
