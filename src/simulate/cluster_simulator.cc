#include "simulate/cluster_simulator.h"

#include <algorithm>
#include <cmath>
#include <numbers>
#include <set>
#include <string_view>
#include <utility>

#include "core/strings.h"
#include "simulate/gpu_catalog.h"

namespace gpucost::simulate {
namespace {

// SplitMix64: small, fast and the same on every platform, so a seed means the same cluster.
struct Rng {
  uint64_t s = 0;
  uint64_t Next() {
    uint64_t x = (s += 0x9e3779b97f4a7c15ULL);
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
    return x ^ (x >> 31);
  }
  double Uniform() { return static_cast<double>(Next() >> 11) / 9007199254740992.0; }
  int64_t Range(int64_t lo, int64_t hi) {  // [lo, hi]
    return lo + static_cast<int64_t>(Next() % static_cast<uint64_t>(hi - lo + 1));
  }
  std::string Hex(int n) {
    static constexpr char kDigits[] = "0123456789abcdef";
    std::string out;
    for (int i = 0; i < n; ++i) out += kDigits[Next() & 15];
    return out;
  }
  std::string Alnum(int n) {  // Kubernetes' random-suffix alphabet
    static constexpr char kDigits[] = "bcdfghjklmnpqrstvwxz2456789";
    std::string out;
    for (int i = 0; i < n; ++i) out += kDigits[Next() % 27];
    return out;
  }
  std::string Uuid() {
    return StrCat(Hex(8), "-", Hex(4), "-4", Hex(3), "-8", Hex(3), "-", Hex(12));
  }
};

enum class Kind { kTraining, kNotebook, kInference };

struct NamespaceSpec {
  std::string_view ns;
  std::string_view team;
};
constexpr NamespaceSpec kNamespaces[] = {
    {"research-nlp", "research"},
    {"research-vision", "research"},
    {"search-ranking", "search"},
    {"ads-serving", "ads"},
    {"data-science", "analytics"},
    {"platform-ml", "platform"},
    {"recsys", "ads"},
    {"speech", "research"},
    {"fraud-detection", "risk"},
    {"maps-vision", "maps"},
    {"llm-serving", "platform"},
    {"genai-lab", "research"},
    {"forecasting", "analytics"},
    {"safety-ml", "risk"},
    {"translation", "search"},
    {"robotics", "research"},
};
constexpr std::string_view kTeams[] = {"research", "search", "ads", "analytics",
                                       "platform", "risk",   "maps"};
constexpr std::string_view kPhases[] = {"Pending", "Running", "Succeeded", "Failed", "Unknown"};

struct Request {
  std::string resource;  // KSM spelling: nvidia_com_gpu
  int64_t amount = 1;
};

struct Pod {
  bool alive = false;
  std::string name, uid, container, owner_kind, owner_name, app, team, pod_ip, cronjob;
  std::string replicaset;  // inference pods
  int64_t running_ms = 0, ends_ms = 0, gone_ms = 0;
  bool failed = false;
  uint64_t uid_hash = 0;
  double base = 0, amp = 0, phase = 0;
};

struct Slot {
  Kind kind = Kind::kTraining;
  std::vector<Request> requests;
  double load_scale = 1;  // MPS and HAMi clients get a part of the GPU
  int ns = 0;
  Rng rng;
  Pod pod;
  int64_t next_start_ms = 0;
  int serial = 0;
  std::string deployment, rs_hash, cronjob;
  int64_t rs_rolled_ms = 0;
};

struct Unit {  // one dcgm-exporter entity: a GPU or a MIG instance
  int gpu = 0;
  std::string uuid, pci_bus_id, device, profile, gi;
  std::vector<int> slots;  // the slots whose pods run on it
  bool exclusive = true;   // one holder at a time (whole GPU, MIG instance)
};

struct Node {
  Sharing sharing = Sharing::kWhole;
  const GpuModelSpec* model = nullptr;
  std::string name, host_ip;
  int gpus = 0;
  bool spot = false;
  std::vector<std::pair<std::string, std::string>> labels;  // KSM spelling, node first
  std::vector<std::pair<std::string, int64_t>> capacity;    // resource, value
  std::vector<Slot> slots;
  std::vector<Unit> units;
};

// MIG layouts as compute slices per instance; every one fits the 7-compute / 8-memory-slice
// A100/H100 geometry.
const std::vector<std::vector<int>> kMigLayouts = {
    {3, 3}, {3, 2, 1, 1}, {4, 3}, {3, 2, 2}, {7}, {2, 2, 3}, {2, 2, 2, 1}, {1, 1, 1, 1, 1, 1, 1},
};

std::string Sanitize(std::string_view s) {
  std::string out(s);
  for (char& c : out) {
    if (c == '.' || c == '/' || c == '-' || c == '+') c = '_';
  }
  return out;
}

// Smooth weighted round robin (the even interleaving nginx uses): deterministic, and every
// prefix of the sequence is as close to the weights as whole counts allow.
class WeightedCycle {
 public:
  explicit WeightedCycle(std::vector<double> weights)
      : weights_(std::move(weights)), current_(weights_.size(), 0) {}
  // Picks among the indexes `allowed` accepts; -1 when none has weight.
  template <typename Allowed>
  int Next(Allowed allowed) {
    double total = 0;
    int best = -1;
    for (size_t i = 0; i < weights_.size(); ++i) {
      if (!allowed(i) || weights_[i] <= 0) continue;
      current_[i] += weights_[i];
      total += weights_[i];
      if (best < 0 || current_[i] > current_[static_cast<size_t>(best)]) best = static_cast<int>(i);
    }
    if (best >= 0) current_[static_cast<size_t>(best)] -= total;
    return best;
  }

