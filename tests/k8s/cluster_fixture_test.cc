// The fixture cluster (tests/k8s/data/README.md: one node per sharing mode, every owner chain,
// label collisions, a finished and an unscheduled pod) read through the fake API server by
// KubeSource, and the inventory the builder makes of it with no other input.
#include <gtest/gtest.h>

#include <map>
#include <string>

#include "inventory/inventory_builder.h"
#include "k8s/fake_apiserver.h"
#include "k8s/k8s_fixtures.h"
#include "k8s/k8s_test_util.h"
#include "k8s/kube_source.h"

namespace gpucost::k8s {
namespace {

class ClusterFixtureTest : public ::testing::Test {
 protected:
  void SetUp() override {
    testing::LoadClusterFixture(server_);
    KubeConnection c;
    c.server = server_.url();
    KubeSourceOptions o;
    o.informer.page_size = 4;
    KubeSource source(c, o, clock_);
    const Status listed = source.List();
    ASSERT_TRUE(listed.ok()) << listed.ToString();
    stats_ = source.stats();
    TimelineOptions t;
    t.window = Window{At("2024-06-10T00:00:00Z"), At("2024-06-10T12:00:00Z")};
    t.kube_states.push_back(source.Snapshot());
    InventoryBuilder b(t);
    auto built = b.Build();
    ASSERT_TRUE(built.ok()) << built.status().ToString();
    timeline_ = std::move(built).value();
  }

  const Node& NodeNamed(const std::string& name) const {
    for (const Node& n : timeline_.inventory.nodes) {
      if (n.name == name) return n;
    }
    ADD_FAILURE() << "no node " << name;
    static const Node kNone;
    return kNone;
  }
  const Holder* HolderOf(const std::string& pod) const {
    for (const Holder& h : timeline_.inventory.holders) {
      if (h.pod == pod) return &h;
    }
    return nullptr;
  }
  std::vector<Interval> HeldWhen(const std::string& pod) const {
    std::vector<Interval> out;
    for (const Holding& h : timeline_.inventory.holdings) {
      if (timeline_.inventory.holders[h.holder].pod == pod) out.push_back(h.interval);
    }
    return out;
  }
  bool Warned(const std::string& text) const {
    for (const InputWarning& w : timeline_.warnings) {
      if (w.ToString().find(text) != std::string::npos) return true;
    }
    return false;
  }

