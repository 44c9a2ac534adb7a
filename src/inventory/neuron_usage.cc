// NeuronCore activity: the Neuron monitor's per-core utilization, one series per core unit of a
// Neuron node. The monitor exports a core only while a Neuron runtime uses it, so while the
// monitor runs on the instance (its neuron_hardware_info is scraped), a core without a series is
// measured at 0; without the monitor, the core is unmeasured.
#include <algorithm>

#include "core/strings.h"
#include "inventory/assembly.h"

namespace gpucost {
namespace {

// The monitor of `node`: by the node label a scrape added, else by the EC2 instance id at the end
// of the node's provider ID ("aws:///us-east-1a/i-0abc").
const NeuronInstance* MonitorOf(const Assembly& a, const Node& node) {
  for (const auto& [key, in] : a.neuron) {
    if (key.cluster != node.cluster) continue;
    if (!key.node.empty() && key.node == node.name) return &in;
    if (!key.instance_id.empty() && node.provider_id.ends_with(StrCat("/", key.instance_id))) {
      return &in;
    }
  }
  return nullptr;
}

}  // namespace

void BuildNeuronUsage(Assembly& a) {
  if (a.neuron.empty()) return;
  const Window keep{a.window.start - SampleLookback(a.options.staleness), a.window.end};
  for (const auto& [n, per_device] : a.neuron_cores_per_device) {
    const Node& node = a.inventory.nodes[n];
    const NeuronInstance* in = MonitorOf(a, node);
    if (in == nullptr) continue;
    if (in->cores_per_device > 0 && in->cores_per_device != per_device) {
      a.diag.Warn(StrCat("neuron-cores:", node.name), "", 0,
                  StrCat("node ", node.name, ": the Neuron monitor reports ", in->cores_per_device,
                         " NeuronCores per device, the device plugin ", per_device,
                         "; its core utilization is not used (unmeasured)"));
      continue;
    }
    if (in->devices > 0 && in->devices != node.physical_gpus) {
      a.diag.Warn(StrCat("neuron-devices:", node.name), "", 0,
                  StrCat("node ", node.name, ": the Neuron monitor reports ", in->devices,
                         " devices, the node's capacity ", node.physical_gpus,
                         "; cores are matched by index"));
    }
    for (int d = 0; d < node.physical_gpus; ++d) {
      for (int c = 0; c < per_device; ++c) {
        std::map<int64_t, double> values;
        for (int64_t t : in->monitor_seen_ms) values.emplace(t, 0.0);
        if (auto it = in->cores.find(d * per_device + c); it != in->cores.end()) {
          for (const auto& [t, v] : it->second) values[t] = v;
        }
        DeviceSeries ds;
        ds.node = n;
        ds.gpu_uuid = StrCat(node.name, "-neuron", d);
        ds.gpu_instance_id = c;
        ds.samples = ToSamples(values, keep);
        if (!ds.samples.empty()) a.usage.devices.push_back(std::move(ds));
      }
    }
  }
}

}  // namespace gpucost
