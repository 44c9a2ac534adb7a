// Internal to the inventory module: what the sources say about each node's physical GPUs before
// units are made (known_gpus.cc), for node_assembly.cc. Not thread-safe.
#pragma once

#include <map>
#include <set>
#include <string>
#include <vector>

#include "inventory/assembly.h"

namespace gpucost {

struct MigInstance {
  std::string profile;
  const PresenceSeries* seen = nullptr;
};

// A physical GPU as dcgm-exporter, the node agent, HAMi or DRA report it (dcgm first where they
// disagree).
struct KnownGpu {
  std::string uuid;
  int index = -1;
  std::string model;
  std::map<int, MigInstance> instances;  // GPU instance id -> instance
  bool dra_only = false;                 // only a DRA ResourceSlice names it
  // NVIDIA's DynamicMIG: DRA publishes the GPU's possible MIG devices (no UUID) and makes them
  // as claims need them, so the GPU is one whole unit that MIG claims hold a part of, and the
  // instances other sources report are not its units (dra_assembly.cc).
  bool dynamic_mig = false;
};

struct KnownGpus {
  std::set<NodeKey> names;                                  // every node some source names
  std::map<NodeKey, std::map<std::string, KnownGpu>> gpus;  // by GPU UUID
  // When dcgm-exporter, the agent or HAMi saw the node's GPUs (evidence the node exists).
  std::map<NodeKey, std::vector<Interval>> device_presence;
  // Nodes only pods name: when those pods ran (their GPU capacity is unknown, and warned).
  std::map<NodeKey, std::vector<Interval>> pod_presence;
  std::set<NodeKey> hami_nodes;    // a pod on it asks for HAMi fractions
  std::set<NodeKey> shared_nodes;  // a pod on it asks for nvidia.com/gpu.shared
};

// Also maps dcgm-exporter's hosts to nodes (a.host_to_node).
KnownGpus GatherKnownGpus(Assembly& a);

}  // namespace gpucost
