// The Kubernetes API's DRA objects as the tests' fake API server serves them (resource.k8s.io/v1),
// and the real `gpucost report --kubeconfig` run against it: shared by tests/k8s/dra_kube_test.cc
// and amd_dra_kube_test.cc.
#pragma once

#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <string>

#include "cli/cli_test_util.h"
#include "k8s/fake_apiserver.h"
#include "k8s/k8s_fixtures.h"

namespace gpucost::k8s::dra_api {

using json = nlohmann::json;
using testing::FakeApiServer;
using testing_util::TempDir;
namespace fx = testing;

inline constexpr const char* kStart = "2026-10-01T00:00:00Z";

inline json GpuDevice(const std::string& name, const std::string& uuid) {
  return {{"name", name},
          {"attributes",
           {{"type", {{"string", "gpu"}}},
            {"uuid", {{"string", uuid}}},
            {"productName", {{"string", "NVIDIA H100 80GB HBM3"}}},
            {"driverVersion", {{"version", "570.124.6"}}},
            {"resource.kubernetes.io/pciBusID", {{"string", "0000:18:00.0"}}}}},
          {"capacity", {{"memory", {{"value", "81559Mi"}}}}}};
}

inline json Slice(const std::string& name, int generation, json devices,
                  const std::string& driver = "gpu.nvidia.com") {
  return {{"metadata", {{"name", name}}},
          {"spec",
           {{"driver", driver},
            {"nodeName", "dra-1"},
            {"pool", {{"name", "dra-1"}, {"generation", generation}, {"resourceSliceCount", 1}}},
            {"devices", std::move(devices)}}}};
}

inline json Claim(const std::string& name, const std::string& device, json reserved_for,
                  json owners = json::array(), const std::string& driver = "gpu.nvidia.com") {
  json c = json::object();
  c["metadata"] = {{"namespace", "ml"}, {"name", name}, {"ownerReferences", std::move(owners)}};
  json request = json::object();
  request["name"] = "gpu";
  request["exactly"] = {{"deviceClassName", driver}, {"count", 1}};
  c["spec"]["devices"]["requests"] = json::array({request});
  json result = json::object();
  result["request"] = "gpu";
  result["driver"] = driver;
  result["pool"] = "dra-1";
  result["device"] = device;
  c["status"]["allocation"]["devices"]["results"] = json::array({result});
  c["status"]["reservedFor"] = std::move(reserved_for);
  return c;
}

inline json Reserved(const std::string& pod) {
  return {{"resource", "pods"}, {"name", pod}, {"uid", fx::UidFor("Pod", "ml", pod)}};
}

// A pod whose one container uses pod claim "gpu": a claim by name, or one made from a template
// whose generated name the pod's status gives.
inline json DraPod(const std::string& name, const std::string& claim, bool from_template) {
  json p = fx::Pod({.ns = "ml",
                    .name = name,
                    .node = "dra-1",
                    .containers = {fx::Container{.name = "main"}},
                    .created = kStart,
                    .started = kStart});
  json ref = {{"name", "gpu"}};
  if (from_template) {
    ref["resourceClaimTemplateName"] = "one-gpu";
    json status = json::object();
    status["name"] = "gpu";
    status["resourceClaimName"] = claim;
    p["status"]["resourceClaimStatuses"] = json::array({status});
  } else {
    ref["resourceClaimName"] = claim;
  }
  p["spec"]["resourceClaims"] = json::array({ref});
  json use = json::object();
  use["name"] = "gpu";
  p["spec"]["containers"][0]["resources"]["claims"] = json::array({use});
  return p;
}

// A kubeconfig naming the fake API server, with no credentials.
inline std::string WriteKubeconfig(const TempDir& dir, const FakeApiServer& server) {
  const std::string kc = (dir.path() / "kc.yaml").string();
  std::ofstream(kc) << "apiVersion: v1\nkind: Config\ncurrent-context: t\nclusters:\n- name: f\n"
                    << "  cluster:\n    server: " << server.url() << "\ncontexts:\n- name: t\n"
                    << "  context:\n    cluster: f\n    user: u\nusers:\n- name: u\n  user: {}\n";
  return kc;
}

// The real `gpucost report --kubeconfig KC` over the hour from kStart, by pod, accumulated, as
// JSON at $12 a GPU-hour; `more` goes on the command line (inputs, redirections).
inline std::string ReportCommand(const std::string& kc, const std::string& more) {
  return std::string(GPUCOST_BINARY) + " report --kubeconfig " + kc +
         " --by pod --accumulate --format json --price-per-gpu-hour 12 --window "
         "2026-10-01T00:00:00Z,2026-10-01T01:00:00Z " +
         more;
}

// kube-state-metrics' series, one sample a minute for the hour from kStart, of running pod
// `pod` (namespace ml, uid `uid`) on `node` whose container main asks for `count` of `resource`
// (KSM's spelling).
inline std::string PodRequestSeries(const std::string& pod, const std::string& uid,
                                    const std::string& node, const std::string& resource,
                                    int count) {
  std::string out;
  const std::string labels = "namespace=\"ml\",pod=\"" + pod + "\",uid=\"" + uid + "\"";
  for (int64_t t = 1790812800; t < 1790816400; t += 60) {
    const std::string at = " " + std::to_string(t * 1000) + "\n";
    out += "kube_pod_info{" + labels + ",node=\"" + node +
           "\",created_by_kind=\"\",created_by_name=\"\"} 1" + at;
    out += "kube_pod_status_phase{" + labels + ",phase=\"Running\"} 1" + at;
    out += "kube_pod_container_resource_requests{" + labels + ",container=\"main\",node=\"" + node +
           "\",resource=\"" + resource + "\",unit=\"integer\"} " + std::to_string(count) + at;
  }
  return out;
}

// A `report --by pod --accumulate --format json` document's allocated money by pod, and idle.
inline std::map<std::string, double> AllocatedByPod(const json& doc, double& idle) {
  std::map<std::string, double> allocated;
  idle = 0;
  for (const json& row : doc["rows"]) {
    if (row["pod"] == "__idle__") {
      idle += row["idle_usd"].get<double>();
    } else {
      allocated[row["pod"].get<std::string>()] = row["allocated_usd"].get<double>();
    }
  }
  return allocated;
}

}  // namespace gpucost::k8s::dra_api
