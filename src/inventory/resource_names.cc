#include "inventory/resource_names.h"

#include <algorithm>

#include "core/strings.h"
#include "inventory/mig_profiles.h"

namespace gpucost {
namespace {

// KSM turns every [^a-zA-Z0-9_] into '_'; compare in that space.
std::string Sanitize(std::string_view s) {
  std::string out(s);
  for (char& c : out) {
    const bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
    if (!ok) c = '_';
  }
  return out;
}

// "1g_10gb_me" (sanitized) or "1g.10gb.me" (raw) -> "1g.10gb.me" for ParseMigProfileName.
std::string UnsanitizeProfile(std::string_view s) {
  std::string out(s);
  const size_t g = out.find("g_");
  if (g != std::string::npos) out[g + 1] = '.';
  std::replace(out.begin(), out.end(), '_', '.');
  return out;
}

// "cpx_nps4": an AMD compute partition mode and a memory partition mode, as the AMD GPU device
// plugin's mixed resource naming spells them.
bool IsAmdPartitionProfile(std::string_view p) {
  const size_t us = p.find('_');
  if (us == std::string_view::npos) return false;
  const std::string_view compute = p.substr(0, us), memory = p.substr(us + 1);
  const bool compute_ok = compute == "spx" || compute == "dpx" || compute == "tpx" ||
                          compute == "qpx" || compute == "cpx";
  const bool memory_ok =
      memory == "nps1" || memory == "nps2" || memory == "nps4" || memory == "nps8";
  return compute_ok && memory_ok;
}

}  // namespace

std::string KsmResourceKey(std::string_view name) { return ToLower(Sanitize(Trim(name))); }

std::string MigResourceName(std::string_view profile) {
  std::string p(profile);
  std::replace(p.begin(), p.end(), '+', '.');
  return StrCat("nvidia.com/mig-", p);
}

ResourceName CanonicalResourceName(std::string_view name) {
  ResourceName out;
  out.canonical = std::string(Trim(name));
  // A DRA claim's devices, as the Kubernetes API source spells a container's use of a claim;
  // the claim name is kept as written (kube-state-metrics has no such resource).
  if (out.canonical.starts_with("resource.k8s.io/claim/")) {
    out.kind = ResourceKind::kDraClaim;
    return out;
  }
  if (out.canonical.starts_with("deviceclass.resource.kubernetes.io/")) {
    out.kind = ResourceKind::kDraClass;
    return out;
  }
  const std::string s = KsmResourceKey(name);
  if (s == "nvidia_com_gpu") {
    out = {ResourceKind::kNvidiaGpu, "nvidia.com/gpu", ""};
  } else if (s == "nvidia_com_gpu_shared") {
    out = {ResourceKind::kNvidiaGpuShared, "nvidia.com/gpu.shared", ""};
  } else if (s == "nvidia_com_gpucores") {
    out = {ResourceKind::kHamiCores, "nvidia.com/gpucores", ""};
  } else if (s == "nvidia_com_gpumem") {
    out = {ResourceKind::kHamiMem, "nvidia.com/gpumem", ""};
  } else if (s == "nvidia_com_gpumem_percentage") {
    out = {ResourceKind::kHamiMemPercentage, "nvidia.com/gpumem-percentage", ""};
  } else if (s == "amd_com_gpu") {
    out = {ResourceKind::kAmdGpu, "amd.com/gpu", ""};
  } else if (s.starts_with("amd_com_") && IsAmdPartitionProfile(s.substr(8))) {
    out = {ResourceKind::kAmdPartition, StrCat("amd.com/", s.substr(8)), s.substr(8)};
  } else if (s == "aws_amazon_com_neurondevice") {
    out = {ResourceKind::kNeuronDevice, std::string(kNeuronDeviceResource), ""};
  } else if (s == "aws_amazon_com_neuron") {
    out = {ResourceKind::kNeuronDevice, std::string(kNeuronLegacyResource), ""};
  } else if (s == "aws_amazon_com_neuroncore") {
    out = {ResourceKind::kNeuronCore, std::string(kNeuronCoreResource), ""};
  } else if (s == "nvidia_com_priority") {
    out = {ResourceKind::kNotGpu, "nvidia.com/priority", ""};
  } else if (s.starts_with("nvidia_com_mig_")) {
    // Raw text keeps its dots; the sanitized one needs them back.
    std::string_view raw = Trim(name);
    std::string profile_text = raw.starts_with("nvidia.com/mig-")
                                   ? std::string(raw.substr(15))
                                   : UnsanitizeProfile(s.substr(15));
    const auto parsed = ParseMigProfileName(profile_text);
    if (parsed) {
      out.kind = ResourceKind::kNvidiaMig;
      out.mig_profile = NormalizeMigProfileName(*parsed);
      out.canonical = MigResourceName(out.mig_profile);
    } else {
      out.kind = ResourceKind::kUnknownGpu;
    }
  } else if (s.find("gpu") != std::string::npos || s.starts_with("nvidia_com_") ||
             s.starts_with("amd_com_") || s.starts_with("aws_amazon_com_neuron") ||
             s.find("_mig") != std::string::npos) {
    out.kind = ResourceKind::kUnknownGpu;
  } else {
    out.kind = ResourceKind::kNotGpu;
  }
  return out;
}

}  // namespace gpucost
