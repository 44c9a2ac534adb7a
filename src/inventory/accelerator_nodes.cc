// AWS Neuron nodes (one unit per NeuronCore) and AMD nodes with compute partitions (one unit per
// partition): docs/inputs.md "AWS Neuron" and "AMD Instinct".
#include "inventory/accelerator_nodes.h"

#include <algorithm>
#include <cmath>
#include <tuple>

#include "core/strings.h"
#include "inventory/amd_partitions.h"
#include "inventory/neuron_shapes.h"

namespace gpucost {
namespace {

std::string NodeLabel(const std::map<std::string, std::string>& labels, const std::string& key) {
  auto it = labels.find(key);
  return it == labels.end() ? std::string() : it->second;
}

// "cpx_nps4" -> "cpx".
std::string ComputeMode(std::string_view profile) {
  return ToLower(profile.substr(0, profile.find('_')));
}

// The partition mode of a GPU AMD's exporter reports: its partitions' mode, "" for a whole GPU.
std::string ExporterMode(const KnownGpu& g) {
  return g.instances.empty() ? std::string() : ComputeMode(g.instances.begin()->second.profile);
}

}  // namespace

std::string AmdModel(const std::map<std::string, std::string>& l) {
  std::string model = NodeLabel(l, "amd_com_gpu_product_name");
  std::replace(model.begin(), model.end(), '_', ' ');
  return model.empty() ? std::string("AMD GPU") : model;
}

void AddNeuronNode(Assembly& a, NodeIndex n, Node node, double cap_devices, double cap_cores) {
  const NeuronShape* shape = FindNeuronShape(node.instance_type);
  int devices = static_cast<int>(std::lround(cap_devices));
  const int cores = static_cast<int>(std::lround(cap_cores));
  int per_device = 0;
  if (devices > 0 && cores > 0) {
    if (cores % devices == 0) {
      per_device = cores / devices;
    } else {
      a.diag.Warn(StrCat("neuron-shape:", node.name), "", 0,
                  StrCat("node ", node.name, ": capacity says ", cores, " ", kNeuronCoreResource,
                         " on ", devices, " devices, not a whole number per device; ",
                         shape != nullptr ? StrCat("taking ", shape->cores_per_device,
                                                   " per device from ", node.instance_type)
                                          : std::string("taking 1 per device")));
    }
  }
  if (per_device == 0 && shape != nullptr) per_device = shape->cores_per_device;
  if (devices == 0 && cores > 0 && per_device > 0) devices = (cores + per_device - 1) / per_device;
  if (devices == 0 && shape != nullptr) devices = shape->devices;
  if (per_device == 0) {
    a.diag.Warn(StrCat("neuron-shape:", node.name), "", 0,
                StrCat("node ", node.name, ": NeuronCores per device unknown (no ",
                       kNeuronCoreResource, " capacity and instance type \"", node.instance_type,
                       "\" not known); each device is taken as one core, so a core request holds a "
                       "whole device"));
    per_device = 1;
  }
  a.neuron_cores_per_device[n] = per_device;
  node.physical_gpus = devices;
  node.gpu_model = NeuronDeviceModel(node.instance_type);
  node.sharing = SharingMode::kNone;
  a.inventory.nodes.push_back(node);
  for (int d = 0; d < devices; ++d) {
    for (int c = 0; c < per_device; ++c) {
      GpuUnit u;
      u.gpu_uuid = StrCat(node.name, "-neuron", d);
      u.gpu_model = node.gpu_model;
      u.partition = {PartitionKind::kCore, c};
      u.gpu_instance_id = c;
      u.fraction = 1.0 / per_device;
      u.resource = std::string(kNeuronCoreResource);
      AddNodeUnit(a, n, std::move(u));
    }
  }
}

// The device plugin advertises partitions as amd.com/gpu (single naming, the node labeller's
// compute-memory-partition label says which) or as amd.com/<mode> per mode (mixed naming), and
// GPUs that are not partitioned as amd.com/gpu.
void AddAmdPartitionedNode(Assembly& a, NodeIndex n, Node node,
                           const std::vector<std::pair<std::string, double>>& resources,
                           const std::map<std::string, std::string>& labels,
                           const std::map<std::string, KnownGpu>& known) {
  node.gpu_model = AmdModel(labels);
  a.inventory.nodes.push_back(node);
  bool mixed = false;
  for (const auto& [resource, count] : resources) {
    mixed = mixed || CanonicalResourceName(resource).kind == ResourceKind::kAmdPartition;
  }
  // The exporter's GPUs in index order: each GPU of a resource takes the next one of its mode
  // (partitioned GPUs by their serial number, whole GPUs by their id), so that the exporter's
  // activity meets the units; GPUs it does not report are named <node>-gpu<g>.
  std::vector<const KnownGpu*> reported;
  for (const auto& [uuid, g] : known) reported.push_back(&g);
  std::sort(reported.begin(), reported.end(), [](const KnownGpu* x, const KnownGpu* y) {
    return std::tie(x->index, x->uuid) < std::tie(y->index, y->uuid);
  });
  std::vector<bool> taken(reported.size(), false);
  const auto next_reported = [&](const std::string& mode) -> const KnownGpu* {
    for (size_t i = 0; i < reported.size(); ++i) {
      if (taken[i] || ExporterMode(*reported[i]) != mode) continue;
      taken[i] = true;
      return reported[i];
    }
    return nullptr;
  };
  int gpu = 0;
  for (const auto& [resource, count] : resources) {
    const ResourceName rn = CanonicalResourceName(resource);
    // Under mixed naming amd.com/gpu is the GPUs that cannot be partitioned (MI210); under single
    // naming it is every partition, of the mode the node labeller names.
    std::string profile = rn.mig_profile;
    if (rn.kind == ResourceKind::kAmdGpu && !mixed) {
      profile = ToLower(NodeLabel(labels, "amd_com_compute_memory_partition"));
    }
    AmdPartitioning parts = AmdPartitionsPerGpu(profile, node.gpu_model);
    if (profile.empty()) parts.partitions = 1;  // GPUs that are not partitioned
    if (parts.partitions <= 0) {
      a.diag.Warn(StrCat("amd-partition:", node.name, ":", profile), "", 0,
                  StrCat("node ", node.name, ": AMD partition mode \"", profile, "\" of ", resource,
                         " is not known; each of its ", count, " devices is taken as a whole GPU"));
      parts.partitions = 1;
      profile.clear();
    }
    if (parts.xcds_assumed) {
      a.diag.Warn(StrCat("amd-xcds:", node.name), "", 0,
                  StrCat("node ", node.name, ": GPU model \"", node.gpu_model,
                         "\" has no known XCD "
                         "count; ",
                         profile, " is taken as 8 partitions per GPU (MI300X class)"));
    }
    const int devices = static_cast<int>(std::lround(count));
    const int gpus = (devices + parts.partitions - 1) / parts.partitions;
    if (devices % parts.partitions != 0) {
      a.diag.Warn(
          StrCat("amd-uneven:", node.name, ":", resource), "", 0,
          StrCat("node ", node.name, ": ", devices, " ", resource, " is not a whole number of ",
                 profile, " GPUs (", parts.partitions, " partitions each); ", gpus,
                 " GPUs taken, the partitions not advertised are idle capacity"));
    }
    const std::string mode = parts.partitions > 1 ? ComputeMode(profile) : std::string();
    for (int g = 0; g < gpus; ++g, ++gpu) {
      const KnownGpu* exported = next_reported(mode);
      const std::string uuid =
          exported != nullptr ? exported->uuid : StrCat(node.name, "-gpu", gpu);
      for (int p = 0; p < parts.partitions; ++p) {
        GpuUnit u;
        u.gpu_uuid = uuid;
        u.gpu_model = node.gpu_model;
        u.resource = rn.canonical;
        if (parts.partitions > 1) {
          u.partition = {PartitionKind::kXcp, p};
          u.gpu_instance_id = p;
          u.fraction = 1.0 / parts.partitions;
          u.mig_profile = profile;
          // Partitions past the advertised count (an uneven count) exist but nobody can hold them.
          u.holdable = g * parts.partitions + p < devices;
        }
        AddNodeUnit(a, n, std::move(u));
      }
    }
  }
  for (size_t i = 0; i < reported.size(); ++i) {
    if (taken[i]) continue;
    const std::string mode = ExporterMode(*reported[i]);
    a.diag.Warn(
        StrCat("amd-unmatched:", node.name, ":", reported[i]->uuid), "", 0,
        StrCat("node ", node.name, ": AMD exporter GPU ", reported[i]->uuid, " (",
               mode.empty() ? std::string("unpartitioned") : mode,
               ") matches no GPU its advertised resources leave; its activity is not used"));
  }
  a.inventory.nodes[n].physical_gpus = gpu;
}

}  // namespace gpucost
