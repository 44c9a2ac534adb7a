// What `gpucost simulate` generates: cluster size, GPU model and sharing-mode mixes, replicas,
// spot share, namespaces, seed and scrape interval, and the parsing of the "key:weight,..." mix
// flags. Plain values; thread-compatible.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "core/result.h"
#include "core/time.h"

namespace gpucost::simulate {

enum class Sharing : uint8_t {
  kWhole,        // whole GPUs, dcgm pod labels pin them
  kMig,          // MIG mixed strategy, per-GPU layouts of instances
  kTimeSlicing,  // `replicas` time-sliced replicas per GPU
  kMps,          // `replicas` MPS clients per GPU
  kHami,         // HAMi fractions: nvidia.com/gpucores percent of a GPU
};
std::string_view SharingName(Sharing s);

struct Weighted {
  std::string key;
  double weight = 1;
};

struct SimOptions {
  int nodes = 10;
  // Model keys (gpu_catalog.h) and sharing names with relative weights. Nodes take sharing
  // modes in proportion (smooth weighted round robin), then a model among those the mode fits
  // (MIG needs a MIG-capable model).
  std::vector<Weighted> gpu_models = {{"a100-80gb", 3}, {"h100-80gb", 1}, {"t4", 1}};
  std::vector<Weighted> sharing = {
      {"whole", 5}, {"mig", 2}, {"time-slicing", 1}, {"mps", 1}, {"hami", 1}};
  int gpus_per_node = 0;       // 0: the model's usual count
  int replicas = 4;            // time-slicing and MPS replicas per GPU
  double spot_fraction = 0.3;  // nodes labelled karpenter.sh/capacity-type=spot
  int namespaces = 6;          // 1..16
  uint64_t seed = 1;
  Duration scrape_interval = std::chrono::seconds(60);
  std::string cluster;  // written as a `cluster` label when set
};

// "a100-80gb:3,t4:1" (a key without ":weight" weighs 1). Errors name the bad item.
Result<std::vector<Weighted>> ParseMix(std::string_view text, std::string_view flag);

// Checks keys, weights and ranges; the error names the flag.
Status Validate(const SimOptions& options);

}  // namespace gpucost::simulate
