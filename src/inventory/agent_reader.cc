#include "inventory/agent_reader.h"

#include <algorithm>
#include <charconv>
#include <cmath>

#include "core/strings.h"
#include "inventory/ksm_reader.h"
#include "inventory/kube_state.h"
#include "inventory/sample_labels.h"

namespace gpucost {
namespace {

// A non-negative integer label; -1 when absent; false when malformed.
bool IndexLabel(std::string_view text, int& out) {
  out = -1;
  if (text.empty()) return true;
  int v = -1;
  auto [p, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (ec != std::errc() || p != text.data() + text.size() || v < 0) return false;
  out = v;
  return true;
}

}  // namespace

bool AgentReader::GpuKey(const SampleView& s, const std::string& source, Diagnostics& diag,
                         AgentGpuKey& key) const {
  const std::string_view cluster = LabelValue(s, "cluster");
  key.cluster = cluster.empty() ? default_cluster_ : std::string(cluster);
  key.node = std::string(ExporterLabel(s, "node"));
  key.uuid = LabelString(s, "gpu_uuid");
  if (key.node.empty() || key.uuid.empty()) {
    diag.Warn(StrCat("agent-no-node:", s.name), source, s,
              StrCat(s.name, " without a node or gpu_uuid label; ignored"));
    return false;
  }
  const std::string_view gi = LabelValue(s, "gpu_instance_id");
  if (!IndexLabel(gi, key.gpu_instance_id)) {
    diag.Warn(StrCat("agent-bad-label:", s.name), source, s,
              StrCat(s.name, ": gpu_instance_id \"", gi, "\" is not a GPU instance id; ignored"));
    return false;
  }
  return true;
}

void AgentReader::AddValue(PointSeries& series, const SampleView& s, int64_t t_ms,
                           const std::string& source, Diagnostics& diag) {
  conflicts_.OnAdd(&series, series.Add(t_ms, s.value), s, t_ms, s.value, source, diag);
}

bool AgentReader::OnSample(const SampleView& s, int64_t t_ms, const std::string& source,
                           Diagnostics& diag) {
  const std::string_view name = s.name;
  if (!name.starts_with("gpucost_agent_")) return false;
  if (name == "gpucost_agent_unit_activity_ratio") {
    AgentGpuKey key;
    if (!GpuKey(s, source, diag, key)) return true;
    AgentUnitActivity& unit = data_.units[std::move(key)];
    if (unit.first_line == 0) {
      unit.source = source;
      unit.first_line = s.line;
    }
    AddValue(LabelValue(s, "source") == "gpm" ? unit.gpm : unit.utilization, s, t_ms, source, diag);
    return true;
  }
  if (name == "gpucost_agent_nvml_supported") {
    if (LabelValue(s, "call") != "nvmlDeviceGetProcessUtilization") return true;
    AgentGpuKey key;
    if (!GpuKey(s, source, diag, key)) return true;
    auto it = data_.process_measured.try_emplace(std::move(key)).first;
    AddValue(it->second, s, t_ms, source, diag);
    // The times of the samples each source gave, for a source found cut short (Finish).
    if (source != last_source_) {
      last_source_ = source;
      auto at = std::find(sources_.begin(), sources_.end(), source);
      source_index_ = static_cast<uint32_t>(at - sources_.begin());
      if (at == sources_.end()) sources_.push_back(source);
    }
    std::vector<SourceSpan>& spans = measured_spans_[&it->first];
    if (spans.empty() || spans.back().source != source_index_) {
      spans.push_back({source_index_, t_ms, t_ms});
    } else {
      spans.back().first = std::min(spans.back().first, t_ms);
      spans.back().last = std::max(spans.back().last, t_ms);
    }
    return true;
  }
  if (name == "gpucost_agent_holder_activity_ratio") {
    AgentHolderKey key;
    if (!GpuKey(s, source, diag, key.gpu)) return true;
    AgentHolderRef& h = key.holder;
    h.pod_uid = LabelString(s, "pod_uid");
    h.container_id = std::string(ContainerIdWithoutRuntime(LabelValue(s, "container_id")));
    h.namespace_name = std::string(ExporterLabel(s, "namespace"));
    h.pod = std::string(ExporterLabel(s, "pod"));
    h.container = std::string(ExporterLabel(s, "container"));
    h.slurm_job = LabelString(s, "slurm_job");
    AgentHolderActivity& series = data_.holders[std::move(key)];
    if (series.first_line == 0) {
      series.source = source;
      series.first_line = s.line;
    }
    // A share of a GPU's time is 0 to 1: a value past it is said (the engine holds it to them).
    if (!std::isnan(s.value) && !(s.value >= 0 && s.value <= 1 + 1e-6)) {
      diag.Warn("agent-holder-ratio-range", source, s,
                StrCat("gpucost_agent_holder_activity_ratio ", s.value,
                       " is outside 0 to 1; taken as ", s.value < 0 ? "0" : "1"));
    }
    AddValue(series.points, s, t_ms, source, diag);
    return true;
  }
  if (name == "gpucost_agent_device_assignment") {
    AgentAssignmentKey key;
    const std::string_view cluster = LabelValue(s, "cluster");
    key.cluster = cluster.empty() ? default_cluster_ : std::string(cluster);
    key.node = std::string(ExporterLabel(s, "node"));
    key.namespace_name = std::string(ExporterLabel(s, "namespace"));
    key.pod = std::string(ExporterLabel(s, "pod"));
    key.container = std::string(ExporterLabel(s, "container"));
    key.device_id = LabelString(s, "device_id");
    key.gpu_uuid = LabelString(s, "gpu_uuid");
    if (const std::string_view resource = LabelValue(s, "resource");
        resource.starts_with(kDraClaimPrefix)) {
      if (key.node.empty() || key.pod.empty() || s.value < 0.5) return true;
      AgentDraAssignmentKey dra{
          key.cluster,  key.node,      key.namespace_name,
          key.pod,      key.container, std::string(resource.substr(kDraClaimPrefix.size())),
          key.device_id};
      auto [it, added] = data_.dra_assignments.try_emplace(std::move(dra));
      if (added) it->second = AgentDraAssignment{key.gpu_uuid, source, s.line};
      return true;
    }
    std::string_view replica = LabelValue(s, "replica");
    // A replica id is "GPU-<uuid>::<n>": read what the labels leave out from it.
    if (const size_t sep = key.device_id.find("::"); sep != std::string::npos) {
      if (key.gpu_uuid.empty()) key.gpu_uuid = key.device_id.substr(0, sep);
      if (replica.empty()) replica = std::string_view(key.device_id).substr(sep + 2);
    }
    const std::string_view gi = LabelValue(s, "gpu_instance_id");
    if (key.node.empty() || key.pod.empty() || key.gpu_uuid.empty()) {
      diag.Warn("agent-assignment-incomplete", source, s,
                "gpucost_agent_device_assignment without node, pod or gpu_uuid; ignored");
      return true;
    }
    if (!IndexLabel(gi, key.gpu_instance_id) || !IndexLabel(replica, key.replica)) {
      diag.Warn("agent-bad-label:gpucost_agent_device_assignment", source, s,
                StrCat("gpucost_agent_device_assignment: gpu_instance_id \"", gi,
                       "\" or replica \"", replica, "\" is not a number; ignored"));
      return true;
    }
    if (s.value < 0.5) return true;  // not held
    AgentAssignment& a = data_.assignments[std::move(key)];
    if (a.first_line == 0) {
      a.source = source;
      a.first_line = s.line;
    }
    a.seen.Add(t_ms, 1);
    return true;
  }
  if (name == "gpucost_agent_gpu_info" || name == "gpucost_agent_mig_instance_info") {
    AgentGpuKey key;
    if (!GpuKey(s, source, diag, key)) return true;
    const bool mig = name == "gpucost_agent_mig_instance_info";
    if (mig != (key.gpu_instance_id >= 0)) return true;  // a MIG instance names its instance
    AgentGpu& gpu = data_.gpus[std::move(key)];
    gpu.seen.Add(t_ms, 1);
    if (!mig) {
      int index = -1;
      if (gpu.gpu_index < 0 && IndexLabel(LabelValue(s, "gpu_index"), index)) gpu.gpu_index = index;
      if (gpu.model.empty()) gpu.model = LabelString(s, "model");
    } else if (gpu.profile.empty()) {
      std::string_view profile = LabelValue(s, "profile");
      if (profile.starts_with("MIG ")) profile.remove_prefix(4);
      gpu.profile = std::string(profile);
    }
    return true;
  }
  return false;  // the agent's own health series: not inventory
}

// gpus and assignments hold 1 at every sample: they cannot conflict.
void AgentReader::Finish(Diagnostics& diag) {
  const auto finish = [&](PointSeries& p) { conflicts_.OnFinish(&p, p.Finish(), diag); };
  for (auto& [k, g] : data_.gpus) g.seen.Finish();
  for (auto& [k, u] : data_.units) {
    finish(u.gpm);
    finish(u.utilization);
  }
  for (auto& [k, h] : data_.holders) finish(h.points);
  for (auto& [k, a] : data_.assignments) a.seen.Finish();
  for (auto& [k, p] : data_.process_measured) finish(p);
  std::map<std::string, std::set<const AgentGpuKey*>> unsure_gpus;  // cut source -> its GPUs
  for (const auto& [key, spans] : measured_spans_) {
    for (const SourceSpan& span : spans) {
      if (!cut_sources_.contains(sources_[span.source])) continue;
      data_.process_unsure[*key].emplace_back(span.first, span.last);
      unsure_gpus[sources_[span.source]].insert(key);
    }
  }
  for (const auto& [source, gpus] : unsure_gpus) {
    diag.Warn(StrCat("agent-cut:", source), source, 0,
              StrCat("the input looks cut short, so the node agent's word that it measured every "
                     "process of ",
                     gpus.size(), gpus.size() == 1 ? " GPU" : " GPUs",
                     " in it does not stand: a pod without a sample of its own there is not "
                     "counted as measured idle"));
  }
  measured_spans_.clear();
}

}  // namespace gpucost
