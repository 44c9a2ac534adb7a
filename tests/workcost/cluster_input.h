// The small cluster the unit-cost command tests read, as Prometheus text with millisecond
// timestamps: one node with two A100s for ten minutes; ml/vllm-a (Deployment vllm) holds GPU 0
// at 50 % activity and serves requests, research/exp-2-x (Job exp-2) holds GPU 1 and reports
// no work, ml/frontend-0 serves requests without a GPU.
#pragma once

#include <cstdint>
#include <sstream>
#include <string>

namespace gpucost::workcost_test {

inline constexpr int64_t kT0 = 1790812800000;  // 2026-10-01T00:00:00Z

// Requests served by ml/vllm-a, one sample a minute: rises of 50 with a restart at minute 3
// (200 -> 20 counts 20): 8 x 50 + 20 = 420 requests over the window.
inline constexpr double kRequests[10] = {100, 150, 200, 20, 70, 120, 170, 220, 270, 320};

inline std::string ClusterText() {
  std::ostringstream o;
  for (int i = 0; i < 10; ++i) {
    const std::string t = " " + std::to_string(kT0 + i * 60000) + "\n";
    o << "kube_node_labels{node=\"n1\",label_nvidia_com_gpu_product=\"NVIDIA-A100-SXM4-80GB\","
         "label_nvidia_com_gpu_count=\"2\"} 1"
      << t;
    o << "kube_node_status_capacity{node=\"n1\",resource=\"nvidia_com_gpu\",unit=\"integer\"} 2"
      << t;
    struct Pod {
      const char* ns;
      const char* pod;
      const char* owner_kind;
      const char* owner;
      int gpu;
      const char* activity;
    };
    for (const Pod& p : {Pod{"ml", "vllm-a", "ReplicaSet", "vllm-5d8f7c9b4", 0, "0.5"},
                         Pod{"research", "exp-2-x", "Job", "exp-2", 1, "1"}}) {
      const std::string id =
          std::string("namespace=\"") + p.ns + "\",pod=\"" + p.pod + "\",uid=\"uid-" + p.pod + "\"";
      o << "kube_pod_info{" << id << ",node=\"n1\"} 1" << t;
      o << "kube_pod_owner{" << id << ",owner_kind=\"" << p.owner_kind << "\",owner_name=\""
        << p.owner << "\",owner_is_controller=\"true\"} 1" << t;
      o << "kube_pod_status_phase{" << id << ",phase=\"Running\"} 1" << t;
      o << "kube_pod_container_resource_requests{" << id
        << ",container=\"main\",node=\"n1\",resource=\"nvidia_com_gpu\",unit=\"integer\"} 1" << t;
      o << "DCGM_FI_PROF_GR_ENGINE_ACTIVE{gpu=\"" << p.gpu << "\",UUID=\"GPU-aaaa0000-0000-4000-"
        << "8000-00000000000" << p.gpu << "\",modelName=\"NVIDIA A100-SXM4-80GB\","
        << "Hostname=\"n1\",container=\"main\",namespace=\"" << p.ns << "\",pod=\"" << p.pod
        << "\"} " << p.activity << t;
    }
    o << "vllm:request_success_total{namespace=\"ml\",pod=\"vllm-a\",model_name=\"llama\"} "
      << kRequests[i] << t;
    // Scraped by a Prometheus that relabelled the target's own pod labels: 1000 tokens a minute.
    o << "vllm:generation_tokens_total{namespace=\"monitoring\",pod=\"prometheus-0\","
         "exported_namespace=\"ml\",exported_pod=\"vllm-a\"} "
      << 1000 * i << t;
    // A pod that holds no GPU serving the same counter: not joined.
    o << "vllm:request_success_total{namespace=\"ml\",pod=\"frontend-0\"} " << 3 * i << t;
  }
  return o.str();
}

}  // namespace gpucost::workcost_test
