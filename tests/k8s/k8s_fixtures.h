// Builders of Kubernetes API objects shaped like the real server's JSON (Pod, Node, Namespace,
// ReplicaSet, StatefulSet, DaemonSet, Job, CronJob), and the small GPU cluster of
// tests/k8s/data/cluster.json (its README says what each object is for). Options structs take
// designated initializers; what is left out gets a plausible default. UIDs and container ids are
// derived from kind/namespace/name, so an owner reference built by Owner() matches the uid of
// the object built with the same names. Stateless and thread-safe.
#pragma once

#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

namespace gpucost::k8s::testing {

class FakeApiServer;

using StringMap = std::map<std::string, std::string>;

inline constexpr std::string_view kFixtureTime = "2024-06-01T08:00:00Z";

// A deterministic RFC 4122 version 5 UUID for an object ("Pod", "ml", "trainer-0").
std::string UidFor(std::string_view kind, std::string_view ns, std::string_view name);

struct OwnerRef {
  std::string api_version{};  // "apps/v1", "batch/v1"
  std::string kind{};         // "ReplicaSet", "Deployment", "Job", "CronJob", ...
  std::string name{};
  std::string uid{};  // empty: UidFor(kind, <the owned object's namespace>, name)
  bool controller = true;
  bool block_owner_deletion = true;
};

// A controller reference to `kind`/`name`, with the apiVersion Kubernetes uses for that kind.
OwnerRef Owner(std::string_view kind, std::string_view name);

struct Container {
  std::string name = "main";
  std::string image = "nvcr.io/nvidia/pytorch:24.05-py3";
  StringMap requests{};  // quantities as the API writes them: "500m", "8Gi", "1"
  StringMap limits{};    // also copied into requests where those lack the key, as the API does
};

struct PodOptions {
  std::string ns = "default";
  std::string name{};
  std::string uid{};              // empty: UidFor("Pod", ns, name)
  std::string node{};             // spec.nodeName; empty: not scheduled
  std::string phase = "Running";  // Pending, Running, Succeeded, Failed
  std::vector<OwnerRef> owners{};
  std::vector<Container> containers = {Container{}};
  std::vector<Container> init_containers{};  // shown as completed once the pod has started
  StringMap labels{};
  StringMap annotations{};
  std::string created = std::string(kFixtureTime);
  std::string started{};   // status.startTime and containers' startedAt; empty: `created`
  std::string finished{};  // containers' finishedAt for Succeeded/Failed; empty: `started`
  int exit_code = 0;       // of the containers of a Failed pod (Succeeded: 0)
};
nlohmann::json Pod(const PodOptions& o);

struct NodeOptions {
  std::string name{};
  std::string uid{};   // empty: UidFor("Node", "", name)
  StringMap labels{};  // kubernetes.io/hostname, os and arch are added when missing
  StringMap annotations{};
  StringMap capacity{};       // over defaults: cpu 16, memory ~63Gi, pods 110, storage, hugepages
  StringMap allocatable{};    // empty: the capacity
  std::string provider_id{};  // spec.providerID: "aws:///us-east-1a/i-0123...", "gce://..."
  std::string created = std::string(kFixtureTime);
  bool ready = true;
  bool unschedulable = false;
};
nlohmann::json Node(const NodeOptions& o);

// GPU Feature Discovery labels for a node of `count` whole GPUs, each `memory_mib`, offered as
// `replicas` shares each (1: unshared) under `sharing` ("none", "time-slicing", "mps"), the way
// the device plugin names the product ("-SHARED" suffix when shared).
StringMap GfdLabels(std::string_view product, int count, int memory_mib, int replicas = 1,
                    std::string_view sharing = "none");

struct NamespaceOptions {
  std::string name{};
  std::string uid{};   // empty: UidFor("Namespace", "", name)
  StringMap labels{};  // kubernetes.io/metadata.name is added, as the API server does
  StringMap annotations{};
  std::string created = std::string(kFixtureTime);
};
nlohmann::json Namespace(const NamespaceOptions& o);

struct WorkloadOptions {
  std::string ns = "default";
  std::string name{};
  std::string uid{};  // empty: UidFor(<kind>, ns, name)
  std::vector<OwnerRef> owners{};
  StringMap labels{};
  StringMap annotations{};
  std::string created = std::string(kFixtureTime);
  int replicas = 1;  // ReplicaSet, StatefulSet; DaemonSet's scheduled count; Job parallelism
  std::string image = "nvcr.io/nvidia/pytorch:24.05-py3";
  StringMap gpu_limits{};              // the pod template's resources.limits
  std::string schedule = "0 2 * * *";  // CronJob
  std::string finished{};              // Job: completionTime and a Complete condition
};
nlohmann::json ReplicaSet(const WorkloadOptions& o);
nlohmann::json StatefulSet(const WorkloadOptions& o);
nlohmann::json DaemonSet(const WorkloadOptions& o);
nlohmann::json Job(const WorkloadOptions& o);
nlohmann::json CronJob(const WorkloadOptions& o);

// tests/k8s/data/cluster.json: {"pods": [...], "nodes": [...], ...}, keyed by resource name.
// Throws std::runtime_error when the file cannot be read or parsed.
nlohmann::json ClusterFixture();
// Upserts every object of ClusterFixture() into `server` (namespaces and nodes first, pods
// last, as a cluster would have created them).
void LoadClusterFixture(FakeApiServer& server);

}  // namespace gpucost::k8s::testing