 private:
  std::vector<double> weights_;
  std::vector<double> current_;
};

double HourOfDay(int64_t t_ms) { return static_cast<double>((t_ms / 1000) % 86400) / 3600.0; }
bool Weekday(int64_t t_ms) { return (t_ms / 86'400'000 + 3) % 7 < 5; }  // 1970-01-01 was a Thursday

double Round6(double v) { return std::round(std::clamp(v, 0.0, 1.0) * 1e6) / 1e6; }

}  // namespace

class ClusterSimulator::Impl {
 public:
  Impl(const SimOptions& o, Instant origin)
      : options_(o),
        seed_(o.seed),
        interval_ms_(o.scrape_interval.count()),
        origin_ms_(UnixMs(origin)),
        last_ms_(UnixMs(origin)) {}

  void Build() {
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
      const int m = model_cycle.Next(
          [&](size_t k) { return sharing != Sharing::kMig || models[k]->mig_capable(); });
      nodes_.push_back(MakeNode(i, sharing, *models[static_cast<size_t>(m)]));
      const Node& n = nodes_.back();
      for (const Slot& s : n.slots) used_ns.insert(s.ns);
      shape_.gpus += n.gpus;
      shape_.units += n.sharing == Sharing::kTimeSlicing || n.sharing == Sharing::kMps
                          ? n.gpus * options_.replicas
                          : static_cast<int>(n.units.size());
      shape_.spot_nodes += n.spot ? 1 : 0;
      shape_.node_summaries.push_back(StrCat(n.name, " ", n.model->key, " ", SharingName(n.sharing),
                                             " ", n.gpus, " ", n.spot ? "spot" : "on-demand"));
    }
    shape_.nodes = options_.nodes;
    shape_.namespaces = static_cast<int>(used_ns.size());
  }

  void Scrape(Instant at, ExpositionHandler& out, unsigned parts) {
    const int64_t t = std::max(UnixMs(at), last_ms_);
    last_ms_ = t;
    for (Node& node : nodes_) {
      for (Slot& s : node.slots) Advance(node, s, t);
    }
    t_ms_ = t;
    out_ = &out;
    if ((parts & kKubeStateMetrics) != 0) KubeStateMetrics();
    if ((parts & kDcgmExporter) != 0) DcgmExporter();
    out_ = nullptr;
  }

