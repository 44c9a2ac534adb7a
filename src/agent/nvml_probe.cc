#include "agent/nvml_probe.h"

#include <sstream>

#include "agent/nvml_collector.h"

namespace gpucost::agent {
namespace {

template <typename T>
std::string Opt(const std::optional<T>& v) {
  if (!v) return "not measured";
  std::ostringstream out;
  out << *v;
  return out.str();
}

void DescribeUnit(std::ostringstream& out, const NvmlUnit& u) {
  out << "    unit " << (u.gpu_instance_id < 0 ? std::string("whole") : "mig:" + std::to_string(u.gpu_instance_id))
      << " uuid=" << u.uuid << " name=\"" << u.name << "\"";
  if (!u.profile.empty()) out << " profile=" << u.profile;
  if (u.compute_instance_id >= 0) out << " ci=" << u.compute_instance_id;
  out << " activity=" << Opt(u.activity);
  if (u.activity) out << " (" << u.activity_source << ")";
  out << "\n";
  for (const NvmlProcess& p : u.processes) {
    out << "      pid " << p.pid << " memory_bytes=" << Opt(p.memory_bytes)
        << " samples=" << p.samples << " sm_util_sum=" << p.sm_util_sum;
    if (p.samples > 0) out << " sm_util_mean=" << p.sm_util_sum / p.samples;
    out << "\n";
  }
}

}  // namespace

std::string ProbeNvml(const NvmlLibrary& nvml, int collections, std::chrono::milliseconds interval,
                      const std::function<void(std::chrono::milliseconds)>& sleep) {
  std::ostringstream out;
  out << "driver " << nvml.DriverVersion() << "\n";
  NvmlCollector collector(nvml);
  for (int c = 0; c < collections; ++c) {
    if (c > 0) sleep(interval);
    const NvmlReading r = collector.Collect();
    out << "collection " << c + 1 << ": " << r.gpus.size() << " GPU(s)\n";
    for (const NvmlGpu& g : r.gpus) {
      out << "  gpu " << g.index << " " << g.uuid << " \"" << g.name << "\" mig="
          << (g.mig_enabled ? (*g.mig_enabled ? "enabled" : "disabled") : "not measured")
          << " memory_used=" << Opt(g.memory_used_bytes) << "/" << Opt(g.memory_total_bytes)
          << " energy_mj=" << Opt(g.energy_mj)
          << " process_utilization=" << (g.process_utilization ? "measured" : "not measured")
          << "\n";
      if (c == 0) {
        for (const auto& [call, ok] : g.supported) {
          out << "    call " << call << ": " << (ok ? "ok" : "not supported") << "\n";
        }
      }
      if (!g.mig_enabled.value_or(false)) DescribeUnit(out, g.whole);
      for (const NvmlUnit& u : g.mig) DescribeUnit(out, u);
    }
    for (const NvmlError& e : r.errors) out << "  error " << e.call << ": " << e.error << "\n";
  }
  return out.str();
}

}  // namespace gpucost::agent
