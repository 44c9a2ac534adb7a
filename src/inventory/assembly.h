// Internal to the inventory module: the steps InventoryBuilder::Build runs, in order, over the
// collected kube-state-metrics, dcgm-exporter and node agent data. Each step reads what earlier steps put
// into the shared Assembly and adds its part. Not thread-safe.
#pragma once

#include <map>
#include <set>
#include <string>
#include <string_view>
#include <tuple>
#include <utility>
#include <vector>

#include "inventory/agent_reader.h"
#include "inventory/dcgm_reader.h"
#include "inventory/diagnostics.h"
#include "inventory/hami_reader.h"
#include "inventory/inventory_builder.h"
#include "inventory/ksm_reader.h"
#include "inventory/kube_state.h"
#include "inventory/neuron_reader.h"
#include "inventory/resource_names.h"
#include "inventory/series_timeline.h"
#include "model/inventory.h"
#include "model/usage.h"

namespace gpucost {

using NodeKey = std::pair<std::string, std::string>;  // (cluster, node)
// (cluster, namespace, pod, container)
using ContainerKey = std::tuple<std::string, std::string, std::string, std::string>;

// One container's GPU request over time.
struct ContainerRequest {
  std::string container;
  Request request;
  std::vector<Interval> intervals;  // when the request series is present (and > 0)
};

// A pod's scheduling, as the holding step needs it.
struct PodTimeline {
  std::string node;
  std::vector<Interval> active;  // scheduled and not terminated
  std::vector<ContainerRequest> requests;
  bool uses_hami = false;
  bool uses_shared = false;  // requests nvidia.com/gpu.shared
};

// Dynamic Resource Allocation from the Kubernetes API, by cluster.
struct DraData {
  std::vector<std::pair<std::string, KubeDraDevice>> devices;
  std::vector<std::pair<std::string, KubeDraAllocation>> allocations;
};

// (cluster, driver, pool, device)
using DraDeviceKey = std::tuple<std::string, std::string, std::string, std::string>;

// Whether a DRA device is a GPU or a part of one, by its driver's "type" attribute: NVIDIA's
// "gpu" and "mig", AMD's "amdgpu" and "amdgpu-partition".
inline bool IsDraGpuType(std::string_view type) {
  return type == "gpu" || type == "mig" || type == "amdgpu" || type == "amdgpu-partition";
}
inline bool IsAmdDraType(std::string_view type) {
  return type == "amdgpu" || type == "amdgpu-partition";
}
// AWS's Neuron DRA driver; its devices are named "neurondevice<N>", device N of the node.
inline constexpr std::string_view kNeuronDraDriver = "neuron.aws.com";
// Whether a DRA device is an accelerator gpucost attributes: a GPU, a part of one, or a Neuron
// device.
inline bool IsDraAccelerator(const KubeDraDevice& d) {
  return IsDraGpuType(d.type) || d.driver == kNeuronDraDriver;
}

// (cluster, namespace, claim)
using DraClaimKey = std::tuple<std::string, std::string, std::string>;

// The units of one claim's devices, each with the part of it the claim holds (all of it, or its
// consumed capacity), which the pods using the claim share (dra_assembly.cc).
struct DraClaimUnits {
  std::vector<std::pair<UnitIndex, double>> units;
};

// When each pod uses each DRA claim: (cluster, namespace, claim) -> one list of intervals per pod.
using DraClaimUse = std::map<DraClaimKey, std::vector<std::vector<Interval>>>;

struct Assembly {
  const TimelineOptions& options;
  PresenceOptions presence;
  Window window;
  KsmData& ksm;
  DcgmData& dcgm;
  AgentData& agent;
  HamiData& hami;
  Diagnostics& diag;
  const std::map<NeuronInstanceKey, NeuronInstance>& neuron;

