// Renders an AgentSnapshot and the agent's health counters in the Prometheus text format
// (version 0.0.4), with the metric names and labels of docs/agent.md. Pure.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <utility>

#include "agent/agent_snapshot.h"

namespace gpucost::agent {

struct AgentHealth {
  std::map<std::pair<std::string, std::string>, uint64_t> nvml_errors;  // (call, error) -> n
  std::map<std::string, uint64_t> kubelet_errors;                       // call -> n
  uint64_t proc_errors = 0;  // /proc files that could not be read
  uint64_t collections = 0;
  double last_collection_seconds = 0;
  bool nvml_up = false;
  bool kubelet_up = false;
};

std::string RenderMetrics(const std::string& node, const AgentSnapshot& snapshot,
                          const AgentHealth& health);

}  // namespace gpucost::agent
