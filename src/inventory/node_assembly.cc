// Nodes and their GPU units: presence from kube_node_* series (or dcgm or node agent data for
// nodes KSM does not show), physical GPUs from the GPU UUIDs dcgm-exporter and the node agent
// report or GFD gpu.count (never the replica-inflated capacity), the sharing mode, and one unit
// per whole GPU, MIG instance (plus the unpartitioned rest) or time-slicing/MPS replica. Which
// GPUs each node has comes from known_gpus.cc; AWS Neuron nodes and AMD nodes with compute
// partitions are made in accelerator_nodes.cc.
#include <algorithm>
#include <charconv>
#include <cmath>

#include "core/strings.h"
#include "inventory/accelerator_nodes.h"
#include "inventory/amd_partitions.h"
#include "inventory/assembly.h"
#include "inventory/known_gpus.h"
#include "inventory/mig_profiles.h"
#include "inventory/workload_identity.h"

namespace gpucost {
namespace {

int IntLabel(const std::map<std::string, std::string>& labels, const std::string& key) {
  auto it = labels.find(key);
  if (it == labels.end()) return -1;
  int v = -1;
  const std::string& s = it->second;
  const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || end != s.data() + s.size()) return -1;  // "1e1" is no count
  return v;
}

std::string StrLabel(const std::map<std::string, std::string>& labels, const std::string& key) {
  auto it = labels.find(key);
  return it == labels.end() ? std::string() : it->second;
}

std::string CapacityType(const std::map<std::string, std::string>& l) {
  const std::string karpenter = ToLower(StrLabel(l, "karpenter_sh_capacity_type"));
  if (karpenter == "spot") return "spot";
  if (karpenter == "on-demand") return "on_demand";
  if (karpenter == "reserved") return "reserved";
  const std::string eks = ToLower(StrLabel(l, "eks_amazonaws_com_capacity_type"));
  if (eks == "spot") return "spot";
  if (eks == "on_demand") return "on_demand";
  if (StrLabel(l, "cloud_google_com_gke_spot") == "true" ||
      StrLabel(l, "cloud_google_com_gke_preemptible") == "true") {
    return "spot";
  }
  const std::string azure = ToLower(StrLabel(l, "kubernetes_azure_com_scalesetpriority"));
  if (azure == "spot") return "spot";
  if (azure == "regular") return "on_demand";
  return "";
}

// "NVIDIA-H100-NVL-MIG-1g.12gb" -> profile "1g.12gb"; "A100-SXM4-40GB-MIG-1g.5gb-SHARED" too.
std::string ProductMigProfile(std::string_view product) {
  const size_t mig = product.find("-MIG-");
  if (mig == std::string_view::npos) return "";
  std::string_view p = product.substr(mig + 5);
  if (p.ends_with("-SHARED")) p.remove_suffix(7);
  return std::string(p);
}

std::string ProductModel(std::string_view product) {
  if (const size_t mig = product.find("-MIG-"); mig != std::string_view::npos) {
    product = product.substr(0, mig);
  }
  if (product.ends_with("-SHARED")) product.remove_suffix(7);
  return std::string(product);
}

double Capacity(const KsmNode* n, const std::string& res) {
  if (n == nullptr) return 0;
  auto it = n->capacity.find(res);
  return it == n->capacity.end() ? 0 : it->second;
}

struct MigSlot {
  int gi;
  std::string profile;
  const PresenceSeries* seen;  // nullptr when synthesised from labels
};

class NodeUnits {
 public:
  NodeUnits(Assembly& a, NodeIndex n) : a_(a), n_(n) {}

  UnitIndex Add(GpuUnit u) { return AddNodeUnit(a_, n_, std::move(u)); }

