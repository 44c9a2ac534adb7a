// gen_cluster: writes a deterministic (seeded) week of a shared GPU cluster's telemetry as
// timestamped Prometheus text (ms timestamps), the input of `gpucost report --input`. Each scrape
// is written whole (kube-state-metrics families, then dcgm-exporter), one after another, so every
// series is in time order. The cluster cycles through five nodes:
//
//   whole  8x A100-SXM4-80GB, pods hold 1/2/4 GPUs (dcgm pod labels pin them)
//   mig    8x A100-SXM4-80GB, MIG mixed strategy, per-GPU layouts of 1g/2g/3g/4g/7g instances
//   whole  (again)
//   t4     4x Tesla T4, time-slicing with 4 replicas (capacity 16, one pod label per GPU)
//   whole  (again)
//
// Slots (a GPU group, a MIG instance, a replica) run a sequence of pods: training Jobs for
// hours with gaps between them, notebooks (StatefulSets) alive for days and idle most of the
// day, and inference Deployments (ReplicaSet pods, rolled every few days) with diurnal load.
// Pods are Pending for a scrape or two, Running, and Jobs report Succeeded for two scrapes
// before they disappear.
//
//   gen_cluster --nodes 10 --days 7 --interval 60 --seed 1 --out bench/data/c10.prom
//   (--out ending in .gz pipes through `gzip -1`; --out - writes to stdout)
//
// A summary (nodes, GPUs, units, scrapes, samples, bytes) goes to stderr as key=value lines.

#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <string_view>
#include <vector>

namespace {

constexpr int64_t kStart = 1790812800;  // 2026-10-01T00:00:00Z, a Thursday

// SplitMix64.
struct Rng {
  uint64_t s;
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
    static const char* d = "0123456789abcdef";
    std::string out;
    for (int i = 0; i < n; ++i) out += d[Next() & 15];
    return out;
  }
  std::string Alnum(int n) {  // Kubernetes' random suffix alphabet
    static const char* d = "bcdfghjklmnpqrstvwxz2456789";
    std::string out;
    for (int i = 0; i < n; ++i) out += d[Next() % 27];
    return out;
  }
};

std::string Uuid(Rng& r) {
  return r.Hex(8) + "-" + r.Hex(4) + "-4" + r.Hex(3) + "-8" + r.Hex(3) + "-" + r.Hex(12);
}

enum class Kind { kTraining, kNotebook, kInference };

struct Team {
  const char* ns;
  const char* team;
};
constexpr Team kTeams[] = {{"research-nlp", "research"},  {"research-vision", "research"},
                           {"search-ranking", "search"},  {"ads-serving", "ads"},
                           {"data-science", "analytics"}, {"platform-ml", "platform"}};
constexpr int kNumTeams = 6;

struct Pod {
  bool alive = false;
  std::string ns, name, uid, container, owner_kind, owner_name, replicaset, rs_owner;
  int64_t created = 0, running = 0, ends = 0, gone = 0;  // seconds
  double base = 0, amp = 0, phase = 0;
  // Pre-rendered series (name{labels} ) per phase state, written each scrape.
  std::string info, owner, phase_prefix, request;
};

struct Slot {
  Kind kind = Kind::kTraining;
  int gpus = 1;                // GPUs held (whole); 1 otherwise
  std::string resource;        // KSM-sanitized resource name
  int team = 0;
  Rng rng{0};
  Pod pod;
  int64_t next_start = 0;
  int serial = 0;
  std::string deployment, rs_hash;  // inference
  int64_t rs_rolled = 0;
};

struct Unit {  // one dcgm series: a GPU or a MIG instance
  int gpu = 0;
  std::string uuid;
  std::string profile;  // MIG only
  int gi = -1;
  std::string prefix;   // DCGM_FI_PROF_GR_ENGINE_ACTIVE{gpu=...,Hostname=...,DCGM_FI_DRIVER_VERSION="..."
  std::vector<int> slots;  // slots running on it (t4: the 4 replicas; whole: the group's slot)
};

enum class NodeKind { kWhole, kMig, kT4 };

