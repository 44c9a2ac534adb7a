#include "demo/demo_cluster.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

#include "core/strings.h"

namespace gpucost {
namespace {

constexpr const char* kNode = "gpu-a100-1";
constexpr const char* kGpuUuid = "GPU-5f8e2c1a-7b3d-4e9f-a2c6-1d0b9e8f7a65";
constexpr const char* kModel = "NVIDIA A100-SXM4-40GB";

struct DemoPod {
  const char* ns;
  const char* pod;
  const char* uid;
  const char* container;
  const char* owner_kind;  // of the pod
  const char* owner_name;
  int gpu_instance_id;
  double base;       // mean activity of the slice
  double amplitude;  // slow variation over the hour
};

// bu-a trains (3 slices, busy), bu-b serves (2 slices, moderate), bu-c has notebooks (mostly idle).
constexpr DemoPod kPods[] = {
    {"bu-a", "llm-finetune-0", "a1f0c3d2-0000-4000-8000-000000000001", "trainer", "Job",
     "llm-finetune", 7, 0.86, 0.06},
    {"bu-a", "llm-finetune-1", "a1f0c3d2-0000-4000-8000-000000000002", "trainer", "Job",
     "llm-finetune", 8, 0.84, 0.07},
    {"bu-a", "llm-finetune-2", "a1f0c3d2-0000-4000-8000-000000000003", "trainer", "Job",
     "llm-finetune", 9, 0.81, 0.08},
    {"bu-b", "ranker-7c9d8f6b5-k2x9p", "b2e1d4c3-0000-4000-8000-000000000004", "server",
     "ReplicaSet", "ranker-7c9d8f6b5", 10, 0.42, 0.15},
    {"bu-b", "ranker-7c9d8f6b5-q8w4z", "b2e1d4c3-0000-4000-8000-000000000005", "server",
     "ReplicaSet", "ranker-7c9d8f6b5", 11, 0.38, 0.15},
    {"bu-c", "notebook-ana-0", "c3d2e5f4-0000-4000-8000-000000000006", "notebook", "StatefulSet",
     "notebook-ana", 12, 0.04, 0.03},
    {"bu-c", "notebook-raj-0", "c3d2e5f4-0000-4000-8000-000000000007", "notebook", "StatefulSet",
     "notebook-raj", 13, 0.06, 0.05},
};

// SplitMix64: a tiny deterministic generator so the demo prints the same numbers everywhere.
uint64_t Mix(uint64_t x) {
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

double Noise(uint64_t a, uint64_t b) {
  return static_cast<double>(Mix(a * 1000003 + b) >> 11) / 9007199254740992.0 - 0.5;
}

std::string Seconds(Instant t) {
  const int64_t ms = UnixMs(t);
  return ms % 1000 == 0 ? std::to_string(ms / 1000) : FormatDouble(static_cast<double>(ms) / 1000);
}

}  // namespace

DemoCluster MakeDemoCluster(Instant start) {
  DemoCluster demo;
  demo.window = Window{start, start + std::chrono::hours(1)};
  const int scrapes = 3600 / DemoCluster::kScrapeIntervalS;
  std::vector<Instant> times;
  for (int i = 0; i < scrapes; ++i) times.push_back(start + std::chrono::seconds(i * DemoCluster::kScrapeIntervalS));

  std::string& out = demo.openmetrics;
  out.reserve(1 << 20);
  // OpenMetrics wants all samples of a family together, each series in time order.
  auto family = [&](const char* name, const char* type, const char* help) {
    out += StrCat("# TYPE ", name, " ", type, "\n# HELP ", name, " ", help, "\n");
  };
  auto series = [&](const std::string& name_and_labels, auto value_at) {
    for (size_t i = 0; i < times.size(); ++i) {
      out += StrCat(name_and_labels, " ", FormatDouble(value_at(i)), " ", Seconds(times[i]), "\n");
    }
  };

  family("kube_node_labels", "gauge", "Kubernetes labels converted to Prometheus labels.");
  series(StrCat("kube_node_labels{node=\"", kNode,
                "\",label_nvidia_com_gpu_product=\"A100-SXM4-40GB-MIG-1g.5gb\","
                "label_nvidia_com_gpu_count=\"7\",label_nvidia_com_gpu_replicas=\"1\","
                "label_nvidia_com_mig_strategy=\"single\",label_nvidia_com_mig_config=\"all-1g.5gb\","
                "label_node_kubernetes_io_instance_type=\"a2-highgpu-1g\","
                "label_topology_kubernetes_io_region=\"us-central1\"}"),
         [](size_t) { return 1.0; });

  family("kube_node_status_capacity", "gauge", "The capacity for different resources of a node.");
  series(StrCat("kube_node_status_capacity{node=\"", kNode,
                "\",resource=\"nvidia_com_gpu\",unit=\"integer\"}"),
         [](size_t) { return 7.0; });

  family("kube_namespace_labels", "gauge", "Kubernetes labels converted to Prometheus labels.");
  for (const char* ns : {"bu-a", "bu-b", "bu-c"}) {
    series(StrCat("kube_namespace_labels{namespace=\"", ns, "\",label_team=\"", ns, "\"}"),
           [](size_t) { return 1.0; });
  }

  auto pod_labels = [](const DemoPod& p) {
    return StrCat("namespace=\"", p.ns, "\",pod=\"", p.pod, "\",uid=\"", p.uid, "\"");
  };

  family("kube_pod_info", "gauge", "Information about pod.");
  for (const DemoPod& p : kPods) {
    series(StrCat("kube_pod_info{", pod_labels(p), ",host_ip=\"10.0.0.4\",node=\"", kNode,
                  "\",created_by_kind=\"", p.owner_kind, "\",created_by_name=\"", p.owner_name,
                  "\",priority_class=\"\",host_network=\"false\"}"),
           [](size_t) { return 1.0; });
  }
  family("kube_pod_owner", "gauge", "Information about the Pod's owner.");
  for (const DemoPod& p : kPods) {
    series(StrCat("kube_pod_owner{", pod_labels(p), ",owner_kind=\"", p.owner_kind,
                  "\",owner_name=\"", p.owner_name, "\",owner_is_controller=\"true\"}"),
           [](size_t) { return 1.0; });
  }
  family("kube_replicaset_owner", "gauge", "Information about the ReplicaSet's owner.");
  series("kube_replicaset_owner{namespace=\"bu-b\",replicaset=\"ranker-7c9d8f6b5\","
         "owner_kind=\"Deployment\",owner_name=\"ranker\",owner_is_controller=\"true\"}",
         [](size_t) { return 1.0; });
  family("kube_pod_status_phase", "gauge", "The pods current phase.");
  for (const DemoPod& p : kPods) {
    for (const char* phase : {"Pending", "Running", "Succeeded", "Failed", "Unknown"}) {
      const double v = std::string_view(phase) == "Running" ? 1.0 : 0.0;
      series(StrCat("kube_pod_status_phase{", pod_labels(p), ",phase=\"", phase, "\"}"),
             [v](size_t) { return v; });
    }
  }
  family("kube_pod_container_resource_requests", "gauge",
         "The number of requested request resource by a container.");
  for (const DemoPod& p : kPods) {
    series(StrCat("kube_pod_container_resource_requests{", pod_labels(p), ",container=\"",
                  p.container, "\",node=\"", kNode,
                  "\",resource=\"nvidia_com_gpu\",unit=\"integer\"}"),
           [](size_t) { return 1.0; });
  }

  family("DCGM_FI_PROF_GR_ENGINE_ACTIVE", "gauge",
         "Ratio of time the graphics engine is active (in %).");
  for (size_t k = 0; k < std::size(kPods); ++k) {
    const DemoPod& p = kPods[k];
    const std::string labels = StrCat(
        "DCGM_FI_PROF_GR_ENGINE_ACTIVE{gpu=\"0\",UUID=\"", kGpuUuid,
        "\",pci_bus_id=\"00000000:00:04.0\",device=\"nvidia0\",modelName=\"", kModel,
        "\",GPU_I_PROFILE=\"1g.5gb\",GPU_I_ID=\"", p.gpu_instance_id, "\",Hostname=\"", kNode,
        "\",DCGM_FI_DRIVER_VERSION=\"550.90.07\",container=\"", p.container, "\",namespace=\"",
        p.ns, "\",pod=\"", p.pod, "\"}");
    series(labels, [&, k](size_t i) {
      const double phase = 2.0 * 3.14159265358979 * static_cast<double>(i) / static_cast<double>(scrapes);
      double v = p.base + p.amplitude * std::sin(phase + static_cast<double>(k)) +
                 0.04 * Noise(k + 1, i);
      v = std::clamp(v, 0.0, 1.0);
      return std::round(v * 1e6) / 1e6;  // dcgm-exporter prints six decimals
    });
  }
  out += "# EOF\n";
  return demo;
}

}  // namespace gpucost