  void Mig(const std::string& uuid, const std::string& model, const std::vector<MigSlot>& slots) {
    const Node& node = a_.inventory.nodes[n_];
    const MigModel* mm = DetectMigModel(model);
    int used = 0;
    for (const MigSlot& s : slots) {
      GpuUnit u;
      u.gpu_uuid = uuid;
      u.gpu_model = model;
      u.partition = {PartitionKind::kMig, s.gi};
      u.gpu_instance_id = s.gi;
      const MigProfile* p = mm != nullptr ? FindMigProfile(*mm, s.profile) : nullptr;
      if (p != nullptr) {
        u.mig_profile = p->name;
        u.fraction = MigFraction(*mm, *p, a_.options.mig_weight);
        used += p->compute_slices;
      } else {
        const auto parsed = ParseMigProfileName(s.profile);
        u.mig_profile = parsed ? NormalizeMigProfileName(*parsed) : s.profile;
        const auto f = MigFractionWithoutModel(s.profile, a_.options.mig_weight);
        if (!f) {
          // No share of the GPU can be read from the name: the instance is left out, and the
          // GPU's cost stays with the rest of the GPU (idle) rather than with a guess.
          a_.diag.Warn(StrCat("mig-unknown:", model, ":", s.profile), "", 0,
                       StrCat("node ", node.name, " GPU ", uuid, ": MIG instance ", s.gi,
                              " has profile \"", s.profile, "\", which names no share of a ",
                              model.empty() ? std::string("GPU") : model,
                              "; the instance is left out, its GPU's cost is idle and its "
                              "holders are not charged for it"));
          continue;
        }
        u.fraction = *f;
        if (parsed) used += parsed->compute_slices;
        a_.diag.Warn(StrCat("mig-unknown:", model, ":", s.profile), "", 0,
                     StrCat("node ", node.name, ": MIG profile \"", s.profile, "\" on GPU model \"",
                            model, "\" is not in the profile table; fraction taken as ", *f));
      }
      u.resource = node.mig_single ? "nvidia.com/gpu" : MigResourceName(u.mig_profile);
      if (s.seen != nullptr) u.present = PresentIntervals(*s.seen, a_.presence);
      Add(std::move(u));
    }
    const int total = mm != nullptr ? mm->compute_slices : 7;
    if (used > total) {
      a_.diag.Warn(StrCat("mig-overfull:", uuid), "", 0,
                   StrCat("node ", node.name, " GPU ", uuid, ": MIG instances seen over the window "
                          "use ", used, " of ", total, " compute slices (reconfigured?)"));
    } else if (used < total) {
      GpuUnit rest;
      rest.gpu_uuid = uuid;
      rest.gpu_model = model;
      rest.partition = {PartitionKind::kWhole, 0};
      rest.fraction = static_cast<double>(total - used) / total;
      rest.holdable = false;
      Add(std::move(rest));
    }
  }

 private:
  Assembly& a_;
  NodeIndex n_;
};

}  // namespace

UnitIndex AddNodeUnit(Assembly& a, NodeIndex n, GpuUnit u) {
  u.node = n;
  const UnitIndex idx = static_cast<UnitIndex>(a.inventory.units.size());
  if (u.partition.kind == PartitionKind::kReplica) {
    a.replica_units[{n, u.gpu_uuid, u.partition.index}] = idx;
  } else if (u.holdable) {
    a.unit_by_device[{n, u.gpu_uuid, u.gpu_instance_id}] = idx;
  }
  a.inventory.units.push_back(std::move(u));
  return idx;
}