struct Node {
  NodeKind kind;
  std::string name;
  int gpus = 8;
  std::vector<std::string> static_lines;  // node labels and capacity (value 1 / capacity)
  std::vector<Slot> slots;
  std::vector<Unit> units;
};

struct MigLayout {
  std::vector<std::pair<const char*, int>> instances;  // profile, compute slices
};
const MigLayout kMigLayouts[] = {
    {{{"3g.40gb", 3}, {"3g.40gb", 3}}},
    {{{"3g.40gb", 3}, {"2g.20gb", 2}, {"1g.10gb", 1}, {"1g.10gb", 1}}},
    {{{"4g.40gb", 4}, {"3g.40gb", 3}}},
    {{{"3g.40gb", 3}, {"2g.20gb", 2}, {"2g.20gb", 2}}},
    {{{"7g.80gb", 7}}},
    {{{"2g.20gb", 2}, {"2g.20gb", 2}, {"3g.40gb", 3}}},
};

std::string Sanitize(std::string_view s) {
  std::string out(s);
  for (char& c : out) {
    if (c == '.' || c == '/' || c == '-') c = '_';
  }
  return out;
}

class Writer {
 public:
  explicit Writer(FILE* f) : f_(f) { buf_.reserve(kFlush + (1 << 16)); }
  ~Writer() { Flush(); }
  void Raw(std::string_view s) { buf_.append(s); }
  // `series` is name{labels}; appends " value ts\n".
  void Sample(std::string_view series, std::string_view value, std::string_view ts) {
    buf_.append(series);
    buf_ += ' ';
    buf_.append(value);
    buf_ += ' ';
    buf_.append(ts);
    buf_ += '\n';
    ++samples_;
    if (buf_.size() >= kFlush) Flush();
  }
  void Flush() {
    if (!buf_.empty() && std::fwrite(buf_.data(), 1, buf_.size(), f_) != buf_.size()) {
      std::perror("gen_cluster: write");
      std::exit(1);
    }
    bytes_ += buf_.size();
    buf_.clear();
  }
  uint64_t samples() const { return samples_; }
  uint64_t bytes() const { return bytes_ + buf_.size(); }

 private:
  static constexpr size_t kFlush = 4 << 20;
  FILE* f_;
  std::string buf_;
  uint64_t samples_ = 0, bytes_ = 0;
};

// Activity in six decimals, as dcgm-exporter prints it.
std::string Activity(double v) {
  v = std::fmin(1.0, std::fmax(0.0, v));
  char b[32];
  std::snprintf(b, sizeof b, "%.6f", v);
  return b;
}

double HourOfDay(int64_t t) { return static_cast<double>((t - kStart) % 86400) / 3600.0; }
bool Weekday(int64_t t) {
  const int64_t day = ((t - kStart) / 86400 + 3) % 7;  // kStart is a Thursday: 0 = Monday
  return day < 5;
}

class Generator {
 public:
  Generator(int nodes, uint64_t seed, int64_t interval) : interval_(interval), seed_(seed) {
    for (int i = 0; i < nodes; ++i) nodes_.push_back(MakeNode(i));
  }

  int total_gpus() const {
    int n = 0;
    for (const Node& node : nodes_) n += node.gpus;
    return n;
  }
  int namespaces() const {
    bool used[kNumTeams] = {};
    for (const Node& node : nodes_) {
      for (const Slot& s : node.slots) used[s.team] = true;
    }
    int n = 0;
    for (bool u : used) n += u ? 1 : 0;
    return n;
  }
  int total_units() const {
    int n = 0;
    for (const Node& node : nodes_) {
      n += node.kind == NodeKind::kT4 ? node.gpus * 4 : static_cast<int>(node.units.size());
    }
    return n;
  }

