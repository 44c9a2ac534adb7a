// The metric names InventoryBuilder reads (kube-state-metrics, dcgm-exporter, AMD's device
// metrics exporter, the node agent and the AWS Neuron monitor).
// Sources that must ask for series by name (a Prometheus API) fetch exactly these; keep it in step
// with ksm_reader.cc, dcgm_reader.cc, agent_reader.cc, hami_reader.cc and neuron_reader.cc.
#pragma once

#include <array>
#include <string_view>

namespace gpucost {

inline constexpr std::array<std::string_view, 33> kInventoryMetricNames = {
    "kube_pod_container_resource_requests",
    "kube_pod_container_resource_limits",
    "kube_pod_status_phase",
    "kube_pod_info",
    "kube_pod_owner",
    "kube_replicaset_owner",
    "kube_job_owner",
    "kube_pod_labels",
    "kube_namespace_labels",
    "kube_node_labels",
    "kube_node_status_capacity",
    "kube_node_info",
    "kube_pod_container_info",
    "DCGM_FI_PROF_GR_ENGINE_ACTIVE",
    "DCGM_FI_PROF_GR_ENGINE_UTIL_RATIO",
    "DCGM_FI_DEV_GPU_UTIL",
    "DCGM_FI_DEV_GPU_UTIL_RATIO",
    "gpucost_agent_unit_activity_ratio",
    "gpucost_agent_holder_activity_ratio",
    "gpucost_agent_device_assignment",
    "gpucost_agent_gpu_info",
    "gpucost_agent_mig_instance_info",
    "gpucost_agent_nvml_supported",
    "hami_host_gpu_utilization_ratio",
    "hami_container_device_utilization_ratio",
    "HostCoreUtilization",
    "Device_utilization_desc_of_container",
    "neuroncore_utilization_ratio",
    "neuron_hardware_info",
    "gpu_gfx_activity",
    "amd_gpu_gfx_activity",
    "gpu_gfx_busy_instantaneous",
    "amd_gpu_gfx_busy_instantaneous",
};

}  // namespace gpucost