  const ClusterShape& shape() const { return shape_; }
  Duration interval() const { return Duration(interval_ms_); }

 private:
  // --- emission -----------------------------------------------------------------------------

  void Family(std::string_view name, std::string_view help) {
    MetadataView m{MetadataKind::kHelp, name, help};
    out_->OnMetadata(m);
    m.kind = MetadataKind::kType;
    m.text = "gauge";
    m.type = MetricType::kGauge;
    out_->OnMetadata(m);
  }
  void Begin() {
    labels_.clear();
    if (!options_.cluster.empty()) labels_.push_back({"cluster", options_.cluster});
  }
  void L(std::string_view name, std::string_view value) { labels_.push_back({name, value}); }
  void Emit(std::string_view name, double value) {
    SampleView s;
    s.name = name;
    s.labels = labels_;
    s.value = value;
    s.has_timestamp = true;
    s.timestamp_ms = t_ms_;
    out_->OnSample(s);
  }

  template <typename F>
  void ForPods(F f) {
    for (const Node& node : nodes_) {
      for (const Slot& s : node.slots) {
        if (s.pod.alive) f(node, s);
      }
    }
  }
  void PodLabels(const Slot& s) {
    L("namespace", kNamespaces[s.ns].ns);
    L("pod", s.pod.name);
    L("uid", s.pod.uid);
  }

  void KubeStateMetrics() {
    Family("kube_node_labels", "Kubernetes labels converted to Prometheus labels.");
    for (const Node& node : nodes_) {
      Begin();
      for (const auto& [k, v] : node.labels) L(k, v);
      Emit("kube_node_labels", 1);
    }
    Family("kube_node_status_capacity", "The capacity for different resources of a node.");
    for (const Node& node : nodes_) {
      for (const auto& [res, v] : node.capacity) {
        Begin();
        L("node", node.name);
        L("resource", res);
        L("unit", res == "cpu" ? "core" : "integer");
        Emit("kube_node_status_capacity", static_cast<double>(v));
      }
    }
    Family("kube_namespace_labels", "Kubernetes labels converted to Prometheus labels.");
    for (int i = 0; i < options_.namespaces; ++i) {
      Begin();
      L("namespace", kNamespaces[i].ns);
      L("label_team", kNamespaces[i].team);
      Emit("kube_namespace_labels", 1);
    }
    Family("kube_pod_info", "Information about pod.");
    ForPods([&](const Node& node, const Slot& s) {
      Begin();
      PodLabels(s);
      L("host_ip", node.host_ip);
      L("pod_ip", s.pod.pod_ip);
      L("node", node.name);
      L("created_by_kind", s.pod.owner_kind);
      L("created_by_name", s.pod.owner_name);
      L("priority_class", "");
      L("host_network", "false");
      Emit("kube_pod_info", 1);
    });
    Family("kube_pod_owner", "Information about the Pod's owner.");
    ForPods([&](const Node&, const Slot& s) {
      Begin();
      PodLabels(s);
      L("owner_kind", s.pod.owner_kind);
      L("owner_name", s.pod.owner_name);
      L("owner_is_controller", "true");
      Emit("kube_pod_owner", 1);
    });
    Family("kube_replicaset_owner", "Information about the ReplicaSet's owner.");
    ForPods([&](const Node&, const Slot& s) {
      if (s.pod.replicaset.empty()) return;
      Begin();
      L("namespace", kNamespaces[s.ns].ns);
      L("replicaset", s.pod.replicaset);
      L("owner_kind", "Deployment");
      L("owner_name", s.deployment);
      L("owner_is_controller", "true");
      Emit("kube_replicaset_owner", 1);
    });
    Family("kube_job_owner", "Information about the Job's owner.");
    ForPods([&](const Node&, const Slot& s) {
      if (s.pod.owner_kind != "Job") return;
      Begin();
      L("namespace", kNamespaces[s.ns].ns);
      L("job_name", s.pod.owner_name);
      L("owner_kind", s.pod.cronjob.empty() ? "<none>" : "CronJob");
      L("owner_name",
        s.pod.cronjob.empty() ? std::string_view("<none>") : std::string_view(s.pod.cronjob));
      L("owner_is_controller", s.pod.cronjob.empty() ? "<none>" : "true");
      Emit("kube_job_owner", 1);
    });
    Family("kube_pod_labels", "Kubernetes labels converted to Prometheus labels.");
    ForPods([&](const Node&, const Slot& s) {
      Begin();
      PodLabels(s);
      L("label_app_kubernetes_io_name", s.pod.app);
      L("label_team", s.pod.team);
      L("label_workload_class", s.kind == Kind::kTraining   ? "training"
                                : s.kind == Kind::kNotebook ? "notebook"
                                                            : "inference");
      Emit("kube_pod_labels", 1);
    });
    Family("kube_pod_status_phase", "The pods current phase.");
    ForPods([&](const Node&, const Slot& s) {
      const Pod& p = s.pod;
      const std::string_view current = t_ms_ < p.running_ms ? "Pending"
                                       : t_ms_ < p.ends_ms  ? "Running"
                                       : p.failed           ? "Failed"
                                                            : "Succeeded";
      for (std::string_view phase : kPhases) {
        Begin();
        PodLabels(s);
        L("phase", phase);
        Emit("kube_pod_status_phase", phase == current ? 1 : 0);
      }
    });
    Family("kube_pod_container_resource_requests",
           "The number of requested request resource by a container.");
    ForPods([&](const Node& node, const Slot& s) {
      for (const Request& r : s.requests) {
        Begin();
        PodLabels(s);
        L("container", s.pod.container);
        L("node", node.name);
        L("resource", r.resource);
        L("unit", "integer");
        Emit("kube_pod_container_resource_requests", static_cast<double>(r.amount));
      }
    });
  }