  void Scrape(int64_t t, Writer& w) {
    char ts[24];
    auto [end, ec] = std::to_chars(ts, ts + sizeof ts, t * 1000);
    (void)ec;
    const std::string_view tsv(ts, static_cast<size_t>(end - ts));
    for (Node& node : nodes_) {
      for (Slot& s : node.slots) Advance(node, s, t);
    }
    Header(w, "kube_node_labels", "Kubernetes labels converted to Prometheus labels.");
    for (const Node& node : nodes_) w.Sample(node.static_lines[0], "1", tsv);
    Header(w, "kube_node_status_capacity", "The capacity for different resources of a node.");
    for (const Node& node : nodes_) {
      for (size_t i = 1; i < node.static_lines.size(); ++i) {
        const std::string& l = node.static_lines[i];
        const size_t sp = l.rfind(' ');
        w.Sample(std::string_view(l).substr(0, sp), std::string_view(l).substr(sp + 1), tsv);
      }
    }
    Header(w, "kube_namespace_labels", "Kubernetes labels converted to Prometheus labels.");
    for (const Team& team : kTeams) {
      w.Sample(std::string("kube_namespace_labels{namespace=\"") + team.ns + "\",label_team=\"" +
                   team.team + "\"}",
               "1", tsv);
    }
    Header(w, "kube_pod_info", "Information about pod.");
    ForPods([&](const Pod& p) { w.Sample(p.info, "1", tsv); });
    Header(w, "kube_pod_owner", "Information about the Pod's owner.");
    ForPods([&](const Pod& p) { w.Sample(p.owner, "1", tsv); });
    Header(w, "kube_replicaset_owner", "Information about the ReplicaSet's owner.");
    rs_seen_.clear();
    ForPods([&](const Pod& p) {
      if (p.replicaset.empty()) return;
      for (const std::string* r : rs_seen_) {
        if (*r == p.rs_owner) return;
      }
      rs_seen_.push_back(&p.rs_owner);
      w.Sample(p.rs_owner, "1", tsv);
    });
    Header(w, "kube_pod_status_phase", "The pods current phase.");
    ForPods([&](const Pod& p) {
      const char* current = t < p.running ? "Pending" : t < p.ends ? "Running" : "Succeeded";
      for (const char* ph : {"Pending", "Running", "Succeeded", "Failed", "Unknown"}) {
        line_.assign(p.phase_prefix);
        line_ += ph;
        line_ += "\"}";
        w.Sample(line_, std::strcmp(ph, current) == 0 ? "1" : "0", tsv);
      }
    });
    Header(w, "kube_pod_container_resource_requests",
           "The number of requested request resource by a container.");
    ForPods([&](const Pod& p) {
      const size_t sp = p.request.rfind(' ');
      w.Sample(std::string_view(p.request).substr(0, sp), std::string_view(p.request).substr(sp + 1),
               tsv);
    });
    Header(w, "DCGM_FI_PROF_GR_ENGINE_ACTIVE", "Ratio of time the graphics engine is active.");
    for (Node& node : nodes_) {
      for (Unit& u : node.units) {
        double activity = 0;
        const Pod* label = nullptr;
        for (int si : u.slots) {
          const Slot& s = node.slots[static_cast<size_t>(si)];
          if (!s.pod.alive || t < s.pod.running || t >= s.pod.ends) continue;
          activity += Load(s, t);
          if (label == nullptr) label = &s.pod;
        }
        line_.assign(u.prefix);
        if (label != nullptr) {
          line_ += ",container=\"";
          line_ += label->container;
          line_ += "\",namespace=\"";
          line_ += label->ns;
          line_ += "\",pod=\"";
          line_ += label->name;
          line_ += '"';
        }
        line_ += '}';
        w.Sample(line_, Activity(activity), tsv);
      }
    }
  }

 private:
  void Header(Writer& w, const char* family, const char* help) {
    w.Raw(std::string("# HELP ") + family + " " + help + "\n# TYPE " + family + " gauge\n");
  }

  template <typename F>
  void ForPods(F f) {
    for (const Node& node : nodes_) {
      for (const Slot& s : node.slots) {
        if (s.pod.alive) f(s.pod);
      }
    }
  }

