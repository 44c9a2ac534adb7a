#include <signal.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <string>
#include <thread>

#include "agent/agent.h"
#include "agent/agent_server.h"
#include "agent/nvml_library.h"
#include "agent/nvml_probe.h"
#include "cli/commands.h"
#include "cli/stop_signals.h"
#include "core/log.h"
#include "core/listen_address.h"

namespace gpucost::cli {
namespace {

struct AgentFlags {
  std::string node_name;
  std::string listen = "0.0.0.0:9402";
  double interval_s = 10;
  std::string nvml_library = agent::NvmlLibrary::kDefaultPath;
  std::string pod_resources_socket = std::string(agent::kDefaultPodResourcesSocket);
  double kubelet_timeout_s = 5;
  std::string proc_root = "/proc";
  bool once = false;
  int probe = 0;
};

std::chrono::milliseconds Ms(double seconds) {
  return std::chrono::milliseconds(static_cast<int64_t>(seconds * 1000));
}

std::string NodeName(const AgentFlags& f) {
  if (!f.node_name.empty()) return f.node_name;
  if (const char* env = std::getenv("NODE_NAME"); env != nullptr && *env != '\0') return env;
  char host[256] = {};
  if (::gethostname(host, sizeof host - 1) == 0) return host;
  return "";
}

int RunProbe(const AgentFlags& f) {
  auto nvml = agent::NvmlLibrary::Open(f.nvml_library);
  if (!nvml.ok()) {
    LogError(nvml.status().ToString());
    return 2;
  }
  std::fputs(agent::ProbeNvml(**nvml, f.probe, Ms(f.interval_s),
                              [](std::chrono::milliseconds d) { std::this_thread::sleep_for(d); })
                 .c_str(),
             stdout);
  return 0;
}

int RunAgent(const AgentFlags& f) {
  if (f.probe > 0) return RunProbe(f);
  agent::AgentOptions o;
  o.node_name = NodeName(f);
  o.nvml_library = f.nvml_library;
  o.pod_resources_socket = f.pod_resources_socket;
  o.kubelet_deadline = Ms(f.kubelet_timeout_s);
  o.proc_root = f.proc_root;
  agent::Agent a(std::move(o));
  if (f.once) {
    // GPM activity is a difference of two samples: collect twice, a second apart at least.
    a.Collect();
    std::this_thread::sleep_for(std::min(Ms(f.interval_s), std::chrono::milliseconds(1000)));
    a.Collect();
    std::fputs(a.Metrics().c_str(), stdout);
    return 0;
  }
  auto address = ParseListenAddress(f.listen);
  if (!address.ok()) {
    LogError(address.status().ToString());
    return 2;
  }
  BlockStopSignals();
  agent::AgentServer server(a, Ms(f.interval_s));
  auto port = server.Bind(address->first, address->second);
  if (!port.ok()) {
    LogError(port.status().ToString());
    return 2;
  }
  std::printf("gpucost agent: serving http://%s:%d/metrics, collecting every %gs\n",
              address->first.c_str(), *port, f.interval_s);
  std::fflush(stdout);
  const Status run = RunUntilStopSignal([&server] { return server.Run(); },
                                        [&server] {
                                          while (!server.running()) {
                                            std::this_thread::sleep_for(
                                                std::chrono::milliseconds(10));
                                          }
                                          server.Stop();
                                        });
  if (!run.ok()) LogError(run.ToString());
  return run.ok() ? 0 : 2;
}

}  // namespace

void AddAgentOptions(CLI::App* cmd, int& exit_code) {
  auto f = std::make_shared<AgentFlags>();
  cmd->add_option("--node-name", f->node_name,
                  "Kubernetes node name for the node label (default: $NODE_NAME, else hostname)");
  cmd->add_option("--listen", f->listen, "Address for /metrics and /healthz (port 0: any)")
      ->capture_default_str();
  cmd->add_option("--interval", f->interval_s, "Seconds between collections")
      ->capture_default_str()
      ->check(CLI::Range(1.0, 3600.0));
  cmd->add_option("--nvml-library", f->nvml_library, "NVML shared library to load")
      ->capture_default_str();
  cmd->add_option("--pod-resources-socket", f->pod_resources_socket,
                  "kubelet PodResources socket (empty: do not ask the kubelet)")
      ->capture_default_str();
  cmd->add_option("--kubelet-timeout", f->kubelet_timeout_s, "Seconds per kubelet call")
      ->capture_default_str()
      ->check(CLI::Range(0.1, 60.0));
  cmd->add_option("--proc-root", f->proc_root, "The host's /proc (mounted into the container)")
      ->capture_default_str();
  cmd->add_flag("--once", f->once, "Collect (twice, a second apart), print /metrics and exit");
  cmd->add_option("--probe", f->probe,
                  "Print what each NVML call returns over N collections, then exit")
      ->check(CLI::Range(1, 1000));
  cmd->footer(
      "Exit status: 0 when stopped by SIGINT/SIGTERM or done (--once, --probe); 2 on bad flags, "
      "when --probe cannot load NVML, or when the listen address cannot be bound.");
  cmd->callback([f, &exit_code] { exit_code = RunAgent(*f); });
}

void AddAgentCommand(CLI::App& app, int& exit_code) {
  AddAgentOptions(app.add_subcommand(
                      "agent", "Node agent: per-pod GPU activity and device assignments on /metrics"),
                  exit_code);
}

}  // namespace gpucost::cli