  void DcgmExporter() {
    Family("DCGM_FI_PROF_GR_ENGINE_ACTIVE", "Ratio of time the graphics engine is active.");
    for (const Node& node : nodes_) {
      for (const Unit& u : node.units) {
        double activity = 0;
        const Slot* label = nullptr;
        for (int si : u.slots) {
          const Slot& s = node.slots[static_cast<size_t>(si)];
          if (!s.pod.alive || t_ms_ < s.pod.running_ms || t_ms_ >= s.pod.ends_ms) continue;
          activity += Load(s) * s.load_scale;
          if (label == nullptr) label = &s;  // dcgm-exporter names one pod per device
        }
        Begin();
        L("gpu", gpu_index_[static_cast<size_t>(u.gpu)]);
        L("UUID", u.uuid);
        L("pci_bus_id", u.pci_bus_id);
        L("device", u.device);
        L("modelName", node.model->model_name);
        if (!u.gi.empty()) {
          L("GPU_I_PROFILE", u.profile);
          L("GPU_I_ID", u.gi);
        }
        L("Hostname", node.name);
        L("DCGM_FI_DRIVER_VERSION", "550.90.07");
        if (label != nullptr) {
          L("container", label->pod.container);
          L("namespace", kNamespaces[label->ns].ns);
          L("pod", label->pod.name);
        }
        Emit("DCGM_FI_PROF_GR_ENGINE_ACTIVE", Round6(activity));
      }
    }
  }

  // --- pods -----------------------------------------------------------------------------------

