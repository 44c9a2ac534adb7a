// AMD Instinct compute partitions (docs/inputs.md "AMD Instinct"): how many partitions a compute
// partition mode cuts one GPU into, so that each partition is a unit with its fraction of the
// GPU. Stateless and thread-safe.
#pragma once

#include <string>
#include <string_view>

namespace gpucost {

struct AmdPartitioning {
  int partitions = 0;         // per GPU; 0 when the mode is not known
  bool xcds_assumed = false;  // the GPU's XCD count was not known from its model (8 taken)
};

// "cpx_nps4" (or "cpx") on a GPU model ("AMD Instinct MI300X"): SPX 1, DPX 2, TPX 3, QPX 4, CPX
// one partition per XCD (8 on MI300X, MI325X and the MI350 series, 6 on MI300A).
AmdPartitioning AmdPartitionsPerGpu(std::string_view profile, std::string_view gpu_model);

}  // namespace gpucost
