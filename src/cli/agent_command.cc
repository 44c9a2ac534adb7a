#include <cstdio>
#include <string>
#include <thread>

#include "agent/nvml_library.h"
#include "agent/nvml_probe.h"
#include "cli/commands.h"

namespace gpucost::cli {
namespace {

struct AgentFlags {
  std::string nvml_library = agent::NvmlLibrary::kDefaultPath;
  int probe = 0;
  double interval_s = 10;
};

int RunProbe(const AgentFlags& f) {
  auto nvml = agent::NvmlLibrary::Open(f.nvml_library);
  if (!nvml.ok()) {
    std::fprintf(stderr, "gpucost agent: %s\n", std::string(nvml.status().message()).c_str());
    return 1;
  }
  const auto interval = std::chrono::milliseconds(static_cast<int64_t>(f.interval_s * 1000));
  std::fputs(agent::ProbeNvml(**nvml, f.probe, interval,
                              [](std::chrono::milliseconds d) { std::this_thread::sleep_for(d); })
                 .c_str(),
             stdout);
  return 0;
}

}  // namespace

void AddAgentCommand(CLI::App& app, int& exit_code) {
  CLI::App* cmd = app.add_subcommand(
      "agent", "Node agent: per-pod GPU activity and device assignments on /metrics");
  auto flags = std::make_shared<AgentFlags>();
  cmd->add_option("--nvml-library", flags->nvml_library, "NVML shared library to load")
      ->capture_default_str();
  cmd->add_option("--interval", flags->interval_s, "Seconds between collections")
      ->capture_default_str()
      ->check(CLI::Range(1.0, 3600.0));
  cmd->add_option("--probe", flags->probe,
                  "Print what each NVML call returns over N collections, then exit")
      ->check(CLI::Range(1, 1000));
  cmd->callback([flags, &exit_code] { exit_code = RunProbe(*flags); });
}

}  // namespace gpucost::cli
