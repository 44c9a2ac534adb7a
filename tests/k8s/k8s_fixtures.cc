#include "k8s/k8s_fixtures.h"

#include <openssl/evp.h>

#include <cstdio>
#include <fstream>
#include <sstream>
#include <stdexcept>

#include "core/strings.h"
#include "k8s/fake_apiserver.h"

namespace gpucost::k8s::testing {
namespace {

using nlohmann::json;

std::string Digest(const EVP_MD* md, std::string_view data) {
  unsigned char out[EVP_MAX_MD_SIZE];
  unsigned int len = 0;
  EVP_Digest(data.data(), data.size(), out, &len, md, nullptr);
  return std::string(reinterpret_cast<const char*>(out), len);
}

std::string Hex(std::string_view bytes) {
  std::string out;
  char buf[3];
  for (const char c : bytes) {
    std::snprintf(buf, sizeof buf, "%02x", static_cast<unsigned char>(c));
    out += buf;
  }
  return out;
}

// A stable small number for made-up addresses.
unsigned Octet(std::string_view seed, int which) {
  return static_cast<unsigned char>(Digest(EVP_sha256(), seed)[static_cast<size_t>(which)]) % 250 +
         2;
}

json Conditions(std::string_view time,
                std::initializer_list<std::tuple<const char*, bool, const char*>> list) {
  json out = json::array();
  for (const auto& [type, status, reason] : list) {
    json c = {{"type", type},
              {"status", status ? "True" : "False"},
              {"lastProbeTime", nullptr},
              {"lastTransitionTime", time}};
    if (reason[0] != '\0') c["reason"] = reason;
    out.push_back(std::move(c));
  }
  return out;
}

json Metadata(std::string_view kind, std::string_view ns, const std::string& name,
              const std::string& uid, const StringMap& labels, const StringMap& annotations,
              const std::vector<OwnerRef>& owners, const std::string& created) {
  json m = {{"name", name},
            {"uid", uid.empty() ? UidFor(kind, ns, name) : uid},
            {"resourceVersion", "1"},
            {"creationTimestamp", created}};
  if (!ns.empty()) m["namespace"] = ns;
  if (!labels.empty()) m["labels"] = labels;
  if (!annotations.empty()) m["annotations"] = annotations;
  if (!owners.empty()) {
    json refs = json::array();
    for (const OwnerRef& o : owners) {
      refs.push_back({{"apiVersion", o.api_version},
                      {"kind", o.kind},
                      {"name", o.name},
                      {"uid", o.uid.empty() ? UidFor(o.kind, ns, o.name) : o.uid},
                      {"controller", o.controller},
                      {"blockOwnerDeletion", o.block_owner_deletion}});
    }
    m["ownerReferences"] = std::move(refs);
  }
  return m;
}

// The API server defaults a container's requests to its limits where requests are not given.
StringMap EffectiveRequests(const Container& c) {
  StringMap requests = c.requests;
  for (const auto& [k, v] : c.limits) requests.emplace(k, v);
  return requests;
}

json ContainerSpec(const Container& c) {
  json resources = json::object();
  const StringMap requests = EffectiveRequests(c);
  if (!requests.empty()) resources["requests"] = requests;
  if (!c.limits.empty()) resources["limits"] = c.limits;
  return {{"name", c.name},
          {"image", c.image},
          {"resources", std::move(resources)},
          {"terminationMessagePath", "/dev/termination-log"},
          {"terminationMessagePolicy", "File"},
          {"imagePullPolicy", "IfNotPresent"}};
}

std::string QosClass(const std::vector<Container>& containers) {
  bool any = false;
  bool guaranteed = true;
  for (const Container& c : containers) {
    const StringMap requests = EffectiveRequests(c);
    for (const char* r : {"cpu", "memory"}) {
      const auto req = requests.find(r);
      const auto lim = c.limits.find(r);
      if (req != requests.end() || lim != c.limits.end()) any = true;
      if (lim == c.limits.end() || req == requests.end() || req->second != lim->second) {
        guaranteed = false;
      }
    }
  }
  if (!any) return "BestEffort";
  return guaranteed ? "Guaranteed" : "Burstable";
}

std::string ImageId(const std::string& image) {
  const size_t colon = image.rfind(':');
  const std::string repo = colon == std::string::npos || image.find('/', colon) != std::string::npos
                               ? image
                               : image.substr(0, colon);
  return StrCat(repo, "@sha256:", Hex(Digest(EVP_sha256(), image)));
}

std::string ContainerId(const std::string& pod_uid, const std::string& container) {
  return StrCat("containerd://", Hex(Digest(EVP_sha256(), StrCat(pod_uid, "/", container))));
}

// One containerStatuses entry for the pod's phase.
json ContainerStatus(const Container& c, const std::string& pod_uid, const PodOptions& o,
                     bool init) {
  const std::string& started = o.started.empty() ? o.created : o.started;
  json s = {
      {"name", c.name}, {"image", c.image}, {"lastState", json::object()}, {"restartCount", 0}};
  const bool terminated = init || o.phase == "Succeeded" || o.phase == "Failed";
  if (o.phase == "Pending") {
    s["state"] = {{"waiting", {{"reason", init ? "PodInitializing" : "ContainerCreating"}}}};
    s["imageID"] = "";
    s["ready"] = false;
    s["started"] = false;
    return s;
  }
  s["imageID"] = ImageId(c.image);
  s["containerID"] = ContainerId(pod_uid, c.name);
  if (terminated) {
    const bool ok = init || o.phase == "Succeeded";
    const std::string& finished = init ? started : (o.finished.empty() ? started : o.finished);
    s["state"] = {{"terminated",
                   {{"exitCode", ok ? 0 : o.exit_code},
                    {"reason", ok ? "Completed" : "Error"},
                    {"startedAt", started},
                    {"finishedAt", finished},
                    {"containerID", s["containerID"]}}}};
    s["ready"] = false;
    s["started"] = false;
  } else {
    s["state"] = {{"running", {{"startedAt", started}}}};
    s["ready"] = true;
    s["started"] = true;
  }
  return s;
}

json PodStatus(const PodOptions& o, const std::string& uid) {
  const std::string& started = o.started.empty() ? o.created : o.started;
  json status = {{"phase", o.phase}, {"qosClass", QosClass(o.containers)}};
  if (o.node.empty()) {
    json c = Conditions(o.created, {{"PodScheduled", false, "Unschedulable"}});
    c[0]["message"] =
        "0/7 nodes are available: 7 Insufficient nvidia.com/gpu. preemption: 0/7 "
        "nodes are available: 7 No preemption victims found for incoming pod.";
    status["conditions"] = std::move(c);
    return status;
  }
  const bool done = o.phase == "Succeeded" || o.phase == "Failed";
  const bool running = o.phase == "Running";
  const char* not_ready =
      done ? (o.phase == "Succeeded" ? "PodCompleted" : "PodFailed") : "ContainersNotReady";
  status["conditions"] =
      Conditions(started, {{"PodReadyToStartContainers", running, ""},
                           {"Initialized", true, done ? "PodCompleted" : ""},
                           {"Ready", running, running ? "" : not_ready},
                           {"ContainersReady", running, running ? "" : not_ready},
                           {"PodScheduled", true, ""}});
  status["conditions"][4]["lastTransitionTime"] = o.created;
  const std::string host_ip = StrCat("10.0.", Octet(o.node, 0), ".", Octet(o.node, 1));
  status["hostIP"] = host_ip;
  status["hostIPs"] = json::array({{{"ip", host_ip}}});
  if (!done) {
    const std::string pod_ip = StrCat("10.244.", Octet(uid, 0), ".", Octet(uid, 1));
    status["podIP"] = pod_ip;
    status["podIPs"] = json::array({{{"ip", pod_ip}}});
  }
  status["startTime"] = started;
  json statuses = json::array();
  for (const Container& c : o.containers) statuses.push_back(ContainerStatus(c, uid, o, false));
  status["containerStatuses"] = std::move(statuses);
  if (!o.init_containers.empty()) {
    json init = json::array();
    for (const Container& c : o.init_containers) init.push_back(ContainerStatus(c, uid, o, true));
    status["initContainerStatuses"] = std::move(init);
  }
  return status;
}

bool NeedsGpuToleration(const std::vector<Container>& containers) {
  for (const Container& c : containers) {
    for (const auto& [k, v] : EffectiveRequests(c)) {
      if (k.starts_with("nvidia.com/")) return true;
    }
  }
  return false;
}

json PodTemplate(const WorkloadOptions& o, const StringMap& labels, const char* restart) {
  Container c;
  c.image = o.image;
  c.limits = o.gpu_limits;
  json metadata = json::object();
  if (!labels.empty()) metadata["labels"] = labels;
  return {{"metadata", std::move(metadata)},
          {"spec",
           {{"containers", json::array({ContainerSpec(c)})},
            {"restartPolicy", restart},
            {"terminationGracePeriodSeconds", 30},
            {"dnsPolicy", "ClusterFirst"},
            {"schedulerName", "default-scheduler"}}}};
}

StringMap Selector(const WorkloadOptions& o) {
  return o.labels.empty() ? StringMap{{"app", o.name}} : o.labels;
}

json Workload(std::string_view kind, std::string_view api_version, const WorkloadOptions& o) {
  json w = {{"kind", kind},
            {"apiVersion", api_version},
            {"metadata",
             Metadata(kind, o.ns, o.name, o.uid, o.labels, o.annotations, o.owners, o.created)}};
  w["metadata"]["generation"] = 1;
  return w;
}

}  // namespace

std::string UidFor(std::string_view kind, std::string_view ns, std::string_view name) {
  // RFC 4122 version 5 in the URL namespace (6ba7b811-9dad-11d1-80b4-00c04fd430c8).
  static constexpr unsigned char kUrlNamespace[16] = {0x6b, 0xa7, 0xb8, 0x11, 0x9d, 0xad,
                                                      0x11, 0xd1, 0x80, 0xb4, 0x00, 0xc0,
                                                      0x4f, 0xd4, 0x30, 0xc8};
  const std::string input =
      StrCat(std::string_view(reinterpret_cast<const char*>(kUrlNamespace), 16), "gpucost-test/",
             kind, "/", ns, "/", name);
  std::string h = Digest(EVP_sha1(), input).substr(0, 16);
  h[6] = static_cast<char>((static_cast<unsigned char>(h[6]) & 0x0f) | 0x50);
  h[8] = static_cast<char>((static_cast<unsigned char>(h[8]) & 0x3f) | 0x80);
  const std::string x = Hex(h);
  return StrCat(x.substr(0, 8), "-", x.substr(8, 4), "-", x.substr(12, 4), "-", x.substr(16, 4),
                "-", x.substr(20));
}

OwnerRef Owner(std::string_view kind, std::string_view name) {
  std::string api_version = "v1";
  if (kind == "ReplicaSet" || kind == "Deployment" || kind == "StatefulSet" ||
      kind == "DaemonSet") {
    api_version = "apps/v1";
  } else if (kind == "Job" || kind == "CronJob") {
    api_version = "batch/v1";
  }
  return OwnerRef{api_version, std::string(kind), std::string(name), "", true, true};
}

nlohmann::json Pod(const PodOptions& o) {
  const std::string uid = o.uid.empty() ? UidFor("Pod", o.ns, o.name) : o.uid;
  json metadata = Metadata("Pod", o.ns, o.name, uid, o.labels, o.annotations, o.owners, o.created);
  bool job_owned = false;
  for (const OwnerRef& owner : o.owners) {
    if (!owner.controller) continue;
    job_owned = owner.kind == "Job";
    if (owner.kind == "ReplicaSet" || owner.kind == "Job" || owner.kind == "DaemonSet") {
      metadata["generateName"] = owner.name + "-";
    }
  }
  json containers = json::array();
  for (const Container& c : o.containers) containers.push_back(ContainerSpec(c));
  json tolerations = json::array({{{"key", "node.kubernetes.io/not-ready"},
                                   {"operator", "Exists"},
                                   {"effect", "NoExecute"},
                                   {"tolerationSeconds", 300}},
                                  {{"key", "node.kubernetes.io/unreachable"},
                                   {"operator", "Exists"},
                                   {"effect", "NoExecute"},
                                   {"tolerationSeconds", 300}}});
  if (NeedsGpuToleration(o.containers)) {
    tolerations.push_back(
        {{"key", "nvidia.com/gpu"}, {"operator", "Exists"}, {"effect", "NoSchedule"}});
  }
  json spec = {{"containers", std::move(containers)},
               {"restartPolicy", job_owned ? "Never" : "Always"},
               {"terminationGracePeriodSeconds", 30},
               {"dnsPolicy", "ClusterFirst"},
               {"serviceAccountName", "default"},
               {"serviceAccount", "default"},
               {"securityContext", json::object()},
               {"schedulerName", "default-scheduler"},
               {"tolerations", std::move(tolerations)},
               {"priority", 0},
               {"enableServiceLinks", true},
               {"preemptionPolicy", "PreemptLowerPriority"}};
  if (!o.node.empty()) spec["nodeName"] = o.node;
  if (!o.init_containers.empty()) {
    json init = json::array();
    for (const Container& c : o.init_containers) init.push_back(ContainerSpec(c));
    spec["initContainers"] = std::move(init);
  }
  return {{"kind", "Pod"},
          {"apiVersion", "v1"},
          {"metadata", std::move(metadata)},
          {"spec", std::move(spec)},
          {"status", PodStatus(o, uid)}};
}

nlohmann::json Node(const NodeOptions& o) {
  StringMap labels = o.labels;
  labels.emplace("kubernetes.io/hostname", o.name);
  labels.emplace("kubernetes.io/os", "linux");
  labels.emplace("kubernetes.io/arch", "amd64");
  labels.emplace("beta.kubernetes.io/os", "linux");
  labels.emplace("beta.kubernetes.io/arch", "amd64");
  StringMap annotations = o.annotations;
  annotations.emplace("node.alpha.kubernetes.io/ttl", "0");
  annotations.emplace("volumes.kubernetes.io/controller-managed-attach-detach", "true");
  StringMap capacity = o.capacity;
  for (const auto& [k, v] : StringMap{{"cpu", "16"},
                                      {"memory", "65842852Ki"},
                                      {"pods", "110"},
                                      {"ephemeral-storage", "203056560Ki"},
                                      {"hugepages-1Gi", "0"},
                                      {"hugepages-2Mi", "0"}}) {
    capacity.emplace(k, v);
  }
  const StringMap& allocatable = o.allocatable.empty() ? capacity : o.allocatable;
  const std::string cidr = StrCat("10.244.", Octet(o.name, 2), ".0/24");
  json spec = {{"podCIDR", cidr}, {"podCIDRs", json::array({cidr})}};
  if (!o.provider_id.empty()) spec["providerID"] = o.provider_id;
  if (o.unschedulable) spec["unschedulable"] = true;
  const std::string ip = StrCat("10.0.", Octet(o.name, 0), ".", Octet(o.name, 1));
  json conditions =
      Conditions(o.created, {{"MemoryPressure", false, "KubeletHasSufficientMemory"},
                             {"DiskPressure", false, "KubeletHasNoDiskPressure"},
                             {"PIDPressure", false, "KubeletHasSufficientPID"},
                             {"Ready", o.ready, o.ready ? "KubeletReady" : "NodeStatusUnknown"}});
  for (json& c : conditions) {
    c.erase("lastProbeTime");
    c["lastHeartbeatTime"] = o.created;
  }
  json status = {{"capacity", capacity},
                 {"allocatable", allocatable},
                 {"conditions", std::move(conditions)},
                 {"addresses", json::array({{{"type", "InternalIP"}, {"address", ip}},
                                            {{"type", "Hostname"}, {"address", o.name}}})},
                 {"daemonEndpoints", {{"kubeletEndpoint", {{"Port", 10250}}}}},
                 {"nodeInfo",
                  {{"machineID", Hex(Digest(EVP_sha256(), o.name)).substr(0, 32)},
                   {"systemUUID", UidFor("System", "", o.name)},
                   {"bootID", UidFor("Boot", "", o.name)},
                   {"kernelVersion", "5.15.0-1063-aws"},
                   {"osImage", "Ubuntu 22.04.4 LTS"},
                   {"containerRuntimeVersion", "containerd://1.7.12"},
                   {"kubeletVersion", "v1.30.2"},
                   {"kubeProxyVersion", "v1.30.2"},
                   {"operatingSystem", "linux"},
                   {"architecture", "amd64"}}}};
  return {{"kind", "Node"},
          {"apiVersion", "v1"},
          {"metadata", Metadata("Node", "", o.name, o.uid, labels, annotations, {}, o.created)},
          {"spec", std::move(spec)},
          {"status", std::move(status)}};
}

StringMap GfdLabels(std::string_view product, int count, int memory_mib, int replicas,
                    std::string_view sharing) {
  return {{"nvidia.com/gpu.present", "true"},
          {"nvidia.com/gpu.product", StrCat(product, replicas > 1 ? "-SHARED" : "")},
          {"nvidia.com/gpu.count", std::to_string(count)},
          {"nvidia.com/gpu.memory", std::to_string(memory_mib)},
          {"nvidia.com/gpu.replicas", std::to_string(replicas)},
          {"nvidia.com/gpu.sharing-strategy", std::string(sharing)},
          {"nvidia.com/cuda.driver-version.full", "550.90.07"},
          {"nvidia.com/cuda.runtime-version.full", "12.4"}};
}

nlohmann::json Namespace(const NamespaceOptions& o) {
  StringMap labels = o.labels;
  labels.emplace("kubernetes.io/metadata.name", o.name);
  return {
      {"kind", "Namespace"},
      {"apiVersion", "v1"},
      {"metadata", Metadata("Namespace", "", o.name, o.uid, labels, o.annotations, {}, o.created)},
      {"spec", {{"finalizers", json::array({"kubernetes"})}}},
      {"status", {{"phase", "Active"}}}};
}

nlohmann::json ReplicaSet(const WorkloadOptions& o) {
  json w = Workload("ReplicaSet", "apps/v1", o);
  const StringMap selector = Selector(o);
  w["spec"] = {{"replicas", o.replicas},
               {"selector", {{"matchLabels", selector}}},
               {"template", PodTemplate(o, selector, "Always")}};
  w["status"] = {{"replicas", o.replicas},
                 {"fullyLabeledReplicas", o.replicas},
                 {"readyReplicas", o.replicas},
                 {"availableReplicas", o.replicas},
                 {"observedGeneration", 1}};
  if (o.replicas == 0) w["status"] = {{"replicas", 0}, {"observedGeneration", 1}};
  return w;
}

nlohmann::json StatefulSet(const WorkloadOptions& o) {
  json w = Workload("StatefulSet", "apps/v1", o);
  const StringMap selector = Selector(o);
  const std::string revision = StrCat(o.name, "-", Hex(Digest(EVP_sha256(), o.name)).substr(0, 10));
  w["spec"] = {
      {"replicas", o.replicas},
      {"selector", {{"matchLabels", selector}}},
      {"serviceName", o.name},
      {"template", PodTemplate(o, selector, "Always")},
      {"podManagementPolicy", "OrderedReady"},
      {"updateStrategy", {{"type", "RollingUpdate"}, {"rollingUpdate", {{"partition", 0}}}}},
      {"revisionHistoryLimit", 10}};
  w["status"] = {{"observedGeneration", 1},
                 {"replicas", o.replicas},
                 {"readyReplicas", o.replicas},
                 {"currentReplicas", o.replicas},
                 {"updatedReplicas", o.replicas},
                 {"availableReplicas", o.replicas},
                 {"currentRevision", revision},
                 {"updateRevision", revision},
                 {"collisionCount", 0}};
  return w;
}

nlohmann::json DaemonSet(const WorkloadOptions& o) {
  json w = Workload("DaemonSet", "apps/v1", o);
  const StringMap selector = Selector(o);
  w["spec"] = {
      {"selector", {{"matchLabels", selector}}},
      {"template", PodTemplate(o, selector, "Always")},
      {"updateStrategy",
       {{"type", "RollingUpdate"}, {"rollingUpdate", {{"maxUnavailable", 1}, {"maxSurge", 0}}}}},
      {"revisionHistoryLimit", 10}};
  w["status"] = {{"currentNumberScheduled", o.replicas},
                 {"desiredNumberScheduled", o.replicas},
                 {"numberMisscheduled", 0},
                 {"numberReady", o.replicas},
                 {"numberAvailable", o.replicas},
                 {"updatedNumberScheduled", o.replicas},
                 {"observedGeneration", 1}};
  return w;
}

nlohmann::json Job(const WorkloadOptions& o) {
  WorkloadOptions with_labels = o;
  const std::string uid = o.uid.empty() ? UidFor("Job", o.ns, o.name) : o.uid;
  with_labels.uid = uid;
  const StringMap selector = {{"batch.kubernetes.io/controller-uid", uid}};
  StringMap template_labels = {{"batch.kubernetes.io/controller-uid", uid},
                               {"batch.kubernetes.io/job-name", o.name},
                               {"controller-uid", uid},
                               {"job-name", o.name}};
  for (const auto& [k, v] : template_labels) with_labels.labels.emplace(k, v);
  json w = Workload("Job", "batch/v1", with_labels);
  w["spec"] = {{"parallelism", o.replicas},
               {"completions", 1},
               {"backoffLimit", 6},
               {"completionMode", "NonIndexed"},
               {"suspend", false},
               {"manualSelector", false},
               {"podReplacementPolicy", "TerminatingOrFailed"},
               {"selector", {{"matchLabels", selector}}},
               {"template", PodTemplate(o, template_labels, "Never")}};
  json status = {{"startTime", o.created},
                 {"ready", 0},
                 {"terminating", 0},
                 {"uncountedTerminatedPods", json::object()}};
  if (o.finished.empty()) {
    status["active"] = o.replicas;
  } else {
    status["succeeded"] = 1;
    status["completionTime"] = o.finished;
    json conditions = Conditions(o.finished, {{"Complete", true, ""}});
    conditions[0]["lastProbeTime"] = o.finished;
    status["conditions"] = std::move(conditions);
  }
  w["status"] = std::move(status);
  return w;
}

nlohmann::json CronJob(const WorkloadOptions& o) {
  json w = Workload("CronJob", "batch/v1", o);
  w["spec"] = {{"schedule", o.schedule},
               {"concurrencyPolicy", "Forbid"},
               {"suspend", false},
               {"successfulJobsHistoryLimit", 3},
               {"failedJobsHistoryLimit", 1},
               {"jobTemplate",
                {{"metadata", json::object()},
                 {"spec", {{"backoffLimit", 2}, {"template", PodTemplate(o, {}, "OnFailure")}}}}}};
  w["status"] = json::object();
  return w;
}

nlohmann::json ClusterFixture() {
  const std::string path = StrCat(GPUCOST_SOURCE_DIR, "/tests/k8s/data/cluster.json");
  std::ifstream in(path);
  if (!in) throw std::runtime_error(StrCat("cannot read ", path));
  std::stringstream text;
  text << in.rdbuf();
  json cluster = json::parse(text.str(), nullptr, false);
  if (!cluster.is_object()) throw std::runtime_error(StrCat(path, ": not a JSON object"));
  return cluster;
}

void LoadClusterFixture(FakeApiServer& server) {
  const json cluster = ClusterFixture();
  for (const char* resource : {"namespaces", "nodes", "cronjobs", "jobs", "statefulsets",
                               "daemonsets", "replicasets", "pods"}) {
    if (!cluster.contains(resource)) continue;
    for (const json& object : cluster[resource]) server.Upsert(resource, object);
  }
}

}  // namespace gpucost::k8s::testing