void BuildNodesAndUnits(Assembly& a) {
  KnownGpus known = GatherKnownGpus(a);
  const std::set<NodeKey>& names = known.names;
  std::map<NodeKey, std::map<std::string, KnownGpu>>& node_gpus = known.gpus;
  std::map<NodeKey, std::vector<Interval>>& dcgm_presence = known.device_presence;
  std::map<NodeKey, std::vector<Interval>>& pod_presence = known.pod_presence;
  const std::set<NodeKey>& hami_nodes = known.hami_nodes;
  const std::set<NodeKey>& shared_nodes = known.shared_nodes;
  const LabelKeyRestorer restorer(KnownLabelKeys(a));
  // AMD's and AWS Neuron's DRA devices by node, and the nodes any DRA driver publishes
  // accelerators of.
  std::map<NodeKey, std::vector<const KubeDraDevice*>> amd_dra, neuron_dra;
  std::set<NodeKey> dra_nodes;
  for (const auto& [cluster, d] : a.dra.devices) {
    if (d.node.empty()) continue;
    if (IsDraAccelerator(d)) dra_nodes.insert({cluster, d.node});
    if (IsAmdDraType(d.type)) amd_dra[{cluster, d.node}].push_back(&d);
    if (d.driver == kNeuronDraDriver) neuron_dra[{cluster, d.node}].push_back(&d);
  }

  for (const NodeKey& nk : names) {
    const NodeIndex n = static_cast<NodeIndex>(a.inventory.nodes.size());
    a.node_index[nk] = n;
    Node node;
    node.cluster = nk.first;
    node.name = nk.second;
    const KsmNode* kn = nullptr;
    if (auto it = a.ksm.nodes.find(nk); it != a.ksm.nodes.end()) kn = &it->second;
    static const std::map<std::string, std::string> kNone;
    const auto& l = kn != nullptr ? kn->labels : kNone;
    std::vector<Interval> present = dcgm_presence[nk];
    if (kn != nullptr) {
      present = UnionIntervals(present, PresentIntervals(kn->seen, a.presence));
      present = UnionIntervals(present, kn->api_present);
    }
    present = UnionIntervals(present, pod_presence[nk]);
    node.present = ClipIntervals(present, a.window);
    // A node costs only while some series evidences it. Empty would read as "the whole window"
    // (a node no source times), so a node seen only outside the window is present for no time.
    if (node.present.empty()) node.present.push_back(Interval{a.window.start, a.window.start});
    {
      std::vector<Label> labels;
      for (const auto& [k, v] : l) labels.push_back(Label{restorer.Restore(k), v});
      if (auto made = LabelSet::Make(std::move(labels)); made.ok()) node.labels = std::move(made).value();
    }
    if (kn != nullptr) node.provider_id = kn->provider_id;
    node.instance_type = StrLabel(l, "node_kubernetes_io_instance_type");
    if (node.instance_type.empty()) node.instance_type = StrLabel(l, "beta_kubernetes_io_instance_type");
    node.capacity_type = CapacityType(l);
    node.zone = StrLabel(l, "topology_kubernetes_io_zone");
    if (node.zone.empty()) node.zone = StrLabel(l, "failure_domain_beta_kubernetes_io_zone");
    node.region = StrLabel(l, "topology_kubernetes_io_region");
    if (node.region.empty()) node.region = StrLabel(l, "failure_domain_beta_kubernetes_io_region");

    // AMD GPUs DRA describes: its devices are the node's GPUs and partitions.
    if (auto dra = amd_dra.find(nk); dra != amd_dra.end()) {
      const int plugin_gpus = static_cast<int>(std::lround(Capacity(kn, "amd.com/gpu")));
      AddAmdDraNode(a, n, std::move(node), nk.first, dra->second, plugin_gpus, l, node_gpus[nk]);
      continue;
    }
    // AMD partitions: mixed naming's amd.com/<mode> capacity, or amd.com/gpu capacity under a
    // compute-memory-partition label that partitions the GPU (accelerator_nodes.cc). AMD's
    // exporter's GPUs name the node's GPUs there, so that its partition activity meets them.
    if (kn != nullptr) {
      std::vector<std::pair<std::string, double>> amd_resources;
      bool partitioned = false;
      for (const auto& [res, v] : kn->capacity) {
        const ResourceName rn = CanonicalResourceName(res);
        if (v <= 0) continue;
        if (rn.kind == ResourceKind::kAmdPartition) {
          partitioned = true;  // mixed naming, even where every mode is SPX: the names differ
          amd_resources.emplace_back(rn.canonical, v);
        } else if (rn.kind == ResourceKind::kAmdGpu) {
          const std::string mode = StrLabel(l, "amd_com_compute_memory_partition");
          partitioned =
              partitioned || (!mode.empty() && AmdPartitionsPerGpu(mode, "").partitions != 1);
          amd_resources.emplace_back(rn.canonical, v);
        }
      }
      if (partitioned) {
        AddAmdPartitionedNode(a, n, std::move(node), amd_resources, l, node_gpus[nk]);
        continue;
      }
    }
    const double cap_neuron_cores = Capacity(kn, std::string(kNeuronCoreResource));
    const double cap_neuron_devices = std::max(Capacity(kn, std::string(kNeuronDeviceResource)),
                                               Capacity(kn, std::string(kNeuronLegacyResource)));
    const auto dra_neuron = neuron_dra.find(nk);
    if ((cap_neuron_cores > 0 || cap_neuron_devices > 0 || dra_neuron != neuron_dra.end()) &&
        node_gpus[nk].empty()) {
      if (dra_neuron == neuron_dra.end()) {
        AddNeuronNode(a, n, std::move(node), cap_neuron_devices, cap_neuron_cores);
      } else {
        AddNeuronDraNode(a, n, std::move(node), nk.first, dra_neuron->second, cap_neuron_devices,
                         cap_neuron_cores);
      }
      continue;
    }

    std::vector<const KnownGpu*> gpus;
    for (const auto& [uuid, g] : node_gpus[nk]) gpus.push_back(&g);
    std::sort(gpus.begin(), gpus.end(), [](const KnownGpu* x, const KnownGpu* y) {
      return std::tie(x->index, x->uuid) < std::tie(y->index, y->uuid);
    });
    const std::string product = StrLabel(l, "nvidia_com_gpu_product");
    node.gpu_model = !gpus.empty() && !gpus.front()->model.empty() ? gpus.front()->model
                                                                  : ProductModel(product);
    const std::string mig_strategy = StrLabel(l, "nvidia_com_mig_strategy");
    const std::string strategy = StrLabel(l, "nvidia_com_gpu_sharing_strategy");
    // GFD's counts, held to what a node's capacity is (kMaxNodeDevices): gpu.count=100000000
    // took all memory, and 70000 billed $840,000 in four hours.
    const auto count_label = [&](const char* key, const char* name) {
      const int v = IntLabel(l, key);
      if (v > static_cast<int>(kMaxNodeDevices)) {
        a.diag.Warn(StrCat("node-label:", node.cluster, "/", node.name, ":", name), "", 0,
                    StrCat("node ", node.name, ": label ", name, "=", v, " is more than a node ",
                           "has (at most ", static_cast<int>(kMaxNodeDevices), "); ignored"));
        return -1;
      }
      return v;
    };
    const int gfd_count = count_label("nvidia_com_gpu_count", "nvidia.com/gpu.count");
    const int replicas_label = count_label("nvidia_com_gpu_replicas", "nvidia.com/gpu.replicas");
    std::map<std::string, double> mig_capacity;  // profile -> count
    if (kn != nullptr) {
      for (const auto& [res, v] : kn->capacity) {
        const ResourceName rn = CanonicalResourceName(res);
        if (rn.kind == ResourceKind::kNvidiaMig && v > 0) mig_capacity[rn.mig_profile] = v;
      }
    }
    bool dcgm_mig = false;
    for (const KnownGpu* g : gpus) dcgm_mig = dcgm_mig || !g->instances.empty();
    const std::string product_profile = ProductMigProfile(product);
    const bool mig = dcgm_mig || (mig_strategy == "single" && !product_profile.empty()) ||
                     (mig_strategy == "mixed" && !mig_capacity.empty());
    const double cap_gpu = Capacity(kn, "nvidia.com/gpu");
    const double cap_shared = Capacity(kn, "nvidia.com/gpu.shared");
    const double cap_amd = Capacity(kn, "amd.com/gpu");
    const bool renamed = cap_shared > 0 || shared_nodes.contains(nk);
    int replicas = replicas_label > 1 ? replicas_label : 1;
    if (mig) {
      node.sharing = SharingMode::kMig;
      node.mig_single = mig_strategy == "single";
    } else if (hami_nodes.contains(nk)) {
      node.sharing = SharingMode::kHami;
    } else if (strategy == "time-slicing" || strategy == "mps" || replicas > 1 || renamed) {
      node.sharing = strategy == "mps" ? SharingMode::kMps : SharingMode::kTimeSlicing;
      if (replicas <= 1 && gfd_count > 0 && cap_gpu + cap_shared > gfd_count) {
        replicas = static_cast<int>(std::lround((cap_gpu + cap_shared) / gfd_count));
      }
      if (replicas <= 1) {
        a.diag.Warn(StrCat("node ", node.name, ": GPU sharing (", strategy.empty() ? "renamed" : strategy,
                           ") without a replica count; each GPU is one unit"));
        replicas = 1;
      }
    }
    node.replicas = node.sharing == SharingMode::kTimeSlicing || node.sharing == SharingMode::kMps
                        ? replicas : 1;

    // Physical GPUs: the larger of dcgm UUIDs and GFD gpu.count, else capacity / replicas.
    int physical = static_cast<int>(gpus.size());
    int per_gpu_single = 0;  // MIG single strategy: instances per GPU from the product profile
    if (node.mig_single && !product_profile.empty()) {
      const MigModel* mm = DetectMigModel(product);
      const MigProfile* p = mm != nullptr ? FindMigProfile(*mm, product_profile) : nullptr;
      per_gpu_single = p != nullptr ? p->max_instances : 0;
    }
    int label_physical = gfd_count;
    if (node.mig_single && gfd_count > 0) {
      label_physical = per_gpu_single > 0 ? (gfd_count + per_gpu_single - 1) / per_gpu_single : -1;
    }
    // A device plugin's GPUs beside DRA's on one node: DRA's slices name only DRA's GPUs (and a
    // DRA-backed extended resource adds no node capacity), so the plugin's capacity is more GPUs.
    const bool dra_only =
        std::all_of(gpus.begin(), gpus.end(), [](const KnownGpu* g) { return g->dra_only; });
    const bool plugin_mig =
        (mig_strategy == "single" && !product_profile.empty()) || !mig_capacity.empty();
    if (physical > 0 && dra_only && !plugin_mig && cap_gpu + cap_shared > 0) {
      physical += static_cast<int>(std::lround((cap_gpu + cap_shared) / node.replicas));
    }
    if (physical == 0) {
      if (label_physical > 0) {
        physical = label_physical;
        // The device plugin's capacity counts GPUs too: a GFD label short of it is stale (the
        // larger count is capacity, as against dcgm below), and is said.
        // (HAMi's capacity counts virtual devices, several per GPU: no such check.)
        const int cap_count =
            cap_gpu + cap_shared > 0 && !mig && node.sharing != SharingMode::kHami
                ? static_cast<int>(std::lround((cap_gpu + cap_shared) / node.replicas))
                : 0;
        if (cap_count > label_physical) {
          a.diag.Warn(StrCat("node ", node.name, ": GFD gpu.count says ", label_physical,
                             " GPUs but the node's capacity is ", cap_count,
                             node.replicas > 1 ? StrCat(" (", cap_gpu + cap_shared, " / ",
                                                        node.replicas, " replicas)")
                                               : std::string(),
                             "; using ", cap_count));
          physical = cap_count;
        }
      } else if (cap_amd > 0 && cap_gpu + cap_shared <= 0) {
        physical = static_cast<int>(cap_amd);
      } else if (node.sharing == SharingMode::kHami && cap_gpu > 0) {
        physical = static_cast<int>(std::ceil(cap_gpu / std::max(1, a.options.hami_device_split_count)));
        a.diag.Warn(StrCat("node ", node.name, ": HAMi node without gpu.count or dcgm data; ",
                           physical, " GPUs assumed from capacity ", cap_gpu, " / ",
                           a.options.hami_device_split_count));
      } else if (cap_gpu + cap_shared > 0 && !mig) {
        physical = static_cast<int>(std::lround((cap_gpu + cap_shared) / node.replicas));
      }
    } else if (label_physical > 0 && label_physical != physical) {
      // dcgm-exporter may not report every GPU (a GPU it cannot read, a device filter), and a
      // label may be stale: the larger count is capacity; GPUs without dcgm series get
      // placeholder ids below.
      a.diag.Warn(StrCat("node ", node.name, ": ", physical, " GPUs in dcgm/agent data but GFD "
                         "gpu.count says ", label_physical, "; using ", std::max(physical, label_physical)));
      physical = std::max(physical, label_physical);
    }
    // AMD's exporter reports its GPUs as dcgm-exporter does (dcgm_reader.cc): they are the node's
    // GPUs, and amd.com/gpu capacity beyond them has placeholder ids as GPUs without series.
    const bool amd = cap_amd > 0 && cap_gpu + cap_shared <= 0;
    if (amd && !gpus.empty() && cap_amd > physical) {
      a.diag.Warn(StrCat("node ", node.name, ": ", physical,
                         " GPUs in AMD exporter data but capacity "
                         "says amd.com/gpu ",
                         cap_amd, "; using ", cap_amd));
      physical = static_cast<int>(cap_amd);
    }
    if (amd && node.gpu_model.empty()) node.gpu_model = AmdModel(l);
    // Replicas of every GPU are units too: as many as a node's capacity may count, at most.
    if (physical > 0 && static_cast<int64_t>(physical) * node.replicas > kMaxNodeDevices) {
      const int most = std::max(1, static_cast<int>(kMaxNodeDevices) / physical);
      a.diag.Warn(StrCat("node-replicas:", node.cluster, "/", node.name), "", 0,
                  StrCat("node ", node.name, ": ", physical, " GPUs x ", node.replicas,
                         " replicas is more than a node has (at most ",
                         static_cast<int>(kMaxNodeDevices), "); ", most, " replicas a GPU taken"));
      node.replicas = most;
    }
    node.physical_gpus = physical;
    a.inventory.nodes.push_back(node);

    // Units.
    NodeUnits units(a, n);
    std::vector<std::pair<std::string, std::string>> gpu_ids;  // (uuid, model)
    for (const KnownGpu* g : gpus) gpu_ids.emplace_back(g->uuid, g->model.empty() ? node.gpu_model : g->model);
    for (int i = static_cast<int>(gpu_ids.size()); i < physical; ++i) {
      gpu_ids.emplace_back(StrCat(node.name, "-gpu", i), node.gpu_model);
    }
    // MIG layouts synthesised from labels when dcgm shows none: fill GPUs in order.
    std::vector<std::vector<MigSlot>> synth(gpu_ids.size());
    if (mig && !dcgm_mig && !gpu_ids.empty()) {
      std::vector<std::pair<std::string, int>> wanted;  // profile, count
      if (node.mig_single) wanted.emplace_back(product_profile, gfd_count > 0 ? gfd_count : physical * per_gpu_single);
      for (const auto& [p, c] : mig_capacity) wanted.emplace_back(p, static_cast<int>(c));
      const MigModel* mm = DetectMigModel(node.gpu_model);
      std::vector<int> free(gpu_ids.size(), mm != nullptr ? mm->compute_slices : 7);
      for (const auto& [p, c] : wanted) {
        const auto parsed = ParseMigProfileName(p);
        const int slices = parsed ? parsed->compute_slices : 1;
        for (int k = 0; k < c; ++k) {
          size_t g = 0;
          while (g < free.size() && free[g] < slices) ++g;
          if (g == free.size()) break;
          free[g] -= slices;
          synth[g].push_back(MigSlot{static_cast<int>(synth[g].size()), p, nullptr});
        }
      }
    }
    for (size_t i = 0; i < gpu_ids.size(); ++i) {
      const auto& [uuid, model] = gpu_ids[i];
      const KnownGpu* g = i < gpus.size() ? gpus[i] : nullptr;
      if (g != nullptr && !g->instances.empty()) {
        std::vector<MigSlot> slots;
        for (const auto& [gi, inst] : g->instances) {
          slots.push_back(MigSlot{gi, inst.profile, inst.seen});
          if (inst.profile.empty()) {
            a.diag.Warn(StrCat("node ", node.name, " GPU ", uuid, " instance ", gi,
                               ": no GPU_I_PROFILE label (or agent profile); fraction unknown"));
          }
        }
        units.Mig(uuid, model, slots);
        continue;
      }
      if (!synth[i].empty()) {
        units.Mig(uuid, model, synth[i]);
        continue;
      }
      if (node.replicas > 1) {
        for (int r = 0; r < node.replicas; ++r) {
          GpuUnit u;
          u.gpu_uuid = uuid;
          u.gpu_model = model;
          u.partition = {PartitionKind::kReplica, r};
          u.fraction = 1.0 / node.replicas;
          u.resource = renamed ? "nvidia.com/gpu.shared" : "nvidia.com/gpu";
          units.Add(std::move(u));
        }
        continue;
      }
      GpuUnit u;
      u.gpu_uuid = uuid;
      u.gpu_model = model;
      u.resource = amd ? "amd.com/gpu" : "nvidia.com/gpu";
      units.Add(std::move(u));
    }
  }
  // DRA's nodes: their claims say what each pod holds. A node whose own configuration divides its
  // GPUs (a MIG layout, time-slicing or MPS replicas, HAMi) keeps that mode, which says what its
  // units are; one with the device plugin's whole GPUs beside DRA's is "dra". Only the name
  // differs from "none": every step after this one treats the two alike (NodeDividesGpus).
  for (const NodeKey& nk : dra_nodes) {
    auto it = a.node_index.find(nk);
    if (it == a.node_index.end()) continue;
    Node& node = a.inventory.nodes[it->second];
    if (node.sharing == SharingMode::kNone) node.sharing = SharingMode::kDra;
  }
}

}  // namespace gpucost
