// Helpers for the ledger tests: an engine run with a little of everything to write, and a test
// fixture parameterised by backend that hands each test fresh, empty ledgers — SQLite files in a
// temp folder, or databases on the test binary's own PostgreSQL (tests/common/postgres_server.h,
// started on first use and stopped at exit).
#pragma once

#include <gtest/gtest.h>

#include <atomic>
#include <cmath>
#include <memory>
#include <string>

#include "attribution/cluster_builder.h"
#include "cli/cli_test_util.h"
#include "common/postgres_server.h"
#include "ledger/ledger.h"

namespace gpucost::ledger {

// Two nodes: n1 with one whole GPU held by a labelled Job pod for the first hour of two, then
// idle; n2 (no price) with two time-slice replicas of one GPU, one held, unmeasured.
struct Run {
  testing::ClusterBuilder b;
  AttributionOptions options;
  testing::CollectSink sink;
  AttributionSummary summary;
};

inline std::unique_ptr<Run> Attributed() {
  using testing::At;
  auto run = std::make_unique<Run>();
  testing::ClusterBuilder& b = run->b;
  const NodeIndex n1 = b.AddNode("n1");
  b.inventory.nodes[n1].capacity_type = "spot";
  b.inventory.nodes[n1].gpu_model = "NVIDIA A100-SXM4-80GB";
  const UnitIndex g = b.AddWhole(n1, "GPU-1");
  const HolderIndex h = b.AddHolder("ml", "train-abc");
  b.inventory.holders[h].workload = "train";
  b.inventory.holders[h].workload_kind = "Job";
  b.inventory.holders[h].team = "research";
  b.inventory.holders[h].labels = LabelSet({{"app.kubernetes.io/name", "trainer"}});
  b.HoldUnits(h, {g}, 0, 3600);
  b.DeviceUsage(n1, "GPU-1", -1, 0.4, 0, 7200);
  const NodeIndex n2 = b.AddNode("n2", SharingMode::kTimeSlicing);
  b.inventory.nodes[n2].replicas = 2;
  const auto replicas = b.AddReplicas(n2, "GPU-2", 2);
  b.inventory.nodes[n2].physical_gpus = 1;
  const HolderIndex s = b.AddHolder("web", "api-0");
  b.HoldUnits(s, {replicas[0]}, 0, 7200);
  run->options.window = {At(0), At(7200)};
  run->options.step = std::chrono::minutes(10);
  const PriceFn price = [](const Node& node, Window w) {
    if (node.name == "n2") {
      return std::vector<PricePeriod>{{{w.start, w.end}, 0, PriceSource::kUnknown, w.start, "-"}};
    }
    return std::vector<PricePeriod>{{{w.start, w.end}, 2.5, PriceSource::kSpot, w.start, "t"}};
  };
  Result<AttributionSummary> summary =
      Attribute(b.inventory, b.usage, price, run->options, run->sink);
  EXPECT_TRUE(summary.ok()) << summary.status().ToString();
  run->summary = *summary;
  return run;
}

inline bool SameDouble(double a, double b) { return (std::isnan(a) && std::isnan(b)) || a == b; }

enum class Backend { kSqlite, kPostgres };

inline std::string BackendName(const ::testing::TestParamInfo<Backend>& info) {
  return info.param == Backend::kSqlite ? "Sqlite" : "Postgres";
}

// The test binary's PostgreSQL; null when it would not start (the reason in `why`).
inline testing_util::PostgresServer* SharedPostgres(std::string* why) {
  static std::unique_ptr<testing_util::PostgresServer> server;
  static std::string error;
  static bool tried = false;
  if (!tried) {
    tried = true;
    auto s = std::make_unique<testing_util::PostgresServer>();
    if (s->Start()) {
      server = std::move(s);
    } else {
      error = s->error();
    }
  }
  *why = error;
  return server.get();
}

class LedgerBackendTest : public ::testing::TestWithParam<Backend> {
 protected:
  void SetUp() override {
    if (GetParam() != Backend::kPostgres) return;
    // Skipped only where PostgreSQL is not installed; CI installs it.
    if (!testing_util::PostgresServer::Available()) GTEST_SKIP() << "no PostgreSQL binaries";
    std::string why;
    pg_ = SharedPostgres(&why);
    ASSERT_NE(pg_, nullptr) << why;
  }

  // A new, empty ledger target: a file path, or the URI of a new database.
  std::string NewTarget(const std::string& name) {
    if (GetParam() == Backend::kSqlite) return (dir_.path() / (name + ".db")).string();
    static std::atomic<int> serial{0};
    const std::string uri = pg_->CreateDatabase(name + "_" + std::to_string(++serial));
    EXPECT_FALSE(uri.empty()) << pg_->error();
    return uri;
  }

  testing_util::TempDir dir_;
  testing_util::PostgresServer* pg_ = nullptr;
};

}  // namespace gpucost::ledger
