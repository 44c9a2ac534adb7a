#include "agent/agent_exposition.h"

#include <cstdio>
#include <initializer_list>

namespace gpucost::agent {
namespace {

void AppendEscaped(std::string& out, const std::string& v) {
  if (v.find_first_of("\\\"\n") == std::string::npos) {  // the usual case: nothing to escape
    out += v;
    return;
  }
  for (const char c : v) {
    if (c == '\\') {
      out += "\\\\";
    } else if (c == '"') {
      out += "\\\"";
    } else if (c == '\n') {
      out += "\\n";
    } else {
      out += c;
    }
  }
}

using Labels = std::initializer_list<std::pair<const char*, std::string>>;

class Writer {
 public:
  explicit Writer(const std::string& node) : node_(node) {}

  void Family(const char* name, const char* type, const char* help) {
    out_ += "# HELP ";
    out_ += name;
    out_ += ' ';
    out_ += help;
    out_ += "\n# TYPE ";
    out_ += name;
    out_ += ' ';
    out_ += type;
    out_ += '\n';
  }

  // Empty label values are left out, as Prometheus treats them as absent anyway.
  void Sample(const char* name, Labels labels, double value) {
    out_ += name;
    out_ += "{node=\"";
    AppendEscaped(out_, node_);
    out_ += '"';
    for (const auto& [k, v] : labels) {
      if (v.empty()) continue;
      out_ += ',';
      out_ += k;
      out_ += "=\"";
      AppendEscaped(out_, v);
      out_ += '"';
    }
    char buf[32];
    std::snprintf(buf, sizeof buf, "} %.17g\n", value);
    out_ += buf;
  }

  std::string Take() { return std::move(out_); }

