#include "agent/cgroup.h"

#include <algorithm>
#include <charconv>
#include <map>
#include <optional>
#include <tuple>
#include <utility>
#include <vector>

namespace gpucost::agent {
namespace {

constexpr size_t kApiUidLength = 36;     // 8-4-4-4-12 with separators
constexpr size_t kStaticUidLength = 32;  // the kubelet's hash of a static pod's manifest
constexpr size_t kContainerIdLength = 64;

bool IsHexDigit(char c) {
  return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

bool IsHex(std::string_view s) {
  for (const char c : s) {
    if (!IsHexDigit(c)) return false;
  }
  return true;
}

bool IsDigits(std::string_view s) {
  if (s.empty()) return false;
  for (const char c : s) {
    if (c < '0' || c > '9') return false;
  }
  return true;
}

char Lower(char c) { return (c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a') : c; }

std::string LowerString(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = Lower(c);
  return out;
}

bool StartsWith(std::string_view s, std::string_view prefix) {
  return s.substr(0, prefix.size()) == prefix;
}

bool EndsWith(std::string_view s, std::string_view suffix) {
  return s.size() >= suffix.size() && s.substr(s.size() - suffix.size()) == suffix;
}

// A pod UID as it appears in a cgroup name: 36 characters with '-' (cgroupfs) or '_' (systemd,
// which escapes '-') at the UUID positions, or a static pod's 32-hex hash. Returns the canonical
// form: an API UID in lower case with dashes, a hash as it is.
std::optional<std::string> CanonicalPodUid(std::string_view s) {
  if (s.size() == kStaticUidLength && IsHex(s)) return std::string(s);
  if (s.size() != kApiUidLength) return std::nullopt;
  const char sep = s[8];
  if (sep != '-' && sep != '_') return std::nullopt;
  std::string out(s);
  for (size_t i = 0; i < out.size(); ++i) {
    if (i == 8 || i == 13 || i == 18 || i == 23) {
      if (out[i] != sep) return std::nullopt;
      out[i] = '-';
    } else if (IsHexDigit(out[i])) {
      out[i] = Lower(out[i]);
    } else {
      return std::nullopt;
    }
  }
  return out;
}

std::optional<std::string> ContainerId(std::string_view s) {
  if (s.size() != kContainerIdLength || !IsHex(s)) return std::nullopt;
  return LowerString(s);
}

struct PodMatch {
  std::string uid;
  std::string qos;
};

// cgroupfs driver: the component is "pod<uid>" and its parent names the QoS class ("kubepods"
// itself for Guaranteed). A parent hidden by a cgroup namespace ("..") leaves the QoS unknown.
std::optional<PodMatch> CgroupfsPod(std::string_view name, std::string_view parent) {
  if (!StartsWith(name, "pod")) return std::nullopt;
  auto uid = CanonicalPodUid(name.substr(3));
  if (!uid) return std::nullopt;
  PodMatch match{.uid = std::move(*uid), .qos = ""};
  if (parent == "besteffort" || parent == "burstable") {
    match.qos = std::string(parent);
  } else if (parent == "kubepods") {
    match.qos = "guaranteed";
  }
  return match;
}

// systemd driver: "[<prefix>-]kubepods[-<qos>]-pod<uid_>.slice", where the slice name spells its
// whole ancestry, so the QoS class is known even under a cgroup namespace. A nested kubelet adds a
// prefix ("kubelet-kubepods-burstable-pod...").
std::optional<PodMatch> SystemdPod(std::string_view name) {
  if (!EndsWith(name, ".slice")) return std::nullopt;
  name.remove_suffix(6);
  for (const size_t uid_length : {kApiUidLength, kStaticUidLength}) {
    if (name.size() < uid_length + 3) continue;
    const std::string_view head = name.substr(0, name.size() - uid_length);
    if (!EndsWith(head, "-pod")) continue;
    auto uid = CanonicalPodUid(name.substr(head.size()));
    if (!uid) continue;
    const std::string_view prefix = head.substr(0, head.size() - 3);  // ends with '-'
    if (prefix.find("kubepods") == std::string_view::npos) continue;
    PodMatch match{.uid = std::move(*uid), .qos = ""};
    if (EndsWith(prefix, "-besteffort-")) {
      match.qos = "besteffort";
    } else if (EndsWith(prefix, "-burstable-")) {
      match.qos = "burstable";
    } else if (EndsWith(prefix, "kubepods-")) {
      match.qos = "guaranteed";
    }
    return match;
  }
  return std::nullopt;
}

struct ContainerMatch {
  std::string id;
  std::string runtime;
};

// The runtime named by a cgroup name's prefix ("cri-containerd", "crio", "docker").
std::string RuntimeOfPrefix(std::string_view prefix) {
  if (prefix == "cri-containerd") return "containerd";
  if (prefix == "crio") return "cri-o";
  if (prefix == "docker") return "docker";
  return "";
}

// The container leaf below a pod cgroup: "<64hex>" (containerd or cri-dockerd with cgroupfs;
// reported as containerd), "cri-containerd-<64hex>.scope", "crio-<64hex>[.scope]",
// "docker-<64hex>.scope". "crio-conmon-<64hex>.scope" (CRI-O's monitor) is not a container.
std::optional<ContainerMatch> ContainerLeaf(std::string_view name) {
  if (auto id = ContainerId(name)) return ContainerMatch{.id = std::move(*id), .runtime = "containerd"};
  if (EndsWith(name, ".scope")) name.remove_suffix(6);
  if (name.size() <= kContainerIdLength + 1 || name[name.size() - kContainerIdLength - 1] != '-') {
    return std::nullopt;
  }
  auto id = ContainerId(name.substr(name.size() - kContainerIdLength));
  if (!id) return std::nullopt;
  std::string runtime = RuntimeOfPrefix(name.substr(0, name.size() - kContainerIdLength - 1));
  if (runtime.empty()) return std::nullopt;
  return ContainerMatch{.id = std::move(*id), .runtime = std::move(runtime)};
}

// The "<pod slice>:<prefix>:<64hex>" form: runc given a systemd-style cgroupsPath while the
// runtime manages cgroupfs (containerd without SystemdCgroup under a systemd kubelet). `tail` is
// what follows the first ':'.
std::optional<ContainerMatch> ColonContainer(std::string_view tail) {
  const size_t colon = tail.find(':');
  if (colon == std::string_view::npos) return std::nullopt;
  auto id = ContainerId(tail.substr(colon + 1));
  if (!id) return std::nullopt;
  return ContainerMatch{.id = std::move(*id), .runtime = RuntimeOfPrefix(tail.substr(0, colon))};
}

std::vector<std::string_view> Components(std::string_view path) {
  std::vector<std::string_view> out;
  size_t start = 0;
  while (start <= path.size()) {
    size_t end = path.find('/', start);
    if (end == std::string_view::npos) end = path.size();
    if (end > start) out.push_back(path.substr(start, end - start));
    start = end + 1;
  }
  return out;
}

void ParseKubernetes(const std::vector<std::string_view>& parts, ProcessIdentity& out) {
  // The deepest pod wins: a kubelet nested in a pod (kind) puts its pods below the outer one.
  for (size_t i = parts.size(); i-- > 0;) {
    const std::string_view part = parts[i];
    const size_t colon = part.find(':');
    const std::string_view name = part.substr(0, colon);
    std::optional<PodMatch> pod = SystemdPod(name);
    if (!pod) pod = CgroupfsPod(name, i > 0 ? parts[i - 1] : std::string_view());
    if (!pod) continue;
    out.pod_uid = std::move(pod->uid);
    out.qos = std::move(pod->qos);
    std::optional<ContainerMatch> container;
    if (colon != std::string_view::npos) {
      container = ColonContainer(part.substr(colon + 1));
    } else if (i + 1 < parts.size()) {
      container = ContainerLeaf(parts[i + 1]);
    }
    if (container) {
      out.container_id = std::move(container->id);
      out.runtime = std::move(container->runtime);
    }
    return;
  }
}

// Slurm's task/cgroup plugin: v1 "/slurm[_<node>]/uid_<u>/job_<j>/step_<s>/task_<t>", v2
// "/system.slice/[<node>_]slurmstepd.scope/job_<j>/step_<s>/user/task_<t>".
void ParseSlurm(const std::vector<std::string_view>& parts, ProcessIdentity& out) {
  for (size_t i = parts.size(); i-- > 0;) {
    const std::string_view part = parts[i];
    if (!StartsWith(part, "job_") || !IsDigits(part.substr(4)) || i == 0) continue;
    int64_t uid = -1;
    const std::string_view parent = parts[i - 1];
    if (EndsWith(parent, "slurmstepd.scope")) {
      // cgroup v2: no uid level
    } else if (i >= 2 && StartsWith(parent, "uid_") && StartsWith(parts[i - 2], "slurm")) {
      const std::string_view digits = parent.substr(4);
      if (!IsDigits(digits)) continue;
      const auto [ptr, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), uid);
      if (ec != std::errc() || ptr != digits.data() + digits.size()) continue;
    } else {
      continue;
    }
    out.slurm_job = std::string(part.substr(4));
    out.slurm_uid = uid;
    if (i + 1 < parts.size() && StartsWith(parts[i + 1], "step_") && parts[i + 1].size() > 5) {
      out.slurm_step = std::string(parts[i + 1].substr(5));
    }
    return;
  }
}

// "<hierarchy-id>:<controllers>:<path>"; the path may itself contain ':'.
std::optional<std::string_view> PathOfLine(std::string_view line) {
  if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
  const size_t first = line.find(':');
  if (first == std::string_view::npos || !IsDigits(line.substr(0, first))) return std::nullopt;
  const size_t second = line.find(':', first + 1);
  if (second == std::string_view::npos) return std::nullopt;
  const std::string_view path = line.substr(second + 1);
  if (path.empty() || path.front() != '/') return std::nullopt;
  return path;
}

// Picks among the lines' identities: highest rank first, then the key seen on most lines, then
// the first line. `rank` and `key` look at one identity.
template <typename Rank, typename Key>
const ProcessIdentity* Choose(const std::vector<ProcessIdentity>& lines, Rank rank, Key key) {
  int best_rank = 0;
  for (const ProcessIdentity& id : lines) best_rank = std::max(best_rank, rank(id));
  if (best_rank == 0) return nullptr;
  std::map<decltype(key(lines.front())), std::pair<int, size_t>> votes;  // count, first line
  for (size_t i = 0; i < lines.size(); ++i) {
    if (rank(lines[i]) != best_rank) continue;
    auto [it, inserted] = votes.try_emplace(key(lines[i]), 0, i);
    ++it->second.first;
  }
  const std::pair<int, size_t>* winner = nullptr;
  for (const auto& [k, vote] : votes) {
    if (winner == nullptr || vote.first > winner->first ||
        (vote.first == winner->first && vote.second < winner->second)) {
      winner = &vote;
    }
  }
  return &lines[winner->second];
}

}  // namespace

ProcessIdentity ParseCgroupPath(std::string_view path) {
  const std::vector<std::string_view> parts = Components(path);
  ProcessIdentity out;
  ParseKubernetes(parts, out);
  ParseSlurm(parts, out);
  return out;
}

ProcessIdentity ParseCgroup(std::string_view file_text) {
  std::vector<ProcessIdentity> lines;
  size_t start = 0;
  while (start < file_text.size()) {
    size_t end = file_text.find('\n', start);
    if (end == std::string_view::npos) end = file_text.size();
    if (auto path = PathOfLine(file_text.substr(start, end - start))) {
      ProcessIdentity id = ParseCgroupPath(*path);
      if (id.kubernetes() || id.slurm()) lines.push_back(std::move(id));
    }
    start = end + 1;
  }
  ProcessIdentity out;
  if (lines.empty()) return out;

  const ProcessIdentity* pod = Choose(
      lines, [](const ProcessIdentity& id) { return !id.kubernetes() ? 0 : id.container_id.empty() ? 1 : 2; },
      [](const ProcessIdentity& id) { return std::make_pair(id.pod_uid, id.container_id); });
  if (pod != nullptr) {
    out.pod_uid = pod->pod_uid;
    out.container_id = pod->container_id;
    out.runtime = pod->runtime;
    out.qos = pod->qos;
    // A line relative to a cgroup namespace may hide the QoS level that another line shows.
    for (const ProcessIdentity& id : lines) {
      if (!out.qos.empty()) break;
      if (id.pod_uid == out.pod_uid) out.qos = id.qos;
    }
  }
  const ProcessIdentity* job = Choose(
      lines, [](const ProcessIdentity& id) { return !id.slurm() ? 0 : id.slurm_step.empty() ? 1 : 2; },
      [](const ProcessIdentity& id) { return std::make_tuple(id.slurm_job, id.slurm_uid, id.slurm_step); });
  if (job != nullptr) {
    out.slurm_job = job->slurm_job;
    out.slurm_uid = job->slurm_uid;
    out.slurm_step = job->slurm_step;
  }
  return out;
}

}  // namespace gpucost::agent
