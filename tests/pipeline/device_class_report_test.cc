// DRA devices asked for by a DeviceClass's extended resource ("deviceclass.resource.kubernetes.io/
// <class>" or the class's extendedResourceName) through the real inventory builder and engine:
// kube-state-metrics shows such a request as the extended resource, which the pod holds as many
// of the class's devices as, once the API no longer shows the claim the scheduler made for it
// (docs/k8s.md "Device classes"). Expected values are worked out by hand; every case conserves
// cost (dra_report_fixture.h).
#include <gtest/gtest.h>

#include <string>

#include "pipeline/dra_report_fixture.h"

namespace gpucost {
namespace {

using namespace dra_report_fixture;  // NOLINT(google-build-using-namespace)

// kube-state-metrics' series of a running pod on n1 asking for `count` of `resource` (its
// sanitized spelling), one sample a minute over [from, to).
std::string RequestSeries(const std::string& pod, const std::string& resource, int count,
                          int64_t from, int64_t to) {
  std::string out;
  const std::string labels = "namespace=\"ml\",pod=\"" + pod + "\",uid=\"uid-" + pod + "\"";
  for (int64_t s = from; s < to; s += 60) {
    const std::string at = " " + std::to_string((kBase + s) * 1000) + "\n";
    out += "kube_pod_info{" + labels + ",node=\"n1\"} 1" + at;
    out += "kube_pod_status_phase{" + labels + ",phase=\"Running\"} 1" + at;
    out += "kube_pod_container_resource_requests{" + labels +
           ",container=\"main\",node=\"n1\",resource=\"" + resource + "\",unit=\"integer\"} " +
           std::to_string(count) + at;
  }
  return out;
}

KubeDeviceClass Class(const std::string& name, const std::string& extended, const std::string& type,
                      const std::string& profile = "") {
  return {name, extended, "gpu.nvidia.com", type, profile, T(0)};
}

// Four GPUs only NVIDIA's driver describes. Pod a asked for one device of the gpu.nvidia.com class
// for half the hour, pod b for two by the extended resource its cluster's "accel" class names,
// for the hour; the API no longer shows either. Each holds as many whole GPUs: 0.5 + 2 GPU-hours
// of the 4, the rest idle.
TEST(DeviceClassReport, SeriesRequestsByClassHoldTheClassesDevices) {
  KubeState k = OneDraNode();
  k.dra_devices = {Gpu("n1", "gpu-0", "GPU-a"), Gpu("n1", "gpu-1", "GPU-b"),
                   Gpu("n1", "gpu-2", "GPU-c"), Gpu("n1", "gpu-3", "GPU-d")};
  k.dra_classes = {Class("gpu.nvidia.com", "nvidia.com/gpu", "gpu"),
                   Class("accel", "example.com/accel", "gpu")};
  const std::string series =
      RequestSeries("a", "deviceclass_resource_kubernetes_io_gpu_nvidia_com", 1, 0, 1800) +
      RequestSeries("b", "example_com_accel", 2, 0, 3600);
  Money m = Attribute(k, series);
  EXPECT_NEAR(m.cost, 4 * kPrice, 1e-9);
  EXPECT_NEAR(m.gpu_hours["a/main"], 0.5, 1e-9);
  EXPECT_NEAR(m.allocated["a/main"], 0.5 * kPrice, 1e-9);
  EXPECT_NEAR(m.gpu_hours["b/main"], 2, 1e-9);
  EXPECT_NEAR(m.allocated["b/main"], 2 * kPrice, 1e-9);
  EXPECT_NEAR(m.idle, 1.5 * kPrice, 1e-9);
  EXPECT_TRUE(m.warnings.empty()) << ::testing::PrintToString(m.warnings);

  // Without the API's classes, the drivers' default classes are known, "accel" is not (and its
  // name does not read like a GPU's, so it is nobody's business here).
  k.dra_classes.clear();
  Money defaults = Attribute(k, series);
  EXPECT_NEAR(defaults.allocated["a/main"], 0.5 * kPrice, 1e-9);
  EXPECT_EQ(defaults.allocated.count("b/main"), 0u);
  EXPECT_NEAR(defaults.idle, 3.5 * kPrice, 1e-9);
}

// While the API shows the pod, the claim the scheduler made for its extended resource
// (status.extendedResourceClaimStatus) is what it holds: the series of the extended resource
// stand for the claim, not for more devices, and are no unknown resource.
TEST(DeviceClassReport, TheClaimServingAClassRequestHoldsOnce) {
  KubeState k = OneDraNode();
  k.dra_devices = {Gpu("n1", "gpu-0", "GPU-a"), Gpu("n1", "gpu-1", "GPU-b")};
  k.dra_classes = {Class("gpu.nvidia.com", "nvidia.com/gpu", "gpu")};
  const KubeDraAllocation x = Allocation("a-extended-resources-xyz", "n1", "gpu-1", {"a"});
  k.dra_allocations = {x};
  KubePod p = Pod("a", "n1", {}, 0, 3600);
  p.resources.push_back({"main",
                         DraClaimResource(x.claim),
                         1,
                         false,
                         {"deviceclass.resource.kubernetes.io/gpu.nvidia.com"}});
  k.pods = {p};
  Money m = Attribute(
      k, RequestSeries("a", "deviceclass_resource_kubernetes_io_gpu_nvidia_com", 1, 0, 3600));
  EXPECT_NEAR(m.cost, 2 * kPrice, 1e-9);
  EXPECT_NEAR(m.gpu_hours["a/main"], 1, 1e-9);
  EXPECT_NEAR(m.allocated["a/main"], kPrice, 1e-9);
  EXPECT_NEAR(m.idle, kPrice, 1e-9);
  EXPECT_TRUE(m.warnings.empty()) << ::testing::PrintToString(m.warnings);
}

// A class whose selectors pin a MIG profile is that profile's MIG devices (1g.5gb: 1/7 of an
// A100 on the compute weight); one that pins no profile, on a node with two, could be either and
// is told, naming pod, node and class, not guessed.
TEST(DeviceClassReport, MigClassesAreTheirProfilesUnits) {
  KubeState k = OneDraNode();
  k.dra_devices = {Gpu("n1", "gpu-0", "GPU-a"), Mig("n1", "gpu-0-mig-1", "GPU-a", "1g.5gb"),
                   Mig("n1", "gpu-0-mig-2", "GPU-a", "1g.5gb"),
                   Mig("n1", "gpu-0-mig-3", "GPU-a", "3g.20gb")};
  k.dra_classes = {Class("mig-small", "", "mig", "1g.5gb"), Class("mig.nvidia.com", "", "mig")};
  const std::string series =
      RequestSeries("small", "deviceclass_resource_kubernetes_io_mig_small", 2, 0, 3600) +
      RequestSeries("any", "deviceclass_resource_kubernetes_io_mig_nvidia_com", 1, 0, 3600);
  Money m = Attribute(k, series);
  EXPECT_NEAR(m.gpu_hours["small/main"], 2.0 / 7, 1e-9);
  EXPECT_NEAR(m.allocated["small/main"], 2.0 / 7 * kPrice, 1e-9);
  EXPECT_EQ(m.allocated.count("any/main"), 0u);
  EXPECT_TRUE(Told(m, "pod ml/any on node n1 asks for 1 devices of DeviceClass mig.nvidia.com"))
      << ::testing::PrintToString(m.warnings);
  EXPECT_TRUE(Told(m, "nvidia.com/mig-1g.5gb, nvidia.com/mig-3g.20gb"))
      << ::testing::PrintToString(m.warnings);
}

// A class the API does not show whose name reads like a GPU's is told, not silently dropped.
TEST(DeviceClassReport, AnUnknownGpuClassIsTold) {
  KubeState k = OneDraNode();
  k.dra_devices = {Gpu("n1", "gpu-0", "GPU-a")};
  k.dra_classes = {Class("gpu.nvidia.com", "nvidia.com/gpu", "gpu")};
  KubePod p = Pod("a", "n1", {}, 0, 3600);
  p.resources.push_back(
      {"main", "deviceclass.resource.kubernetes.io/gpu.example.com", 1, false, {}});
  k.pods = {p};
  Money m = Attribute(k);
  EXPECT_NEAR(m.idle, kPrice, 1e-9);
  EXPECT_TRUE(Told(m,
                   "pod ml/a asks for devices of DeviceClass gpu.example.com, which the "
                   "Kubernetes API does not show"))
      << ::testing::PrintToString(m.warnings);
}

}  // namespace
}  // namespace gpucost
