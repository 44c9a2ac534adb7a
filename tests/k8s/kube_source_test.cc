// KubeSource and its informers against the fake API server: lists in pages, watches with
// ADDED/MODIFIED/DELETED/BOOKMARK events, 410 Gone mid-watch, a server that hangs up, retries on
// 5xx, a rotated token, a forbidden resource; and the KubeState the stores turn into.
#include "k8s/kube_source.h"

#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <optional>
#include <thread>

#include "k8s/fake_apiserver.h"
#include "k8s/k8s_fixtures.h"
#include "k8s/k8s_test_util.h"

namespace gpucost::k8s {
namespace {

using namespace std::chrono_literals;
using testing::FakeApiServer;
namespace fx = testing;

std::string Errors(const KubeSource& source) {
  std::string out;
  for (const auto& [name, s] : source.stats().informers) {
    if (s.errors > 0) out += name + ": " + s.last_error + "; ";
    if (name == "pods") {
      out += "pods: lists " + std::to_string(s.lists) + " watches " + std::to_string(s.watches) +
             " relists " + std::to_string(s.relists) + " events " + std::to_string(s.events) +
             " rv " + s.resource_version + "; ";
    }
  }
  return out;
}

std::string PodsVersion(const KubeSource& source) {
  for (const auto& [name, s] : source.stats().informers) {
    if (name == "pods") return s.resource_version;
  }
  return "";
}

template <class F>
bool Eventually(F&& f, std::chrono::milliseconds timeout = 5s) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  while (std::chrono::steady_clock::now() < deadline) {
    if (f()) return true;
    std::this_thread::sleep_for(2ms);
  }
  return f();
}

KubeSourceOptions FastOptions() {
  KubeSourceOptions o;
  o.informer.page_size = 2;
  o.informer.initial_backoff = 5ms;
  o.informer.max_backoff = 20ms;
  o.informer.watch_timeout = 30s;
  return o;
}

nlohmann::json GpuPod(const std::string& ns, const std::string& name, const std::string& node,
                      const std::string& resource = "nvidia.com/gpu", const std::string& count = "1") {
  fx::PodOptions p;
  p.ns = ns;
  p.name = name;
  p.node = node;
  p.containers = {fx::Container{.name = "main", .requests = {{resource, count}}, .limits = {{resource, count}}}};
  p.started = "2024-06-01T08:00:00Z";
  return fx::Pod(p);
}

nlohmann::json CpuPod(const std::string& ns, const std::string& name) {
  fx::PodOptions p;
  p.ns = ns;
  p.name = name;
  p.node = "cpu-1";
  p.containers = {fx::Container{.name = "main", .requests = {{"cpu", "1"}}}};
  return fx::Pod(p);
}

// The pod named `name` in a fresh snapshot, copied (the snapshot is a temporary).
std::optional<KubePod> PodIn(const KubeSource& source, const std::string& name) {
  const KubeState s = source.Snapshot();
  for (const KubePod& p : s.pods) {
    if (p.name == name) return p;
  }
  return std::nullopt;
}

const KubePod* FindPod(const KubeState& s, const std::string& name) {
  for (const KubePod& p : s.pods) {
    if (p.name == name) return &p;
  }
  return nullptr;
}

class KubeSourceTest : public ::testing::Test {
 protected:
  KubeSourceTest() : clock_(At("2024-06-01T10:00:00Z")) {
    for (int i = 0; i < 5; ++i) server_.Upsert("pods", GpuPod("ml", "gpu-" + std::to_string(i), "n1"));
    server_.Upsert("pods", CpuPod("web", "frontend"));
    server_.Upsert("nodes", fx::Node({.name = "n1", .labels = fx::GfdLabels("NVIDIA-A100-SXM4-80GB", 8, 81920),
                                      .capacity = {{"nvidia.com/gpu", "8"}}}));
    server_.Upsert("namespaces", fx::Namespace({.name = "ml", .labels = {{"team", "research"}}}));
    WriteToken("t0");  // the server accepts any token until a test sets some
  }
  ~KubeSourceTest() override { std::filesystem::remove(token_file_); }

  KubeConnection Connection() const {
    KubeConnection c;
    c.server = server_.url();
    c.token_file = token_file_;
    return c;
  }

  void WriteToken(const std::string& t) {
    std::ofstream(token_file_) << t << "\n";
  }

