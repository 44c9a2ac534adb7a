// Feeds arbitrary bytes to the /proc/<pid>/cgroup parser (whole, line by line, and with a trailing
// newline added) and to the /proc/<pid>/stat start-time reader, checking that every identity has
// the documented shape and that errors name their source.
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

#include "agent/cgroup.h"
#include "agent/proc_table.h"

namespace {

bool IsLowerHex(std::string_view s) {
  for (const char c : s) {
    if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) return false;
  }
  return true;
}

bool IsCanonicalUid(std::string_view s) {
  if (s.size() == 32) {
    for (const char c : s) {
      if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F'))) return false;
    }
    return true;
  }
  if (s.size() != 36) return false;
  for (size_t i = 0; i < s.size(); ++i) {
    const bool dash = i == 8 || i == 13 || i == 18 || i == 23;
    if (dash != (s[i] == '-')) return false;
    if (!dash && !IsLowerHex(s.substr(i, 1))) return false;
  }
  return true;
}

void CheckShape(const gpucost::agent::ProcessIdentity& id) {
  if (!id.pod_uid.empty() && !IsCanonicalUid(id.pod_uid)) std::abort();
  if (!id.container_id.empty() && (id.container_id.size() != 64 || !IsLowerHex(id.container_id))) {
    std::abort();
  }
  if (!id.container_id.empty() && id.pod_uid.empty()) std::abort();
  if (id.container_id.empty() && !id.runtime.empty()) std::abort();
  if (id.runtime != "" && id.runtime != "containerd" && id.runtime != "cri-o" && id.runtime != "docker") {
    std::abort();
  }
  if (id.qos != "" && id.qos != "guaranteed" && id.qos != "burstable" && id.qos != "besteffort") {
    std::abort();
  }
  if (id.pod_uid.empty() && !id.qos.empty()) std::abort();
  if (id.slurm_job.empty() && (id.slurm_uid != -1 || !id.slurm_step.empty())) std::abort();
  if (id.slurm_uid < -1) std::abort();
  for (const char c : id.slurm_job) {
    if (c < '0' || c > '9') std::abort();
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  const gpucost::agent::ProcessIdentity whole = gpucost::agent::ParseCgroup(text);
  CheckShape(whole);
  if (!(gpucost::agent::ParseCgroup(std::string(text) + "\n") == whole)) std::abort();
  // Every line on its own: a file with one line has that line's identity or none.
  size_t start = 0;
  while (start < text.size()) {
    size_t end = text.find('\n', start);
    if (end == std::string_view::npos) end = text.size();
    CheckShape(gpucost::agent::ParseCgroup(text.substr(start, end - start)));
    start = end + 1;
  }
  CheckShape(gpucost::agent::ParseCgroupPath(text));

  auto start_time = gpucost::agent::StartTimeFromStat(text, "fuzz/stat");
  if (!start_time.ok() && start_time.status().message().find("fuzz/stat") == std::string_view::npos) {
    std::abort();
  }
  return 0;
}
