// The parts of a simulated cluster, internal to src/simulate (cluster_simulator.cc builds and
// runs them, sim_exposition.cc writes their scrapes): seeded random numbers, the namespaces and
// teams pods are spread over, pods and the slots on nodes they run in, dcgm-exporter units, nodes,
// and small helpers.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/strings.h"
#include "simulate/gpu_catalog.h"
#include "simulate/sim_options.h"

namespace gpucost::simulate {

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
inline constexpr NamespaceSpec kNamespaces[] = {
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
inline constexpr std::string_view kTeams[] = {"research", "search", "ads", "analytics",
                                              "platform", "risk",   "maps"};
inline constexpr std::string_view kPhases[] = {"Pending", "Running", "Succeeded", "Failed",
                                               "Unknown"};

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
  // DRA nodes: one pod from the first scrape to the end (the objects show the present only),
  // whose container uses ResourceClaim `claim`.
  bool fixed = false;
  std::string claim;
};

// A ResourceClaim of a DRA node, allocated device gpu-<gpu> and reserved for its slots' pods;
// a consumable-capacity share (`share_id` set) consumes `memory_fraction` of the GPU's memory.
struct DraClaim {
  std::string name;
  int gpu = 0;
  // AMD: the node's units (partitions) the claim holds; AWS Neuron: its devices; else its GPU.
  std::vector<int> units;
  std::vector<int> slots;
  std::string share_id;
  double memory_fraction = 0;
  // DynamicMIG: the MIG device allocated instead of gpu-<gpu> ("gpu-0-mig-3g40gb-9-4"), and its
  // profile; both empty for a claim of the whole GPU.
  std::string mig_device{};
  std::string mig_profile{};
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
  std::string instance_id, zone;  // EC2 instance id (AWS Neuron nodes' provider ID and monitor)
  int gpus = 0;
  bool spot = false;
  std::vector<std::pair<std::string, std::string>> labels;  // KSM spelling, node first
  std::vector<std::pair<std::string, int64_t>> capacity;    // resource, value
  std::vector<Slot> slots;
  std::vector<Unit> units;
  std::vector<DraClaim> claims;  // DRA nodes
};

// MIG layouts as compute slices per instance; every one fits the 7-compute / 8-memory-slice
// A100/H100 geometry.
inline const std::vector<std::vector<int>> kMigLayouts = {
    {3, 3}, {3, 2, 1, 1}, {4, 3}, {3, 2, 2}, {7}, {2, 2, 3}, {2, 2, 2, 1}, {1, 1, 1, 1, 1, 1, 1},
};

inline std::string Sanitize(std::string_view s) {
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

inline double HourOfDay(int64_t t_ms) {
  return static_cast<double>((t_ms / 1000) % 86400) / 3600.0;
}
inline bool Weekday(int64_t t_ms) {
  return (t_ms / 86'400'000 + 3) % 7 < 5;
}  // 1970-01-01 was a Thursday

inline double Round6(double v) { return std::round(std::clamp(v, 0.0, 1.0) * 1e6) / 1e6; }

}  // namespace gpucost::simulate
