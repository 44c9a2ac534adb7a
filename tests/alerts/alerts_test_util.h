// Builds the inputs of the alert tests: kube-state-metrics and dcgm-exporter exposition (the
// series gpucost reads, one sample per scrape) for nodes and pods with a chosen GPU activity per
// scrape, written to a file the gpucost binary reads.
#pragma once

#include <cstdint>
#include <cstdio>
#include <functional>
#include <map>
#include <string>
#include <vector>

namespace gpucost::testing_util {

class Exposition {
 public:
  // Samples every `interval_s` from `t0_s`, `scrapes` of them.
  Exposition(int64_t t0_s, int64_t interval_s, int scrapes)
      : t0_s_(t0_s), interval_s_(interval_s), scrapes_(scrapes) {}

  // kube_node_labels (GPU product, count, Karpenter capacity type "on-demand"/"spot") and
  // kube_node_status_capacity for the scrapes [from, to).
  void Node(const std::string& name, const std::string& product, const std::string& capacity,
            int gpus = 1) {
    for (int i = 0; i < scrapes_; ++i) {
      Add("kube_node_labels",
          "node=\"" + name + "\",label_nvidia_com_gpu_product=\"" + product +
              "\",label_nvidia_com_gpu_count=\"" + std::to_string(gpus) +
              "\",label_karpenter_sh_capacity_type=\"" + capacity + "\"",
          1, i);
      Add("kube_node_status_capacity",
          "node=\"" + name + "\",resource=\"nvidia_com_gpu\",unit=\"integer\"", gpus, i);
    }
  }

  // A running pod of a Job holding `gpus` whole GPUs on `node`, with pod labels `labels`
  // (already sanitized: {"team", "ml"} becomes label_team="ml").
  void Pod(const std::string& ns, const std::string& pod, const std::string& job,
           const std::string& node, int gpus,
           const std::map<std::string, std::string>& labels = {}) {
    const std::string base =
        "namespace=\"" + ns + "\",pod=\"" + pod + "\",uid=\"uid-" + ns + "-" + pod + "\"";
    std::string pod_labels = base;
    for (const auto& [k, v] : labels) pod_labels += ",label_" + k + "=\"" + v + "\"";
    for (int i = 0; i < scrapes_; ++i) {
      Add("kube_pod_info",
          base + ",node=\"" + node + "\",created_by_kind=\"Job\",created_by_name=\"" + job + "\"",
          1, i);
      Add("kube_pod_owner",
          base + ",owner_kind=\"Job\",owner_name=\"" + job + "\",owner_is_controller=\"true\"", 1,
          i);
      Add("kube_pod_status_phase", base + ",phase=\"Running\"", 1, i);
      Add("kube_pod_container_resource_requests",
          base + ",container=\"main\",node=\"" + node +
              "\",resource=\"nvidia_com_gpu\",unit=\"integer\"",
          gpus, i);
      if (!labels.empty()) Add("kube_pod_labels", pod_labels, 1, i);
    }
  }

  // DCGM_FI_PROF_GR_ENGINE_ACTIVE (0-1) of GPU `gpu` of `node`, attributed to the pod, at each
  // scrape i where activity(i) >= 0 (a negative value: no sample then).
  void Dcgm(const std::string& node, int gpu, const std::string& model, const std::string& ns,
            const std::string& pod, const std::function<double(int)>& activity) {
    char uuid[64];
    std::snprintf(uuid, sizeof uuid, "GPU-%08x-0000-4000-8000-%012d",
                  static_cast<unsigned>(std::hash<std::string>()(node)), gpu);
    const std::string labels = "gpu=\"" + std::to_string(gpu) + "\",UUID=\"" + uuid +
                               "\",device=\"nvidia" + std::to_string(gpu) + "\",modelName=\"" +
                               model + "\",Hostname=\"" + node +
                               "\",container=\"main\",namespace=\"" + ns + "\",pod=\"" + pod + "\"";
    for (int i = 0; i < scrapes_; ++i) {
      const double v = activity(i);
      if (v >= 0) Add("DCGM_FI_PROF_GR_ENGINE_ACTIVE", labels, v, i);
    }
  }

  std::string Text() const {
    std::string out;
    for (const auto& [name, lines] : series_) {
      out += "# TYPE " + name + " gauge\n";
      for (const std::string& l : lines) out += l;
    }
    return out;
  }

  int64_t t0_s() const { return t0_s_; }
  int64_t end_s() const { return t0_s_ + interval_s_ * scrapes_; }

 private:
  void Add(const std::string& name, const std::string& labels, double value, int i) {
    char v[64];
    std::snprintf(v, sizeof v, "%.17g", value);
    series_[name].push_back(name + "{" + labels + "} " + v + " " +
                            std::to_string((t0_s_ + interval_s_ * i) * 1000) + "\n");
  }

  int64_t t0_s_;
  int64_t interval_s_;
  int scrapes_;
  std::map<std::string, std::vector<std::string>> series_;
};

}  // namespace gpucost::testing_util
