// Internal to the inventory module: the nodes whose units are not NVIDIA GPUs or whole AMD GPUs,
// AWS Neuron nodes, AMD nodes with compute partitions and AMD nodes DRA describes
// (accelerator_nodes.cc), for node_assembly.cc. Not thread-safe.
#pragma once

#include <map>
#include <string>
#include <utility>
#include <vector>

#include "inventory/assembly.h"
#include "inventory/known_gpus.h"

namespace gpucost {

// Adds `u` as a unit of node `n`, indexed by device (node_assembly.cc).
UnitIndex AddNodeUnit(Assembly& a, NodeIndex n, GpuUnit u);

// The GPU model of an AMD node: the node labeller's product name ("AMD_Instinct_MI300X_OAM"),
// underscores as spaces; "AMD GPU" without one.
std::string AmdModel(const std::map<std::string, std::string>& labels);

// An AWS Neuron node: one unit per (logical) NeuronCore, f = 1 / cores per device, so that the
// node's capacity is its devices. Devices and cores come from the device plugin's capacity
// (aws.amazon.com/neurondevice or neuron, and neuroncore), the instance type's shape filling
// what the capacity does not tell.
void AddNeuronNode(Assembly& a, NodeIndex n, Node node, double cap_devices, double cap_cores);

// An AWS Neuron node whose devices AWS's Neuron DRA driver publishes (`devices`, "neurondevice<N>"
// of `cluster`): AddNeuronNode's units for at least as many devices as the driver names and the
// instance type has, each device's cores recorded in Assembly::dra_device_units for its claims.
void AddNeuronDraNode(Assembly& a, NodeIndex n, Node node, const std::string& cluster,
                      const std::vector<const KubeDraDevice*>& devices, double cap_devices,
                      double cap_cores);

// An AMD node with partitioned GPUs: one unit per compute partition, f = 1 / partitions per GPU,
// so that the node's capacity is its physical GPUs. `resources` are its AMD resources and their
// capacity; `known` the GPUs AMD's exporter reports on it (by serial number with their
// partitions, or whole GPUs), which name the node's GPUs so that their activity meets the units.
void AddAmdPartitionedNode(Assembly& a, NodeIndex n, Node node,
                           const std::vector<std::pair<std::string, double>>& resources,
                           const std::map<std::string, std::string>& labels,
                           const std::map<std::string, KnownGpu>& known);

// An AMD node whose GPUs AMD's DRA driver publishes (`devices`, types "amdgpu" and
// "amdgpu-partition", of `cluster`): one unit per GPU, or per partition with f = 1 / partitions
// per GPU, each recorded in Assembly::dra_device_units for its claims; then `plugin_gpus` whole
// GPUs of AMD's device plugin beside them (its amd.com/gpu capacity). The GPUs take the
// exporter's GPUs (`known`) in order, as AddAmdPartitionedNode's do.
void AddAmdDraNode(Assembly& a, NodeIndex n, Node node, const std::string& cluster,
                   const std::vector<const KubeDraDevice*>& devices, int plugin_gpus,
                   const std::map<std::string, std::string>& labels,
                   const std::map<std::string, KnownGpu>& known);

}  // namespace gpucost