  FakeApiServer server_;
  FakeClock clock_;
  std::string token_file_ =
      (std::filesystem::temp_directory_path() /
       ("gpucost-k8s-token-" + std::to_string(::getpid()) + "-" +
        ::testing::UnitTest::GetInstance()->current_test_info()->name()))
          .string();
};

TEST_F(KubeSourceTest, ListsInPagesAndKeepsOnlyGpuPods) {
  WriteToken("t1");
  server_.SetTokens({"t1"});
  KubeSource source(Connection(), FastOptions(), clock_);
  ASSERT_TRUE(source.List().ok());
  const KubeSourceStats st = source.stats();
  EXPECT_EQ(st.gpu_pods, 5u);  // the CPU pod is not kept
  EXPECT_EQ(st.nodes, 1u);
  EXPECT_GE(server_.ListCount("pods"), 3);  // 6 pods in pages of 2
  bool continued = false;
  for (const std::string& q : server_.Queries("pods")) continued = continued || q.find("continue=") != std::string::npos;
  EXPECT_TRUE(continued);
  EXPECT_EQ(server_.LastAuthorization(), "Bearer t1");
  const KubeState s = source.Snapshot();
  EXPECT_EQ(s.pods.size(), 5u);
  EXPECT_EQ(s.namespace_labels.at("ml").at("team"), "research");
  ASSERT_EQ(s.nodes.size(), 1u);
  EXPECT_DOUBLE_EQ(s.nodes[0].capacity.at("nvidia.com/gpu"), 8);
  const KubePod* p = FindPod(s, "gpu-0");
  ASSERT_NE(p, nullptr);
  ASSERT_EQ(p->active.size(), 1u);
  EXPECT_EQ(p->active[0].end, clock_.Now());  // running: active until observed
}

TEST_F(KubeSourceTest, WatchAppliesAddedModifiedDeletedAndBookmarks) {
  KubeSource source(Connection(), FastOptions(), clock_);
  source.Start();
  ASSERT_TRUE(source.WaitForSync(10s)) << Errors(source);
  ASSERT_TRUE(server_.WaitForWatches("pods", 1, 5s));
  server_.Upsert("pods", GpuPod("ml", "late", "n1", "nvidia.com/mig-1g.10gb", "1"));
  ASSERT_TRUE(Eventually([&] { return PodIn(source, "late").has_value(); }));

  // MODIFIED: the pod finished.
  nlohmann::json done = *server_.Get("pods", "ml", "gpu-1");
  done["status"]["phase"] = "Succeeded";
  for (auto& cs : done["status"]["containerStatuses"]) {
    cs["state"] = {{"terminated", {{"exitCode", 0}, {"finishedAt", "2024-06-01T09:30:00Z"}}}};
  }
  server_.Upsert("pods", done);
  ASSERT_TRUE(Eventually([&] {
    const auto p = PodIn(source, "gpu-1");
    return p && p->phase == "Succeeded";
  }));
  EXPECT_EQ(PodIn(source, "gpu-1")->active.at(0).end, At("2024-06-01T09:30:00Z"));

  // DELETED: a running pod's deletion ends it when it was seen, and it is kept for a while.
  clock_.Set(At("2024-06-01T10:05:00Z"));
  server_.Delete("pods", "ml", "gpu-2");
  ASSERT_TRUE(Eventually([&] { return PodsVersion(source) == std::to_string(server_.resource_version()); }));
  ASSERT_TRUE(PodIn(source, "gpu-2").has_value());
  clock_.Set(At("2024-06-01T10:20:00Z"));
  EXPECT_EQ(PodIn(source, "gpu-2")->active.at(0).end, At("2024-06-01T10:05:00Z"));
  clock_.Set(At("2024-06-01T12:00:00Z"));  // past the retention
  EXPECT_FALSE(PodIn(source, "gpu-2").has_value());

  // BOOKMARK: the informer moves to the bookmark's version without an event.
  server_.Upsert("nodes", fx::Node({.name = "n2"}));  // advances the global version
  server_.SendBookmark("pods");
  ASSERT_TRUE(Eventually([&] {
    for (const auto& [name, s] : source.stats().informers) {
      if (name == "pods") return s.bookmarks >= 1 && s.resource_version == std::to_string(server_.resource_version());
    }
    return false;
  }));
  source.Stop();
  EXPECT_TRUE(server_.WaitForWatches("pods", 0, 5s));
}

TEST_F(KubeSourceTest, GoneMidWatchRelistsAndLosesNothing) {
  KubeSource source(Connection(), FastOptions(), clock_);
  source.Start();
  ASSERT_TRUE(source.WaitForSync(10s)) << Errors(source);
  ASSERT_TRUE(server_.WaitForWatches("pods", 1, 5s));
  const int lists_before = server_.ListCount("pods");
  // Changes the watch never delivers: the history is compacted, then the watch gets 410.
  server_.Compact();
  server_.InjectWatchError("pods", 410, "Expired");
  server_.Upsert("pods", GpuPod("ml", "after-compaction", "n1"));
  server_.Delete("pods", "ml", "gpu-4");
  ASSERT_TRUE(Eventually([&] { return PodsVersion(source) == std::to_string(server_.resource_version()); }))
      << Errors(source);
  // Whether the relist or a new watch saw it go, the deleted pod ends when it was seen gone.
  clock_.Advance(10min);
  const KubeState state = source.Snapshot();
  ASSERT_NE(FindPod(state, "after-compaction"), nullptr);
  EXPECT_EQ(FindPod(state, "after-compaction")->active.at(0).end, clock_.Now());
  ASSERT_NE(FindPod(state, "gpu-4"), nullptr);
  EXPECT_EQ(FindPod(state, "gpu-4")->active.at(0).end, clock_.Now() - 10min);
  EXPECT_GT(server_.ListCount("pods"), lists_before);
  for (const auto& [name, s] : source.stats().informers) {
    if (name == "pods") {
      EXPECT_GE(s.relists, 1u);
    }
  }
}

TEST_F(KubeSourceTest, HungUpWatchResumesFromItsVersionWithoutRelisting) {
  KubeSource source(Connection(), FastOptions(), clock_);
  source.Start();
  ASSERT_TRUE(source.WaitForSync(10s)) << Errors(source);
  ASSERT_TRUE(server_.WaitForWatches("pods", 1, 5s));
  server_.Upsert("pods", GpuPod("ml", "before-hangup", "n1"));
  ASSERT_TRUE(Eventually([&] { return PodIn(source, "before-hangup").has_value(); }));
  const int lists = server_.ListCount("pods");
  const int watches = server_.WatchCount("pods");
  EXPECT_GE(server_.HangUpWatches(), 1);
  server_.Upsert("pods", GpuPod("ml", "after-hangup", "n1"));
  ASSERT_TRUE(Eventually([&] { return PodIn(source, "after-hangup").has_value(); }));
  EXPECT_GT(server_.WatchCount("pods"), watches);
  EXPECT_EQ(server_.ListCount("pods"), lists);  // resumed, not relisted
  const std::vector<std::string> q = server_.Queries("pods");
  EXPECT_NE(q.back().find("resourceVersion="), std::string::npos);
}

TEST_F(KubeSourceTest, RetriesServerErrorsAndReportsForbiddenResources) {
  server_.FailNext("/api/v1/pods", 503, 2, testing::Verb::kList);
  KubeSource source(Connection(), FastOptions(), clock_);
  const Status listed = source.List();
  ASSERT_TRUE(listed.ok()) << listed.ToString();
  EXPECT_EQ(source.stats().gpu_pods, 5u);

  server_.FailNext("/apis/batch/v1/jobs", 403, 10, testing::Verb::kList);
  KubeSource denied(Connection(), FastOptions(), clock_);
  const Status s = denied.List();
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("list jobs: HTTP 403"), std::string::npos) << s.message();
  EXPECT_NE(s.message().find(server_.url()), std::string::npos) << s.message();
}

