// Many clusters in one ledger, on both backends (docs/ledger.md, "Many clusters"): a write
// replaces its own clusters' records only, the counters of the others stay, each cluster keeps
// its resume point, one writer at a time holds a cluster's lease, and a ledger from before
// scopes keeps its resume point through the migration.
#include <gtest/gtest.h>

#include <cmath>
#include <map>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "core/strings.h"
#include "ledger/ledger_test_util.h"
#include "ledger/sql_db.h"

namespace gpucost::ledger {
namespace {

using testing::At;

class LedgerFleetTest : public LedgerBackendTest {};
INSTANTIATE_TEST_SUITE_P(Backends, LedgerFleetTest,
                         ::testing::Values(Backend::kSqlite, Backend::kPostgres), BackendName);

// The test run with its nodes and holders in `cluster`.
std::unique_ptr<Run> RunOf(const std::string& cluster) {
  std::unique_ptr<Run> run = Attributed();
  for (Node& n : run->b.inventory.nodes) n.cluster = cluster;
  for (Holder& h : run->b.inventory.holders) h.cluster = cluster;
  return run;
}

// Allocated dollars (holders and idle) per cluster, from the counters.
std::map<std::string, double> CountedPerCluster(Ledger& l) {
  std::map<std::string, double> out;
  Result<LedgerTotals> t = l.Totals();
  EXPECT_TRUE(t.ok()) << t.status().ToString();
  if (!t.ok()) return out;
  for (const HolderTotal& h : t->holders) out[h.cluster] += h.allocated_usd;
  for (const NodeIdleTotal& n : t->idle) out[n.cluster] += n.idle_usd;
  return out;
}

double RecordsUsd(const std::vector<CostRecord>& records) {
  double sum = 0;
  for (const CostRecord& r : records) {
    if (!std::isnan(r.allocated_usd)) sum += r.allocated_usd;
  }
  return sum;
}

// The serves of a fleet start together on one new SQLite ledger: each opens it (the first turns
// it to WAL, which takes an exclusive lock that SQLite does not wait for on its own) and none
// fails with "database is locked".
TEST(SqliteLedger, ServesOpeningOneNewLedgerAtOnceAllGetIt) {
  testing_util::TempDir dir;
  for (int round = 0; round < 10; ++round) {
    const std::string path = (dir.path() / StrCat("new-", round, ".db")).string();
    constexpr int kOpeners = 6;
    std::vector<std::string> failures(kOpeners);
    std::vector<std::thread> threads;
    for (int i = 0; i < kOpeners; ++i) {
      threads.emplace_back([&path, &failures, i] {
        Result<std::unique_ptr<Ledger>> l = Ledger::Open(path);
        if (!l.ok()) failures[static_cast<size_t>(i)] = l.status().ToString();
      });
    }
    for (std::thread& t : threads) t.join();
    for (const std::string& f : failures) EXPECT_EQ(f, "") << "round " << round;
  }
}

TEST_P(LedgerFleetTest, AWriteReplacesOnlyItsOwnClustersRecords) {
  const auto east = RunOf("east");
  const auto west = RunOf("west");
  auto opened = Ledger::Open(NewTarget("fleet"));
  ASSERT_TRUE(opened.ok()) << opened.status().ToString();
  Ledger& l = **opened;
  const Window w = east->options.window;
  const Duration step = east->options.step;
  ASSERT_TRUE(l.Write(east->b.inventory, w, step, east->sink.records).ok());
  // West's write of the same window leaves east's records and counters as they were.
  ASSERT_TRUE(l.Write(west->b.inventory, w, step, west->sink.records).ok());
  Result<LedgerWindow> read = l.Read(w);
  ASSERT_TRUE(read.ok()) << read.status().ToString();
  EXPECT_EQ(read->records.size(), east->sink.records.size() + west->sink.records.size());
  const double one = RecordsUsd(east->sink.records);
  ASSERT_GT(one, 0);
  std::map<std::string, double> counted = CountedPerCluster(l);
  EXPECT_NEAR(counted["east"], one, 1e-9);
  EXPECT_NEAR(counted["west"], one, 1e-9);

  // East again, without its last hour: east's records of that hour go, west's stay.
  std::vector<CostRecord> first_hour;
  for (const CostRecord& r : east->sink.records) {
    if (r.step < 6) first_hour.push_back(r);
  }
  ASSERT_TRUE(l.Write(east->b.inventory, w, step, first_hour).ok());
  counted = CountedPerCluster(l);
  EXPECT_NEAR(counted["east"], RecordsUsd(first_hour), 1e-9);
  EXPECT_NEAR(counted["west"], one, 1e-9);
  read = l.Read(w);
  ASSERT_TRUE(read.ok());
  EXPECT_EQ(read->records.size(), first_hour.size() + west->sink.records.size());

  // A carry-over names its cluster: east's emptied hour gets east's step before it, though
  // west's records are in those steps; west's stay as they were.
  WriteGaps gaps;
  gaps.runs.push_back({{At(3600), At(7200)}, true});
  WriteScope scope;
  scope.clusters = {"east"};
  ASSERT_TRUE(l.Write(Inventory{}, {At(3600), At(7200)}, step, {}, &gaps, scope).ok());
  EXPECT_EQ(gaps.carried_steps, 6);
  counted = CountedPerCluster(l);
  EXPECT_NEAR(counted["west"], one, 1e-9);

  // Each cluster's gauges and counters alone, as a serve of that cluster exports them.
  const std::vector<std::string> only_west = {"west"};
  Result<LedgerTotals> west_totals = l.Totals(only_west);
  ASSERT_TRUE(west_totals.ok());
  for (const HolderTotal& h : west_totals->holders) EXPECT_EQ(h.cluster, "west");
  for (const NodeIdleTotal& n : west_totals->idle) EXPECT_EQ(n.cluster, "west");
  EXPECT_FALSE(west_totals->idle.empty());
  Result<LedgerLatest> latest = l.Latest(only_west);
  ASSERT_TRUE(latest.ok()) << latest.status().ToString();
  ASSERT_TRUE(latest->step_start.has_value());
  EXPECT_EQ(*latest->step_start, At(7200 - 600));
  ASSERT_FALSE(latest->nodes.empty());
  for (const NodeGauge& n : latest->nodes) EXPECT_EQ(n.cluster, "west");
}

TEST_P(LedgerFleetTest, OneWriterAtATimeHoldsAClustersLease) {
  const auto east = RunOf("east");
  auto opened = Ledger::Open(NewTarget("lease"));
  ASSERT_TRUE(opened.ok()) << opened.status().ToString();
  Ledger& l = **opened;
  const Instant t0 = At(100'000);
  WriteScope a;
  a.clusters = {"east"};
  a.writer = "host-a:1:aa";
  a.lease = std::chrono::seconds(30);
  a.now = t0;
  Result<std::optional<ScopeState>> took = l.TakeLease(a);
  ASSERT_TRUE(took.ok()) << took.status().ToString();
  EXPECT_FALSE(took->has_value());

  WriteScope b = a;
  b.writer = "host-b:2:bb";
  b.now = t0 + std::chrono::seconds(5);
  took = l.TakeLease(b);
  ASSERT_TRUE(took.ok());
  ASSERT_TRUE(took->has_value());
  EXPECT_EQ((*took)->writer, a.writer);
  EXPECT_EQ((*took)->lease_until, t0 + std::chrono::seconds(30));
  // A write by the standby fails and writes nothing.
  const Status refused = l.Write(east->b.inventory, east->options.window, east->options.step,
                                 east->sink.records, nullptr, b);
  EXPECT_EQ(refused.code(), StatusCode::kFailedPrecondition) << refused.ToString();
  EXPECT_NE(refused.message().find("is written by host-a:1:aa"), std::string::npos)
      << refused.ToString();
  EXPECT_EQ(l.Info()->records, 0);
  // The holder writes, and its write renews the lease.
  WriteScope a_later = a;
  a_later.now = t0 + std::chrono::seconds(20);
  ASSERT_TRUE(l.Write(east->b.inventory, east->options.window, east->options.step,
                      east->sink.records, nullptr, a_later)
                  .ok());
  b.now = t0 + std::chrono::seconds(40);
  took = l.TakeLease(b);
  ASSERT_TRUE(took.ok());
  EXPECT_TRUE(took->has_value()) << "the write renewed the lease to t0 + 50 s";

  // Once it runs out the standby takes over, and the writer before is refused from then on.
  b.now = t0 + std::chrono::seconds(51);
  took = l.TakeLease(b);
  ASSERT_TRUE(took.ok());
  EXPECT_FALSE(took->has_value());
  a_later.now = b.now + std::chrono::seconds(1);
  EXPECT_EQ(l.SetAttributedThrough(a_later, At(7200), {}).code(), StatusCode::kFailedPrecondition);
  // Given back on a clean stop, it is free at once.
  ASSERT_TRUE(l.ReleaseLease(b).ok());
  took = l.TakeLease(a_later);
  ASSERT_TRUE(took.ok());
  EXPECT_FALSE(took->has_value());
}

TEST_P(LedgerFleetTest, ASlurmAndAKubernetesSourceCannotWriteOneCluster) {
  const auto pods = RunOf("hpc");
  auto jobs = RunOf("hpc");
  for (Holder& h : jobs->b.inventory.holders) h.kind = HolderKind::kSlurmJob;
  auto opened = Ledger::Open(NewTarget("sources"));
  ASSERT_TRUE(opened.ok());
  Ledger& l = **opened;
  ASSERT_TRUE(
      l.Write(pods->b.inventory, pods->options.window, pods->options.step, pods->sink.records)
          .ok());
  const Status s =
      l.Write(jobs->b.inventory, jobs->options.window, jobs->options.step, jobs->sink.records);
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  EXPECT_NE(s.message().find("cluster hpc is written by a kubernetes source; a slurm source"),
            std::string::npos)
      << s.ToString();
  Result<std::vector<ScopeState>> scopes = l.Scopes();
  ASSERT_TRUE(scopes.ok());
  ASSERT_EQ(scopes->size(), 1u);
  EXPECT_EQ((*scopes)[0].source, "kubernetes");
}

TEST_P(LedgerFleetTest, ALedgerFromBeforeScopesKeepsItsResumePoint) {
  const auto run = RunOf("c");
  const std::string target = NewTarget("v3");
  {
    auto opened = Ledger::Open(target);
    ASSERT_TRUE(opened.ok());
    ASSERT_TRUE(
        (*opened)
            ->Write(run->b.inventory, run->options.window, run->options.step, run->sink.records)
            .ok());
  }
  {
    // As schema version 3 left it: one resume point and one list of draws in meta.
    auto db = OpenDatabase(target);
    ASSERT_TRUE(db.ok());
    const std::string through = StrCat(
        "INSERT INTO meta (key, value) VALUES ('attributed_through_ms', '", UnixMs(At(5400)), "')");
    for (const char* sql :
         {"DROP TABLE scopes", "UPDATE meta SET value = '3' WHERE key = 'schema_version'",
          through.c_str(),
          "INSERT INTO meta (key, value) VALUES ('open_draws', '[{\"holder\": \"c\\u001fns\", "
          "\"node\": \"c\\u001fn1\", \"resource\": \"nvidia.com/gpu\", \"units\": []}]')"}) {
      ASSERT_TRUE((*db)->Exec(sql).ok()) << sql;
    }
  }
  auto opened = Ledger::Open(target);
  ASSERT_TRUE(opened.ok()) << opened.status().ToString();
  Result<std::vector<ScopeState>> scopes = (*opened)->Scopes();
  ASSERT_TRUE(scopes.ok()) << scopes.status().ToString();
  ASSERT_EQ(scopes->size(), 1u);
  EXPECT_EQ((*scopes)[0].cluster, "c");
  EXPECT_EQ((*scopes)[0].attributed_through.value_or(Instant{}), At(5400));
  ASSERT_TRUE((*scopes)[0].newest_step.has_value());
  EXPECT_EQ((*scopes)[0].newest_step->end, At(7200));
  Result<std::vector<KeyedDraw>> draws = (*opened)->OpenDraws(std::vector<std::string>{"c"});
  ASSERT_TRUE(draws.ok()) << draws.status().ToString();
  ASSERT_EQ(draws->size(), 1u);
  EXPECT_EQ((*draws)[0].node, "c\x1fn1");
}

}  // namespace
}  // namespace gpucost::ledger
