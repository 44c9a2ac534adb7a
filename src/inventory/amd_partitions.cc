#include "inventory/amd_partitions.h"

#include "core/strings.h"

namespace gpucost {

AmdPartitioning AmdPartitionsPerGpu(std::string_view profile, std::string_view gpu_model) {
  const std::string compute = ToLower(profile.substr(0, profile.find('_')));
  const std::string model = ToLower(gpu_model);
  AmdPartitioning out;
  if (compute == "spx") {
    out.partitions = 1;
  } else if (compute == "dpx") {
    out.partitions = 2;
  } else if (compute == "tpx") {
    out.partitions = 3;
  } else if (compute == "qpx") {
    out.partitions = 4;
  } else if (compute == "cpx") {
    // MI300A has 6 XCDs; MI300X, MI325X, MI350X and MI355X have 8.
    const bool six = model.find("mi300a") != std::string::npos;
    const bool eight =
        model.find("mi300x") != std::string::npos || model.find("mi325") != std::string::npos ||
        model.find("mi350") != std::string::npos || model.find("mi355") != std::string::npos;
    out.partitions = six ? 6 : 8;
    out.xcds_assumed = !six && !eight;
  }
  return out;
}

}  // namespace gpucost
