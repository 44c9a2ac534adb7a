// ClusterSimulator (cluster_simulator.h): builds the cluster from the options and seed, and moves
// its pods through their lives; the scrapes themselves are written by sim_exposition.cc.
#include "simulate/cluster_simulator.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numbers>
#include <set>
#include <string_view>
#include <utility>

#include "core/strings.h"
#include "simulate/gpu_catalog.h"
#include "simulate/sim_impl.h"

namespace gpucost::simulate {

void ClusterSimulator::Impl::Build() {
  std::vector<double> mode_w, model_w;
  std::vector<Sharing> modes;
  for (const Weighted& w : options_.sharing) {
    for (size_t i = 0; i < 5; ++i) {
      if (SharingName(static_cast<Sharing>(i)) == w.key) modes.push_back(static_cast<Sharing>(i));
    }
    mode_w.push_back(w.weight);
  }
  std::vector<const GpuModelSpec*> models;
  for (const Weighted& w : options_.gpu_models) {
    models.push_back(FindGpuModel(w.key));
    model_w.push_back(w.weight);
  }
  WeightedCycle mode_cycle(mode_w), model_cycle(model_w);
  std::set<int> used_ns;
  for (int i = 0; i < options_.nodes; ++i) {
    const Sharing sharing =
        modes[static_cast<size_t>(mode_cycle.Next([](size_t) { return true; }))];
    const int m = model_cycle.Next([&](size_t k) {
      return models[k]->dra ||
             ((sharing != Sharing::kMig || models[k]->mig_capable()) &&
              (sharing == Sharing::kWhole || models[k]->vendor == Vendor::kNvidia));
    });
    nodes_.push_back(MakeNode(i, sharing, *models[static_cast<size_t>(m)]));
    const Node& n = nodes_.back();
    for (const Slot& s : n.slots) used_ns.insert(s.ns);
    shape_.gpus += n.gpus;
    shape_.units += n.sharing == Sharing::kTimeSlicing || n.sharing == Sharing::kMps
                        ? n.gpus * options_.replicas
                    : n.model->vendor == Vendor::kAwsNeuron ? n.gpus * n.model->neuron_cores
                                                            : static_cast<int>(n.units.size());
    shape_.spot_nodes += n.spot ? 1 : 0;
    shape_.node_summaries.push_back(StrCat(n.name, " ", n.model->key, " ",
                                           n.model->dra ? "dra" : SharingName(n.sharing), " ",
                                           n.gpus, " ", n.spot ? "spot" : "on-demand"));
  }
  shape_.nodes = options_.nodes;
  shape_.namespaces = static_cast<int>(used_ns.size());
}

double ClusterSimulator::Impl::Load(const Slot& s) const {
  Rng noise{HashCombine(seed_ ^ static_cast<uint64_t>(t_ms_), s.pod.uid_hash)};
  const double n = noise.Uniform() - 0.5;
  const double h = HourOfDay(t_ms_);
  double v = 0;
  switch (s.kind) {
    case Kind::kTraining:
      v = s.pod.base + s.pod.amp * std::sin(static_cast<double>(t_ms_) / 9e5 + s.pod.phase) +
          0.05 * n;
      break;
    case Kind::kNotebook: {
      // Idle most of the day; bursts in working hours on weekdays.
      const bool work = Weekday(t_ms_) && h >= 9 && h < 18;
      const double burst = std::sin(static_cast<double>(t_ms_) / 1.7e6 + s.pod.phase);
      v = (work && burst > 0.6) ? s.pod.base + 0.3 * burst : 0.01 + 0.01 * n;
      break;
    }
    case Kind::kInference: {
      const double day =
          0.5 + 0.5 * std::sin((h - 9.0) / 24.0 * 2 * std::numbers::pi);  // peak 15:00
      v = s.pod.base + s.pod.amp * day * (Weekday(t_ms_) ? 1.0 : 0.6) + 0.06 * n;
      break;
    }
  }
  return std::clamp(v, 0.0, 1.0);
}

void ClusterSimulator::Impl::StartPod(const Node& node, Slot& s, int64_t t) {
  Rng& r = s.rng;
  Pod& p = s.pod;
  p = Pod{};
  p.alive = true;
  const std::string_view team = kNamespaces[s.ns].team;
  p.uid = r.Uuid();
  p.uid_hash = Hash64(p.uid);
  p.running_ms = t + interval_ms_ * r.Range(1, 2);
  if (s.fixed) p.running_ms = t;
  // One pod in ten carries another team's label (a shared namespace).
  p.team = std::string(r.Uniform() < 0.1 ? kTeams[r.Next() % std::size(kTeams)] : team);
  switch (s.kind) {
    case Kind::kTraining: {
      const std::string job = s.cronjob.empty()
                                  ? StrCat("train-", team, "-", ++s.serial, "-", r.Alnum(4))
                                  : StrCat(s.cronjob, "-", t / 60000);  // CronJob's Job naming
      p.name = StrCat(job, "-", r.Alnum(5));
      p.container = "trainer";
      p.owner_kind = "Job";
      p.owner_name = job;
      p.cronjob = s.cronjob;
      p.app = s.cronjob.empty() ? StrCat("train-", team) : s.cronjob;
      p.ends_ms = p.running_ms + r.Range(2 * 3600, 12 * 3600) * 1000;
      p.failed = r.Uniform() < 0.05;
      p.gone_ms = p.ends_ms + 2 * interval_ms_;  // Succeeded/Failed for two scrapes
      s.next_start_ms = p.gone_ms + r.Range(10 * 60, 90 * 60) * 1000;
      p.base = 0.65 + 0.3 * r.Uniform();
      p.amp = 0.05;
      break;
    }
    case Kind::kNotebook: {
      const std::string sts = StrCat("nb-", r.Alnum(3), "-", ++s.serial);
      p.name = sts + "-0";
      p.container = "notebook";
      p.owner_kind = "StatefulSet";
      p.owner_name = sts;
      p.app = "jupyter";
      p.ends_ms = p.running_ms + r.Range(24 * 3600, 72 * 3600) * 1000;  // culled after 1-3 days
      p.gone_ms = p.ends_ms;
      s.next_start_ms = p.gone_ms + r.Range(30 * 60, 6 * 3600) * 1000;
      p.base = 0.3 + 0.3 * r.Uniform();
      break;
    }
    case Kind::kInference: {
      if (s.rs_hash.empty() || t - s.rs_rolled_ms > 3 * 86'400'000) {  // a rollout
        s.rs_hash = r.Alnum(10);
        s.rs_rolled_ms = t;
      }
      p.replicaset = StrCat(s.deployment, "-", s.rs_hash);
      p.name = StrCat(p.replicaset, "-", r.Alnum(5));
      p.container = "server";
      p.owner_kind = "ReplicaSet";
      p.owner_name = p.replicaset;
      p.app = s.deployment;
      p.ends_ms = p.running_ms + r.Range(12 * 3600, 4 * 86400) * 1000;
      p.gone_ms = p.ends_ms;
      s.next_start_ms = p.gone_ms;  // replaced at once
      p.base = 0.05 + 0.1 * r.Uniform();
      p.amp = 0.4 + 0.4 * r.Uniform();
      break;
    }
  }
  if (s.fixed) {
    p.ends_ms = p.gone_ms = s.next_start_ms = std::numeric_limits<int64_t>::max();
    p.failed = false;
  }
  p.phase = 2 * std::numbers::pi * r.Uniform();
  p.pod_ip = StrCat("10.", 64 + (node_index(node) >> 8) % 64, ".", node_index(node) % 256, ".",
                    r.Range(2, 254));
}

Slot ClusterSimulator::Impl::MakeSlot(Rng& r, Kind kind, std::vector<Request> requests, int index) {
  Slot s;
  s.kind = kind;
  s.requests = std::move(requests);
  s.ns = static_cast<int>(r.Next() % static_cast<uint64_t>(options_.namespaces));
  s.rng = Rng{r.Next()};
  // Staggered start: most slots are busy from the first scrape, a few fill up later.
  const int64_t delay_s = r.Uniform() < 0.8 ? 0 : r.Range(0, 6 * 3600);
  s.next_start_ms = origin_ms_ + delay_s * 1000 / interval_ms_ * interval_ms_;
  const std::string_view team = kNamespaces[s.ns].team;
  if (kind == Kind::kInference) s.deployment = StrCat("svc-", team, "-", index);
  if (kind == Kind::kTraining && r.Uniform() < 0.3)
    s.cronjob = StrCat("nightly-", team, "-", index);
  return s;
}

Node ClusterSimulator::Impl::MakeNode(int i, Sharing sharing, const GpuModelSpec& model) {
  Rng r{HashCombine(seed_, static_cast<uint64_t>(i))};
  Node node;
  node.sharing = sharing;
  node.model = &model;
  node.gpus = options_.gpus_per_node > 0 ? options_.gpus_per_node : model.gpus_per_node;
  node.name = StrCat(model.key, "-", model.dra ? "" : StrCat(SharingName(sharing), "-"),
                     std::string(4 - std::min<size_t>(4, std::to_string(i).size()), '0'), i);
  node.host_ip = StrCat("10.0.", (i >> 8) % 256, ".", i % 256);
  node.spot = r.Uniform() < options_.spot_fraction;
  const bool shared = sharing == Sharing::kTimeSlicing || sharing == Sharing::kMps;
  const int replicas = shared ? options_.replicas : 1;
  auto& lb = node.labels;
  lb = {{"node", node.name},
        {"label_kubernetes_io_hostname", node.name},
        {"label_node_kubernetes_io_instance_type", std::string(model.instance_type)},
        {"label_topology_kubernetes_io_region", "us-east-1"},
        {"label_topology_kubernetes_io_zone", StrCat("us-east-1", static_cast<char>('a' + i % 3))},
        {"label_karpenter_sh_capacity_type", node.spot ? "spot" : "on-demand"},
        {"label_karpenter_sh_nodepool", node.spot ? "gpu-spot" : "gpu-on-demand"}};
  node.zone = StrCat("us-east-1", static_cast<char>('a' + i % 3));
  if (model.vendor == Vendor::kAwsNeuron) {
    node.instance_id = StrCat("i-0", r.Hex(16));
  } else if (model.vendor == Vendor::kAmd) {
    lb.emplace_back("label_amd_com_gpu_product_name", std::string(model.product));
    if (model.amd_partitions > 1) {
      lb.emplace_back("label_amd_com_compute_memory_partition",
                      std::string(model.amd_partition_mode));
    }
  } else {
    lb.emplace_back("label_nvidia_com_gpu_present", "true");
    // GFD's count and sharing labels are the device plugin's; DRA nodes have none.
    if (!model.dra) lb.emplace_back("label_nvidia_com_gpu_count", std::to_string(node.gpus));
    lb.emplace_back("label_nvidia_com_gpu_memory", std::to_string(model.memory_mib));
    lb.emplace_back("label_nvidia_com_cuda_driver_major", "550");
  }
  std::string product(model.product);
  if (model.vendor != Vendor::kNvidia || model.dra) {
    // No device plugin labels: the AMD node labeller's and the Neuron device plugin's are above.
  } else if (sharing == Sharing::kMig) {
    lb.emplace_back("label_nvidia_com_mig_strategy", "mixed");
    lb.emplace_back("label_nvidia_com_mig_capable", "true");
  } else {
    lb.emplace_back("label_nvidia_com_gpu_replicas", std::to_string(replicas));
    lb.emplace_back("label_nvidia_com_gpu_sharing_strategy", sharing == Sharing::kTimeSlicing
                                                                 ? "time-slicing"
                                                             : sharing == Sharing::kMps ? "mps"
                                                                                        : "none");
    if (shared) product += "-SHARED";
  }
  if (model.vendor == Vendor::kNvidia) lb.emplace_back("label_nvidia_com_gpu_product", product);
  node.capacity.emplace_back("cpu", model.cpus);

  std::vector<std::string> uuids;
  for (int g = 0; g < node.gpus; ++g) uuids.push_back("GPU-" + r.Uuid());
  auto add_unit = [&](int g, std::string profile, int gi) -> Unit& {
    Unit u;
    u.gpu = g;
    u.uuid = uuids[static_cast<size_t>(g)];
    char bus[32];
    std::snprintf(bus, sizeof bus, "00000000:%02X:00.0", (0x10 + g * 0x10) & 0xff);
    u.pci_bus_id = bus;
    u.device = StrCat("nvidia", g);
    u.profile = std::move(profile);
    if (gi >= 0) u.gi = std::to_string(gi);
    node.units.push_back(std::move(u));
    return node.units.back();
  };
  int slot_index = i * 100;
  auto add_slot = [&](Kind kind, std::vector<Request> requests) {
    node.slots.push_back(MakeSlot(r, kind, std::move(requests), slot_index++));
    return static_cast<int>(node.slots.size()) - 1;
  };
  // AMD compute partitions: each GPU's go to pods of half, a quarter, ... of them (8: 4, 2, 1, 1):
  // groups of two or more train, single partitions serve or host notebooks; on every other GPU
  // the last partition is left unheld.
  struct PartitionGroup {
    int first = 0, n = 0;
    bool unheld = false;
    Kind kind = Kind::kTraining;
  };
  int partition_singles = 0;
  const auto partition_groups = [&](int g) {
    std::vector<PartitionGroup> out;
    for (int p = 0; p < model.amd_partitions;) {
      const int left = model.amd_partitions - p;
      PartitionGroup group{p, left >= 2 ? std::max(1, left / 2) : 1};
      group.unheld = group.n == 1 && left == 1 && g % 2 == 1;
      if (group.n < 2 && !group.unheld) {
        group.kind = partition_singles++ % 2 == 0 ? Kind::kInference : Kind::kNotebook;
      }
      out.push_back(group);
      p += group.n;
    }
    return out;
  };
  const std::string amd_mode(
      model.amd_partition_mode.substr(0, model.amd_partition_mode.find('_')));
  if (model.dra && model.vendor == Vendor::kAmd) {
    // AMD's DRA driver: the partitions are devices of the node's ResourceSlice, each group handed
    // out by a claim whose pod runs from the first scrape on; the unheld ones are unclaimed.
    const int parts = model.amd_partitions;
    for (int g = 0; g < node.gpus; ++g) {
      for (const PartitionGroup& group : partition_groups(g)) {
        DraClaim c;
        c.name = StrCat(node.name, "-gpu-", g, "-p", group.first);
        c.gpu = g;
        for (int k = 0; k < group.n; ++k) {
          c.units.push_back(static_cast<int>(node.units.size()));
          add_unit(g, amd_mode, group.first + k);
        }
        if (group.unheld) continue;
        const int si = add_slot(group.kind, {});
        Slot& s = node.slots[static_cast<size_t>(si)];
        s.fixed = true;
        s.claim = c.name;
        s.next_start_ms = origin_ms_;
        c.slots = {si};
        for (int u : c.units) node.units[static_cast<size_t>(u)].slots.push_back(si);
        node.claims.push_back(std::move(c));
      }
    }
    while (gpu_index_.size() < static_cast<size_t>(node.gpus * parts) + 1) {
      gpu_index_.push_back(std::to_string(gpu_index_.size()));
    }
    return node;
  }
  if (model.dynamic_mig || (model.dra && model.vendor == Vendor::kAwsNeuron)) {
    // NVIDIA's DRA driver under DynamicMIG, or AWS's Neuron DRA driver: a unit per GPU or device,
    // claims by sim_dra_claims.cc.
    for (int g = 0; g < node.gpus; ++g) add_unit(g, "", -1);
    const AddSlot slot = [&](Kind kind) { return add_slot(kind, {}); };
    if (model.dynamic_mig) {
      DynamicMigClaims(node, slot);
    } else {
      NeuronDraClaims(node, slot);
    }
    const size_t indexes = std::max(
        {static_cast<size_t>(node.gpus * std::max(1, model.neuron_cores)),
         static_cast<size_t>(std::max(node.gpus, model.neuron_cores)) + 1, node.slots.size()});
    while (gpu_index_.size() < indexes) gpu_index_.push_back(std::to_string(gpu_index_.size()));
    return node;
  }
  if (model.dra) {
    for (int g = 0; g < node.gpus; ++g) add_unit(g, "", -1);
    NvidiaDraClaims(node, [&](Kind kind) { return add_slot(kind, {}); });
    while (gpu_index_.size() < static_cast<size_t>(node.gpus) + 1) {
      gpu_index_.push_back(std::to_string(gpu_index_.size()));
    }
    return node;
  }
  switch (sharing) {
    case Sharing::kWhole: {
      if (model.amd_partitions > 1) {
        // AMD compute partitions under single naming: amd.com/gpu counts partitions.
        node.capacity.emplace_back("amd_com_gpu", node.gpus * model.amd_partitions);
        for (int g = 0; g < node.gpus; ++g) {
          for (const PartitionGroup& group : partition_groups(g)) {
            const int si = group.unheld ? -1 : add_slot(group.kind, {{"amd_com_gpu", group.n}});
            for (int k = 0; k < group.n; ++k) {
              Unit& u = add_unit(g, amd_mode, group.first + k);
              if (si >= 0) u.slots.push_back(si);
            }
          }
        }
        break;
      }
      const bool neuron = model.vendor == Vendor::kAwsNeuron;
      const std::string device_resource = neuron ? "aws_amazon_com_neurondevice"
                                          : model.vendor == Vendor::kAmd ? "amd_com_gpu"
                                                                         : "nvidia_com_gpu";
      if (neuron)
        node.capacity.emplace_back("aws_amazon_com_neuroncore", node.gpus * model.neuron_cores);
      node.capacity.emplace_back(device_resource, node.gpus);
      // GPU groups, halving: 8 GPUs -> pods of 4, 2, 1, 1. Groups of two or more train; single
      // GPUs serve inference or notebooks in turn. On Neuron nodes a notebook takes one
      // NeuronCore of its device.
      int g = 0, singles = 0;
      while (g < node.gpus) {
        const int left = node.gpus - g;
        int n = 1;
        while (left >= 4 && n * 2 <= left / 2) n *= 2;
        const Kind kind =
            n >= 2 ? Kind::kTraining : (singles++ % 2 == 0 ? Kind::kInference : Kind::kNotebook);
        const bool one_core = neuron && kind == Kind::kNotebook;
        const int si =
            add_slot(kind, {{one_core ? "aws_amazon_com_neuroncore" : device_resource, n}});
        for (int k = 0; k < n; ++k, ++g) add_unit(g, "", -1).slots.push_back(si);
      }
      break;
    }
    case Sharing::kMig: {
      node.capacity.emplace_back("nvidia_com_gpu", 0);
      std::vector<std::pair<std::string, int64_t>> counts;
      for (int g = 0; g < node.gpus; ++g) {
        const std::vector<int>& layout =
            kMigLayouts[static_cast<size_t>(i / 5 + g) % kMigLayouts.size()];
        int gi = 1;
        for (int slices : layout) {
          const std::string profile(model.mig_profiles[static_cast<size_t>(slices)]);
          const std::string res = "nvidia_com_mig_" + Sanitize(profile);
          auto it = std::find_if(counts.begin(), counts.end(),
                                 [&](const auto& c) { return c.first == res; });
          if (it == counts.end()) {
            counts.emplace_back(res, 1);
          } else {
            ++it->second;
          }
          add_unit(g, profile, gi++);
          if (r.Uniform() < 0.75) {  // about one instance in four is left unheld
            const Kind kind = slices >= 3   ? Kind::kTraining
                              : slices == 2 ? Kind::kInference
                                            : Kind::kNotebook;
            const int si = add_slot(kind, {{res, 1}});
            node.units.back().slots.push_back(si);
          }
        }
      }
      for (auto& c : counts) node.capacity.push_back(std::move(c));
      break;
    }
    case Sharing::kTimeSlicing:
    case Sharing::kMps: {
      node.capacity.emplace_back("nvidia_com_gpu", node.gpus * replicas);
      // Some of each GPU's replicas are used, by inference and notebooks. An MPS client is
      // limited to 1/replicas of the GPU.
      for (int g = 0; g < node.gpus; ++g) {
        const int used = static_cast<int>(r.Range(1, replicas - 1));
        add_unit(g, "", -1).exclusive = false;
        for (int k = 0; k < used; ++k) {
          const Kind kind = (g + k) % 3 == 2 ? Kind::kNotebook : Kind::kInference;
          const int si = add_slot(kind, {{"nvidia_com_gpu", 1}});
          if (sharing == Sharing::kMps)
            node.slots[static_cast<size_t>(si)].load_scale = 1.0 / replicas;
          node.units.back().slots.push_back(si);
        }
      }
      break;
    }
    case Sharing::kHami: {
      constexpr int kSplit = 10;  // HAMi's default deviceSplitCount
      node.capacity.emplace_back("nvidia_com_gpu", node.gpus * kSplit);
      // One fraction size per node (a HAMi node pool's profile), so that the pods fit however
      // they are placed: kube-state-metrics does not say which GPU HAMi gave a pod.
      static constexpr int kCores[] = {25, 30, 50};
      const int cores = kCores[r.Next() % std::size(kCores)];
      for (int g = 0; g < node.gpus; ++g) {
        add_unit(g, "", -1).exclusive = false;
        const int used = static_cast<int>(r.Range(1, 100 / cores));
        for (int k = 0; k < used; ++k) {
          const Kind kind = (g + k) % 3 == 1 ? Kind::kNotebook : Kind::kInference;
          const int si = add_slot(kind, {{"nvidia_com_gpu", 1},
                                         {"nvidia_com_gpucores", cores},
                                         {"nvidia_com_gpumem", model.memory_mib * cores / 100}});
          node.slots[static_cast<size_t>(si)].load_scale = cores / 100.0;
          node.units.back().slots.push_back(si);
        }
      }
      break;
    }
  }
  // Index labels: GPUs, on Neuron nodes the device count, core indexes and runtime tags, and on
  // partitioned AMD nodes the partitions' ids.
  const size_t indexes = std::max(
      {static_cast<size_t>(node.gpus) + 1,
       static_cast<size_t>(node.gpus * std::max(1, model.neuron_cores)),
       static_cast<size_t>(node.gpus * std::max(1, model.amd_partitions)), node.slots.size()});
  while (gpu_index_.size() < indexes) gpu_index_.push_back(std::to_string(gpu_index_.size()));
  return node;
}

ClusterSimulator::ClusterSimulator(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
ClusterSimulator::~ClusterSimulator() = default;

Result<std::unique_ptr<ClusterSimulator>> ClusterSimulator::Create(const SimOptions& options,
                                                                   Instant origin) {
  GPUCOST_RETURN_IF_ERROR(Validate(options));
  auto impl = std::make_unique<Impl>(options, origin);
  impl->Build();
  return std::unique_ptr<ClusterSimulator>(new ClusterSimulator(std::move(impl)));
}

void ClusterSimulator::Scrape(Instant t, ExpositionHandler& out, unsigned parts) {
  impl_->Scrape(t, out, parts);
}
const ClusterShape& ClusterSimulator::shape() const { return impl_->shape(); }
Duration ClusterSimulator::scrape_interval() const { return impl_->interval(); }

int64_t SimulateWindow(ClusterSimulator& sim, Window window, ExpositionHandler& out,
                       unsigned parts) {
  int64_t n = 0;
  for (Instant t = window.start; t < window.end; t += sim.scrape_interval(), ++n) {
    sim.Scrape(t, out, parts);
  }
  return n;
}

}  // namespace gpucost::simulate
