// `gpucost agent --probe`: what each NVML call returns on this node's GPUs, for support tickets
// and for docs/agent.md's record of real drivers. Runs a few collections `interval` apart and
// prints, per GPU and unit, activity and its source, processes with their samples, and every
// call that is unsupported or failed. Not thread-safe.
#pragma once

#include <chrono>
#include <functional>
#include <string>

#include "agent/nvml_library.h"

namespace gpucost::agent {

std::string ProbeNvml(const NvmlLibrary& nvml, int collections, std::chrono::milliseconds interval,
                      const std::function<void(std::chrono::milliseconds)>& sleep);

}  // namespace gpucost::agent
