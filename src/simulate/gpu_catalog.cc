#include "simulate/gpu_catalog.h"

#include "core/strings.h"

namespace gpucost::simulate {

const std::vector<GpuModelSpec>& GpuModels() {
  // MIG profile names as the device plugin's mixed strategy advertises them
  // (reference/input-formats.md §3.1); memory and products as GFD labels them.
  static const std::vector<GpuModelSpec> kModels = {
      {"a100-80gb",
       "NVIDIA A100-SXM4-80GB",
       "NVIDIA-A100-SXM4-80GB",
       81920,
       8,
       "p4de.24xlarge",
       96,
       {"", "1g.10gb", "2g.20gb", "3g.40gb", "4g.40gb", "", "", "7g.80gb"}},
      {"a100-40gb",
       "NVIDIA A100-SXM4-40GB",
       "NVIDIA-A100-SXM4-40GB",
       40960,
       8,
       "p4d.24xlarge",
       96,
       {"", "1g.5gb", "2g.10gb", "3g.20gb", "4g.20gb", "", "", "7g.40gb"}},
      {"h100-80gb",
       "NVIDIA H100 80GB HBM3",
       "NVIDIA-H100-80GB-HBM3",
       81559,
       8,
       "p5.48xlarge",
       192,
       {"", "1g.10gb", "2g.20gb", "3g.40gb", "4g.40gb", "", "", "7g.80gb"}},
      {"l4", "NVIDIA L4", "NVIDIA-L4", 23034, 8, "g6.48xlarge", 192, {}},
      {"a10g", "NVIDIA A10G", "NVIDIA-A10G", 23028, 4, "g5.12xlarge", 48, {}},
      {"t4", "Tesla T4", "Tesla-T4", 15360, 4, "g4dn.12xlarge", 48, {}},
  };
  return kModels;
}

const GpuModelSpec* FindGpuModel(std::string_view key) {
  for (const GpuModelSpec& m : GpuModels()) {
    if (m.key == key) return &m;
  }
  return nullptr;
}

std::string GpuModelKeys() {
  std::vector<std::string> keys;
  for (const GpuModelSpec& m : GpuModels()) keys.emplace_back(m.key);
  return Join(keys, ", ");
}

}  // namespace gpucost::simulate
