// Collects AWS Neuron monitor series, as neuron-monitor-prometheus.py exports them: each
// NeuronCore's utilization (neuroncore_utilization_ratio, a ratio 0..1, one series per core a
// Neuron runtime uses, labelled with the instance and the runtime), and the hardware description
// (neuron_hardware_info: devices and cores per device), whose presence says the monitor ran.
// Not thread-safe.
#pragma once

#include <compare>
#include <cstdint>
#include <map>
#include <set>
#include <string>

#include "ingest/exposition.h"
#include "inventory/diagnostics.h"

namespace gpucost {

// One instance's monitor: its EC2 instance id, and the Kubernetes node name where a scrape's
// relabelling added one (`node` label).
struct NeuronInstanceKey {
  std::string cluster;
  std::string instance_id;
  std::string node;
  auto operator<=>(const NeuronInstanceKey&) const = default;
};

struct NeuronInstance {
  std::string instance_type;
  int devices = 0;                    // neuron_hardware_info's neuron_device_count; 0 when not seen
  int cores_per_device = 0;           // its neuroncore_per_device_count
  std::set<int64_t> monitor_seen_ms;  // when neuron_hardware_info was scraped
  // Core index on the instance -> time -> utilization ratio; the largest where several runtimes
  // report one core at one instant.
  std::map<int, std::map<int64_t, double>> cores;
};

class NeuronReader {
 public:
  explicit NeuronReader(std::string default_cluster)
      : default_cluster_(std::move(default_cluster)) {}

  // True when the sample is a Neuron monitor series this reader keeps (used or rejected).
  bool OnSample(const SampleView& s, int64_t t_ms, const std::string& source, Diagnostics& diag);

  const std::map<NeuronInstanceKey, NeuronInstance>& data() const { return data_; }

 private:
  NeuronInstance& Instance(const SampleView& s);

  std::string default_cluster_;
  std::map<NeuronInstanceKey, NeuronInstance> data_;
};

}  // namespace gpucost