  // The activity a slot's pod would give a whole GPU to itself, 0..1.
  double Load(const Slot& s) const {
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

  void Advance(const Node& node, Slot& s, int64_t t) {
    if (s.pod.alive && t >= s.pod.gone_ms) s.pod.alive = false;
    if (!s.pod.alive && t >= s.next_start_ms) StartPod(node, s, t);
  }

  void StartPod(const Node& node, Slot& s, int64_t t) {
    Rng& r = s.rng;
    Pod& p = s.pod;
    p = Pod{};
    p.alive = true;
    const std::string_view team = kNamespaces[s.ns].team;
    p.uid = r.Uuid();
    p.uid_hash = Hash64(p.uid);
    p.running_ms = t + interval_ms_ * r.Range(1, 2);
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
    p.phase = 2 * std::numbers::pi * r.Uniform();
    p.pod_ip = StrCat("10.", 64 + (node_index(node) >> 8) % 64, ".", node_index(node) % 256, ".",
                      r.Range(2, 254));
  }

  int node_index(const Node& node) const { return static_cast<int>(&node - nodes_.data()); }

  Slot MakeSlot(Rng& r, Kind kind, std::vector<Request> requests, int index) {
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

  Node MakeNode(int i, Sharing sharing, const GpuModelSpec& model) {
    Rng r{HashCombine(seed_, static_cast<uint64_t>(i))};
    Node node;
    node.sharing = sharing;
    node.model = &model;
    node.gpus = options_.gpus_per_node > 0 ? options_.gpus_per_node : model.gpus_per_node;
    node.name = StrCat(model.key, "-", SharingName(sharing), "-",
                       std::string(4 - std::min<size_t>(4, std::to_string(i).size()), '0'), i);
    node.host_ip = StrCat("10.0.", (i >> 8) % 256, ".", i % 256);
    node.spot = r.Uniform() < options_.spot_fraction;
    const bool shared = sharing == Sharing::kTimeSlicing || sharing == Sharing::kMps;
    const int replicas = shared ? options_.replicas : 1;
    auto& lb = node.labels;
    lb = {
        {"node", node.name},
        {"label_kubernetes_io_hostname", node.name},
        {"label_node_kubernetes_io_instance_type", std::string(model.instance_type)},
        {"label_topology_kubernetes_io_region", "us-east-1"},
        {"label_topology_kubernetes_io_zone", StrCat("us-east-1", static_cast<char>('a' + i % 3))},
        {"label_karpenter_sh_capacity_type", node.spot ? "spot" : "on-demand"},
        {"label_karpenter_sh_nodepool", node.spot ? "gpu-spot" : "gpu-on-demand"},
        {"label_nvidia_com_gpu_present", "true"},
        {"label_nvidia_com_gpu_count", std::to_string(node.gpus)},
        {"label_nvidia_com_gpu_memory", std::to_string(model.memory_mib)},
        {"label_nvidia_com_cuda_driver_major", "550"}};
    std::string product(model.product);
    if (sharing == Sharing::kMig) {
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
    lb.emplace_back("label_nvidia_com_gpu_product", product);
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
    switch (sharing) {
      case Sharing::kWhole: {
        node.capacity.emplace_back("nvidia_com_gpu", node.gpus);
        // GPU groups, halving: 8 GPUs -> pods of 4, 2, 1, 1. Groups of two or more train; single
        // GPUs serve inference or notebooks in turn.
        int g = 0, singles = 0;
        while (g < node.gpus) {
          const int left = node.gpus - g;
          int n = 1;
          while (left >= 4 && n * 2 <= left / 2) n *= 2;
          const Kind kind =
              n >= 2 ? Kind::kTraining : (singles++ % 2 == 0 ? Kind::kInference : Kind::kNotebook);
          const int si = add_slot(kind, {{"nvidia_com_gpu", n}});
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
    while (gpu_index_.size() < static_cast<size_t>(node.gpus))
      gpu_index_.push_back(std::to_string(gpu_index_.size()));
    return node;
  }

  SimOptions options_;
  uint64_t seed_;
  int64_t interval_ms_;
  int64_t origin_ms_;
  int64_t last_ms_;
  int64_t t_ms_ = 0;
  std::vector<Node> nodes_;
  std::vector<std::string> gpu_index_;  // "0", "1", ... kept alive for label views
  ClusterShape shape_;
  ExpositionHandler* out_ = nullptr;
  std::vector<LabelView> labels_;
};

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
