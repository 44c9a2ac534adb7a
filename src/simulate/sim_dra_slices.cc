// The ResourceSlices the DRA drivers publish for the simulated DRA nodes (sim_dra_slices.h), and
// the names of the devices their claims are allocated.
#include "simulate/sim_dra_slices.h"

#include <algorithm>
#include <string>
#include <string_view>

#include "core/strings.h"

namespace gpucost::simulate {
namespace {

using json = nlohmann::json;

constexpr std::string_view kNvidiaDraDriver = "gpu.nvidia.com";
constexpr std::string_view kAmdDraDriver = "gpu.amd.com";
constexpr std::string_view kNeuronDraDriver = "neuron.aws.com";
constexpr std::string_view kNvidiaDriverVersion = "550.90.7";
constexpr int kH100Multiprocessors = 132;
constexpr int kMemorySlices = 8;  // of an H100 80GB

json DraAttribute(std::string_view type, std::string_view value) { return {{type, value}}; }
json DraQuantity(std::string_view value) { return {{"value", value}}; }

// A node's ResourceSlice `name` of `driver`, one of `count` in its pool (the node).
json NodeSlice(const Node& node, std::string_view driver, std::string_view name, int count,
               Instant origin) {
  json slice = {{"metadata", KubeMeta("ResourceSlice", "", name, origin - std::chrono::hours(24))}};
  slice["spec"] = {
      {"driver", driver},
      {"nodeName", node.name},
      {"pool", {{"name", node.name}, {"generation", 1}, {"resourceSliceCount", count}}}};
  return slice;
}

// The DRM card of unit `i` of an AMD DRA node: card i+1, render node 128+i.
std::string AmdDraDeviceName(size_t i) {
  const int card = static_cast<int>(i) + 1;
  return StrCat("gpu-", card, "-", 127 + card);
}

// Unit `i` of an AMD DRA node (a compute partition) as AMD's DRA driver publishes it: named by its
// DRM card and render node, its GPU by PCI address ("0000:11:00.0").
json AmdDraDevice(const Node& node, size_t i) {
  const Unit& u = node.units[i];
  const int card = static_cast<int>(i) + 1;
  const int parts = std::max(1, node.model->amd_partitions);
  json attributes = {
      {"type", DraAttribute("string", parts > 1 ? "amdgpu-partition" : "amdgpu")},
      {parts > 1 ? "parentPciAddr" : "pciAddr", DraAttribute("string", u.pci_bus_id.substr(4))},
      {"cardIndex", {{"int", card}}},
      {"renderIndex", {{"int", 127 + card}}},
      {"family", DraAttribute("string", "AI")},
      {"productName", DraAttribute("string", node.model->product)},
      {"driverVersion", DraAttribute("version", "6.12.12")},
      {"partitionProfile", DraAttribute("string", node.model->amd_partition_mode)}};
  const int64_t memory_mib = node.model->memory_mib / parts;
  return {{"name", AmdDraDeviceName(i)},
          {"attributes", std::move(attributes)},
          {"capacity",
           {{"memory", {{"value", StrCat(memory_mib, "Mi")}}},
            {"computeUnits", {{"value", std::to_string(304 / parts)}}}}}};
}

// A whole GPU as NVIDIA's DRA driver publishes it.
json NvidiaGpuDevice(const Node& node, const Unit& u) {
  return {{"name", StrCat("gpu-", u.gpu)},
          {"attributes",
           {{"type", DraAttribute("string", "gpu")},
            {"uuid", DraAttribute("string", u.uuid)},
            {"productName", DraAttribute("string", node.model->model_name)},
            {"driverVersion", DraAttribute("version", kNvidiaDriverVersion)},
            {"resource.kubernetes.io/pciBusID", DraAttribute("string", u.pci_bus_id)}}},
          {"capacity", {{"memory", DraQuantity(StrCat(node.model->memory_mib, "Mi"))}}}};
}

// What a DynamicMIG device takes of its GPU's counter set (KEP-4815): SMs, memory and the memory
// slices [start, start + slices).
json CounterUse(int gpu, int multiprocessors, int memory_mib, int start, int slices) {
  json counters = {{"multiprocessors", DraQuantity(std::to_string(multiprocessors))},
                   {"memory", DraQuantity(StrCat(memory_mib, "Mi"))}};
  for (int s = start; s < start + slices; ++s) {
    counters[StrCat("memory-slice-", s)] = DraQuantity("1");
  }
  return json::array(
      {{{"counterSet", StrCat("gpu-", gpu, "-counter-set")}, {"counters", std::move(counters)}}});
}

// NVIDIA's DRA driver under DynamicMIG: per GPU, the whole GPU (which takes all of its counter
// set) and every MIG device it could make, overlapping placements included, without a UUID (the
// driver makes the instance when a claim is allocated); the counter sets in a slice of their own.
std::vector<json> DynamicMigSlices(const Node& node, Instant origin) {
  json devices = json::array();
  json counter_sets = json::array();
  for (const Unit& u : node.units) {
    json gpu = NvidiaGpuDevice(node, u);
    gpu["capacity"]["multiprocessors"] = DraQuantity(std::to_string(kH100Multiprocessors));
    gpu["consumesCounters"] =
        CounterUse(u.gpu, kH100Multiprocessors, node.model->memory_mib, 0, kMemorySlices);
    devices.push_back(std::move(gpu));
    for (const MigPlacements& p : H100MigPlacements()) {
      for (int start : p.starts) {
        json attributes = {
            {"type", DraAttribute("string", "mig")},
            {"parentUUID", DraAttribute("string", u.uuid)},
            {"profile", DraAttribute("string", p.profile)},
            {"productName", DraAttribute("string", node.model->model_name)},
            {"driverVersion", DraAttribute("version", kNvidiaDriverVersion)},
            {"resource.kubernetes.io/pciBusID", DraAttribute("string", u.pci_bus_id)}};
        devices.push_back({{"name", DynamicMigDeviceName(u.gpu, p, start)},
                           {"attributes", std::move(attributes)},
                           {"capacity",
                            {{"multiprocessors", DraQuantity(std::to_string(p.multiprocessors))},
                             {"memory", DraQuantity(StrCat(p.memory_mib, "Mi"))}}},
                           {"consumesCounters", CounterUse(u.gpu, p.multiprocessors, p.memory_mib,
                                                           start, p.memory_slices)}});
      }
    }
    json whole = CounterUse(u.gpu, kH100Multiprocessors, node.model->memory_mib, 0, kMemorySlices);
    counter_sets.push_back({{"name", StrCat("gpu-", u.gpu, "-counter-set")},
                            {"counters", std::move(whole[0]["counters"])}});
  }
  std::vector<json> out;
  out.push_back(
      NodeSlice(node, kNvidiaDraDriver, StrCat(node.name, "-", kNvidiaDraDriver), 2, origin));
  out.back()["spec"]["devices"] = std::move(devices);
  out.push_back(NodeSlice(node, kNvidiaDraDriver,
                          StrCat(node.name, "-", kNvidiaDraDriver, "-counters"), 2, origin));
  out.back()["spec"]["sharedCounters"] = std::move(counter_sets);
  return out;
}

// AWS's Neuron DRA driver: device N of the instance is neurondevice<N>, with the instance type,
// the Neuron driver's version and the connected groups of 1, 4, 8 and 16 devices it is in (what
// a claim's matchAttribute constraint names to get connected devices).
json NeuronDraDevice(const Node& node, const Unit& u) {
  json attributes = {{"instanceType", DraAttribute("string", node.model->instance_type)},
                     {"neuronDriverVersion", DraAttribute("string", "2.24.7.0")}};
  for (int group : {1, 4, 8, 16}) {
    attributes[StrCat("resource.aws.com/devicegroup", group, "_id")] = {{"int", u.gpu / group}};
  }
  return {{"name", StrCat("neurondevice", u.gpu)}, {"attributes", std::move(attributes)}};
}

}  // namespace

std::string ObjectUid(std::string_view kind, std::string_view ns, std::string_view name) {
  Rng r{HashCombine(Hash64(kind), HashCombine(Hash64(ns), Hash64(name)))};
  return r.Uuid();
}

json KubeMeta(std::string_view kind, std::string_view ns, std::string_view name, Instant created) {
  json m = json::object();
  if (!ns.empty()) m["namespace"] = ns;
  m["name"] = name;
  m["uid"] = ObjectUid(kind, ns, name);
  m["creationTimestamp"] = FormatRfc3339(created);
  return m;
}

std::string_view DraDriver(const GpuModelSpec& model) {
  switch (model.vendor) {
    case Vendor::kAmd:
      return kAmdDraDriver;
    case Vendor::kAwsNeuron:
      return kNeuronDraDriver;
    case Vendor::kNvidia:
      break;
  }
  return kNvidiaDraDriver;
}

std::vector<json> DraNodeSlices(const Node& node, Instant origin) {
  if (node.model->dynamic_mig) return DynamicMigSlices(node, origin);
  const std::string_view driver = DraDriver(*node.model);
  json devices = json::array();
  for (size_t i = 0; i < node.units.size(); ++i) {
    const Unit& u = node.units[i];
    if (node.model->vendor == Vendor::kAmd) {
      devices.push_back(AmdDraDevice(node, i));
      continue;
    }
    if (node.model->vendor == Vendor::kAwsNeuron) {
      devices.push_back(NeuronDraDevice(node, u));
      continue;
    }
    json d = NvidiaGpuDevice(node, u);
    bool shared = false;
    for (const DraClaim& c : node.claims)
      shared = shared || (c.gpu == u.gpu && !c.share_id.empty());
    if (shared) d["allowMultipleAllocations"] = true;
    devices.push_back(std::move(d));
  }
  std::vector<json> out;
  out.push_back(NodeSlice(node, driver, StrCat(node.name, "-", driver), 1, origin));
  out.back()["spec"]["devices"] = std::move(devices);
  return out;
}

std::vector<std::string> DraClaimDevices(const Node& node, const DraClaim& c) {
  std::vector<std::string> out;
  switch (node.model->vendor) {
    case Vendor::kAmd:
      for (int u : c.units) out.push_back(AmdDraDeviceName(static_cast<size_t>(u)));
      break;
    case Vendor::kAwsNeuron:
      for (int u : c.units) {
        out.push_back(StrCat("neurondevice", node.units[static_cast<size_t>(u)].gpu));
      }
      break;
    case Vendor::kNvidia:
      out.push_back(c.mig_device.empty() ? StrCat("gpu-", c.gpu) : c.mig_device);
      break;
  }
  return out;
}

const std::vector<MigPlacements>& H100MigPlacements() {
  // GPU instance profiles and placements of the H100 80GB (NVIDIA's MIG user guide); each
  // placement starts at a memory slice.
  static const std::vector<MigPlacements> kPlacements = {
      {"1g.10gb", 19, 1, 1, {0, 1, 2, 3, 4, 5, 6}, 16, 9856},
      {"1g.10gb+me", 20, 1, 1, {0, 1, 2, 3, 4, 5, 6}, 16, 9856},
      {"1g.20gb", 15, 1, 2, {0, 2, 4, 6}, 26, 19968},
      {"2g.20gb", 14, 2, 2, {0, 2, 4}, 32, 19968},
      {"3g.40gb", 9, 3, 4, {0, 4}, 60, 40192},
      {"4g.40gb", 5, 4, 4, {0}, 64, 40192},
      {"7g.80gb", 0, 7, 8, {0}, 132, 80384},
  };
  return kPlacements;
}

const MigPlacements* FindMigPlacements(std::string_view profile) {
  for (const MigPlacements& p : H100MigPlacements()) {
    if (p.profile == profile) return &p;
  }
  return nullptr;
}

std::string DynamicMigDeviceName(int gpu, const MigPlacements& p, int start) {
  // The driver's RFC 1123 spelling of the profile: no dots, "+" as "-".
  std::string profile;
  for (char ch : p.profile) {
    if (ch != '.') profile += ch == '+' ? '-' : ch;
  }
  return StrCat("gpu-", gpu, "-mig-", profile, "-", p.profile_id, "-", start);
}

}  // namespace gpucost::simulate
