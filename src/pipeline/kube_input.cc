#include "pipeline/kube_input.h"

#include <algorithm>
#include <mutex>
#include <set>
#include <string>

#include "core/log.h"
#include "core/strings.h"
#include "k8s/kube_object_files.h"

namespace gpucost {

Result<k8s::KubeConnection> ResolveKubeConnection(const KubeOptions& flags) {
  k8s::ConnectionOptions copts;
  copts.kubeconfig = flags.kubeconfig;
  copts.context = flags.context;
  copts.in_cluster = flags.in_cluster;
  return k8s::ResolveConnection(copts);
}

k8s::KubeSourceOptions KubeSourceOptionsFor(const KubeOptions& flags, const std::string& cluster,
                                            const std::vector<std::string>& label_allowlist,
                                            const std::vector<std::string>& team_labels) {
  k8s::KubeSourceOptions sopts;
  sopts.cluster = cluster;
  sopts.label_allowlist = label_allowlist;
  sopts.annotation_allowlist = SplitList(flags.annotation_allowlist);
  for (const std::string& t : team_labels) {
    const size_t colon = t.find(':');
    sopts.team_label_keys.push_back(colon == std::string::npos ? t : t.substr(colon + 1));
  }
  return sopts;
}

Result<KubeRead> ReadKube(const KubeOptions& flags, const std::string& cluster,
                          const std::vector<std::string>& label_allowlist,
                          const std::vector<std::string>& team_labels) {
  KubeRead out;
  if (!flags.objects.empty()) {
    if (flags.wanted()) {
      return Status::InvalidArgument(
          "give either --kube-objects or the Kubernetes API (--kube, --kubeconfig, ...), not both");
    }
    std::optional<Instant> at;
    if (!flags.objects_at.empty()) {
      Result<Instant> t = ParseInstant(flags.objects_at);
      if (!t.ok()) return t.status().WithContext("--kube-objects-at");
      at = *t;
    }
    GPUCOST_ASSIGN_OR_RETURN(
        k8s::KubeObjectFilesResult read,
        k8s::ReadKubeObjectFiles(
            flags.objects, KubeSourceOptionsFor(flags, cluster, label_allowlist, team_labels), at));
    for (const std::string& w : read.warnings) LogWarn(w);
    out.state = std::move(read.state);
    return out;
  }
  if (!flags.wanted()) return out;
  GPUCOST_ASSIGN_OR_RETURN(k8s::KubeConnection conn, ResolveKubeConnection(flags));
  static const SystemClock clock;
  k8s::KubeSource source(std::move(conn),
                         KubeSourceOptionsFor(flags, cluster, label_allowlist, team_labels), clock);
  Status listed = source.List();
  if (!listed.ok()) return listed;
  const k8s::KubeSourceStats st = source.stats();
  // A DRA kind the account may not read (403, an older ClusterRole) hides the claims that hold
  // GPUs, and their GPUs would count as idle: said once a process (serve reads every cycle). One
  // the cluster does not serve (404, before Kubernetes 1.34) holds nothing, and is not told.
  for (const auto& [name, informer] : st.informers) {
    if (!informer.optional) continue;
    const bool forbidden = informer.unserved.starts_with("HTTP 403");
    out.optional_kinds.push_back({name, forbidden ? informer.unserved : std::string()});
    if (!forbidden) continue;
    static std::mutex mu;
    static std::set<std::string> told;
    const std::lock_guard<std::mutex> lock(mu);
    if (!told.insert(name).second) continue;
    const std::string_view loss =
        name == "deviceclasses"
            ? "GPUs asked for by a device class's extended resource are read by the drivers' "
              "default classes only"
            : "DRA claims are not attributed, and the GPUs they hold count as idle";
    LogWarn(StrCat("Kubernetes API: ", name, " may not be read (", informer.unserved, "): ", loss,
                   "; grant get, list and watch on resource.k8s.io resourceslices, "
                   "resourceclaims and deviceclasses (deploy/base/rbac.yaml)"));
  }
  if (st.decode_errors > 0) {
    LogWarn(StrCat(st.decode_errors,
                   " Kubernetes objects could not be read and were skipped; "
                   "the last: ",
                   st.last_decode_error));
  }
  std::sort(
      out.optional_kinds.begin(), out.optional_kinds.end(),
      [](const KubeKindAccess& a, const KubeKindAccess& b) { return a.resource < b.resource; });
  out.state = source.Snapshot();
  return out;
}

Result<std::optional<KubeState>> ReadKubeState(const KubeOptions& flags, const std::string& cluster,
                                               const std::vector<std::string>& label_allowlist,
                                               const std::vector<std::string>& team_labels) {
  GPUCOST_ASSIGN_OR_RETURN(KubeRead read, ReadKube(flags, cluster, label_allowlist, team_labels));
  return std::move(read.state);
}

}  // namespace gpucost
