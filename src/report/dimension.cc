#include "report/dimension.h"

#include <array>
#include <optional>
#include <utility>

#include "core/strings.h"
#include "core/utf8.h"

namespace gpucost {
namespace {

constexpr std::array<std::pair<DimensionKind, std::string_view>, 12> kNamed = {{
    {DimensionKind::kCluster, "cluster"},
    {DimensionKind::kNode, "node"},
    {DimensionKind::kNamespace, "namespace"},
    {DimensionKind::kTeam, "team"},
    {DimensionKind::kWorkload, "workload"},
    {DimensionKind::kWorkloadKind, "workload_kind"},
    {DimensionKind::kPod, "pod"},
    {DimensionKind::kContainer, "container"},
    {DimensionKind::kGpuModel, "gpu_model"},
    {DimensionKind::kMigProfile, "mig_profile"},
    {DimensionKind::kCapacityType, "capacity_type"},
    {DimensionKind::kUnitKind, "unit_kind"},
}};

constexpr std::string_view kLabelPrefix = "label:";

std::string_view OrUnallocated(std::string_view v) { return v.empty() ? kUnallocatedValue : v; }

}  // namespace

std::string Dimension::Name() const {
  if (kind == DimensionKind::kLabel) return StrCat(kLabelPrefix, label_key);
  for (const auto& [k, name] : kNamed) {
    if (k == kind) return std::string(name);
  }
  return "unknown";
}

std::vector<std::string> DimensionNames() {
  std::vector<std::string> out;
  for (const auto& [kind, name] : kNamed) out.emplace_back(name);
  return out;
}

Result<Dimension> ParseDimension(std::string_view name) {
  name = Trim(name);
  if (name.starts_with(kLabelPrefix)) {
    const std::string_view key = Trim(name.substr(kLabelPrefix.size()));
    if (key.empty()) return Status::InvalidArgument("dimension \"label:\" needs a label key");
    // A key is a name to look up, from a flag or a query: no label has one that is not text,
    // and as a column name and JSON key it must print as itself (two keys that differ only in
    // bytes that are not UTF-8 would print the same).
    if (PrintableText(key) != key) {
      return Status::InvalidArgument(StrCat(
          "dimension \"label:", PrintableText(key),
          "\": a label key is UTF-8 text without control characters (here shown as U+FFFD)"));
    }
    return Dimension{DimensionKind::kLabel, std::string(key)};
  }
  for (const auto& [kind, known] : kNamed) {
    if (known == name) return Dimension{kind, ""};
  }
  std::string expected;
  for (const auto& entry : kNamed) expected += StrCat(entry.second, ", ");
  return Status::InvalidArgument(
      StrCat("unknown dimension \"", PrintableText(name), "\" (expected ", expected, "label:KEY)"));
}

Result<std::vector<Dimension>> ParseDimensions(std::string_view comma_list) {
  std::vector<Dimension> out;
  if (Trim(comma_list).empty()) return Status::InvalidArgument("no dimension to group by");
  for (std::string_view part : Split(comma_list, ',')) {
    GPUCOST_ASSIGN_OR_RETURN(Dimension dim, ParseDimension(part));
    for (const Dimension& seen : out) {
      if (seen == dim)
        return Status::InvalidArgument(StrCat("dimension \"", dim.Name(), "\" given twice"));
    }
    out.push_back(std::move(dim));
  }
  return out;
}

bool DescribesCapacity(const Dimension& dim) {
  switch (dim.kind) {
    case DimensionKind::kCluster:
    case DimensionKind::kNode:
    case DimensionKind::kGpuModel:
    case DimensionKind::kMigProfile:
    case DimensionKind::kCapacityType:
    case DimensionKind::kUnitKind:
    case DimensionKind::kLabel:
      return true;
    case DimensionKind::kNamespace:
    case DimensionKind::kTeam:
    case DimensionKind::kWorkload:
    case DimensionKind::kWorkloadKind:
    case DimensionKind::kPod:
    case DimensionKind::kContainer:
      return false;
  }
  return false;
}

namespace {

// The value of a capacity dimension (node, GPU model, MIG profile, capacity type, unit kind) on a
// unit;
// nullopt for the cluster, labels and the holder's dimensions.
std::optional<std::string_view> CapacityValue(const Node& node, const GpuUnit& u,
                                              const Dimension& dim) {
  switch (dim.kind) {
    case DimensionKind::kNode:
      return OrUnallocated(node.name);
    case DimensionKind::kGpuModel:
      return OrUnallocated(u.gpu_model.empty() ? node.gpu_model : u.gpu_model);
    case DimensionKind::kMigProfile:
      return OrUnallocated(u.mig_profile);
    case DimensionKind::kCapacityType:
      return OrUnallocated(node.capacity_type);
    case DimensionKind::kUnitKind:
      return UnitKindName(u.kind());
    default:
      return std::nullopt;
  }
}

}  // namespace

std::string_view DimensionValue(const Inventory& inventory, const Dimension& dim, UnitIndex unit,
                                HolderIndex holder) {
  const GpuUnit& u = inventory.units[unit];
  const Node& node = inventory.nodes[u.node];
  const Holder& h = inventory.holders[holder];
  if (const std::optional<std::string_view> v = CapacityValue(node, u, dim)) return *v;
  switch (dim.kind) {
    case DimensionKind::kCluster:
      return OrUnallocated(node.cluster.empty() ? h.cluster : node.cluster);
    case DimensionKind::kNamespace:
      return OrUnallocated(h.namespace_name);
    case DimensionKind::kTeam:
      return OrUnallocated(h.team);
    case DimensionKind::kWorkload:
      return OrUnallocated(h.workload);
    case DimensionKind::kWorkloadKind:
      return OrUnallocated(h.workload_kind);
    case DimensionKind::kPod:
      return OrUnallocated(h.pod);
    case DimensionKind::kContainer:
      return OrUnallocated(h.container);
    case DimensionKind::kLabel: {
      const std::string_view v = h.labels.Get(dim.label_key);
      return OrUnallocated(v.empty() ? node.labels.Get(dim.label_key) : v);
    }
    default:
      return kUnallocatedValue;  // a capacity dimension, answered above
  }
}

std::string_view IdleDimensionValue(const Inventory& inventory, const Dimension& dim,
                                    UnitIndex unit) {
  const GpuUnit& u = inventory.units[unit];
  const Node& node = inventory.nodes[u.node];
  if (const std::optional<std::string_view> v = CapacityValue(node, u, dim)) return *v;
  switch (dim.kind) {
    case DimensionKind::kCluster:
      return OrUnallocated(node.cluster);
    case DimensionKind::kLabel: {
      // A label the node lacks is a holder's label (app, team): idle capacity has no holder.
      const std::string_view v = node.labels.Get(dim.label_key);
      return v.empty() ? kIdleValue : v;
    }
    case DimensionKind::kNamespace:
    case DimensionKind::kTeam:
    case DimensionKind::kWorkload:
    case DimensionKind::kWorkloadKind:
    case DimensionKind::kPod:
    default:
      return kIdleValue;
  }
}

}  // namespace gpucost
