// AWS Neuron nodes (one unit per NeuronCore) and AMD nodes with compute partitions (one unit per
// partition): docs/inputs.md "AWS Neuron" and "AMD Instinct".
#include "inventory/accelerator_nodes.h"

#include <algorithm>
#include <charconv>
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

// The driver names device N of the node "neurondevice<N>" (its devices' order in the instance).
void AddNeuronDraNode(Assembly& a, NodeIndex n, Node node, const std::string& cluster,
                      const std::vector<const KubeDraDevice*>& devices, double cap_devices,
                      double cap_cores) {
  constexpr std::string_view kPrefix = "neurondevice";
  std::vector<std::pair<const KubeDraDevice*, int>> numbered;
  int count = 0;
  for (const KubeDraDevice* d : devices) {
    int index = -1;
    const std::string_view name = d->name;
    if (name.starts_with(kPrefix)) {
      const std::string_view digits = name.substr(kPrefix.size());
      if (std::from_chars(digits.data(), digits.data() + digits.size(), index).ptr !=
          digits.data() + digits.size()) {
        index = -1;
      }
    }
    if (index < 0 || index > 1024) {
      a.diag.Warn(StrCat("neuron-dra-name:", node.name, ":", d->name), "", 0,
                  StrCat("node ", node.name, ": Neuron DRA device \"", d->name,
                         "\" is not named neurondevice<N>; its claims are not attributed"));
      continue;
    }
    numbered.emplace_back(d, index);
    count = std::max(count, index + 1);
  }
  // Devices the driver does not publish (unhealthy, or held back) still belong to the instance.
  if (const NeuronShape* shape = FindNeuronShape(node.instance_type)) {
    count = std::max(count, shape->devices);
  }
  const std::string name = node.name;
  AddNeuronNode(a, n, std::move(node), std::max(cap_devices, static_cast<double>(count)),
                cap_cores);
  for (const auto& [d, index] : numbered) {
    const std::string uuid = StrCat(name, "-neuron", index);
    std::vector<UnitIndex>& cores = a.dra_device_units[{cluster, d->driver, d->pool, d->name}];
    for (UnitIndex u = 0; u < a.inventory.units.size(); ++u) {
      if (a.inventory.units[u].node == n && a.inventory.units[u].gpu_uuid == uuid) {
        cores.push_back(u);
      }
    }
  }
}

namespace {

// AMD's exporter's GPUs of one node in index order, each handed to the node's next GPU of its
// partition mode (partitioned GPUs by their serial number, whole GPUs by their id), so that the
// exporter's activity meets the units.
class ExporterGpus {
 public:
  explicit ExporterGpus(const std::map<std::string, KnownGpu>& known) {
    for (const auto& [uuid, g] : known) reported_.push_back(&g);
    std::sort(reported_.begin(), reported_.end(), [](const KnownGpu* x, const KnownGpu* y) {
      return std::tie(x->index, x->uuid) < std::tie(y->index, y->uuid);
    });
    taken_.assign(reported_.size(), false);
  }

  // The next GPU of `mode` ("" a whole GPU) no GPU took yet; nullptr when none is left.
  const KnownGpu* Next(const std::string& mode) {
    for (size_t i = 0; i < reported_.size(); ++i) {
      if (taken_[i] || ExporterMode(*reported_[i]) != mode) continue;
      taken_[i] = true;
      return reported_[i];
    }
    return nullptr;
  }

  // Warns of the GPUs no GPU of the node took: their activity is not used.
  void WarnUntaken(Assembly& a, const std::string& node, const std::string& leaves) const {
    for (size_t i = 0; i < reported_.size(); ++i) {
      if (taken_[i]) continue;
      const std::string mode = ExporterMode(*reported_[i]);
      a.diag.Warn(StrCat("amd-unmatched:", node, ":", reported_[i]->uuid), "", 0,
                  StrCat("node ", node, ": AMD exporter GPU ", reported_[i]->uuid, " (",
                         mode.empty() ? std::string("unpartitioned") : mode, ") matches no GPU ",
                         leaves, "; its activity is not used"));
    }
  }

 private:
  std::vector<const KnownGpu*> reported_;
  std::vector<bool> taken_;
};

// One AMD GPU's units: its `partitions` compute partitions of `profile` (1: the whole GPU), of
// which the first `holdable` are advertised; the rest exist but nobody can hold them.
std::vector<UnitIndex> AddAmdGpu(Assembly& a, NodeIndex n, const std::string& uuid,
                                 const std::string& model, const std::string& resource,
                                 const std::string& profile, int partitions, int holdable) {
  std::vector<UnitIndex> out;
  for (int p = 0; p < partitions; ++p) {
    GpuUnit u;
    u.gpu_uuid = uuid;
    u.gpu_model = model;
    u.resource = resource;
    if (partitions > 1) {
      u.partition = {PartitionKind::kXcp, p};
      u.gpu_instance_id = p;
      u.fraction = 1.0 / partitions;
      u.mig_profile = profile;
      u.holdable = p < holdable;
    }
    out.push_back(AddNodeUnit(a, n, std::move(u)));
  }
  return out;
}

void WarnAssumedXcds(Assembly& a, const Node& node, const std::string& profile) {
  a.diag.Warn(
      StrCat("amd-xcds:", node.name), "", 0,
      StrCat("node ", node.name, ": GPU model \"", node.gpu_model, "\" has no known XCD count; ",
             profile, " is taken as 8 partitions per GPU (MI300X class)"));
}

}  // namespace

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
  // GPUs the exporter does not report are named <node>-gpu<g>.
  ExporterGpus exported(known);
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
    if (parts.xcds_assumed) WarnAssumedXcds(a, node, profile);
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
      const KnownGpu* e = exported.Next(mode);
      AddAmdGpu(a, n, e != nullptr ? e->uuid : StrCat(node.name, "-gpu", gpu), node.gpu_model,
                rn.canonical, profile, parts.partitions, devices - g * parts.partitions);
    }
  }
  exported.WarnUntaken(a, node.name, "its advertised resources leave");
  a.inventory.nodes[n].physical_gpus = gpu;
}

