// Internal to the slurm module: the GPU units of a Slurm node, made from what its jobs held
// (slurm_timeline.cc gathers the demand): MIG slots packed first-fit, whole GPUs, and on a node
// of several GRES types, units of each type (docs/slurm.md).
#pragma once

#include <map>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/time.h"
#include "inventory/diagnostics.h"
#include "model/inventory.h"
#include "slurm/slurm_timeline.h"

namespace gpucost::slurm {

inline constexpr std::string_view kWholeResource = "nvidia.com/gpu";

// What one node needs, gathered over the jobs that ran on it.
struct NodeDemand {
  std::string cluster;
  std::string name;
  // resource class ("" = whole GPUs, else the MIG profile) -> (time, +/-count) events
  std::map<std::string, std::vector<std::pair<Instant, int>>> events;
  std::set<std::string> whole_types;
  std::string mig_model_hint;
  std::set<std::string> partitions;
  // GRES type -> the whole-GPU holdings (indexes into inv.holdings) of jobs that named that one
  // type; a node with two types or more gets units of each type (AddTypedUnits).
  std::map<std::string, std::vector<size_t>> typed_holdings;
  std::vector<std::pair<Instant, int>> untyped_whole;  // events of whole GPUs of no single type
};

template <typename Map>
const typename Map::mapped_type* Find(const Map& m, const std::string& key) {
  auto it = m.find(key);
  return it == m.end() ? nullptr : &it->second;
}

// Builds the units of one node: MIG GPUs first (slots packed first-fit, largest profiles
// first), then whole GPUs. Returns the physical GPU count.
int AddUnits(Inventory& inv, NodeIndex n, const NodeDemand& d, const SlurmOptions& options,
             Diagnostics& diag);

// A node whose jobs named two GRES types or more: units of each type, each typed holding
// assigned its units over time; jobs that named no single type draw from the pool. Returns the
// physical GPU count.
int AddTypedUnits(Inventory& inv, NodeIndex n, const NodeDemand& d, const SlurmOptions& options,
                  Diagnostics& diag);

}  // namespace gpucost::slurm