 private:
  const std::string& node_;
  std::string out_;
};

std::string Gi(int gi) { return gi < 0 ? std::string() : std::to_string(gi); }

}  // namespace

std::string RenderMetrics(const std::string& node, const AgentSnapshot& s, const AgentHealth& h) {
  Writer w(node);
  w.Family("gpucost_agent_gpu_info", "gauge", "A physical GPU of this node (value 1).");
  for (const GpuInfo& g : s.gpus) {
    w.Sample("gpucost_agent_gpu_info",
             {{"gpu_uuid", g.uuid}, {"gpu_index", std::to_string(g.index)}, {"model", g.model},
              {"mig_mode", g.mig_mode}},
             1);
  }
  w.Family("gpucost_agent_gpu_memory_total_bytes", "gauge", "Memory of a physical GPU.");
  for (const GpuInfo& g : s.gpus) {
    if (g.memory_total_bytes) {
      w.Sample("gpucost_agent_gpu_memory_total_bytes", {{"gpu_uuid", g.uuid}},
               static_cast<double>(*g.memory_total_bytes));
    }
  }
  w.Family("gpucost_agent_gpu_energy_joules_total", "counter",
           "Energy a GPU used since its driver loaded.");
  for (const GpuInfo& g : s.gpus) {
    if (g.energy_mj) {
      w.Sample("gpucost_agent_gpu_energy_joules_total", {{"gpu_uuid", g.uuid}},
               static_cast<double>(*g.energy_mj) / 1000.0);
    }
  }
  w.Family("gpucost_agent_mig_instance_info", "gauge", "A MIG device of this node (value 1).");
  for (const MigInfo& m : s.migs) {
    w.Sample("gpucost_agent_mig_instance_info",
             {{"gpu_uuid", m.gpu_uuid}, {"gpu_instance_id", Gi(m.gpu_instance_id)},
              {"compute_instance_id", Gi(m.compute_instance_id)}, {"mig_uuid", m.mig_uuid},
              {"profile", m.profile}},
             1);
  }
  w.Family("gpucost_agent_unit_activity_ratio", "gauge",
           "Activity of a whole GPU or MIG instance over the last interval, 0-1.");
  for (const UnitActivity& u : s.units) {
    w.Sample("gpucost_agent_unit_activity_ratio",
             {{"gpu_uuid", u.gpu_uuid}, {"gpu_instance_id", Gi(u.gpu_instance_id)},
              {"source", u.source}},
             u.activity);
  }
  w.Family("gpucost_agent_holder_activity_ratio", "gauge",
           "A holder's part of a unit's activity over the last interval, in units of the unit.");
  for (const HolderActivity& a : s.holders) {
    if (!a.activity) continue;
    w.Sample("gpucost_agent_holder_activity_ratio",
             {{"gpu_uuid", a.gpu_uuid}, {"gpu_instance_id", Gi(a.gpu_instance_id)},
              {"pod_uid", a.holder.pod_uid}, {"container_id", a.holder.container_id},
              {"namespace", a.holder.namespace_name}, {"pod", a.holder.pod},
              {"container", a.holder.container}, {"slurm_job", a.holder.slurm_job}},
             *a.activity);
  }
  w.Family("gpucost_agent_holder_memory_bytes", "gauge",
           "GPU memory used by a holder's processes on a unit.");
  for (const HolderActivity& a : s.holders) {
    if (!a.memory_bytes) continue;
    w.Sample("gpucost_agent_holder_memory_bytes",
             {{"gpu_uuid", a.gpu_uuid}, {"gpu_instance_id", Gi(a.gpu_instance_id)},
              {"pod_uid", a.holder.pod_uid}, {"container_id", a.holder.container_id},
              {"namespace", a.holder.namespace_name}, {"pod", a.holder.pod},
              {"container", a.holder.container}, {"slurm_job", a.holder.slurm_job}},
             static_cast<double>(*a.memory_bytes));
  }
  w.Family("gpucost_agent_unowned_activity_ratio", "gauge",
           "Activity of GPU processes that belong to no pod and no Slurm job.");
  for (const UnitActivity& u : s.unowned) {
    w.Sample("gpucost_agent_unowned_activity_ratio",
             {{"gpu_uuid", u.gpu_uuid}, {"gpu_instance_id", Gi(u.gpu_instance_id)}}, u.activity);
  }
  w.Family("gpucost_agent_device_assignment", "gauge",
           "A container holds a device id, from the kubelet's PodResources List (value 1).");
  for (const DeviceAssignment& a : s.assignments) {
    w.Sample("gpucost_agent_device_assignment",
             {{"namespace", a.namespace_name}, {"pod", a.pod}, {"container", a.container},
              {"resource", a.resource}, {"device_id", a.device_id}, {"gpu_uuid", a.gpu_uuid},
              {"gpu_instance_id", Gi(a.gpu_instance_id)}, {"replica", Gi(a.replica)}},
             1);
  }
  w.Family("gpucost_agent_allocatable_device", "gauge",
           "A GPU device id the kubelet can allocate, from GetAllocatableResources (value 1).");
  for (const DeviceAssignment& a : s.allocatable) {
    w.Sample("gpucost_agent_allocatable_device",
             {{"resource", a.resource}, {"device_id", a.device_id}, {"gpu_uuid", a.gpu_uuid},
              {"gpu_instance_id", Gi(a.gpu_instance_id)}, {"replica", Gi(a.replica)}},
             1);
  }
  w.Family("gpucost_agent_nvml_supported", "gauge",
           "Whether an NVML call works on a GPU (0: its values are not measured).");
  for (const CallSupport& c : s.support) {
    w.Sample("gpucost_agent_nvml_supported", {{"gpu_uuid", c.gpu_uuid}, {"call", c.call}},
             c.supported ? 1 : 0);
  }
  w.Family("gpucost_agent_nvml_errors_total", "counter", "NVML calls that failed.");
  for (const auto& [key, n] : h.nvml_errors) {
    w.Sample("gpucost_agent_nvml_errors_total", {{"call", key.first}, {"error", key.second}},
             static_cast<double>(n));
  }
  w.Family("gpucost_agent_kubelet_errors_total", "counter",
           "kubelet PodResources calls that failed.");
  for (const auto& [call, n] : h.kubelet_errors) {
    w.Sample("gpucost_agent_kubelet_errors_total", {{"call", call}}, static_cast<double>(n));
  }
  w.Family("gpucost_agent_proc_errors_total", "counter",
           "/proc files of GPU processes that could not be read.");
  w.Sample("gpucost_agent_proc_errors_total", {}, static_cast<double>(h.proc_errors));
  w.Family("gpucost_agent_collections_total", "counter", "Collections done.");
  w.Sample("gpucost_agent_collections_total", {}, static_cast<double>(h.collections));
  w.Family("gpucost_agent_collection_seconds", "gauge", "Wall time of the last collection.");
  w.Sample("gpucost_agent_collection_seconds", {}, h.last_collection_seconds);
  w.Family("gpucost_agent_up", "gauge", "Whether a component answered in the last collection.");
  w.Sample("gpucost_agent_up", {{"component", "nvml"}}, h.nvml_up ? 1 : 0);
  w.Sample("gpucost_agent_up", {{"component", "kubelet"}}, h.kubelet_up ? 1 : 0);
  return w.Take();
}

}  // namespace gpucost::agent
