// HAMi's vGPU monitor in the inventory: which GPU each container uses (pins), each GPU's
// utilization and each container's part of it (docs/inputs.md "HAMi"). dcgm-exporter and the node
// agent come first where they measure the same GPU or holder: HAMi's series fill what they leave.
#include <algorithm>
#include <set>
#include <tuple>

#include "core/strings.h"
#include "inventory/assembly.h"

namespace gpucost {
namespace {

using HamiGpuRef = std::pair<std::string, std::string>;  // (cluster, GPU UUID)

// The node of each whole GPU the inventory knows, by (cluster, UUID): UUIDs are unique, and a
// container series of HAMi's names its GPU but not its node.
std::map<HamiGpuRef, NodeIndex> NodesOfGpus(const Assembly& a) {
  std::map<HamiGpuRef, NodeIndex> out;
  for (const GpuUnit& u : a.inventory.units) {
    if (u.partition.kind == PartitionKind::kMig) continue;
    out.try_emplace({a.inventory.nodes[u.node].cluster, u.gpu_uuid}, u.node);
  }
  return out;
}

std::string HamiContainerText(const HamiContainerKey& k) {
  return StrCat(k.namespace_name, "/", k.pod, " container ", k.container);
}

}  // namespace

void AddHamiPins(Assembly& a, PinMap& pins) {
  if (a.hami.containers.empty()) return;
  const auto nodes = NodesOfGpus(a);
  PinMap hami_pins;
  for (const auto& [key, c] : a.hami.containers) {
    auto node = nodes.find({key.cluster, key.uuid});
    auto unit = node == nodes.end() ? a.unit_by_device.end()
                                    : a.unit_by_device.find({node->second, key.uuid, -1});
    if (unit == a.unit_by_device.end()) {
      a.diag.Warn(StrCat("hami-gpu-unmatched:", key.uuid), c.source, c.first_line,
                  StrCat("HAMi: ", HamiContainerText(key), " uses GPU ", key.uuid,
                         ", which no node's GPUs include (no dcgm-exporter, node agent or HAMi "
                         "host series names it); its request draws from its node's pool"));
      continue;
    }
    hami_pins[{key.cluster, key.namespace_name, key.pod, key.container}].push_back(
        DevicePin{unit->second, PresentIntervals(c.utilization.points(), a.presence), false});
  }
  // dcgm-exporter names no pod on a shared GPU, so these are the only pins of HAMi containers
  // until the agent's, which replace them.
  for (auto& [key, list] : hami_pins) {
    std::vector<DevicePin>& to = pins[key];
    to.insert(to.end(), list.begin(), list.end());
  }
}

void BuildHamiUsage(Assembly& a) {
  if (a.hami.gpus.empty() && a.hami.containers.empty()) return;
  const Window keep{a.window.start - SampleLookback(a.options.staleness), a.window.end};
  const auto nodes = NodesOfGpus(a);

  // A GPU's utilization where no other source measured it.
  std::set<std::pair<NodeIndex, std::string>> measured;
  for (const DeviceSeries& d : a.usage.devices) {
    if (d.gpu_instance_id < 0) measured.emplace(d.node, d.gpu_uuid);
  }
  for (const auto& [key, g] : a.hami.gpus) {
    auto node = a.node_index.find({key.cluster, key.node});
    if (node == a.node_index.end() || measured.contains({node->second, key.uuid})) continue;
    std::vector<UsageSample> samples = ToSamples(g.utilization.points(), keep);
    if (samples.empty()) continue;
    a.usage.devices.push_back(DeviceSeries{node->second, key.uuid, -1, std::move(samples)});
  }

  // A container's part of its GPU, for the holder whose pod was active then, where the agent
  // did not measure that holder on that GPU.
  std::set<std::tuple<HolderIndex, NodeIndex, std::string>> holder_measured;
  for (const HolderDeviceSeries& hs : a.usage.holders) {
    holder_measured.emplace(hs.holder, hs.node, hs.gpu_uuid);
  }
  const int64_t staleness_ms = a.options.staleness.count();
  std::map<std::tuple<HolderIndex, NodeIndex, std::string>, std::vector<UsageSample>> series;
  for (const auto& [key, c] : a.hami.containers) {
    auto node = nodes.find({key.cluster, key.uuid});
    auto holders =
        a.holders_by_container.find({key.cluster, key.namespace_name, key.pod, key.container});
    if (node == nodes.end() || holders == a.holders_by_container.end()) {
      a.diag.Warn(StrCat("hami-no-holder:", key.namespace_name, "/", key.pod), c.source,
                  c.first_line,
                  StrCat("HAMi: utilization of ", HamiContainerText(key), " on GPU ", key.uuid,
                         " matches no container holding that GPU; it counts only in the GPU's"));
      continue;
    }
    // A holder's own part is used on shared GPUs; an unshared GPU's activity is its holder's.
    const SharingMode mode = a.inventory.nodes[node->second].sharing;
    if (mode != SharingMode::kHami && mode != SharingMode::kTimeSlicing &&
        mode != SharingMode::kMps) {
      continue;
    }
    for (const UsageSample& s : ToSamples(c.utilization.points(), keep)) {
      // The pod (of that name) active at the sample, or starting within one staleness of it.
      for (HolderIndex h : holders->second) {
        const auto& active = a.holder_active[h];
        const bool in = std::any_of(active.begin(), active.end(), [&](const Interval& iv) {
          return UnixMs(s.t) >= UnixMs(iv.start) - staleness_ms && s.t < iv.end;
        });
        if (!in) continue;
        const auto k = std::tuple{h, node->second, key.uuid};
        if (!holder_measured.contains(k)) series[k].push_back(s);
        break;
      }
    }
  }
  for (auto& [k, samples] : series) {
    const auto& [h, node, uuid] = k;
    a.usage.holders.push_back(HolderDeviceSeries{h, node, uuid, -1, std::move(samples)});
  }
}

}  // namespace gpucost
