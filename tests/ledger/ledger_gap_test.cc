// Gaps in a write, on both backends: steps a writer did not watch and its source no longer has
// are given the holdings of the step before, unmeasured; steps that already hold records keep
// them; nothing is carried from an empty step; the counters and roll-ups follow (docs/ledger.md,
// "Gaps").
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

#include "core/strings.h"
#include "ledger/ledger_test_util.h"

namespace gpucost::ledger {
namespace {

using testing::At;

class LedgerGapTest : public LedgerBackendTest {};
INSTANTIATE_TEST_SUITE_P(Backends, LedgerGapTest,
                         ::testing::Values(Backend::kSqlite, Backend::kPostgres), BackendName);

// A read's records by (step, unit, holder), named so that two reads compare.
using Key = std::tuple<int64_t, std::string, std::string>;
std::map<Key, CostRecord> ByKey(const LedgerWindow& w) {
  std::map<Key, CostRecord> out;
  for (const CostRecord& r : w.records) {
    const GpuUnit& u = w.inventory.units[r.unit];
    const std::string unit =
        StrCat(w.inventory.nodes[u.node].name, "/", u.gpu_uuid, "/", u.partition.ToString());
    const std::string holder = r.is_idle() ? "(idle)" : w.inventory.holders[r.holder].pod;
    out.emplace(Key{r.step, unit, holder}, r);
  }
  return out;
}

// The records of `run` in steps [from, to), re-indexed from step `from`.
std::vector<CostRecord> Steps(const std::vector<CostRecord>& records, int64_t from, int64_t to) {
  std::vector<CostRecord> out;
  for (CostRecord r : records) {
    if (r.step < from || r.step >= to) continue;
    r.step -= from;
    out.push_back(r);
  }
  return out;
}

// A write scope naming the clusters of `inv` (a carry-over writes no inventory).
WriteScope ScopeOf(const Inventory& inv) {
  WriteScope scope;
  for (const Node& n : inv.nodes) {
    if (std::find(scope.clusters.begin(), scope.clusters.end(), n.cluster) ==
        scope.clusters.end()) {
      scope.clusters.push_back(n.cluster);
    }
  }
  return scope;
}

double HeldTotal(Ledger& l, double HolderTotal::*field) {
  Result<LedgerTotals> t = l.Totals();
  EXPECT_TRUE(t.ok());
  double sum = 0;
  for (const HolderTotal& h : t->holders) sum += h.*field;
  return sum;
}

TEST_P(LedgerGapTest, AnUnwatchedHoleGetsTheHoldingsOfTheStepBeforeUnmeasured) {
  // Ten-minute steps over two hours; the source had steps 0-2 and 6-11, nothing for 3-5.
  const auto run = Attributed();
  const Inventory& inv = run->b.inventory;
  const Duration step = run->options.step;
  auto opened = Ledger::Open(NewTarget("gap"));
  ASSERT_TRUE(opened.ok()) << opened.status().ToString();
  Ledger& l = **opened;
  ASSERT_TRUE(l.Write(inv, {At(0), At(1800)}, step, Steps(run->sink.records, 0, 3)).ok());
  WriteGaps gaps;
  gaps.runs.push_back({{At(1800), At(3600)}, true});
  ASSERT_TRUE(l.Write(inv, {At(3600), At(7200)}, step, Steps(run->sink.records, 6, 12)).ok());
  // The hole alone, as serve writes it once data closed it.
  ASSERT_TRUE(l.Write(Inventory{}, {At(1800), At(3600)}, step, {}, &gaps, ScopeOf(inv)).ok());
  EXPECT_EQ(gaps.carried_steps, 3);

  Result<LedgerWindow> read = l.Read(Window{At(0), At(7200)});
  ASSERT_TRUE(read.ok()) << read.status().ToString();
  const std::map<Key, CostRecord> got = ByKey(*read);
  int carried = 0;
  for (const auto& [key, before] : got) {
    if (std::get<0>(key) != 2) continue;
    for (int64_t s = 3; s <= 5; ++s) {
      const auto it = got.find(Key{s, std::get<1>(key), std::get<2>(key)});
      ASSERT_NE(it, got.end()) << "step " << s << " " << std::get<1>(key) << " "
                               << std::get<2>(key);
      const CostRecord& r = it->second;
      ++carried;
      EXPECT_EQ(r.gpu_hours, before.gpu_hours);
      EXPECT_TRUE(SameDouble(r.allocated_usd, before.allocated_usd));
      EXPECT_TRUE(SameDouble(r.list_usd, before.list_usd));
      EXPECT_EQ(r.price_known, before.price_known);
      EXPECT_EQ(r.price_source, before.price_source);
      EXPECT_TRUE(std::isnan(r.effective_usd));
      EXPECT_TRUE(std::isnan(r.activity_gpu_hours));
      EXPECT_FALSE(r.estimated);
      EXPECT_EQ(r.unmeasured_gpu_hours, r.is_idle() ? before.unmeasured_gpu_hours : r.gpu_hours);
    }
  }
  // Step 2: n1's GPU held, n2's two replicas (one held); each carried to steps 3, 4 and 5.
  EXPECT_EQ(carried, 3 * 3);
  // Nothing else came with them: every record of the read is one written or carried.
  EXPECT_EQ(got.size(), Steps(run->sink.records, 0, 3).size() +
                            Steps(run->sink.records, 6, 12).size() + carried);

  // The counters follow the records: the hole's held hours count as unmeasured.
  double unmeasured = 0, allocated = 0;
  for (const auto& [key, r] : got) {
    if (r.is_idle()) continue;
    unmeasured += r.unmeasured_gpu_hours;
    if (r.price_known) allocated += r.allocated_usd;
  }
  EXPECT_NEAR(HeldTotal(l, &HolderTotal::unmeasured_gpu_hours), unmeasured, 1e-9);
  EXPECT_NEAR(HeldTotal(l, &HolderTotal::allocated_usd), allocated, 1e-9);

  // Roll-ups over the hole give the report of its records.
  ASSERT_TRUE(l.Seal(At(7200)).ok());
  ReadOptions rolled;
  rolled.rollups = true;
  Result<LedgerWindow> from_rollups = l.Read(Window{At(0), At(7200)}, rolled);
  ASSERT_TRUE(from_rollups.ok()) << from_rollups.status().ToString();
  double rolled_unmeasured = 0;
  for (const RolledRecord& r : from_rollups->rolled) {
    if (!r.is_idle()) rolled_unmeasured += r.sums.unmeasured_hours;
  }
  for (const CostRecord& r : from_rollups->records) {
    if (!r.is_idle()) rolled_unmeasured += r.unmeasured_gpu_hours;
  }
  EXPECT_NEAR(rolled_unmeasured, unmeasured, 1e-9);
}

TEST_P(LedgerGapTest, StepsWithoutDataKeepWhatTheyHoldAndNothingComesFromAnEmptyStep) {
  const auto run = Attributed();
  const Inventory& inv = run->b.inventory;
  const Duration step = run->options.step;
  auto opened = Ledger::Open(NewTarget("keep"));
  ASSERT_TRUE(opened.ok()) << opened.status().ToString();
  Ledger& l = **opened;
  ASSERT_TRUE(l.Write(inv, run->options.window, step, run->sink.records).ok());
  Result<LedgerWindow> first = l.Read(Window{At(0), At(7200)});
  ASSERT_TRUE(first.ok());
  const std::map<Key, CostRecord> before = ByKey(*first);

  // Rewritten without steps 4 and 5 (the source lost them): they keep their records, measured.
  WriteGaps keep;
  keep.runs.push_back({{At(2400), At(3600)}, false});
  std::vector<CostRecord> rest = Steps(run->sink.records, 0, 4);
  for (const CostRecord& r : Steps(run->sink.records, 6, 12)) {
    rest.push_back(r);
    rest.back().step += 6;
  }
  ASSERT_TRUE(l.Write(inv, run->options.window, step, rest, &keep).ok());
  EXPECT_EQ(keep.carried_steps, 0);
  Result<LedgerWindow> again = l.Read(Window{At(0), At(7200)});
  ASSERT_TRUE(again.ok());
  const std::map<Key, CostRecord> after = ByKey(*again);
  ASSERT_EQ(after.size(), before.size());
  for (const auto& [key, r] : before) {
    ASSERT_TRUE(after.count(key)) << std::get<1>(key);
    EXPECT_TRUE(SameDouble(after.at(key).effective_usd, r.effective_usd));
    EXPECT_EQ(after.at(key).unmeasured_gpu_hours, r.unmeasured_gpu_hours);
  }

  // A hole after a step that holds nothing gets nothing: no holdings are known.
  auto empty = Ledger::Open(NewTarget("empty"));
  ASSERT_TRUE(empty.ok());
  WriteGaps carry;
  carry.runs.push_back({{At(600), At(1800)}, true});
  ASSERT_TRUE(
      (*empty)->Write(Inventory{}, {At(600), At(1800)}, step, {}, &carry, ScopeOf(inv)).ok());
  EXPECT_EQ(carry.carried_steps, 0);
  Result<LedgerInfo> info = (*empty)->Info();
  ASSERT_TRUE(info.ok());
  EXPECT_EQ(info->records, 0);
}

WriteScope Clusters(std::vector<std::string> names) {
  WriteScope scope;
  scope.clusters = std::move(names);
  return scope;
}

// How far a writer attributed a cluster, as Scopes() gives it.
std::optional<Instant> ThroughOf(Ledger& l, const std::string& cluster) {
  Result<std::vector<ScopeState>> scopes = l.Scopes();
  EXPECT_TRUE(scopes.ok()) << scopes.status().ToString();
  if (!scopes.ok()) return std::nullopt;
  for (const ScopeState& s : *scopes) {
    if (s.cluster == cluster) return s.attributed_through;
  }
  return std::nullopt;
}

TEST_P(LedgerGapTest, HowFarServeAttributedOnlyMovesForwardPerCluster) {
  auto opened = Ledger::Open(NewTarget("through"));
  ASSERT_TRUE(opened.ok());
  Ledger& l = **opened;
  EXPECT_FALSE(ThroughOf(l, "east").has_value());
  ASSERT_TRUE(l.SetAttributedThrough(Clusters({"east"}), At(600), {}).ok());
  ASSERT_TRUE(l.SetAttributedThrough(Clusters({"east"}), At(300), {}).ok());
  ASSERT_TRUE(l.SetAttributedThrough(Clusters({"west"}), At(120), {}).ok());
  EXPECT_EQ(ThroughOf(l, "east").value_or(Instant{}), At(600));
  EXPECT_EQ(ThroughOf(l, "west").value_or(Instant{}), At(120));
}

TEST_P(LedgerGapTest, KeepsTheOpenPoolDrawsOfEachClusterWithHowFarServeAttributed) {
  auto opened = Ledger::Open(NewTarget("draws"));
  ASSERT_TRUE(opened.ok());
  Ledger& l = **opened;
  const std::vector<std::string> c = {"c"};
  Result<std::vector<KeyedDraw>> none = l.OpenDraws(c);
  ASSERT_TRUE(none.ok()) << none.status().ToString();
  EXPECT_TRUE(none->empty());
  const std::vector<KeyedDraw> draws = {
      {"c\x1fns\x1fpod-a\x1fmain\x1fuid-1",
       "c\x1fn1",
       "nvidia.com/gpu.shared",
       {"c\x1fn1\x1fGPU-1\x1freplica:2"}},
      {"c\x1fns\x1fpod-\"b\"\x1fmain\x1fuid-2",
       "c\x1fn1",
       "nvidia.com/gpu",
       {"c\x1fn1\x1fGPU-2\x1fwhole", "c\x1fn1\x1fGPU-3\x1fwhole"}},
      {"d\x1fns\x1fpod-d\x1fmain\x1fuid-3",
       "d\x1fn1",
       "nvidia.com/gpu",
       {"d\x1fn1\x1fGPU-9\x1fwhole"}}};
  ASSERT_TRUE(l.SetAttributedThrough(Clusters({"c", "d"}), At(600), draws).ok());
  Result<std::vector<KeyedDraw>> of_d = l.OpenDraws(std::vector<std::string>{"d"});
  ASSERT_TRUE(of_d.ok());
  ASSERT_EQ(of_d->size(), 1u);
  EXPECT_EQ((*of_d)[0].holder, draws[2].holder);
  // The draws are replaced even where the mark does not move (a hole holds it back).
  const std::vector<KeyedDraw> later(draws.begin() + 1, draws.begin() + 2);
  ASSERT_TRUE(l.SetAttributedThrough(Clusters({"c"}), At(300), later).ok());
  Result<std::vector<KeyedDraw>> kept = l.OpenDraws(c);
  ASSERT_TRUE(kept.ok()) << kept.status().ToString();
  ASSERT_EQ(kept->size(), 1u);
  EXPECT_EQ((*kept)[0].holder, later[0].holder);
  EXPECT_EQ((*kept)[0].node, later[0].node);
  EXPECT_EQ((*kept)[0].resource, later[0].resource);
  EXPECT_EQ((*kept)[0].units, later[0].units);
  EXPECT_EQ(ThroughOf(l, "c").value_or(Instant{}), At(600));
  EXPECT_EQ(l.OpenDraws(std::vector<std::string>{"d"})->size(), 1u);
}

}  // namespace
}  // namespace gpucost::ledger
