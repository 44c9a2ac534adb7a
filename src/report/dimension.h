// Report dimensions: the keys rows are grouped by (cluster, node, namespace, team, workload,
// workload_kind, pod, container, gpu_model, mig_profile, capacity_type, label:KEY) and how each
// is read from the inventory for a (unit, holder) pair. Stateless and thread-safe.
//
//   Result<std::vector<Dimension>> ParseDimensions(std::string_view comma_list);
//   std::string Dimension::Name() const;                     // "namespace", "label:team"
//   std::string_view DimensionValue(const Inventory&, const Dimension&, UnitIndex, HolderIndex);
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "core/result.h"
#include "model/inventory.h"

namespace gpucost {

enum class DimensionKind : uint8_t {
  kCluster,
  kNode,
  kNamespace,
  kTeam,
  kWorkload,
  kWorkloadKind,
  kPod,
  kContainer,
  kGpuModel,
  kMigProfile,
  kCapacityType,
  kLabel,
};

struct Dimension {
  DimensionKind kind = DimensionKind::kNamespace;
  std::string label_key;  // kLabel only

  // The name used as column header and JSON key: "namespace", "label:team".
  std::string Name() const;
  friend bool operator==(const Dimension&, const Dimension&) = default;
};

// The value that every dimension of an idle row carries.
inline constexpr std::string_view kIdleValue = "__idle__";
// The value of a dimension a pair has no value for (an absent label, a Slurm job's container).
inline constexpr std::string_view kUnallocatedValue = "__unallocated__";

Result<Dimension> ParseDimension(std::string_view name);
// "namespace,label:team"; spaces around names are ignored. Empty lists and duplicates are
// InvalidArgument.
Result<std::vector<Dimension>> ParseDimensions(std::string_view comma_list);

// The value of `dim` for a holder on a unit; kUnallocatedValue when empty. Labels are the
// holder's, then the node's. `holder` must not be kNoIndex (idle rows never ask).
std::string_view DimensionValue(const Inventory& inventory, const Dimension& dim, UnitIndex unit,
                                HolderIndex holder);

}  // namespace gpucost
