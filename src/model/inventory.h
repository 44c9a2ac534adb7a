// Inventory: the capacity and holder timeline of one or more clusters over a window, as built by
// a source (exposition files, Prometheus, the Kubernetes API, Slurm). Indexes between the
// vectors are stable. Plain value type.
#pragma once

#include <vector>

#include "model/capacity.h"
#include "model/holder.h"

namespace gpucost {

struct Inventory {
  std::vector<Node> nodes;
  std::vector<GpuUnit> units;
  std::vector<Holder> holders;
  std::vector<Holding> holdings;
};

}  // namespace gpucost