  // The activity a slot's pod adds to its device, in device units.
  double Load(const Slot& s, int64_t t) {
    Rng noise{seed_ ^ (static_cast<uint64_t>(t) * 0x9e3779b97f4a7c15ULL) ^
              std::hash<std::string>{}(s.pod.uid)};
    const double n = noise.Uniform() - 0.5;
    const double h = HourOfDay(t);
    double v = 0;
    switch (s.kind) {
      case Kind::kTraining:
        v = s.pod.base + s.pod.amp * std::sin(static_cast<double>(t) / 900.0 + s.pod.phase) +
            0.05 * n;
        break;
      case Kind::kNotebook: {
        // Idle most of the day; bursts in working hours on weekdays.
        const bool work = Weekday(t) && h >= 9 && h < 18;
        const double burst = std::sin(static_cast<double>(t) / 1700.0 + s.pod.phase);
        v = (work && burst > 0.6) ? s.pod.base + 0.3 * burst : 0.01 + 0.01 * n;
        break;
      }
      case Kind::kInference: {
        const double day = 0.5 + 0.5 * std::sin((h - 9.0) / 24.0 * 2 * M_PI);  // peak 15:00
        v = s.pod.base + s.pod.amp * day * (Weekday(t) ? 1.0 : 0.6) + 0.06 * n;
        break;
      }
    }
    return std::fmin(1.0, std::fmax(0.0, v));
  }

  void Advance(const Node& node, Slot& s, int64_t t) {
    if (s.pod.alive && t >= s.pod.gone) {
      s.pod.alive = false;
    }
    if (s.pod.alive || t < s.next_start) return;
    StartPod(node, s, t);
  }

  void StartPod(const Node& node, Slot& s, int64_t t) {
    Rng& r = s.rng;
    Pod& p = s.pod;
    p = Pod{};
    p.alive = true;
    const Team& team = kTeams[s.team];
    p.ns = team.ns;
    p.uid = Uuid(r);
    p.created = t;
    p.running = t + interval_ * r.Range(1, 2);
    switch (s.kind) {
      case Kind::kTraining: {
        const std::string job = std::string("train-") + team.team + "-" + std::to_string(++s.serial) +
                                "-" + r.Alnum(4);
        p.name = job + "-" + r.Alnum(5);
        p.container = "trainer";
        p.owner_kind = "Job";
        p.owner_name = job;
        p.ends = p.running + r.Range(2 * 3600, 12 * 3600);
        p.gone = p.ends + 2 * interval_;
        s.next_start = p.gone + r.Range(10 * 60, 90 * 60);
        p.base = 0.65 + 0.3 * r.Uniform();
        p.amp = 0.05;
        break;
      }
      case Kind::kNotebook: {
        const std::string user = r.Alnum(3);
        const std::string sts = "nb-" + user + "-" + std::to_string(++s.serial);
        p.name = sts + "-0";
        p.container = "notebook";
        p.owner_kind = "StatefulSet";
        p.owner_name = sts;
        p.ends = p.running + r.Range(24 * 3600, 72 * 3600);  // culled after a day or three
        p.gone = p.ends;
        s.next_start = p.gone + r.Range(30 * 60, 6 * 3600);
        p.base = 0.3 + 0.3 * r.Uniform();
        break;
      }
      case Kind::kInference: {
        if (s.rs_hash.empty() || t - s.rs_rolled > 3 * 86400) {  // a rollout
          s.rs_hash = r.Alnum(10);
          s.rs_rolled = t;
        }
        const std::string rs = s.deployment + "-" + s.rs_hash;
        p.name = rs + "-" + r.Alnum(5);
        p.container = "server";
        p.owner_kind = "ReplicaSet";
        p.owner_name = rs;
        p.replicaset = rs;
        p.rs_owner = "kube_replicaset_owner{namespace=\"" + p.ns + "\",replicaset=\"" + rs +
                     "\",owner_kind=\"Deployment\",owner_name=\"" + s.deployment +
                     "\",owner_is_controller=\"true\"}";
        p.ends = p.running + r.Range(12 * 3600, 4 * 86400);
        p.gone = p.ends;
        s.next_start = p.gone;  // replaced at once
        p.base = 0.05 + 0.1 * r.Uniform();
        p.amp = 0.4 + 0.4 * r.Uniform();
        break;
      }
    }
    p.phase = 6.28 * r.Uniform();
    const std::string base = "namespace=\"" + p.ns + "\",pod=\"" + p.name + "\",uid=\"" + p.uid + "\"";
    p.info = "kube_pod_info{" + base + ",host_ip=\"10.0." + std::to_string(node_index(node)) +
             ".1\",pod_ip=\"10.244." + std::to_string(r.Range(0, 255)) + "." +
             std::to_string(r.Range(2, 254)) + "\",node=\"" + node.name +
             "\",created_by_kind=\"" + p.owner_kind + "\",created_by_name=\"" + p.owner_name +
             "\",priority_class=\"\",host_network=\"false\"}";
    p.owner = "kube_pod_owner{" + base + ",owner_kind=\"" + p.owner_kind + "\",owner_name=\"" +
              p.owner_name + "\",owner_is_controller=\"true\"}";
    p.phase_prefix = "kube_pod_status_phase{" + base + ",phase=\"";
    p.request = "kube_pod_container_resource_requests{" + base + ",container=\"" + p.container +
                "\",node=\"" + node.name + "\",resource=\"" + s.resource +
                "\",unit=\"integer\"} " + std::to_string(s.resource == "nvidia_com_gpu" ? s.gpus : 1);
  }