TEST_F(KubeSourceTest, RotatedTokenIsReadAgainAfter401) {
  WriteToken("old");
  server_.SetTokens({"old"});
  KubeSource source(Connection(), FastOptions(), clock_);
  ASSERT_TRUE(source.List().ok());
  EXPECT_EQ(server_.LastAuthorization(), "Bearer old");
  // The kubelet rotates the projected token; the server stops accepting the old one at once.
  WriteToken("new");
  server_.SetTokens({"new"});
  ASSERT_TRUE(source.List().ok());
  EXPECT_EQ(server_.LastAuthorization(), "Bearer new");
  // A token nobody accepts: a clear 401, naming no token.
  WriteToken("wrong");
  server_.SetTokens({"newer"});
  const Status s = source.List();
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("401"), std::string::npos) << s.message();
  EXPECT_EQ(s.message().find("wrong"), std::string::npos);
}

TEST_F(KubeSourceTest, UnreachableServerIsAClearError) {
  KubeConnection c;
  c.server = "http://127.0.0.1:1";  // nothing listens there
  KubeSourceOptions o = FastOptions();
  o.informer.list_attempts = 2;
  KubeSource source(c, o, clock_);
  const Status s = source.List();
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("127.0.0.1:1"), std::string::npos) << s.message();
}

}  // namespace
}  // namespace gpucost::k8s