  testing::FakeApiServer server_;
  FakeClock clock_{At("2024-06-10T12:00:00Z")};
  KubeSourceStats stats_;
  LoadedTimeline timeline_;
};

TEST_F(ClusterFixtureTest, EveryKindIsListedAndOnlyGpuPodsKept) {
  EXPECT_EQ(stats_.nodes, 7u);
  EXPECT_EQ(stats_.gpu_pods, 19u);  // 21 pods less the dcgm-exporter and the API gateway
  EXPECT_EQ(stats_.decode_errors, 0u);
  for (const auto& [name, s] : stats_.informers) {
    EXPECT_EQ(s.lists, 1u) << name;
    EXPECT_FALSE(s.resource_version.empty()) << name;
  }
  EXPECT_GE(server_.ListCount("pods"), 6);  // pages of 4
}

TEST_F(ClusterFixtureTest, NodesGetTheirSharingModeCapacityTypeAndGpus) {
  const Node& h100 = NodeNamed("gpu-h100-a");
  EXPECT_EQ(h100.sharing, SharingMode::kNone);
  EXPECT_EQ(h100.physical_gpus, 8);
  EXPECT_EQ(h100.capacity_type, "on_demand");
  EXPECT_EQ(h100.instance_type, "p5.48xlarge");
  EXPECT_FALSE(h100.provider_id.empty());
  const Node& single = NodeNamed("gpu-a100-mig-single");
  EXPECT_EQ(single.sharing, SharingMode::kMig);
  EXPECT_TRUE(single.mig_single);
  EXPECT_EQ(single.capacity_type, "spot");
  const Node& mixed = NodeNamed("gpu-a100-mig-mixed");
  EXPECT_EQ(mixed.sharing, SharingMode::kMig);
  EXPECT_FALSE(mixed.mig_single);
  const Node& ts = NodeNamed("gpu-t4-ts");
  EXPECT_EQ(ts.sharing, SharingMode::kTimeSlicing);
  EXPECT_EQ(ts.replicas, 4);
  EXPECT_EQ(ts.physical_gpus, 1);
  EXPECT_EQ(ts.capacity_type, "spot");
  // Created at 05:12:44, so present from then only.
  ASSERT_FALSE(ts.present.empty());
  EXPECT_EQ(ts.present.front().start, At("2024-06-10T05:12:44Z"));
  const Node& mps = NodeNamed("gpu-a100-mps");
  EXPECT_EQ(mps.sharing, SharingMode::kMps);
  EXPECT_EQ(mps.capacity_type, "spot");
  const Node& hami = NodeNamed("gpu-l40s-hami");
  EXPECT_EQ(hami.sharing, SharingMode::kHami);
  EXPECT_EQ(hami.physical_gpus, 2);
}

TEST_F(ClusterFixtureTest, OwnerChainsResolveToTheTopController) {
  const std::map<std::string, std::pair<std::string, std::string>> expected = {
      {"llm-server-7d9f8b6c5-x2x8k", {"llm-server", "Deployment"}},
      {"trainer-0", {"trainer", "StatefulSet"}},
      {"nightly-eval-28633080-8xk2p", {"nightly-eval", "CronJob"}},
      {"ocr-6f7d8c9b5-r5t8v", {"ocr", "Deployment"}},
      // The Job's owner reference still names its deleted CronJob.
      {"report-gen-28632960-m4n7z", {"report-gen", "CronJob"}},
      // An orphaned ReplicaSet (no owner references) stays a ReplicaSet.
      {"notebook-6c8d5f7b9-wq5vn", {"notebook-6c8d5f7b9", "ReplicaSet"}},
      {"debug-shell", {"debug-shell", "Pod"}},
      {"embedder-5f6b7c8d9-b8c4d", {"embedder", "Deployment"}},
      {"gpu-healthcheck-b7x9d", {"gpu-healthcheck", "DaemonSet"}},
      {"whisper-84d7c6b5f9-c2d3f", {"whisper", "Deployment"}},
      {"jupyter-alice", {"jupyter-alice", "Pod"}},
      {"finetune-lora-z8r6t", {"finetune-lora", "Job"}},
  };
  for (const auto& [pod, want] : expected) {
    const Holder* h = HolderOf(pod);
    ASSERT_NE(h, nullptr) << pod;
    EXPECT_EQ(h->workload_kind, want.second) << pod;
    EXPECT_EQ(h->workload, want.first) << pod;
  }
  EXPECT_EQ(HolderOf("dcgm-exporter-7tq2w"), nullptr);  // holds no GPU
  EXPECT_EQ(HolderOf("api-gateway-6b5d4c3f2a-h2k9l"), nullptr);
}

TEST_F(ClusterFixtureTest, TeamsComeFromThePodLabelThenTheNamespace) {
  EXPECT_EQ(HolderOf("trainer-0")->team, "vision");      // the pod's own label wins
  EXPECT_EQ(HolderOf("trainer-1")->team, "research");    // its namespace's
  EXPECT_EQ(HolderOf("llm-server-7d9f8b6c5-x2x8k")->team, "serving");
  EXPECT_EQ(HolderOf("debug-shell")->team, "platform");
  // Labels keep their original keys, pod labels over namespace labels.
  EXPECT_EQ(HolderOf("trainer-0")->labels.Get("team"), "vision");
  EXPECT_EQ(HolderOf("trainer-0")->labels.Get("cost-center"), "cc-1001");
  EXPECT_EQ(HolderOf("trainer-0")->labels.Get("kubernetes.io/metadata.name"), "ml-research");
}

TEST_F(ClusterFixtureTest, SchedulesFollowTheApiLifecycle) {
  // Succeeded: from scheduling to the last container's finish.
  const auto eval = HeldWhen("nightly-eval-28633080-8xk2p");
  ASSERT_EQ(eval.size(), 1u);
  EXPECT_EQ(eval[0].end, At("2024-06-10T02:47:31Z"));
  EXPECT_LE(eval[0].start, At("2024-06-10T02:00:04Z"));
  EXPECT_GE(eval[0].start, At("2024-06-10T01:59:00Z"));
  // Running since before the window: the whole window, up to the list.
  const auto trainer = HeldWhen("trainer-0");
  ASSERT_EQ(trainer.size(), 1u);
  EXPECT_EQ(trainer[0].start, At("2024-06-10T00:00:00Z"));
  EXPECT_EQ(trainer[0].end, At("2024-06-10T12:00:00Z"));
  // Unscheduled: holds nothing, and says so.
  EXPECT_EQ(HolderOf("sweep-42-q8z7m"), nullptr);
  EXPECT_TRUE(Warned("sweep-42-q8z7m requests GPUs but was never scheduled"));
}

TEST_F(ClusterFixtureTest, RequestsKeepEverySharingModesResource) {
  auto request_of = [&](const std::string& pod) {
    for (const Holding& h : timeline_.inventory.holdings) {
      if (timeline_.inventory.holders[h.holder].pod == pod) return h.request;
    }
    return Request{};
  };
  EXPECT_EQ(request_of("trainer-0").resource, "nvidia.com/gpu");
  EXPECT_DOUBLE_EQ(request_of("trainer-0").count, 2);
  EXPECT_EQ(request_of("report-gen-28632960-m4n7z").resource, "nvidia.com/mig-3g.20gb");
  EXPECT_EQ(request_of("debug-shell").resource, "nvidia.com/mig-2g.10gb");  // from limits
  EXPECT_DOUBLE_EQ(request_of("jupyter-alice").hami_cores_percent, 30);
  EXPECT_DOUBLE_EQ(request_of("jupyter-alice").hami_mem_mib, 3000);
  // The multi-container pod: only the container that asks for a GPU is a holder.
  int llm_holders = 0;
  for (const Holder& h : timeline_.inventory.holders) llm_holders += h.pod == "llm-server-7d9f8b6c5-x2x8k";
  EXPECT_EQ(llm_holders, 1);
}

}  // namespace
}  // namespace gpucost::k8s
