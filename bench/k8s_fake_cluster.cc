// A large synthetic cluster served by the test suite's fake Kubernetes API server (the real wire
// protocol: paged lists, watches, bookmarks), with pod churn at a steady rate, for measuring the
// informers' memory and CPU (bench/k8s-informer.sh, docs/perf.md "Kubernetes API source").
//
//   k8s_fake_cluster --nodes 5000 --pods 100000 --events-per-second 50 --port-file PORT
//
// Nodes have 8 GPUs of a few models and sharing modes; --gpu-pod-fraction of the pods ask for GPUs
// (whole GPUs, MIG slices or time-sliced replicas, by their node), the rest only for CPU. Each
// churn event replaces one pod (a DELETED and an ADDED event, as a Job's or a rollout's would) or
// updates one pod's status (MODIFIED), alternately. Runs until killed.
#include <fstream>
#include <iostream>
#include <random>
#include <string>
#include <thread>

#include "k8s/fake_apiserver.h"
#include "k8s/k8s_fixtures.h"

namespace fx = gpucost::k8s::testing;

namespace {

struct Flags {
  int nodes = 5000;
  int pods = 100000;
  int namespaces = 200;
  double gpu_pod_fraction = 0.4;
  double events_per_second = 50;
  std::string port_file;
};

nlohmann::json MakePod(int i, const Flags& f, std::mt19937_64& rng, int generation) {
  const int node = i % f.nodes;
  const std::string ns = "team-" + std::to_string(i % f.namespaces);
  const std::string name = "pod-" + std::to_string(i) + "-g" + std::to_string(generation);
  std::uniform_real_distribution<double> u(0, 1);
  fx::Container c;
  c.name = "main";
  c.requests = {{"cpu", "2"}, {"memory", "8Gi"}};
  c.limits = {{"memory", "8Gi"}};
  if (u(rng) < f.gpu_pod_fraction) {
    const int kind = node % 4;
    const std::string res = kind == 1 ? "nvidia.com/mig-1g.10gb" : "nvidia.com/gpu";
    c.requests[res] = "1";
    c.limits[res] = "1";
  }
  std::vector<fx::OwnerRef> owners = {fx::Owner("ReplicaSet", "app-" + std::to_string(i % 997) + "-7d4b9c8f6d")};
  return fx::Pod({.ns = ns, .name = name, .node = "node-" + std::to_string(node), .owners = owners,
                  .containers = {c},
                  .labels = {{"app.kubernetes.io/name", "app-" + std::to_string(i % 997)},
                             {"team", "team-" + std::to_string(i % 40)},
                             {"pod-template-hash", "7d4b9c8f6d"}},
                  .annotations = {{"kubectl.kubernetes.io/restartedAt", "2026-10-01T00:00:00Z"}},
                  .created = "2026-10-01T00:00:00Z",
                  .started = "2026-10-01T00:00:10Z"});
}

}  // namespace

int main(int argc, char** argv) {
  Flags f;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string k = argv[i];
    const std::string v = argv[i + 1];
    if (k == "--nodes") f.nodes = std::stoi(v);
    else if (k == "--pods") f.pods = std::stoi(v);
    else if (k == "--namespaces") f.namespaces = std::stoi(v);
    else if (k == "--gpu-pod-fraction") f.gpu_pod_fraction = std::stod(v);
    else if (k == "--events-per-second") f.events_per_second = std::stod(v);
    else if (k == "--port-file") f.port_file = v;
    else {
      std::cerr << "unknown flag " << k << "\n";
      return 2;
    }
  }
  fx::FakeApiServer server;
  std::mt19937_64 rng(1);
  static const char* kProducts[] = {"NVIDIA-H100-80GB-HBM3", "NVIDIA-A100-SXM4-80GB-MIG-1g.10gb",
                                    "Tesla-T4-SHARED", "NVIDIA-L4"};
  for (int n = 0; n < f.nodes; ++n) {
    const int kind = n % 4;
    // MIG single strategy: GFD counts the slices, as the device plugin offers them.
    fx::StringMap labels = fx::GfdLabels(kProducts[kind], kind == 1 ? 56 : 8, kind == 2 ? 15360 : 81920,
                                         kind == 2 ? 4 : 1, kind == 2 ? "time-slicing" : "none");
    if (kind == 1) {
      labels["nvidia.com/mig.strategy"] = "single";
      labels["nvidia.com/mig.config"] = "all-1g.10gb";
    }
    labels["node.kubernetes.io/instance-type"] = kind == 0 ? "p5.48xlarge" : "g6.48xlarge";
    labels["topology.kubernetes.io/zone"] = "us-east-1a";
    labels["karpenter.sh/capacity-type"] = n % 3 == 0 ? "spot" : "on-demand";
    const std::string gpus = kind == 1 ? "56" : kind == 2 ? "32" : "8";
    server.Upsert("nodes", fx::Node({.name = "node-" + std::to_string(n), .labels = labels,
                                     .capacity = {{"nvidia.com/gpu", gpus}},
                                     .provider_id = "aws:///us-east-1a/i-" + std::to_string(100000 + n)}));
  }
  for (int i = 0; i < f.namespaces; ++i) {
    server.Upsert("namespaces", fx::Namespace({.name = "team-" + std::to_string(i),
                                               .labels = {{"team", "team-" + std::to_string(i % 40)}}}));
  }
  for (int i = 0; i < 997; ++i) {
    for (int ns = 0; ns < f.namespaces; ns += 50) {
      server.Upsert("replicasets", fx::ReplicaSet({.ns = "team-" + std::to_string(ns),
                                                   .name = "app-" + std::to_string(i) + "-7d4b9c8f6d",
                                                   .owners = {fx::Owner("Deployment", "app-" + std::to_string(i))}}));
    }
  }
  std::vector<int> generation(f.pods, 0);
  for (int i = 0; i < f.pods; ++i) server.Upsert("pods", MakePod(i, f, rng, 0));
  std::cerr << "k8s_fake_cluster: " << f.nodes << " nodes, " << f.pods << " pods at "
            << server.url() << "\n";
  if (!f.port_file.empty()) std::ofstream(f.port_file) << server.port() << "\n";
  // Churn at a steady rate, until killed.
  const auto period = std::chrono::nanoseconds(static_cast<int64_t>(1e9 / f.events_per_second));
  auto next = std::chrono::steady_clock::now();
  std::uniform_int_distribution<int> pick(0, f.pods - 1);
  for (uint64_t k = 0;; ++k) {
    const int i = pick(rng);
    const std::string ns = "team-" + std::to_string(i % f.namespaces);
    if (k % 2 == 0) {
      // A pod replaced: two events.
      server.Delete("pods", ns, "pod-" + std::to_string(i) + "-g" + std::to_string(generation[i]));
      server.Upsert("pods", MakePod(i, f, rng, ++generation[i]));
      next += period;  // two events: two periods
    } else {
      auto pod = server.Get("pods", ns, "pod-" + std::to_string(i) + "-g" + std::to_string(generation[i]));
      if (pod) {
        (*pod)["status"]["conditions"].push_back({{"type", "Ready"}, {"status", "True"},
                                                  {"lastTransitionTime", "2026-10-01T00:01:00Z"}});
        server.Upsert("pods", *pod);
      }
    }
    next += period;
    std::this_thread::sleep_until(next);
  }
}
