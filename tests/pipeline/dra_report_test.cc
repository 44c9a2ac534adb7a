// Kubernetes Dynamic Resource Allocation through the real inventory builder and engine: what the
// API says (ResourceSlices, allocated ResourceClaims, pods using them) becomes units, holders and
// money. Expected values are worked out by hand from the model (docs/k8s.md "Dynamic Resource
// Allocation"), and every case conserves cost: allocated + idle = the node's GPU cost.
#include <gtest/gtest.h>

#include <map>
#include <string>

#include "pipeline/dra_report_fixture.h"

namespace gpucost {
namespace {

using namespace dra_report_fixture;  // NOLINT(google-build-using-namespace)

// An exclusive claim holds its whole GPU for the pod's 30 minutes; the node's other GPU, and the
// claimed one outside the pod's time, are idle.
TEST(DraReport, ExclusiveClaimHoldsItsGpu) {
  KubeState k = OneDraNode();
  k.dra_devices = {Gpu("n1", "gpu-0", "GPU-a"), Gpu("n1", "gpu-1", "GPU-b")};
  k.dra_allocations = {Allocation("train-0-gpu-x1", "n1", "gpu-1", {"train-0"})};
  k.pods = {Pod("train-0", "n1", {{"main", "train-0-gpu-x1"}}, 0, 1800)};
  Money m = Attribute(k);
  EXPECT_NEAR(m.cost, 2 * kPrice, 1e-9);  // two GPUs for the hour
  EXPECT_NEAR(m.allocated["train-0/main"], 0.5 * kPrice, 1e-9);
  EXPECT_NEAR(m.gpu_hours["train-0/main"], 0.5, 1e-9);
  EXPECT_NEAR(m.idle, 1.5 * kPrice, 1e-9);
  EXPECT_EQ(m.sharing["n1"], "dra");  // its claims hand its GPUs out
}

// A claim reserved for two pods: each holds half of the GPU while it runs; a pod with two
// containers that use the claim splits its half between them.
TEST(DraReport, SharedClaimSplitsItsGpuAmongItsPods) {
  KubeState k = OneDraNode();
  k.dra_devices = {Gpu("n1", "gpu-0", "GPU-a")};
  k.dra_allocations = {Allocation("shared", "n1", "gpu-0", {"infer-a", "infer-b"})};
  k.pods = {Pod("infer-a", "n1", {{"main", "shared"}}, 0, 3600),
            Pod("infer-b", "n1", {{"server", "shared"}, {"sidecar", "shared"}}, 0, 3600)};
  Money m = Attribute(k);
  EXPECT_NEAR(m.allocated["infer-a/main"], 0.5 * kPrice, 1e-9);
  EXPECT_NEAR(m.allocated["infer-b/server"], 0.25 * kPrice, 1e-9);
  EXPECT_NEAR(m.allocated["infer-b/sidecar"], 0.25 * kPrice, 1e-9);
  EXPECT_NEAR(m.idle, 0, 1e-9);
  for (const std::string& w : m.warnings) {
    EXPECT_EQ(w.find("oversubscribed"), std::string::npos) << w;
  }
}

// A claim's pods share its device as they come and go, not by the list the API gave when read:
// two pods the claim is reserved for that run one after the other each hold the whole GPU while
// they run; a pod that has finished (no longer in reservedFor) shared it with the one still
// running while both ran.
TEST(DraReport, ClaimPodsShareTheDeviceWhileTheyRun) {
  KubeState k = OneDraNode();
  k.dra_devices = {Gpu("n1", "gpu-0", "GPU-a")};
  k.dra_allocations = {Allocation("relay", "n1", "gpu-0", {"first", "second"})};
  k.pods = {Pod("first", "n1", {{"main", "relay"}}, 0, 1800),
            Pod("second", "n1", {{"main", "relay"}}, 1800, 3600)};
  Money relay = Attribute(k);
  EXPECT_NEAR(relay.allocated["first/main"], 0.5 * kPrice, 1e-9);
  EXPECT_NEAR(relay.allocated["second/main"], 0.5 * kPrice, 1e-9);
  EXPECT_NEAR(relay.idle, 0, 1e-9);

  k.dra_allocations = {Allocation("relay", "n1", "gpu-0", {"second"})};
  k.pods = {Pod("first", "n1", {{"main", "relay"}}, 0, 1800),
            Pod("second", "n1", {{"main", "relay"}}, 0, 3600)};
  Money overlap = Attribute(k);
  EXPECT_NEAR(overlap.allocated["first/main"], 0.25 * kPrice, 1e-9);   // half of the GPU, 30 min
  EXPECT_NEAR(overlap.allocated["second/main"], 0.75 * kPrice, 1e-9);  // half, then all of it
  EXPECT_NEAR(overlap.idle, 0, 1e-9);
  for (const std::string& w : overlap.warnings) {
    EXPECT_EQ(w.find("exceeding"), std::string::npos) << w;  // not oversubscribed
  }
}

// The node agent's series for one whole GPU of node n1, a sample a minute: the GPU's activity
// and, with `per_process`, that every process was measured and the parts of the GPU's activity
// the listed pods' "main" containers ran.
std::string AgentSeries(const std::string& uuid, double gpu, bool per_process,
                        const std::vector<std::pair<std::string, double>>& pods = {}) {
  std::string out;
  for (int64_t t = 0; t < 3600; t += 60) {
    const std::string at = " " + std::to_string((kBase + t) * 1000) + "\n";
    const std::string gpu_labels = "node=\"n1\",gpu_uuid=\"" + uuid + "\"";
    out += "gpucost_agent_gpu_info{" + gpu_labels +
           ",gpu_index=\"0\",model=\"NVIDIA A100-SXM4-40GB\",mig_mode=\"disabled\"} 1" + at;
    out += "gpucost_agent_unit_activity_ratio{" + gpu_labels + ",source=\"gpm\"} " +
           std::to_string(gpu) + at;
    if (!per_process) continue;
    out += "gpucost_agent_nvml_supported{" + gpu_labels +
           ",call=\"nvmlDeviceGetProcessUtilization\"} 1" + at;
    for (const auto& [pod, part] : pods) {
      out += "gpucost_agent_holder_activity_ratio{" + gpu_labels + ",pod_uid=\"uid-" + pod +
             "\",namespace=\"ml\",pod=\"" + pod + "\",container=\"main\"} " + std::to_string(part) +
             at;
    }
  }
  return out;
}

// With the node agent, a shared claim's pods are measured per claim, as on a time-sliced GPU: a
// pod's part of the GPU's activity is its own processes', and a pod with no process on the GPU
// is measured idle. Without the agent's per-process series the GPU's activity is split by share
// (estimated).
TEST(DraReport, SharedClaimIsMeasuredPerPodByTheAgent) {
  KubeState k = OneDraNode();
  k.dra_devices = {Gpu("n1", "gpu-0", "GPU-a")};
  k.dra_allocations = {Allocation("shared", "n1", "gpu-0", {"infer-a", "infer-b"})};
  k.pods = {Pod("infer-a", "n1", {{"main", "shared"}}, 0, 3600),
            Pod("infer-b", "n1", {{"main", "shared"}}, 0, 3600)};

  Money measured = Attribute(k, AgentSeries("GPU-a", 0.6, true, {{"infer-a", 0.45}}));
  EXPECT_NEAR(measured.allocated["infer-a/main"], 0.5 * kPrice, 1e-9);
  EXPECT_NEAR(measured.effective["infer-a/main"], 0.45 * kPrice, 1e-9);  // u = 0.45 / 0.5
  EXPECT_NEAR(measured.effective["infer-b/main"], 0, 1e-9);              // no process: idle
  EXPECT_FALSE(measured.estimated["infer-a/main"]);
  EXPECT_FALSE(measured.estimated["infer-b/main"]);

  // Only the GPU's activity (per-process utilization not supported): each pod is credited half
  // of it, marked estimated.
  Money split = Attribute(k, AgentSeries("GPU-a", 0.6, false));
  EXPECT_NEAR(split.effective["infer-a/main"], 0.3 * kPrice, 1e-9);
  EXPECT_NEAR(split.effective["infer-b/main"], 0.3 * kPrice, 1e-9);
  EXPECT_TRUE(split.estimated["infer-a/main"]);
}

// The node agent's DRA assignments (PodResources dynamic_resources) place nothing, but tell a claim
// the API data lacks (its GPU would be idle unnoticed) and a device placed elsewhere than the API
// says.
TEST(DraReport, AgentClaimAssignmentsAreCheckedAgainstTheApi) {
  KubeState k = OneDraNode();
  k.dra_devices = {Gpu("n1", "gpu-0", "GPU-a"), Gpu("n1", "gpu-1", "GPU-b")};
  k.dra_allocations = {Allocation("own", "n1", "gpu-0", {"train-0"})};
  k.pods = {Pod("train-0", "n1", {{"main", "own"}}, 0, 3600)};
  const auto assignment = [](const std::string& pod, const std::string& claim,
                             const std::string& device, const std::string& uuid) {
    std::string out;
    for (int64_t t = 0; t < 3600; t += 60) {
      out += "gpucost_agent_device_assignment{node=\"n1\",namespace=\"ml\",pod=\"" + pod +
             "\",container=\"main\",resource=\"resource.k8s.io/claim/" + claim +
             "\",device_id=\"gpu.nvidia.com/n1/" + device + "\",gpu_uuid=\"" + uuid +
             "\",gpu_instance_id=\"\",replica=\"\"} 1 " + std::to_string((kBase + t) * 1000) + "\n";
    }
    return out;
  };
  const auto told = [](const Money& m, const std::string& text) {
    for (const std::string& w : m.warnings) {
      if (w.find(text) != std::string::npos) return true;
    }
    return false;
  };

  Money agree = Attribute(k, assignment("train-0", "own", "gpu-0", "GPU-a"));
  EXPECT_TRUE(agree.warnings.empty()) << agree.warnings.front();
  EXPECT_NEAR(agree.allocated["train-0/main"], kPrice, 1e-9);

  Money unknown = Attribute(k, assignment("serve-0", "serve-0-gpu", "gpu-1", "GPU-b"));
  EXPECT_TRUE(told(unknown,
                   "node agent: ml/serve-0 container main holds device gpu.nvidia.com/n1/gpu-1 of "
                   "DRA claim serve-0-gpu on node n1, which the Kubernetes API data does not show "
                   "allocated to it"))
      << ::testing::PrintToString(unknown.warnings);
  EXPECT_NEAR(unknown.idle, kPrice, 1e-9);  // money unchanged: GPU-b stays idle

  Money elsewhere = Attribute(k, assignment("train-0", "own", "gpu-1", "GPU-b"));
  EXPECT_TRUE(told(elsewhere, "(GPU GPU-b), but the API places the claim on GPU-a"))
      << ::testing::PrintToString(elsewhere.warnings);
  EXPECT_NEAR(elsewhere.allocated["train-0/main"], kPrice, 1e-9);
}

// An exclusive claim's GPU stands for its one pod (DESIGN.md): its activity is the pod's, even
// where the agent's per-process part is lower.
TEST(DraReport, ExclusiveClaimTakesItsGpusActivity) {
  KubeState k = OneDraNode();
  k.dra_devices = {Gpu("n1", "gpu-0", "GPU-a")};
  k.dra_allocations = {Allocation("own", "n1", "gpu-0", {"train-0"})};
  k.pods = {Pod("train-0", "n1", {{"main", "own"}}, 0, 3600)};
  Money m = Attribute(k, AgentSeries("GPU-a", 0.6, true, {{"train-0", 0.4}}));
  EXPECT_NEAR(m.effective["train-0/main"], 0.6 * kPrice, 1e-9);
  EXPECT_FALSE(m.estimated["train-0/main"]);
}

// MIG devices through DRA: units with their profile's fraction of the parent GPU; the GPU's
// slices no device covers are idle capacity.
TEST(DraReport, MigDevicesAreUnitsWithTheirFraction) {
  KubeState k = OneDraNode();
  k.dra_devices = {Mig("n1", "gpu-0-mig-1g5gb-19-0", "GPU-a", "1g.5gb"),
                   Mig("n1", "gpu-0-mig-3g20gb-9-4", "GPU-a", "3g.20gb")};
  k.dra_allocations = {Allocation("small", "n1", "gpu-0-mig-1g5gb-19-0", {"nb-0"}),
                       Allocation("big", "n1", "gpu-0-mig-3g20gb-9-4", {"train-0"})};
  k.pods = {Pod("nb-0", "n1", {{"main", "small"}}, 0, 3600),
            Pod("train-0", "n1", {{"main", "big"}}, 0, 3600)};
  Money m = Attribute(k);
  EXPECT_NEAR(m.cost, kPrice, 1e-9);  // one physical A100
  EXPECT_NEAR(m.allocated["nb-0/main"], kPrice / 7, 1e-9);
  EXPECT_NEAR(m.allocated["train-0/main"], 3 * kPrice / 7, 1e-9);
  EXPECT_NEAR(m.idle, 3 * kPrice / 7, 1e-9);  // 3 of 7 compute slices not partitioned
  EXPECT_EQ(m.sharing["n1"], "mig");          // the MIG layout says what its units are
}

// NVIDIA's DynamicMIG: the slice lists the GPU and every MIG device it could make (no UUIDs),
// overlapping placements included, and the driver makes the MIG devices claims need. The GPU is
// one unit; a claim of a MIG device holds its profile's fraction of it while its pod runs, a
// claim of the GPU all of it. Placements nobody claims are not units: what is not held is idle.
TEST(DraReport, DynamicMigDevicesArePartsOfTheirGpu) {
  KubeState k = OneDraNode();
  k.dra_devices = {Gpu("n1", "gpu-0", "GPU-a")};
  for (const char* name :
       {"gpu-0-mig-1g5gb-19-0", "gpu-0-mig-1g5gb-19-1", "gpu-0-mig-1g5gb-19-2",
        "gpu-0-mig-3g20gb-9-0", "gpu-0-mig-3g20gb-9-4", "gpu-0-mig-7g40gb-0-0"}) {
    const std::string n = name;
    const std::string profile = n.find("1g5gb") != std::string::npos    ? "1g.5gb"
                                : n.find("3g20gb") != std::string::npos ? "3g.20gb"
                                                                        : "7g.40gb";
    KubeDraDevice d = Mig("n1", n, "GPU-a", profile);
    d.uuid.clear();  // abstract: made when allocated
    k.dra_devices.push_back(d);
  }
  k.dra_allocations = {Allocation("small", "n1", "gpu-0-mig-1g5gb-19-1", {"nb-0"}),
                       Allocation("big", "n1", "gpu-0-mig-3g20gb-9-4", {"train-0"}),
                       Allocation("all", "n1", "gpu-0", {"train-1"})};
  k.pods = {Pod("nb-0", "n1", {{"main", "small"}}, 0, 1800),
            Pod("train-0", "n1", {{"main", "big"}}, 0, 1800),
            Pod("train-1", "n1", {{"main", "all"}}, 1800, 3600)};
  Money m = Attribute(k);
  EXPECT_NEAR(m.cost, kPrice, 1e-9);  // one physical A100
  EXPECT_NEAR(m.allocated["nb-0/main"], 0.5 * kPrice / 7, 1e-9);
  EXPECT_NEAR(m.allocated["train-0/main"], 0.5 * 3 * kPrice / 7, 1e-9);
  EXPECT_NEAR(m.allocated["train-1/main"], 0.5 * kPrice, 1e-9);
  EXPECT_NEAR(m.idle, 0.5 * 3 * kPrice / 7, 1e-9);
  EXPECT_TRUE(m.warnings.empty()) << ::testing::PrintToString(m.warnings);
  EXPECT_EQ(m.sharing["n1"], "dra");  // one whole unit that claims hold parts of

  // dcgm-exporter's series per MIG instance (its default) are no unit of such a GPU: the money
  // stays, and the report says why the claims on it go unmeasured.
  std::string dcgm;
  for (int64_t s = 0; s < 3600; s += 60) {
    for (const char* gi : {"1", "2"}) {
      dcgm += std::string("DCGM_FI_PROF_GR_ENGINE_ACTIVE{gpu=\"0\",UUID=\"GPU-a\",") +
              "modelName=\"NVIDIA A100-SXM4-40GB\",GPU_I_PROFILE=\"3g.20gb\",GPU_I_ID=\"" + gi +
              "\",Hostname=\"n1\"} 0.5 " + std::to_string((kBase + s) * 1000) + "\n";
    }
  }
  Money instances = Attribute(k, dcgm);
  EXPECT_NEAR(instances.allocated["train-0/main"], 0.5 * 3 * kPrice / 7, 1e-9);
  EXPECT_NEAR(instances.idle, 0.5 * 3 * kPrice / 7, 1e-9);
  EXPECT_TRUE(Told(instances,
                   "node n1: GPU GPU-a is DynamicMIG's (its DRA MIG devices have no "
                   "UUID), so its 2 MIG instances that dcgm-exporter reports"))
      << ::testing::PrintToString(instances.warnings);
}

// A DynamicMIG device is a placement of a GPU the slice lists, not a GPU: one whose parent no
// slice lists and no telemetry reports (a hand-edited or damaged slice) adds no GPU-hours, and is
// told; a claim of it matches no unit.
TEST(DraReport, ADynamicMigDeviceOfAnUnknownGpuMakesNoGpu) {
  KubeState k = OneDraNode();
  KubeDraDevice small = Mig("n1", "gpu-0-mig-1g5gb-19-0", "GPU-a", "1g.5gb");
  small.uuid.clear();
  KubeDraDevice stray = Mig("n1", "gpu-0-mig-1g5gb-19-1", "GPU-dead", "1g.5gb");
  stray.uuid.clear();
  k.dra_devices = {Gpu("n1", "gpu-0", "GPU-a"), small, stray};
  k.dra_allocations = {Allocation("small", "n1", small.name, {"nb-0"}),
                       Allocation("stray", "n1", stray.name, {"nb-1"})};
  k.pods = {Pod("nb-0", "n1", {{"main", "small"}}, 0, 3600),
            Pod("nb-1", "n1", {{"main", "stray"}}, 0, 3600)};
  Money m = Attribute(k);
  EXPECT_NEAR(m.cost, kPrice, 1e-9);  // GPU-a alone, not two GPUs
  EXPECT_NEAR(m.allocated["nb-0/main"], kPrice / 7, 1e-9);
  EXPECT_EQ(m.allocated.count("nb-1/main"), 0u);
  EXPECT_NEAR(m.idle, 6 * kPrice / 7, 1e-9);
  EXPECT_TRUE(Told(m,
                   "DynamicMIG device gpu-0-mig-1g5gb-19-1 of driver gpu.nvidia.com names "
                   "parent GPU GPU-dead, which no ResourceSlice lists as a GPU"))
      << ::testing::PrintToString(m.warnings);
  EXPECT_TRUE(Told(m, "matches no unit of node n1")) << ::testing::PrintToString(m.warnings);
}

// Consumable capacity: two claims hold 10 GiB and 20 GiB of one 40 GiB device, a quarter and a
// half of it; the rest is idle.
TEST(DraReport, ConsumedCapacityIsTheShareOfTheDevice) {
  KubeState k = OneDraNode();
  KubeDraDevice d = Gpu("n1", "gpu-0", "GPU-a");
  d.multiple_allocations = true;
  k.dra_devices = {d};
  KubeDraAllocation a = Allocation("llm-0-slice", "n1", "gpu-0", {"llm-0"});
  a.share_id = "share-1";
  a.consumed = {{"memory", 10.0 * (1LL << 30)}};
  KubeDraAllocation b = Allocation("llm-1-slice", "n1", "gpu-0", {"llm-1"});
  b.share_id = "share-2";
  b.consumed = {{"memory", 20.0 * (1LL << 30)}};
  k.dra_allocations = {a, b};
  k.pods = {Pod("llm-0", "n1", {{"main", "llm-0-slice"}}, 0, 3600),
            Pod("llm-1", "n1", {{"main", "llm-1-slice"}}, 0, 3600)};
  Money m = Attribute(k);
  EXPECT_NEAR(m.allocated["llm-0/main"], 0.25 * kPrice, 1e-9);
  EXPECT_NEAR(m.allocated["llm-1/main"], 0.5 * kPrice, 1e-9);
  EXPECT_NEAR(m.idle, 0.25 * kPrice, 1e-9);
  EXPECT_EQ(m.sharing["n1"], "dra");
}

// What cannot be attributed is told and loses nothing else: a claim on a device no slice lists,
// a claim the API shows unallocated, a claim on a GPU driver's device gpucost does not read. A
// device of a driver that is not a GPU's (a NIC) is left out without a word.
TEST(DraReport, UnknownDevicesAndUnallocatedClaimsAreTold) {
  KubeState k = OneDraNode();
  KubeDraDevice intel = Gpu("n1", "0000-03-00-0-0x56c0", "");
  intel.driver = "gpu.intel.com";
  intel.type = "";
  KubeDraDevice nic = intel;
  nic.driver = "dra.net";
  nic.name = "pci-0101-00-00-0";
  k.dra_devices = {Gpu("n1", "gpu-0", "GPU-a"), intel, nic};
  KubeDraAllocation on_intel = Allocation("flex", "n1", intel.name, {"b"});
  on_intel.driver = intel.driver;
  KubeDraAllocation on_nic = Allocation("rdma", "n1", nic.name, {"b"});
  on_nic.driver = nic.driver;
  k.dra_allocations = {Allocation("ghost", "n1", "gpu-9", {"a"}),
                       Allocation("ok", "n1", "gpu-0", {"b"}), on_intel, on_nic};
  k.pods = {Pod("a", "n1", {{"main", "ghost"}}, 0, 3600), Pod("b", "n1", {{"main", "ok"}}, 0, 3600),
            Pod("c", "n1", {{"main", "pending-claim"}}, 0, 3600)};
  Money m = Attribute(k);
  const auto told = [&](const std::string& text) {
    for (const std::string& w : m.warnings) {
      if (w.find(text) != std::string::npos) return true;
    }
    return false;
  };
  EXPECT_TRUE(told("device gpu-9 of driver gpu.nvidia.com pool n1 is in no ResourceSlice"));
  EXPECT_TRUE(told("uses DRA claim pending-claim, which the API shows with no allocated device"));
  EXPECT_TRUE(
      told("DRA driver gpu.intel.com: claims on its devices (ml/flex holds "
           "0000-03-00-0-0x56c0, type \"\") are not attributed"));
  EXPECT_FALSE(told("dra.net"));
  EXPECT_EQ(m.warnings.size(), 3u) << ::testing::PrintToString(m.warnings);
  EXPECT_NEAR(m.allocated["b/main"], kPrice, 1e-9);
  EXPECT_EQ(m.allocated.count("a/main"), 0u);
}

// A device-plugin request (nvidia.com/gpu, with no claim the API names for it) on a node whose
// GPUs DRA hands out draws from the GPUs no claim holds while it runs; with none free it holds
// nothing, and is told, rather than halve the claim's GPU.
TEST(DraReport, ADevicePluginRequestDrawsFromTheGpusNoClaimHolds) {
  KubeState k = OneDraNode();
  k.dra_devices = {Gpu("n1", "gpu-0", "GPU-a")};
  k.dra_allocations = {Allocation("c0", "n1", "gpu-0", {"dra-0"})};
  KubePod plain = Pod("plain-0", "n1", {}, 0, 3600);
  plain.resources.push_back({"main", "nvidia.com/gpu", 1, false, {}});
  k.pods = {Pod("dra-0", "n1", {{"main", "c0"}}, 0, 3600), plain};
  Money m = Attribute(k);
  EXPECT_NEAR(m.allocated["dra-0/main"], kPrice, 1e-9);
  EXPECT_EQ(m.allocated.count("plain-0/main"), 0u);
  EXPECT_TRUE(Told(m,
                   "request nvidia.com/gpu x1 by ml/plain-0/main: 1 of its 1 units would be "
                   "GPUs that DRA claims hold; nothing held"))
      << ::testing::PrintToString(m.warnings);
  EXPECT_FALSE(Told(m, "oversubscribed"));

  // The claim's pod runs the first half hour only: the request holds the GPU the second half,
  // whole (drawn in pieces cut where the claim's time ends).
  k.pods[0].active = {Interval{T(0), T(1800)}};
  Money half = Attribute(k);
  EXPECT_NEAR(half.allocated["dra-0/main"], 0.5 * kPrice, 1e-9);
  EXPECT_NEAR(half.allocated["plain-0/main"], 0.5 * kPrice, 1e-9);
  EXPECT_NEAR(half.idle, 0, 1e-9);
  k.pods[0].active = {Interval{T(0), T(3600)}};

  k.dra_devices.push_back(Gpu("n1", "gpu-1", "GPU-b"));  // a GPU no claim holds
  Money free = Attribute(k);
  EXPECT_NEAR(free.allocated["dra-0/main"], kPrice, 1e-9);
  EXPECT_NEAR(free.allocated["plain-0/main"], kPrice, 1e-9);
  EXPECT_NEAR(free.idle, 0, 1e-9);
}

// A claim allocated a GPU that no pod uses (made by hand and never referenced, or its pods gone)
// keeps the GPU from every other pod, yet holds it for no one: its cost is idle, and the report
// says which claim that is, whatever its reservedFor names.
TEST(DraReport, AClaimNoPodUsesIsTold) {
  KubeState k = OneDraNode();
  k.dra_devices = {Gpu("n1", "gpu-0", "GPU-a"), Gpu("n1", "gpu-1", "GPU-b")};
  k.dra_allocations = {Allocation("held", "n1", "gpu-0", {}),
                       Allocation("stale", "n1", "gpu-1", {"gone"})};
  Money m = Attribute(k);
  EXPECT_NEAR(m.idle, 2 * kPrice, 1e-9);
  EXPECT_TRUE(Told(m, "DRA claim ml/held is allocated a device on node n1 but no pod uses it"))
      << ::testing::PrintToString(m.warnings);
  EXPECT_TRUE(Told(m, "DRA claim ml/stale is allocated"));
  EXPECT_FALSE(Told(m, "the input holds no"));  // the API's nodes and slices are its data

  k.pods = {Pod("train", "n1", {{"main", "held"}}, 0, 1800)};  // used, if for half the hour
  Money used = Attribute(k);
  EXPECT_NEAR(used.allocated["train/main"], 0.5 * kPrice, 1e-9);
  EXPECT_FALSE(Told(used, "DRA claim ml/held is allocated"));
  EXPECT_TRUE(Told(used, "DRA claim ml/stale is allocated"));
}

// The sharing mode says where claims hand the GPUs out: "dra" on a node a DRA driver publishes
// GPUs of, with the device plugin's whole GPU beside them too; a node whose own configuration
// divides its GPUs keeps that mode (time-slicing); a node whose slices hold no accelerator (a
// NIC, a GPU of a driver gpucost does not read) is not DRA's. The money is a node of whole GPUs'.
TEST(DraReport, TheSharingModeSaysWhereClaimsHandTheGpusOut) {
  KubeState k = OneDraNode();
  k.nodes[0].capacity = {{"nvidia.com/gpu", 1}};
  KubeNode sliced = DraNode("n2");
  sliced.labels = {{"nvidia.com/gpu.sharing-strategy", "time-slicing"},
                   {"nvidia.com/gpu.replicas", "2"}};
  sliced.capacity = {{"nvidia.com/gpu", 2}};
  KubeNode plain = DraNode("n3");
  plain.capacity = {{"nvidia.com/gpu", 1}};
  k.nodes.push_back(sliced);
  k.nodes.push_back(plain);
  KubeDraDevice nic = Gpu("n3", "pci-0101-00-00-0", "");
  nic.driver = "dra.net";
  nic.pool = "n3";
  nic.type = "";
  KubeDraDevice intel = nic;
  intel.driver = "gpu.intel.com";
  intel.name = "0000-03-00-0-0x56c0";
  k.dra_devices = {Gpu("n1", "gpu-0", "GPU-a"), Gpu("n2", "gpu-0", "GPU-b"), nic, intel};
  k.dra_allocations = {Allocation("own", "n1", "gpu-0", {"train-0"})};
  KubePod plugin = Pod("infer-0", "n1", {}, 0, 3600);
  plugin.resources.push_back({"main", "nvidia.com/gpu", 1, false, {}});
  k.pods = {Pod("train-0", "n1", {{"main", "own"}}, 0, 3600), plugin};
  Money m = Attribute(k);
  EXPECT_EQ(m.sharing["n1"], "dra");
  EXPECT_EQ(m.sharing["n2"], "time-slicing");
  EXPECT_EQ(m.sharing["n3"], "none");
  EXPECT_NEAR(m.allocated["train-0/main"], kPrice, 1e-9);  // the claim's GPU
  EXPECT_NEAR(m.allocated["infer-0/main"], kPrice, 1e-9);  // the device plugin's
  EXPECT_NEAR(m.cost, 5 * kPrice, 1e-9);                   // 2 + 2 + 1 GPUs for the hour
}

}  // namespace
}  // namespace gpucost
