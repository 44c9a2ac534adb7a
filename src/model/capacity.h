// Capacity: nodes, the GPU units they offer, and how a unit is carved from a physical GPU.
// A unit is (cluster, node, gpu_uuid, partition) with a GPU fraction f in GPU-equivalents
// (DESIGN.md "Capacity units"). Plain value types.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "core/labels.h"
#include "core/time.h"

namespace gpucost {

using NodeIndex = uint32_t;
using UnitIndex = uint32_t;
using HolderIndex = uint32_t;
inline constexpr uint32_t kNoIndex = 0xffffffffu;

// [start, end)
struct Interval {
  Instant start;
  Instant end;
  bool Contains(Instant t) const { return t >= start && t < end; }
  friend bool operator==(const Interval&, const Interval&) = default;
};

// kCore: one (logical) NeuronCore of an AWS Neuron device. kXcp: one compute partition (XCP) of
// an AMD Instinct GPU (CPX, DPX, QPX, TPX modes).
enum class PartitionKind : uint8_t { kWhole, kMig, kReplica, kCore, kXcp };

struct Partition {
  PartitionKind kind = PartitionKind::kWhole;
  int index =
      0;  // GPU instance id for kMig, replica number for kReplica, core in its device for kCore
  // "whole", "mig:3", "replica:2", "core:1"
  std::string ToString() const;
  friend bool operator==(const Partition&, const Partition&) = default;
};

// Partitions whose own activity is measured (a MIG instance, a NeuronCore, an AMD partition,
// which the exporters report as a device of its own): a holder's
// utilization is the partition's activity, never a split of its device's.
inline bool MeasuredAlone(PartitionKind k) {
  return k == PartitionKind::kMig || k == PartitionKind::kCore || k == PartitionKind::kXcp;
}

// What a unit's fraction is a fraction of: a GPU, or an AWS Neuron device (Trainium,
// Inferentia). Reports count GPU-hours for the first and accelerator-hours for the second.
enum class UnitKind : uint8_t { kGpu, kNeuronDevice };
// "gpu", "neuron_device"
std::string_view UnitKindName(UnitKind k);
// From a unit's resource name: aws.amazon.com/neuron* is a Neuron device's, anything else a GPU's.
UnitKind UnitKindOfResource(std::string_view resource);

// How a node's GPUs are handed out. kDra: a DRA driver's ResourceSlices publish them and each
// claim says what its pods hold (a whole device, a part of one, a MIG device or partition); it is
// the mode of a node whose own configuration does not divide its GPUs (docs/k8s.md "Dynamic
// Resource Allocation"). The ledger stores the value as an integer: new modes go at the end.
enum class SharingMode : uint8_t { kNone, kMig, kTimeSlicing, kMps, kHami, kDra };
// "none", "mig", "time-slicing", "mps", "hami", "dra"
std::string_view SharingModeName(SharingMode m);
// Whether the node's own configuration divides its GPUs into units (a MIG layout, time-slicing
// or MPS replicas, HAMi fractions): false for whole GPUs, and for kDra, whose claims hold whole
// devices or parts of them claim by claim.
inline bool NodeDividesGpus(SharingMode m) {
  return m != SharingMode::kNone && m != SharingMode::kDra;
}

enum class GpuVendor : uint8_t { kNvidia, kAmd };

struct Node {
  std::string cluster;
  std::string name;
  int physical_gpus = 0;      // never the replica-inflated count
  std::string gpu_model;      // e.g. "NVIDIA A100-SXM4-40GB"
  int64_t gpu_memory_mib = 0; // memory of one physical GPU; 0 when unknown (HAMi gpumem shares)
  std::string instance_type;  // e.g. "p4d.24xlarge"
  std::string capacity_type;  // "on_demand", "spot", "reserved" or "" when unknown
  std::string region;
  std::string zone;
  std::string provider_id;    // kube_node_info provider_id, e.g. "aws:///us-east-1a/i-0abc"
  SharingMode sharing = SharingMode::kNone;
  int replicas = 1;           // per-GPU replica factor for time-slicing / MPS
  bool mig_single = false;    // MIG single strategy: nvidia.com/gpu is a slice
  LabelSet labels;            // node labels as in the Kubernetes API (dotted keys)
  std::vector<Interval> present;  // when the node existed, sorted, disjoint
};

struct GpuUnit {
  NodeIndex node = kNoIndex;
  std::string gpu_uuid;
  Partition partition;
  double fraction = 1.0;    // f in GPU-equivalents
  std::string gpu_model;
  std::string mig_profile;  // "1g.5gb" for MIG units, "cpx_nps4" for AMD partitions, "" otherwise
  // The resource name a request must use to draw this unit from the node's pool:
  // "nvidia.com/gpu", "nvidia.com/mig-1g.5gb", "nvidia.com/gpu.shared", "amd.com/gpu",
  // "aws.amazon.com/neuroncore" (Neuron device requests draw every core of a device).
  std::string resource;
  bool holdable = true;     // false for unpartitioned MIG slices: capacity nobody can request
  int gpu_instance_id = -1;       // MIG GPU instance id, NeuronCore in its device, -1 otherwise
  std::vector<Interval> present;  // empty means "whenever its node is present"

  UnitKind kind() const { return UnitKindOfResource(resource); }
};

// What names a node and a unit across inventories, sources and time (the ledger's keys): a node
// by (cluster, name), a unit by its node's identity, GPU UUID and partition.
std::string NodeIdentity(const Node& node);
std::string UnitIdentity(const Node& node, const GpuUnit& unit);

}  // namespace gpucost
