#include "inventory/neuron_reader.h"

#include <algorithm>
#include <charconv>
#include <cmath>

#include "core/strings.h"
#include "inventory/sample_labels.h"

namespace gpucost {
namespace {

// A non-negative integer label; -1 when absent or not a number.
int NeuronIntLabel(const SampleView& s, std::string_view name) {
  const std::string_view text = LabelValue(s, name);
  int v = -1;
  auto [p, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (text.empty() || ec != std::errc() || p != text.data() + text.size() || v < 0) return -1;
  return v;
}

}  // namespace

NeuronInstance& NeuronReader::Instance(const SampleView& s) {
  NeuronInstanceKey key;
  const std::string_view cluster = LabelValue(s, "cluster");
  key.cluster = cluster.empty() ? default_cluster_ : std::string(cluster);
  key.instance_id = LabelString(s, "instance_id");
  key.node = LabelString(s, "node");
  NeuronInstance& in = data_[key];
  if (in.instance_type.empty()) in.instance_type = LabelString(s, "instance_type");
  return in;
}

bool NeuronReader::OnSample(const SampleView& s, int64_t t_ms, const std::string& source,
                            Diagnostics& diag) {
  if (s.name == "neuron_hardware_info") {
    if (LabelValue(s, "instance_id").empty() && LabelValue(s, "node").empty()) {
      diag.Warn("neuron-no-instance", source, s.line,
                StrCat(SeriesText(s), " has neither an instance_id nor a node label; ignored"));
      return true;
    }
    NeuronInstance& in = Instance(s);
    const int devices = NeuronIntLabel(s, "neuron_device_count");
    const int per_device = NeuronIntLabel(s, "neuroncore_per_device_count");
    if (devices > 0) in.devices = devices;
    if (per_device > 0) in.cores_per_device = per_device;
    in.monitor_seen_ms.insert(t_ms);
    return true;
  }
  if (s.name != "neuroncore_utilization_ratio") return false;
  if (LabelValue(s, "instance_id").empty() && LabelValue(s, "node").empty()) {
    diag.Warn("neuron-no-instance", source, s.line,
              StrCat(SeriesText(s), " has neither an instance_id nor a node label; ignored"));
    return true;
  }
  const int core = NeuronIntLabel(s, "neuroncore");
  if (core < 0) {
    diag.Warn("neuron-no-core", source, s.line,
              StrCat(SeriesText(s), ": label neuroncore is not a core index; sample ignored"));
    return true;
  }
  if (std::isnan(s.value)) return true;  // no measurement
  // The exporter divides neuron-monitor's percent by 100: a value above 1 is not this format
  // (a percent exported as is?), and is not guessed at.
  if (s.value < 0 || s.value > 1) {
    diag.Warn("neuron-out-of-range", source, s.line,
              StrCat(SeriesText(s), " is ", s.value,
                     ", outside the ratio range 0..1; read as no "
                     "sample (unmeasured)"));
    return true;
  }
  double& slot = Instance(s).cores[core].try_emplace(t_ms, s.value).first->second;
  slot = std::max(slot, s.value);
  return true;
}

}  // namespace gpucost
