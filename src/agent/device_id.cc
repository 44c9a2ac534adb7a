#include "agent/device_id.h"

#include <optional>

namespace gpucost::agent {
namespace {

constexpr std::string_view kGpuPrefix = "GPU-";
constexpr std::string_view kMigPrefix = "MIG-";
constexpr std::string_view kGkePrefix = "nvidia";
constexpr std::string_view kReplicaSeparator = "::";
// Larger numbers are not device numbers; refusing them also keeps the arithmetic in int.
constexpr size_t kMaxDigits = 9;

bool IsDigit(char c) { return c >= '0' && c <= '9'; }

// A decimal number of 1 to kMaxDigits digits, nothing else (no sign, no space).
std::optional<int> ParseNumber(std::string_view s) {
  if (s.empty() || s.size() > kMaxDigits) return std::nullopt;
  int value = 0;
  for (char c : s) {
    if (!IsDigit(c)) return std::nullopt;
    value = value * 10 + (c - '0');
  }
  return value;
}

// The body of a GPU or MIG UUID after its prefix. Real ones are 8-4-4-4-12 hex digits; any
// non-empty run of letters, digits and dashes is taken, because the id is only a join key and
// test clusters use short ones ("GPU-0"). What separates forms (':', '/') is never in it.
bool IsUuidBody(std::string_view s) {
  if (s.empty()) return false;
  for (char c : s) {
    const bool ok = IsDigit(c) || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '-';
    if (!ok) return false;
  }
  return true;
}

// "MIG-GPU-<uuid>/<gi>/<ci>"; `rest` is what follows "MIG-".
bool ParseLegacyMig(std::string_view rest, DeviceId& out) {
  const size_t first = rest.find('/');
  if (first == std::string_view::npos) return false;
  const size_t second = rest.find('/', first + 1);
  if (second == std::string_view::npos) return false;
  const std::string_view gpu = rest.substr(0, first);
  const auto gi = ParseNumber(rest.substr(first + 1, second - first - 1));
  const auto ci = ParseNumber(rest.substr(second + 1));
  if (!gpu.starts_with(kGpuPrefix) || !IsUuidBody(gpu.substr(kGpuPrefix.size())) || !gi || !ci) {
    return false;
  }
  out.kind = DeviceIdKind::kMigLegacy;
  out.gpu_uuid = std::string(gpu);
  out.gpu_instance_id = *gi;
  out.compute_instance_id = *ci;
  return true;
}

// The NVIDIA device plugin's forms, without a "::<replica>" suffix.
bool ParseNvidiaForm(std::string_view base, DeviceId& out) {
  if (base.starts_with(kGpuPrefix)) {
    if (!IsUuidBody(base.substr(kGpuPrefix.size()))) return false;
    out.kind = DeviceIdKind::kGpuUuid;
    out.gpu_uuid = std::string(base);
    return true;
  }
  if (base.starts_with(kMigPrefix)) {
    const std::string_view rest = base.substr(kMigPrefix.size());
    if (rest.starts_with(kGpuPrefix) && rest.find('/') != std::string_view::npos) {
      return ParseLegacyMig(rest, out);
    }
    if (!IsUuidBody(rest)) return false;
    out.kind = DeviceIdKind::kMigUuid;
    out.mig_uuid = std::string(base);
    return true;
  }
  const size_t colon = base.find(':');
  if (colon == std::string_view::npos) {
    const auto index = ParseNumber(base);
    if (!index) return false;
    out.kind = DeviceIdKind::kGpuIndex;
    out.gpu_index = *index;
    return true;
  }
  const auto gpu = ParseNumber(base.substr(0, colon));
  const auto mig = ParseNumber(base.substr(colon + 1));
  if (!gpu || !mig) return false;
  out.kind = DeviceIdKind::kMigIndex;
  out.gpu_index = *gpu;
  out.mig_index = *mig;
  return true;
}

// GKE: "nvidia<minor>", "nvidia<minor>/vgpu<n>", "nvidia<minor>/gi<gi>",
// "nvidia<minor>/gi<gi>/vgpu<n>".
bool ParseGkeForm(std::string_view id, DeviceId& out) {
  std::string_view rest = id.substr(kGkePrefix.size());
  const size_t slash = rest.find('/');
  const auto minor = ParseNumber(rest.substr(0, slash));
  if (!minor) return false;
  int gi = -1;
  int replica = -1;
  rest = slash == std::string_view::npos ? std::string_view() : rest.substr(slash);
  if (rest.starts_with("/gi")) {
    rest.remove_prefix(3);
    const size_t next = rest.find('/');
    const auto n = ParseNumber(rest.substr(0, next));
    if (!n) return false;
    gi = *n;
    rest = next == std::string_view::npos ? std::string_view() : rest.substr(next);
  }
  if (rest.starts_with("/vgpu")) {
    const auto n = ParseNumber(rest.substr(5));
    if (!n) return false;
    replica = *n;
    rest = {};
  }
  if (!rest.empty()) return false;
  out.kind = gi >= 0 ? DeviceIdKind::kGkeMig : DeviceIdKind::kGkeGpu;
  out.device_minor = *minor;
  out.gpu_instance_id = gi;
  out.replica = replica;
  return true;
}

}  // namespace

std::string_view DeviceIdKindName(DeviceIdKind kind) {
  switch (kind) {
    case DeviceIdKind::kUnknown: return "unknown";
    case DeviceIdKind::kGpuUuid: return "gpu_uuid";
    case DeviceIdKind::kMigUuid: return "mig_uuid";
    case DeviceIdKind::kMigLegacy: return "mig_legacy";
    case DeviceIdKind::kGpuIndex: return "gpu_index";
    case DeviceIdKind::kMigIndex: return "mig_index";
    case DeviceIdKind::kGkeGpu: return "gke_gpu";
    case DeviceIdKind::kGkeMig: return "gke_mig";
  }
  return "unknown";
}

DeviceId ParseDeviceId(std::string_view id) {
  DeviceId parsed;
  parsed.raw = std::string(id);
  // A form that fails half-way may have filled fields: an unknown id carries only `raw`.
  const auto unknown = [id] {
    DeviceId u;
    u.raw = std::string(id);
    return u;
  };
  if (id.starts_with(kGkePrefix)) return ParseGkeForm(id, parsed) ? parsed : unknown();
  // The NVIDIA device plugin annotates a replica of any id as "<id>::<n>" (devices.go,
  // NewAnnotatedID); the id itself never contains "::".
  std::string_view base = id;
  const size_t sep = id.find(kReplicaSeparator);
  if (sep != std::string_view::npos) {
    const auto replica = ParseNumber(id.substr(sep + kReplicaSeparator.size()));
    if (!replica) return unknown();
    parsed.replica = *replica;
    base = id.substr(0, sep);
  }
  return ParseNvidiaForm(base, parsed) ? parsed : unknown();
}

}  // namespace gpucost::agent