// AMD's DRA driver publishes a GPU that is not partitioned as one "amdgpu" device and a
// partitioned GPU as its "amdgpu-partition" devices, each naming the GPU by PCI address.
void AddAmdDraNode(Assembly& a, NodeIndex n, Node node, const std::string& cluster,
                   const std::vector<const KubeDraDevice*>& devices, int plugin_gpus,
                   const std::map<std::string, std::string>& labels,
                   const std::map<std::string, KnownGpu>& known) {
  node.gpu_model = AmdModel(labels);
  if (node.gpu_model == "AMD GPU") {
    for (const KubeDraDevice* d : devices) {
      if (d->product.empty()) continue;
      node.gpu_model = d->product;
      std::replace(node.gpu_model.begin(), node.gpu_model.end(), '_', ' ');
      break;
    }
  }
  a.inventory.nodes.push_back(node);
  // The GPUs in PCI address order, each with its devices in render node order; a device without
  // an address is a GPU of its own.
  std::map<std::string, std::vector<const KubeDraDevice*>> gpus;
  for (const KubeDraDevice* d : devices) {
    if (d->pci_address.empty()) {
      a.diag.Warn(StrCat("amd-dra-no-address:", node.name, ":", d->name), "", 0,
                  StrCat("node ", node.name, ": AMD DRA device ", d->name,
                         " names no GPU (no pciAddr or parentPciAddr attribute); taken as a GPU "
                         "of its own"));
    }
    gpus[d->pci_address.empty() ? StrCat("~", d->name) : d->pci_address].push_back(d);
  }
  ExporterGpus exported(known);
  int gpu = 0;
  for (auto& [address, parts] : gpus) {
    std::sort(parts.begin(), parts.end(), [](const KubeDraDevice* x, const KubeDraDevice* y) {
      return std::tie(x->render_index, x->name) < std::tie(y->render_index, y->name);
    });
    const KubeDraDevice& first = *parts.front();
    const std::string what = StrCat("node ", node.name, ": AMD GPU ",
                                    first.pci_address.empty() ? first.name : first.pci_address);
    const bool partitioned = first.type == "amdgpu-partition";
    const int published = static_cast<int>(parts.size());
    std::string profile = partitioned ? ToLower(first.profile) : std::string();
    int partitions = 1;
    if (partitioned) {
      const AmdPartitioning known_mode = AmdPartitionsPerGpu(profile, node.gpu_model);
      partitions = known_mode.partitions;
      if (partitions <= 0) {
        a.diag.Warn(StrCat("amd-partition:", node.name, ":", profile), "", 0,
                    StrCat(what, ": partition mode \"", profile, "\" is not known; its ", published,
                           " DRA partitions are taken as the whole GPU"));
        partitions = published;
      } else if (known_mode.xcds_assumed) {
        WarnAssumedXcds(a, node, profile);
      }
      if (published > partitions) {
        a.diag.Warn(StrCat("amd-uneven:", node.name, ":", address), "", 0,
                    StrCat(what, ": ", published, " DRA partitions of mode ", profile,
                           ", which cuts a GPU in ", partitions, "; each taken as 1/", published));
        partitions = published;
      }
    } else if (published > 1) {
      a.diag.Warn(StrCat("amd-duplicate:", node.name, ":", address), "", 0,
                  StrCat(what, " is published as ", published,
                         " whole-GPU DRA devices; the first (", first.name, ") is used"));
    }
    const std::string mode = partitions > 1 ? ComputeMode(profile) : std::string();
    const KnownGpu* e = exported.Next(mode);
    const std::vector<UnitIndex> units =
        AddAmdGpu(a, n, e != nullptr ? e->uuid : StrCat(node.name, "-gpu", gpu), node.gpu_model,
                  "amd.com/gpu", profile, partitions, partitioned ? published : 1);
    for (size_t i = 0; i < parts.size() && i < units.size(); ++i) {
      a.dra_device_units[{cluster, parts[i]->driver, parts[i]->pool, parts[i]->name}] = {units[i]};
    }
    ++gpu;
  }
  // AMD's device plugin beside the DRA driver: its amd.com/gpu capacity is more GPUs, whole (as
  // NVIDIA's device plugin's are beside NVIDIA's DRA driver).
  for (int g = 0; g < plugin_gpus; ++g, ++gpu) {
    const KnownGpu* e = exported.Next("");
    AddAmdGpu(a, n, e != nullptr ? e->uuid : StrCat(node.name, "-gpu", gpu), node.gpu_model,
              "amd.com/gpu", "", 1, 1);
  }
  exported.WarnUntaken(a, node.name, "DRA's devices name");
  a.inventory.nodes[n].physical_gpus = gpu;
}

}  // namespace gpucost
