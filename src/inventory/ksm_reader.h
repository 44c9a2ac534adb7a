// Collects the kube-state-metrics series the inventory needs (pods, their phases, nodes, owners,
// labels, container GPU requests and node capacity) from a stream of samples, keyed by cluster.
// What the series mean is decided later, by the inventory builder. Not thread-safe.
#pragma once

#include <compare>
#include <cstdint>
#include <functional>
#include <limits>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "ingest/exposition.h"
#include "inventory/conflict_warnings.h"
#include "inventory/device_classes.h"
#include "inventory/diagnostics.h"
#include "inventory/series_memo.h"
#include "inventory/series_timeline.h"
#include "inventory/workload_identity.h"

namespace gpucost {

struct PodKey {
  std::string cluster;
  std::string namespace_name;
  std::string pod;
  std::string uid;  // "" from KSM versions without the uid label
  auto operator<=>(const PodKey&) const = default;
};

struct ContainerResourceKey {
  std::string container;
  std::string resource;  // canonical name
  bool from_limits = false;
  auto operator<=>(const ContainerResourceKey&) const = default;
};

// A pod's schedule as the Kubernetes API tells it, for a pod no kube-state-metrics series shows.
struct ApiPodSchedule {
  std::string node;
  std::vector<Interval> active;  // scheduled and not terminated
  std::map<ContainerResourceKey, double> resources;
};

// A DRA claim a container uses, as the Kubernetes API tells it, for a pod whose schedule
// kube-state-metrics series tell (kube_merge.cc): KSM has no series for claims.
struct ApiClaimUse {
  std::string container;
  std::string resource;               // DraClaimResource(claim)
  std::vector<std::string> replaces;  // canonical extended resources the claim serves
  std::vector<Interval> active;       // the API's: scheduled and not terminated
};

struct KsmPod {
  std::map<std::string, PresenceSeries> phases;  // phase -> 0/1 series
  // kube_pod_info by its node label ("" unscheduled)
  std::map<std::string, PresenceSeries> info_by_node;
  std::vector<OwnerRef> owners;
  std::map<std::string, std::string> labels;       // KSM keys without "label_"
  int64_t labels_t = INT64_MIN;
  std::map<ContainerResourceKey, PresenceSeries> resources;
  std::string request_node;                        // node label of the resource series
  std::optional<ApiPodSchedule> api;  // known from the Kubernetes API alone
  std::vector<ApiClaimUse> api_claims;  // with series: the claims the API adds
};

// The most devices of one resource a node's capacity may report (GPUs x time-slicing replicas,
// MIG instances, Neuron cores): far above any machine; a larger sample is taken as corrupt.
inline constexpr double kMaxNodeDevices = 65536;

struct KsmNode {
  PresenceSeries seen;  // every kube_node_* sample time
  std::map<std::string, std::string> labels;  // KSM keys without "label_", latest series
  int64_t labels_t = INT64_MIN;
  std::map<std::string, double> capacity;     // canonical resource -> latest value
  std::map<std::string, int64_t> capacity_t;
  std::string provider_id;  // kube_node_info provider_id, latest
  int64_t provider_id_t = INT64_MIN;
  std::vector<Interval> api_present;  // when the Kubernetes API showed the node
};

using ClusterNamespace = std::pair<std::string, std::string>;

// A container named by kube_pod_container_info, for joining a container id to its pod.
struct KsmContainer {
  std::string cluster;
  std::string namespace_name;
  std::string pod;
  std::string uid;
  std::string container;
};

// "containerd://<id>" -> "<id>": the id without its runtime prefix (containerd, cri-o, docker).
std::string_view ContainerIdWithoutRuntime(std::string_view id);

struct KsmData {
  std::map<PodKey, KsmPod> pods;
  std::map<std::pair<std::string, std::string>, KsmNode> nodes;  // (cluster, node)
  std::map<ClusterNamespace, std::map<std::string, OwnerRef>> replicaset_owners;
  std::map<ClusterNamespace, std::map<std::string, OwnerRef>> job_owners;
  std::map<ClusterNamespace, std::map<std::string, std::string>> namespace_labels;
  // kube_pod_container_info: container id (runtime prefix removed) -> container.
  std::map<std::string, KsmContainer, std::less<>> containers;
  // Label keys in their original spelling, as the Kubernetes API gave them: restored over KSM's.
  std::vector<std::string> api_label_keys;
};

class KsmReader {
 public:
  explicit KsmReader(std::string default_cluster)
      : default_cluster_(default_cluster), device_classes_(std::move(default_cluster)) {}
  // A cluster's DeviceClasses, which name resources pods ask for DRA devices by: a request of
  // one is kept under DeviceClassResource(class). Add them before the samples they name.
  void AddDeviceClasses(const KubeState& state) { device_classes_.Add(state); }
  const DeviceClassTable& device_classes() const { return device_classes_; }
  // A new input: series ids of the one before are not seen again.
  void BeginSource() { resolved_.Clear(); }
  // Returns false when the sample is not a series this reader consumes.
  bool OnSample(const SampleView& s, int64_t t_ms, const std::string& source, Diagnostics& diag);
  // Sorts every series and warns of the conflicting samples sorting finds. Call once, after the
  // last sample.
  void Finish(Diagnostics& diag);
  KsmData& data() { return data_; }