  int node_index(const Node& node) const { return static_cast<int>(&node - nodes_.data()) % 250; }

  Slot MakeSlot(Rng& r, Kind kind, int gpus, std::string resource, int index) {
    Slot s;
    s.kind = kind;
    s.gpus = gpus;
    s.resource = std::move(resource);
    s.team = static_cast<int>(r.Next() % kNumTeams);
    s.rng = Rng{r.Next()};
    // Staggered start: most slots are busy at the start, a few fill up later.
    s.next_start = kStart + (r.Uniform() < 0.8 ? 0 : r.Range(0, 6 * 3600)) / interval_ * interval_;
    if (kind == Kind::kInference) {
      s.deployment = std::string("svc-") + kTeams[s.team].team + "-" + std::to_string(index);
    }
    return s;
  }

  Node MakeNode(int i) {
    Rng r{seed_ * 1000003 + static_cast<uint64_t>(i)};
    Node node;
    static constexpr NodeKind kCycle[] = {NodeKind::kWhole, NodeKind::kMig, NodeKind::kWhole,
                                          NodeKind::kT4, NodeKind::kWhole};
    node.kind = kCycle[i % 5];
    char name[64];
    const char* prefix = node.kind == NodeKind::kT4 ? "gpu-t4" : node.kind == NodeKind::kMig ? "gpu-a100-mig" : "gpu-a100";
    std::snprintf(name, sizeof name, "%s-%03d", prefix, i);
    node.name = name;
    node.gpus = node.kind == NodeKind::kT4 ? 4 : 8;
    const bool t4 = node.kind == NodeKind::kT4;
    const char* model = t4 ? "Tesla T4" : "NVIDIA A100-SXM4-80GB";
    const std::string instance_type = t4 ? "g4dn.12xlarge" : "p4de.24xlarge";
    std::string labels = "kube_node_labels{node=\"" + node.name +
                         "\",label_kubernetes_io_hostname=\"" + node.name +
                         "\",label_node_kubernetes_io_instance_type=\"" + instance_type +
                         "\",label_topology_kubernetes_io_region=\"us-east-1\""
                         ",label_topology_kubernetes_io_zone=\"us-east-1" +
                         std::string(1, static_cast<char>('a' + i % 3)) +
                         "\",label_nvidia_com_gpu_present=\"true\",label_nvidia_com_gpu_count=\"" +
                         std::to_string(node.gpus) + "\",label_nvidia_com_gpu_memory=\"" +
                         (t4 ? "15360" : "81920") + "\",label_nvidia_com_cuda_driver_major=\"550\"";
    std::vector<std::string> capacity;
    auto cap = [&](const std::string& res, const std::string& unit, int64_t v) {
      capacity.push_back("kube_node_status_capacity{node=\"" + node.name + "\",resource=\"" + res +
                         "\",unit=\"" + unit + "\"} " + std::to_string(v));
    };
    cap("cpu", "core", t4 ? 48 : 96);
    auto make_unit = [&](int gpu, const std::string& uuid, const std::string& profile, int gi) {
      Unit u;
      u.gpu = gpu;
      u.uuid = uuid;
      u.profile = profile;
      u.gi = gi;
      char bus[32];
      std::snprintf(bus, sizeof bus, "00000000:%02X:00.0", 0x10 + gpu * 0x10);
      u.prefix = "DCGM_FI_PROF_GR_ENGINE_ACTIVE{gpu=\"" + std::to_string(gpu) + "\",UUID=\"" + uuid +
                 "\",pci_bus_id=\"" + bus + "\",device=\"nvidia" + std::to_string(gpu) +
                 "\",modelName=\"" + model + "\"";
      if (gi >= 0) {
        u.prefix += ",GPU_I_PROFILE=\"" + profile + "\",GPU_I_ID=\"" + std::to_string(gi) + "\"";
      }
      u.prefix += ",Hostname=\"" + node.name + "\",DCGM_FI_DRIVER_VERSION=\"550.90.07\"";
      return u;
    };
    std::vector<std::string> uuids;
    for (int g = 0; g < node.gpus; ++g) uuids.push_back("GPU-" + Uuid(r));
    int slot_index = i * 100;
    switch (node.kind) {
      case NodeKind::kWhole: {
        labels += ",label_nvidia_com_gpu_product=\"NVIDIA-A100-SXM4-80GB\""
                  ",label_nvidia_com_gpu_replicas=\"1\"";
        cap("nvidia_com_gpu", "integer", 8);
        // GPU groups: 4 + 2 for training, 1 inference, 1 notebook.
        const std::vector<std::pair<int, Kind>> groups = {
            {4, Kind::kTraining}, {2, Kind::kTraining}, {1, Kind::kInference}, {1, Kind::kNotebook}};
        int g = 0;
        for (const auto& [n, kind] : groups) {
          const int si = static_cast<int>(node.slots.size());
          node.slots.push_back(MakeSlot(r, kind, n, "nvidia_com_gpu", slot_index++));
          for (int k = 0; k < n; ++k, ++g) {
            node.units.push_back(make_unit(g, uuids[static_cast<size_t>(g)], "", -1));
            node.units.back().slots.push_back(si);
          }
        }
        break;
      }
      case NodeKind::kMig: {
        labels += ",label_nvidia_com_gpu_product=\"NVIDIA-A100-SXM4-80GB\""
                  ",label_nvidia_com_mig_strategy=\"mixed\",label_nvidia_com_mig_capable=\"true\"";
        cap("nvidia_com_gpu", "integer", 0);
        std::vector<std::pair<std::string, int>> counts;
        for (int g = 0; g < node.gpus; ++g) {
          const MigLayout& layout = kMigLayouts[static_cast<size_t>(i / 5 + g) % std::size(kMigLayouts)];
          int gi = 1;
          for (const auto& [profile, slices] : layout.instances) {
            const std::string res = "nvidia_com_mig_" + Sanitize(profile);
            bool found = false;
            for (auto& [have, n] : counts) {
              if (have == res) {
                ++n;
                found = true;
              }
            }
            if (!found) counts.emplace_back(res, 1);
            const Kind kind = slices >= 3 ? Kind::kTraining : slices == 2 ? Kind::kInference : Kind::kNotebook;
            // About one instance in four is left unheld.
            if (r.Uniform() < 0.75) {
              const int si = static_cast<int>(node.slots.size());
              node.slots.push_back(MakeSlot(r, kind, 1, res, slot_index++));
              node.units.push_back(make_unit(g, uuids[static_cast<size_t>(g)], profile, gi));
              node.units.back().slots.push_back(si);
            } else {
              node.units.push_back(make_unit(g, uuids[static_cast<size_t>(g)], profile, gi));
            }
            ++gi;
          }
        }
        for (const auto& [res, n] : counts) cap(res, "integer", n);
        break;
      }
      case NodeKind::kT4: {
        labels += ",label_nvidia_com_gpu_product=\"Tesla-T4-SHARED\",label_nvidia_com_gpu_replicas=\"4\""
                  ",label_nvidia_com_gpu_sharing_strategy=\"time-slicing\"";
        cap("nvidia_com_gpu", "integer", 16);
        // 4 replicas per GPU; 8 of the 16 are used (inference and notebooks).
        for (int g = 0; g < node.gpus; ++g) {
          node.units.push_back(make_unit(g, uuids[static_cast<size_t>(g)], "", -1));
          for (int k = 0; k < 2; ++k) {
            const Kind kind = (g + k) % 3 == 2 ? Kind::kNotebook : Kind::kInference;
            node.units.back().slots.push_back(static_cast<int>(node.slots.size()));
            node.slots.push_back(MakeSlot(r, kind, 1, "nvidia_com_gpu", slot_index++));
          }
        }
        break;
      }
    }
    labels += "}";
    node.static_lines.push_back(labels);
    for (std::string& c : capacity) node.static_lines.push_back(std::move(c));
    return node;
  }

