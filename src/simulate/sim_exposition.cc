// What the simulated cluster exposes at a scrape: kube-state-metrics' node, pod and owner series
// and dcgm-exporter's per-GPU (and per-MIG-instance) activity, as ClusterSimulator::Scrape writes
// them to its handler.
#include <algorithm>
#include <cmath>
#include <string>
#include <string_view>

#include "core/strings.h"
#include "simulate/sim_impl.h"

namespace gpucost::simulate {

void ClusterSimulator::Impl::KubeStateMetrics() {
  Family("kube_node_labels", "Kubernetes labels converted to Prometheus labels.");
  for (const Node& node : nodes_) {
    Begin();
    for (const auto& [k, v] : node.labels) L(k, v);
    Emit("kube_node_labels", 1);
  }
  Family("kube_node_status_capacity", "The capacity for different resources of a node.");
  for (const Node& node : nodes_) {
    for (const auto& [res, v] : node.capacity) {
      Begin();
      L("node", node.name);
      L("resource", res);
      L("unit", res == "cpu" ? "core" : "integer");
      Emit("kube_node_status_capacity", static_cast<double>(v));
    }
  }
  Family("kube_namespace_labels", "Kubernetes labels converted to Prometheus labels.");
  for (int i = 0; i < options_.namespaces; ++i) {
    Begin();
    L("namespace", kNamespaces[i].ns);
    L("label_team", kNamespaces[i].team);
    Emit("kube_namespace_labels", 1);
  }
  Family("kube_pod_info", "Information about pod.");
  ForPods([&](const Node& node, const Slot& s) {
    Begin();
    PodLabels(s);
    L("host_ip", node.host_ip);
    L("pod_ip", s.pod.pod_ip);
    L("node", node.name);
    L("created_by_kind", s.pod.owner_kind);
    L("created_by_name", s.pod.owner_name);
    L("priority_class", "");
    L("host_network", "false");
    Emit("kube_pod_info", 1);
  });
  Family("kube_pod_owner", "Information about the Pod's owner.");
  ForPods([&](const Node&, const Slot& s) {
    Begin();
    PodLabels(s);
    L("owner_kind", s.pod.owner_kind);
    L("owner_name", s.pod.owner_name);
    L("owner_is_controller", "true");
    Emit("kube_pod_owner", 1);
  });
  Family("kube_replicaset_owner", "Information about the ReplicaSet's owner.");
  ForPods([&](const Node&, const Slot& s) {
    if (s.pod.replicaset.empty()) return;
    Begin();
    L("namespace", kNamespaces[s.ns].ns);
    L("replicaset", s.pod.replicaset);
    L("owner_kind", "Deployment");
    L("owner_name", s.deployment);
    L("owner_is_controller", "true");
    Emit("kube_replicaset_owner", 1);
  });
  Family("kube_job_owner", "Information about the Job's owner.");
  ForPods([&](const Node&, const Slot& s) {
    if (s.pod.owner_kind != "Job") return;
    Begin();
    L("namespace", kNamespaces[s.ns].ns);
    L("job_name", s.pod.owner_name);
    L("owner_kind", s.pod.cronjob.empty() ? "<none>" : "CronJob");
    L("owner_name",
      s.pod.cronjob.empty() ? std::string_view("<none>") : std::string_view(s.pod.cronjob));
    L("owner_is_controller", s.pod.cronjob.empty() ? "<none>" : "true");
    Emit("kube_job_owner", 1);
  });
  Family("kube_pod_labels", "Kubernetes labels converted to Prometheus labels.");
  ForPods([&](const Node&, const Slot& s) {
    Begin();
    PodLabels(s);
    L("label_app_kubernetes_io_name", s.pod.app);
    L("label_team", s.pod.team);
    L("label_workload_class", s.kind == Kind::kTraining   ? "training"
                              : s.kind == Kind::kNotebook ? "notebook"
                                                          : "inference");
    Emit("kube_pod_labels", 1);
  });
  Family("kube_pod_status_phase", "The pods current phase.");
  ForPods([&](const Node&, const Slot& s) {
    const Pod& p = s.pod;
    const std::string_view current = t_ms_ < p.running_ms ? "Pending"
                                     : t_ms_ < p.ends_ms  ? "Running"
                                     : p.failed           ? "Failed"
                                                          : "Succeeded";
    for (std::string_view phase : kPhases) {
      Begin();
      PodLabels(s);
      L("phase", phase);
      Emit("kube_pod_status_phase", phase == current ? 1 : 0);
    }
  });
  Family("kube_pod_container_resource_requests",
         "The number of requested request resource by a container.");
  ForPods([&](const Node& node, const Slot& s) {
    for (const Request& r : s.requests) {
      Begin();
      PodLabels(s);
      L("container", s.pod.container);
      L("node", node.name);
      L("resource", r.resource);
      L("unit", "integer");
      Emit("kube_pod_container_resource_requests", static_cast<double>(r.amount));
    }
  });
}

void ClusterSimulator::Impl::DcgmExporter() {
  Family("DCGM_FI_PROF_GR_ENGINE_ACTIVE", "Ratio of time the graphics engine is active (in %).");
  for (const Node& node : nodes_) {
    if (node.model->vendor != Vendor::kNvidia) continue;  // dcgm-exporter sees NVIDIA GPUs only
    for (const Unit& u : node.units) {
      double activity = 0;
      const Slot* label = nullptr;
      for (int si : u.slots) {
        const Slot& s = node.slots[static_cast<size_t>(si)];
        if (!s.pod.alive || t_ms_ < s.pod.running_ms || t_ms_ >= s.pod.ends_ms) continue;
        activity += Load(s) * s.load_scale;
        if (label == nullptr) label = &s;  // dcgm-exporter names one pod per device
      }
      Begin();
      L("gpu", gpu_index_[static_cast<size_t>(u.gpu)]);
      L("UUID", u.uuid);
      L("pci_bus_id", u.pci_bus_id);
      L("device", u.device);
      L("modelName", node.model->model_name);
      if (!u.gi.empty()) {
        L("GPU_I_PROFILE", u.profile);
        L("GPU_I_ID", u.gi);
      }
      L("Hostname", node.name);
      L("DCGM_FI_DRIVER_VERSION", "550.90.07");
      // A DRA GPU's holders are its claims' pods, which the API tells (no pod labels here).
      if (label != nullptr && !node.model->dra) {
        L("container", label->pod.container);
        L("namespace", kNamespaces[label->ns].ns);
        L("pod", label->pod.name);
      }
      Emit("DCGM_FI_PROF_GR_ENGINE_ACTIVE", Round6(activity));
    }
  }
}

void ClusterSimulator::Impl::AmdExporter() {
  bool whole = false, partitioned = false;
  for (const Node& node : nodes_) {
    if (node.model->vendor != Vendor::kAmd) continue;
    (node.model->amd_partitions > 1 ? partitioned : whole) = true;
  }
  if (whole) AmdWholeGpus();
  if (partitioned) AmdPartitions();
}

void ClusterSimulator::Impl::AmdWholeGpus() {
  Family("gpu_gfx_activity", "Graphics engine usage percentage (0 - 100)");
  for (const Node& node : nodes_) {
    if (node.model->vendor != Vendor::kAmd || node.model->amd_partitions > 1) continue;
    for (const Unit& u : node.units) {
      double activity = 0;
      const Slot* holder = nullptr;
      for (int si : u.slots) {
        const Slot& s = node.slots[static_cast<size_t>(si)];
        if (!s.pod.alive || t_ms_ < s.pod.running_ms || t_ms_ >= s.pod.ends_ms) continue;
        activity += Load(s) * s.load_scale;
        if (holder == nullptr) holder = &s;
      }
      Begin();
      L("card_series", node.model->model_name);
      L("gpu_compute_partition_type", "spx");
      L("gpu_id", gpu_index_[static_cast<size_t>(u.gpu)]);
      L("gpu_memory_partition_type", "nps1");
      L("gpu_partition_id", "0");
      L("gpu_uuid", u.uuid);
      L("hostname", node.name);
      // The exporter's mandatory pod labels, empty while no pod holds the GPU.
      L("container", holder != nullptr ? std::string_view(holder->pod.container) : "");
      L("namespace", holder != nullptr ? kNamespaces[holder->ns].ns : "");
      L("pod", holder != nullptr ? std::string_view(holder->pod.name) : "");
      Emit("gpu_gfx_activity", std::round(std::clamp(activity, 0.0, 1.0) * 1000) / 10);
    }
  }
}

void ClusterSimulator::Impl::AmdPartitions() {
  Family("gpu_gfx_busy_instantaneous", "GFX busy of each XCC of a compute partition");
  for (const Node& node : nodes_) {
    if (node.model->vendor != Vendor::kAmd || node.model->amd_partitions <= 1) continue;
    const int parts = node.model->amd_partitions;
    for (const Unit& u : node.units) {
      const Slot* holder = nullptr;
      for (int si : u.slots) {
        const Slot& s = node.slots[static_cast<size_t>(si)];
        if (s.pod.alive && t_ms_ >= s.pod.running_ms && t_ms_ < s.pod.ends_ms) holder = &s;
      }
      const double activity = holder != nullptr ? Load(*holder) * holder->load_scale : 0;
      const size_t p = static_cast<size_t>(std::stoi(u.gi));
      // Partitions share their GPU's serial number; the exporter numbers each partition as a
      // GPU of its own (gpu_id), and a CPX partition has one XCC.
      const std::string serial = StrCat(u.uuid.substr(4, 8), u.uuid.substr(13, 4));
      Begin();
      L("card_model", "102-G30211-0C");
      L("gpu_compute_partition_type", u.profile);
      L("gpu_id", gpu_index_[static_cast<size_t>(u.gpu * parts) + p]);
      L("gpu_memory_partition_type", "nps4");
      L("gpu_partition_id", gpu_index_[p]);
      L("hostname", node.name);
      L("serial_number", serial);
      L("xcc_index", gpu_index_[0]);
      L("container", holder != nullptr ? std::string_view(holder->pod.container) : "");
      L("namespace", holder != nullptr ? kNamespaces[holder->ns].ns : "");
      L("pod", holder != nullptr ? std::string_view(holder->pod.name) : "");
      Emit("gpu_gfx_busy_instantaneous", std::round(std::clamp(activity, 0.0, 1.0) * 1000) / 10);
    }
  }
}

void ClusterSimulator::Impl::NeuronNodeInfo() {
  bool any = false;
  for (const Node& node : nodes_) any = any || !node.instance_id.empty();
  if (!any) return;
  Family("kube_node_info", "Information about a cluster node.");
  for (const Node& node : nodes_) {
    if (node.instance_id.empty()) continue;
    Begin();
    L("node", node.name);
    provider_id_ = StrCat("aws:///", node.zone, "/", node.instance_id);
    L("provider_id", provider_id_);
    Emit("kube_node_info", 1);
  }
}

void ClusterSimulator::Impl::NeuronMonitor() {
  bool any = false;
  for (const Node& node : nodes_) any = any || node.model->vendor == Vendor::kAwsNeuron;
  if (!any) return;
  // neuron-monitor-prometheus.py's instance labels, in its order.
  const auto instance = [&](const Node& node) {
    L("availability_zone", node.zone);
    L("instance_id", node.instance_id);
    L("instance_name", "");
    L("instance_type", node.model->instance_type);
    L("region", "us-east-1");
    L("subnet_id", "subnet-0sim");
  };
  Family("neuron_hardware_info", "Neuron Hardware Information");
  for (const Node& node : nodes_) {
    if (node.model->vendor != Vendor::kAwsNeuron) continue;
    Begin();
    instance(node);
    L("neuron_device_count", gpu_index_[static_cast<size_t>(node.gpus)]);
    L("neuroncore_per_device_count", gpu_index_[static_cast<size_t>(node.model->neuron_cores)]);
    Emit("neuron_hardware_info", 1);
  }
  // One series per core a running pod uses (the exporter drops the others): every core of a
  // device request, the first core of a one-core request.
  Family("neuroncore_utilization_ratio", "NeuronCore utilization ratio");
  for (const Node& node : nodes_) {
    if (node.model->vendor != Vendor::kAwsNeuron) continue;
    const int cores = node.model->neuron_cores;
    for (const Unit& u : node.units) {
      for (int si : u.slots) {
        const Slot& s = node.slots[static_cast<size_t>(si)];
        if (!s.pod.alive || t_ms_ < s.pod.running_ms || t_ms_ >= s.pod.ends_ms) continue;
        // A DRA claim's pod (no requests) holds its devices' every core.
        const bool one_core =
            !s.requests.empty() && s.requests.front().resource == "aws_amazon_com_neuroncore";
        for (int c = 0; c < (one_core ? 1 : cores); ++c) {
          Begin();
          instance(node);
          L("neuroncore", gpu_index_[static_cast<size_t>(u.gpu * cores + c)]);
          L("runtime_tag", gpu_index_[static_cast<size_t>(si)]);
          Emit("neuroncore_utilization_ratio", Round6(Load(s)));
        }
      }
    }
  }
}

}  // namespace gpucost::simulate