 private:
  // What a series resolved to: what each of its samples does. Resolving makes the series' map
  // entries (and records what a series says once: owners, containers); applying adds a sample.
  // Map nodes never move, so the pointers stay valid.
  struct Resolved {
    enum class Do : uint8_t { kNothing, kPresence, kPodLabels, kNode };
    enum class NodeFamily : uint8_t { kOther, kLabels, kInfo, kCapacity };
    Do what = Do::kNothing;
    NodeFamily family = NodeFamily::kOther;  // kNode
    bool mine = true;                        // false: not a series this reader consumes
    bool remember = true;              // false: each sample is resolved again (each one warns)
    // A resource request, limit or node capacity, or a pod's phase or info flag: finite and
    // >= 0, or the sample is skipped with a warning.
    bool quantity = false;
    bool flag = false;  // of the quantities, a phase or info flag (0 or 1)
    // The most a quantity may be: a node's device capacity is at most kMaxNodeDevices.
    double max_value = std::numeric_limits<double>::max();
    PresenceSeries* series = nullptr;  // kPresence
    KsmPod* pod = nullptr;             // kPodLabels
    KsmNode* node = nullptr;           // kNode
    std::map<std::string, std::string> labels;  // kPodLabels; kNode kLabels: "label_*", unprefixed
    std::string provider_id;                    // kNode kInfo ("" none)
    double* capacity = nullptr;                 // kNode kCapacity of a GPU resource
    int64_t* capacity_t = nullptr;
  };
  Resolved Resolve(const SampleView& s, const std::string& source, Diagnostics& diag);
  bool Identified(const SampleView& s, const std::string& source, Diagnostics& diag);
  void ResolveNode(const SampleView& s, Resolved& r);
  void Apply(const Resolved& r, int64_t t_ms, const SampleView& s, const std::string& source,
             Diagnostics& diag);
  // False (with a warning naming file:line) for a quantity or flag that is no count.
  static bool ValidQuantity(const Resolved& r, const SampleView& s, const std::string& source,
                            Diagnostics& diag);

  std::string Cluster(const SampleView& s) const;
  KsmPod& Pod(const SampleView& s);
  std::string default_cluster_;
  DeviceClassTable device_classes_;
  KsmData data_;
  PodKey last_pod_key_;            // the key of last_pod_
  KsmPod* last_pod_ = nullptr;     // the pod Pod() returned last
  SeriesCache<Resolved> resolved_;
  ConflictWarnings conflicts_;
};

}  // namespace gpucost
