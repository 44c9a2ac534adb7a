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
      // H100s that NVIDIA's DRA driver hands out (ResourceSlices and ResourceClaims).
      {"h100-dra",
       "NVIDIA H100 80GB HBM3",
       "NVIDIA-H100-80GB-HBM3",
       81559,
       8,
       "p5.48xlarge",
       192,
       {},
       Vendor::kNvidia,
       0,
       0,
       {},
       true},
      // The same H100s under NVIDIA's DRA driver with its DynamicMIG feature gate: the driver
      // makes the MIG device a claim is allocated (Hopper changes MIG mode without a reset).
      {"h100-dynmig-dra",
       "NVIDIA H100 80GB HBM3",
       "NVIDIA-H100-80GB-HBM3",
       81559,
       8,
       "p5.48xlarge",
       192,
       {"", "1g.10gb", "2g.20gb", "3g.40gb", "4g.40gb", "", "", "7g.80gb"},
       Vendor::kNvidia,
       0,
       0,
       {},
       true,
       true},
      {"l4", "NVIDIA L4", "NVIDIA-L4", 23034, 8, "g6.48xlarge", 192, {}},
      {"a10g", "NVIDIA A10G", "NVIDIA-A10G", 23028, 4, "g5.12xlarge", 48, {}},
      {"t4", "Tesla T4", "Tesla-T4", 15360, 4, "g4dn.12xlarge", 48, {}},
      // AMD Instinct MI300X: Azure's ND MI300X v5 (8 GPUs of 192 GB, 96 vCPUs).
      {"mi300x",
       "AMD Instinct MI300X OAM",
       "AMD_Instinct_MI300X_OAM",
       196608,
       8,
       "Standard_ND96isr_MI300X_v5",
       96,
       {},
       Vendor::kAmd},
      // The same in CPX-NPS4: each GPU's 8 XCDs are 8 compute partitions, advertised under the
      // device plugin's default single naming as amd.com/gpu.
      {"mi300x-cpx",
       "AMD Instinct MI300X OAM",
       "AMD_Instinct_MI300X_OAM",
       196608,
       8,
       "Standard_ND96isr_MI300X_v5",
       96,
       {},
       Vendor::kAmd,
       0,
       8,
       "cpx_nps4"},
      // The same in CPX-NPS4 handed out by AMD's DRA driver (gpu.amd.com): each partition a
      // ResourceSlice device, claims of 1 to 4 partitions; no amd.com/gpu capacity or requests.
      {"mi300x-dra",
       "AMD Instinct MI300X OAM",
       "AMD_Instinct_MI300X_OAM",
       196608,
       8,
       "Standard_ND96isr_MI300X_v5",
       96,
       {},
       Vendor::kAmd,
       0,
       8,
       "cpx_nps4",
       true},
      // AWS Trainium and Inferentia2: devices of 32 GiB with two NeuronCore-v2 each.
      {"trn1", "AWS Trainium", "", 32768, 16, "trn1.32xlarge", 128, {}, Vendor::kAwsNeuron, 2},
      {"inf2", "AWS Inferentia2", "", 32768, 12, "inf2.48xlarge", 192, {}, Vendor::kAwsNeuron, 2},
      // AWS Trainium2 (trn2.48xlarge: 16 devices of 96 GiB, four logical NeuronCores each under
      // the default LNC=2) whose devices AWS's Neuron DRA driver (neuron.aws.com) hands out.
      {"trn2-dra",
       "AWS Trainium2",
       "",
       98304,
       16,
       "trn2.48xlarge",
       192,
       {},
       Vendor::kAwsNeuron,
       4,
       0,
       {},
       true},
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