  int64_t interval_;
  uint64_t seed_;
  std::vector<Node> nodes_;
  std::vector<const std::string*> rs_seen_;
  std::string line_;
};

[[noreturn]] void Usage() {
  std::fprintf(stderr,
               "usage: gen_cluster [--nodes N] [--days D] [--hours H] [--interval S] [--seed X] "
               "[--out FILE|-]\n");
  std::exit(2);
}

}  // namespace

int main(int argc, char** argv) {
  int nodes = 10;
  double hours = 7 * 24;
  int64_t interval = 60;
  uint64_t seed = 1;
  std::string out = "-";
  for (int i = 1; i < argc; ++i) {
    const std::string_view a = argv[i];
    if (i + 1 >= argc) Usage();
    const char* v = argv[++i];
    if (a == "--nodes") nodes = std::atoi(v);
    else if (a == "--days") hours = std::atof(v) * 24;
    else if (a == "--hours") hours = std::atof(v);
    else if (a == "--interval") interval = std::atoll(v);
    else if (a == "--seed") seed = std::strtoull(v, nullptr, 10);
    else if (a == "--out") out = v;
    else Usage();
  }
  if (nodes <= 0 || hours <= 0 || interval <= 0) Usage();
  FILE* f = stdout;
  bool piped = false;
  if (out != "-") {
    if (out.ends_with(".gz")) {
      f = popen(("gzip -1 > '" + out + "'").c_str(), "w");
      piped = true;
    } else {
      f = std::fopen(out.c_str(), "wb");
    }
    if (f == nullptr) {
      std::perror(out.c_str());
      return 1;
    }
  }
  Generator gen(nodes, seed, interval);
  const int64_t scrapes = static_cast<int64_t>(hours * 3600) / interval;
  uint64_t samples = 0, bytes = 0;
  {
    Writer w(f);
    for (int64_t k = 0; k < scrapes; ++k) gen.Scrape(kStart + k * interval, w);
    w.Flush();
    samples = w.samples();
    bytes = w.bytes();
  }
  if (piped ? pclose(f) != 0 : (f != stdout && std::fclose(f) != 0)) {
    std::perror(out.c_str());
    return 1;
  }
  std::fprintf(stderr,
               "nodes=%d\ngpus=%d\nunits=%d\nnamespaces=%d\nscrapes=%lld\ninterval_s=%lld\nstart=%lld\nend=%lld\n"
               "samples=%llu\nbytes=%llu\n",
               nodes, gen.total_gpus(), gen.total_units(), gen.namespaces(), static_cast<long long>(scrapes),
               static_cast<long long>(interval), static_cast<long long>(kStart),
               static_cast<long long>(kStart + scrapes * interval),
               static_cast<unsigned long long>(samples), static_cast<unsigned long long>(bytes));
  return 0;
}
