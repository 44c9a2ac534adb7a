// What the simulated cluster exposes at a scrape: kube-state-metrics' node, pod and owner series
// and dcgm-exporter's per-GPU (and per-MIG-instance) activity, as ClusterSimulator::Scrape writes
// them to its handler.
#include <algorithm>
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
  Family("DCGM_FI_PROF_GR_ENGINE_ACTIVE", "Ratio of time the graphics engine is active.");
  for (const Node& node : nodes_) {
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
      if (label != nullptr) {
        L("container", label->pod.container);
        L("namespace", kNamespaces[label->ns].ns);
        L("pod", label->pod.name);
      }
      Emit("DCGM_FI_PROF_GR_ENGINE_ACTIVE", Round6(activity));
    }
  }
}

}  // namespace gpucost::simulate
