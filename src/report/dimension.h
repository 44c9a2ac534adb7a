// Report dimensions: the keys rows are grouped by (cluster, node, namespace, team, workload,
// workload_kind, pod, container, gpu_model, mig_profile, capacity_type, unit_kind, label:KEY) and
// how each is read from the inventory for a (unit, holder) pair or for a unit's idle capacity.
// Stateless and thread-safe.
//
//   Result<std::vector<Dimension>> ParseDimensions(std::string_view comma_list);
//   std::string Dimension::Name() const;                     // "namespace", "label:team"
//   std::string_view DimensionValue(const Inventory&, const Dimension&, UnitIndex, HolderIndex);
//   std::string_view IdleDimensionValue(const Inventory&, const Dimension&, UnitIndex);
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
  kUnitKind,  // "gpu" or "neuron_device": what the row's hours are hours of
  kLabel,
};

struct Dimension {
  DimensionKind kind = DimensionKind::kNamespace;
  std::string label_key;  // kLabel only

  // The name used as column header and JSON key: "namespace", "label:team".
  std::string Name() const;
  friend bool operator==(const Dimension&, const Dimension&) = default;
};

// The value an idle row carries where its capacity has none: holder dimensions, and labels its
// node lacks.
inline constexpr std::string_view kIdleValue = "__idle__";
// The value of a dimension a pair has no value for (an absent label, a Slurm job's container).
inline constexpr std::string_view kUnallocatedValue = "__unallocated__";

Result<Dimension> ParseDimension(std::string_view name);
// The names ParseDimension knows besides label:KEY, in the order the docs list them.
std::vector<std::string> DimensionNames();
// "namespace,label:team"; spaces around names are ignored. Empty lists, duplicates and label
// keys that are not UTF-8 text (or hold control characters) are InvalidArgument.
Result<std::vector<Dimension>> ParseDimensions(std::string_view comma_list);

// Whether `dim` can describe capacity, so that idle rows carry its value: the node's and the
// unit's dimensions (cluster, node, gpu_model, mig_profile, capacity_type, unit_kind) and labels,
// which may be the node's.
bool DescribesCapacity(const Dimension& dim);

// The value of `dim` for a holder on a unit; kUnallocatedValue when empty. Labels are the
// holder's, then the node's. `holder` must not be kNoIndex (IdleDimensionValue answers for idle).
std::string_view DimensionValue(const Inventory& inventory, const Dimension& dim, UnitIndex unit,
                                HolderIndex holder);

// The value of `dim` for a unit's idle capacity: what DimensionValue gives a holder on it for the
// node's and the unit's dimensions (the cluster the node's only), the node's label for label:KEY,
// and kIdleValue for holder dimensions and labels the node lacks.
std::string_view IdleDimensionValue(const Inventory& inventory, const Dimension& dim,
                                    UnitIndex unit);

}  // namespace gpucost
