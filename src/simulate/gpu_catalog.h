// The GPU models `gpucost simulate` can put in a cluster: how dcgm-exporter and GPU Feature
// Discovery name them, their memory, the cloud instance that usually carries them and, for
// MIG-capable models, the MIG profile for each compute-slice count; DRA-managed models. Immutable;
// thread-safe.
#pragma once

#include <array>
#include <string>
#include <string_view>
#include <vector>

namespace gpucost::simulate {

// Who makes the accelerator, which decides its resources and exporter: NVIDIA (nvidia.com/gpu,
// dcgm-exporter), AMD Instinct (amd.com/gpu, AMD's device metrics exporter), AWS Neuron
// (aws.amazon.com/neurondevice and neuroncore, the Neuron monitor).
enum class Vendor : uint8_t { kNvidia, kAmd, kAwsNeuron };

struct GpuModelSpec {
  std::string_view key;            // what --gpu-models names it by: "a100-80gb"
  std::string_view model_name;     // dcgm-exporter `modelName`
  std::string_view product;        // GFD `nvidia.com/gpu.product`; AMD: labeller product name
  int memory_mib = 0;              // GFD `nvidia.com/gpu.memory`
  int gpus_per_node = 8;           // of `instance_type` (AWS Neuron: devices)
  std::string_view instance_type;  // `node.kubernetes.io/instance-type`
  int cpus = 96;
  // MIG profile by compute slices (index 1..7, "" where the model has no such profile); all
  // empty for models without MIG.
  std::array<std::string_view, 8> mig_profiles{};
  Vendor vendor = Vendor::kNvidia;
  int neuron_cores = 0;  // AWS Neuron: NeuronCores per device the device plugin advertises
  // AMD Instinct in a compute partition mode: partitions per GPU and the node labeller's
  // compute-memory-partition ("cpx_nps4"); 0 and "" for unpartitioned GPUs.
  int amd_partitions = 0;
  std::string_view amd_partition_mode{};
  // GPUs that a DRA driver hands out through ResourceClaims instead of the device plugin (NVIDIA's
  // gpu.nvidia.com, AMD's gpu.amd.com for AMD models, a device per partition, or AWS's
  // neuron.aws.com for Neuron models, a device per Neuron device): no nvidia.com/gpu, amd.com/gpu
  // or aws.amazon.com/neuron* capacity; the claims are in the Kubernetes objects
  // (ClusterSimulator::KubeObjectsJson), not in any exporter's series.
  bool dra = false;
  // NVIDIA's DRA driver with its DynamicMIG feature gate: each GPU is listed whole and with every
  // MIG device it could make (`mig_profiles`' placements, no UUID); claims take one of either.
  bool dynamic_mig = false;
  bool mig_capable() const { return !mig_profiles[1].empty(); }
};

const std::vector<GpuModelSpec>& GpuModels();

// nullptr when `key` names no model.
const GpuModelSpec* FindGpuModel(std::string_view key);

// "a100-80gb, h100-80gb, ..." for help and error messages.
std::string GpuModelKeys();

}  // namespace gpucost::simulate