  Inventory inventory;
  Usage usage;
  std::map<PodKey, PodTimeline> pods;
  std::map<NodeKey, NodeIndex> node_index;
  std::map<NodeKey, NodeKey> host_to_node;  // dcgm (cluster, host) -> node
  std::map<std::tuple<NodeIndex, std::string, int>, UnitIndex> unit_by_device;  // gi -1: whole
  // (node, GPU UUID, replica number) -> time-slicing / MPS replica unit.
  std::map<std::tuple<NodeIndex, std::string, int>, UnitIndex> replica_units;
  std::map<ContainerKey, std::vector<HolderIndex>> holders_by_container;  // one per pod uid
  std::vector<std::string> holder_uids;  // per holder, for matching dcgm pod_uid
  std::vector<std::vector<Interval>> holder_active;  // per holder: its pod's active intervals
  DraData dra;
  // DRA devices whose units their node's assembly made for them (AMD's and Neuron's,
  // accelerator_nodes.cc): a GPU or partition one unit, a Neuron device its cores.
  std::map<DraDeviceKey, std::vector<UnitIndex>> dra_device_units{};
  std::map<NodeIndex, int> neuron_cores_per_device;  // AWS Neuron nodes: cores per device
  // The clusters' DeviceClasses, by which pods ask for DRA devices as extended resources.
  const DeviceClassTable* device_classes = nullptr;
};

// A unit a container holds by an exact device assignment (a dcgm-exporter pod label or a node
// agent assignment), and when.
struct DevicePin {
  UnitIndex unit = kNoIndex;
  std::vector<Interval> when;
  bool from_agent = false;
};
using PinMap = std::map<ContainerKey, std::vector<DevicePin>>;

// Merges the Kubernetes API's view of clusters into the kube-state-metrics data: identity
// (owners, labels, namespace labels, ReplicaSet and Job owners) from the API wherever it has it,
// schedules from the series where they exist, else from the API (kube_merge.cc).
void MergeKubeStates(std::vector<KubeState>& states, Assembly& a);
// The original label keys the restorers know: the settings' and the API's.
std::vector<std::string> KnownLabelKeys(const Assembly& a);

// The units of each allocated DRA claim's devices and the part of each the claim holds; warns of
// devices that match no unit (dra_assembly.cc). Runs after BuildNodesAndUnits.
std::map<DraClaimKey, DraClaimUnits> ResolveDraClaims(Assembly& a);
// Tells of each allocated claim holding an accelerator that no pod uses: its devices are held
// from every other pod, yet nothing holds them in the model, so their cost is idle.
void WarnUnusedDraClaims(Assembly& a, const std::map<DraClaimKey, DraClaimUnits>& claims,
                         const DraClaimUse& uses);

// Requests of a DeviceClass's devices by extended resource (kDraClass) become requests of the
// units its devices are on the pod's node, or are dropped with a warning naming pod, node and
// class (class_requests.cc). Runs after BuildNodesAndUnits, before the holdings are made.
void ResolveDeviceClassRequests(Assembly& a);

// Pod phases, nodes and container GPU requests (holding_assembly.cc).
void BuildPodTimelines(Assembly& a);
// Nodes, their presence, sharing mode, physical GPUs and units (node_assembly.cc).
void BuildNodesAndUnits(Assembly& a);
// Holders with workload identity, and holdings from requests or dcgm pins (holding_assembly.cc).
void BuildHoldersAndHoldings(Assembly& a);
// Device and per-holder activity series (usage_assembly.cc).
void BuildUsage(Assembly& a);
// Pins from the node agent's device assignments; they replace a container's dcgm pins
// (agent_assembly.cc).
void AddAgentPins(Assembly& a, PinMap& pins);
// The node agent's unit and holder activity, preferred over dcgm-exporter's where it reports
// (agent_assembly.cc). Runs after BuildUsage.
void BuildAgentUsage(Assembly& a);
// Pins from HAMi's vGPU monitor: the GPUs each container uses (hami_assembly.cc). dcgm-exporter
// names no pod on a HAMi GPU; the node agent's assignments replace these.
void AddHamiPins(Assembly& a, PinMap& pins);
// HAMi's GPU and container utilization where neither dcgm-exporter nor the node agent measured
// the GPU or the holder (hami_assembly.cc). Runs after BuildAgentUsage.
void BuildHamiUsage(Assembly& a);
// NeuronCore activity from the Neuron monitor, one series per core unit (neuron_usage.cc).
void BuildNeuronUsage(Assembly& a);
// Units dcgm-exporter labelled with an hpc_job, and when (usage_assembly.cc).
std::vector<DeviceJob> BuildDeviceJobs(Assembly& a);

// The samples of `m` inside `keep`, in time order (usage_assembly.cc).
std::vector<UsageSample> ToSamples(const std::map<int64_t, double>& m, Window keep);
std::vector<UsageSample> ToSamples(const std::vector<Point>& points, Window keep);

// Whether dcgm pod labels from `direct` pod/namespace labels are to be trusted.
inline bool TrustPodLabels(const Assembly& a, bool from_direct) {
  return !(from_direct && a.options.dcgm_pod_labels == DcgmPodLabels::kAuto &&
           a.dcgm.saw_exported_labels);
}

}  // namespace gpucost
