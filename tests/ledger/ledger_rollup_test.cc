// Roll-ups on both backends: a report from hourly and daily roll-ups is the report of the records
// they sum — under every idle policy, for windows that cut hours and days, with unknown prices,
// unmeasured and shared (estimated) GPUs — and stays so after a write into a sealed period and
// after retention.
#include <gtest/gtest.h>

#include <cmath>
#include <iterator>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "ledger/ledger_test_util.h"
#include "ledger/rollup_cache.h"
#include "report/aggregator.h"

namespace gpucost::ledger {
namespace {

using testing::At;

constexpr int64_t kHour = 3600;
constexpr int64_t kSpan = 30 * kHour;  // a day and six hours
constexpr int64_t kStep = 120;         // not a divisor of 5 minutes: periods of 3 and 2 steps

// Three nodes over 30 h at 2-minute steps: a priced whole GPU held for 20 h of usage that
// drops in and out; a time-sliced GPU with two holders whose price is unknown for its first 5 h
// and whose activity is measured only from hour 8 (split by shares: estimated); a MIG slice held
// on and off, never measured. Idle wherever nobody holds. Billing rate on one holder.
struct Cluster {
  testing::ClusterBuilder b;
  PriceFn price;
};

std::unique_ptr<Cluster> MakeCluster() {
  auto c = std::make_unique<Cluster>();
  testing::ClusterBuilder& b = c->b;
  const NodeIndex n1 = b.AddNode("n1");
  const UnitIndex g1 = b.AddWhole(n1, "GPU-1");
  const HolderIndex train = b.AddHolder("ml", "train-0");
  b.inventory.holders[train].team = "research";
  b.inventory.holders[train].billing_per_gpu_hour = 3;
  b.HoldUnits(train, {g1}, 0, 20 * kHour);
  b.DeviceUsage(n1, "GPU-1", -1, 0.7, 0, 6 * kHour);
  b.DeviceUsage(n1, "GPU-1", -1, 0.2, 9 * kHour + 900, 26 * kHour);
  // A second pod on the same whole GPU for a while: the unit is oversubscribed, shares scaled.
  const HolderIndex debug = b.AddHolder("ml", "debug-0");
  b.HoldUnits(debug, {g1}, 10 * kHour + 600, 14 * kHour + 240);

  const NodeIndex n2 = b.AddNode("n2", SharingMode::kTimeSlicing);
  b.inventory.nodes[n2].replicas = 2;
  b.inventory.nodes[n2].physical_gpus = 1;
  const auto replicas = b.AddReplicas(n2, "GPU-2", 2);
  const HolderIndex api = b.AddHolder("web", "api-0");
  const HolderIndex batch = b.AddHolder("web", "batch-0");
  b.HoldUnits(api, {replicas[0]}, 0, kSpan);
  b.HoldUnits(batch, {replicas[1]}, 3 * kHour + 1200, 17 * kHour);
  b.DeviceUsage(n2, "GPU-2", -1, 0.9, 8 * kHour, kSpan);

  const NodeIndex n3 = b.AddNode("n3");
  b.inventory.nodes[n3].physical_gpus = 1;
  const UnitIndex mig = b.AddMig(n3, "GPU-3", 1, 3.0 / 7.0, "3g.40gb");
  const HolderIndex nb = b.AddHolder("lab", "notebook-0");
  b.HoldUnits(nb, {mig}, 2 * kHour, 4 * kHour);
  b.HoldUnits(nb, {mig}, 12 * kHour + 600, 25 * kHour);

  c->price = [](const Node& node, Window w) {
    std::vector<PricePeriod> out;
    if (node.name == "n2") {
      const Instant known = std::max(w.start, At(5 * kHour));
      if (w.start < known)
        out.push_back({{w.start, std::min(known, w.end)}, 0, PriceSource::kUnknown, w.start, "-"});
      if (known < w.end) out.push_back({{known, w.end}, 1.75, PriceSource::kCatalog, known, "t"});
      return out;
    }
    out.push_back(
        {{w.start, w.end}, node.name == "n1" ? 2.5 : 4.0, PriceSource::kSpot, w.start, "t"});
    return out;
  };
  return c;
}

std::vector<CostRecord> AttributeWindow(const Cluster& c, int64_t from_s, int64_t to_s,
                                        const PriceFn& price, int64_t step_s = kStep) {
  AttributionOptions options;
  options.window = {At(from_s), At(to_s)};
  options.step = std::chrono::seconds(step_s);
  testing::CollectSink sink;
  const Result<AttributionSummary> s = Attribute(c.b.inventory, c.b.usage, price, options, sink);
  EXPECT_TRUE(s.ok()) << s.status().ToString();
  return sink.records;
}

Report ReportOf(const LedgerWindow& w, const std::string& by, IdlePolicy policy) {
  AggregatorOptions o;
  o.window = w.window;
  o.engine_step = w.step;
  o.accumulate = true;
  o.by = *ParseDimensions(by);
  o.idle.policy = policy;
  Result<Aggregator> agg = Aggregator::Create(w.inventory, o);
  EXPECT_TRUE(agg.ok()) << agg.status().ToString();
  agg->Consume(w.records);
  agg->ConsumeRolled(w.rolled);
  return agg->Finish();
}

void ExpectSameDouble(double a, double b, const std::string& what) {
  if (std::isnan(a) || std::isnan(b)) {
    EXPECT_EQ(std::isnan(a), std::isnan(b)) << what << ": " << a << " vs " << b;
    return;
  }
  EXPECT_NEAR(a, b, 1e-9 * std::max(1.0, std::fabs(a))) << what;
}

void ExpectSameReport(const Report& a, const Report& b, const std::string& what,
                      bool sources_known = true) {
  ASSERT_EQ(a.rows.size(), b.rows.size()) << what;
  for (size_t i = 0; i < a.rows.size(); ++i) {
    const ReportRow& x = a.rows[i];
    const ReportRow& y = b.rows[i];
    const std::string row = what + " row " + std::to_string(i);
    EXPECT_EQ(x.values, y.values) << row;
    EXPECT_EQ(x.is_idle, y.is_idle) << row;
    ExpectSameDouble(x.gpu_hours, y.gpu_hours, row + " gpu_hours");
    ExpectSameDouble(x.allocated_usd, y.allocated_usd, row + " allocated");
    ExpectSameDouble(x.effective_usd, y.effective_usd, row + " effective");
    ExpectSameDouble(x.waste_usd, y.waste_usd, row + " waste");
    ExpectSameDouble(x.idle_usd, y.idle_usd, row + " idle");
    ExpectSameDouble(x.utilization, y.utilization, row + " utilization");
    ExpectSameDouble(x.efficiency, y.efficiency, row + " efficiency");
    ExpectSameDouble(x.unmeasured_gpu_hours, y.unmeasured_gpu_hours, row + " unmeasured");
    ExpectSameDouble(x.unpriced_gpu_hours, y.unpriced_gpu_hours, row + " unpriced");
    ExpectSameDouble(x.activity_gpu_hours, y.activity_gpu_hours, row + " activity");
    ExpectSameDouble(x.billing_units, y.billing_units, row + " billing");
    EXPECT_EQ(x.estimated, y.estimated) << row;
    EXPECT_EQ(x.oversubscribed, y.oversubscribed) << row;
  }
  ExpectSameDouble(a.totals.cost_usd, b.totals.cost_usd, what + " cost");
  ExpectSameDouble(a.totals.utilization, b.totals.utilization, what + " utilization");
  EXPECT_EQ(a.totals.prices_known, b.totals.prices_known) << what;
  // The hours by price source too, where the roll-ups know them (an hour whose price changed
  // source within it does not: sources_known says whether they must).
  EXPECT_TRUE(b.price_sources_known) << what;
  if (!a.price_sources_known && !sources_known) return;
  EXPECT_TRUE(a.price_sources_known) << what;
  ASSERT_EQ(a.price_sources.size(), b.price_sources.size()) << what;
  for (size_t i = 0; i < a.price_sources.size(); ++i) {
    EXPECT_EQ(a.price_sources[i].first, b.price_sources[i].first) << what;
    ExpectSameDouble(a.price_sources[i].second, b.price_sources[i].second,
                     what + " " + a.price_sources[i].first + " hours");
  }
}

class LedgerRollups : public LedgerBackendTest {
 protected:
  // Every window and grouping, read with and without roll-ups: the same report. Gives how
  // many roll-ups the reads used.
  size_t ExpectRollupsChangeNothing(Ledger& ledger, const std::string& what,
                                    bool sources_known = true) {
    struct Case {
      int64_t from, to;
    };
    const Case windows[] = {{0, kSpan},
                            {0, 24 * kHour},
                            {kHour + 1200, 27 * kHour},
                            {2 * kHour, 5 * kHour},
                            {10 * kHour, 10 * kHour + 1800}};
    size_t rolled = 0;
    for (const Case& c : windows) {
      const Window w{At(c.from), At(c.to)};
      ReadOptions with;
      with.rollups = true;
      Result<LedgerWindow> a = ledger.Read(w, with);
      Result<LedgerWindow> b = ledger.Read(w);
      EXPECT_TRUE(a.ok() && b.ok()) << (a.ok() ? b.status() : a.status()).ToString();
      if (!a.ok() || !b.ok()) return rolled;
      EXPECT_TRUE(b->rolled.empty());
      if (b->records.empty()) {  // a window retention emptied
        EXPECT_TRUE(a->records.empty() && a->rolled.empty()) << what;
        continue;
      }
      EXPECT_EQ(a->step, b->step);
      rolled += a->rolled.size();
      int64_t summed = 0;
      for (const RolledRecord& r : a->rolled) summed += r.records;
      EXPECT_EQ(a->records.size() + static_cast<size_t>(summed), b->records.size())
          << what << " " << c.from << "-" << c.to;
      // Oversubscribed unit-steps: counted once per unit and step, whether from records or
      // from roll-ups (where every holder's entry of a unit carries the unit's count).
      std::set<std::pair<UnitIndex, int64_t>> over_a, over_b;
      for (const CostRecord& r : a->records) {
        if (r.oversubscribed) over_a.insert({r.unit, r.step});
      }
      std::map<UnitIndex, int64_t> rolled_over;
      for (const RolledRecord& r : a->rolled) {
        if (r.unit_oversubscribed_steps > 0) {
          rolled_over[r.unit] = std::max(rolled_over[r.unit], r.unit_oversubscribed_steps);
        }
      }
      for (const CostRecord& r : b->records) {
        if (r.oversubscribed) over_b.insert({r.unit, r.step});
      }
      int64_t over_total = static_cast<int64_t>(over_a.size());
      for (const auto& [unit, n] : rolled_over) over_total += n;
      EXPECT_EQ(over_total, static_cast<int64_t>(over_b.size()))
          << what << " " << c.from << "-" << c.to;
      for (const char* by : {"namespace", "team,pod", "node,gpu_model"}) {
        for (IdlePolicy p : {IdlePolicy::kSeparate, IdlePolicy::kProportional, IdlePolicy::kEven}) {
          ExpectSameReport(ReportOf(*a, by, p), ReportOf(*b, by, p),
                           what + " [" + std::to_string(c.from) + "," + std::to_string(c.to) +
                               ") by " + by + " idle " + std::to_string(static_cast<int>(p)),
                           sources_known);
        }
      }
    }
    return rolled;
  }
};
INSTANTIATE_TEST_SUITE_P(Backends, LedgerRollups,
                         ::testing::Values(Backend::kSqlite, Backend::kPostgres), BackendName);

TEST_P(LedgerRollups, AReportFromRollupsIsTheReportOfTheirRecords) {
  const auto c = MakeCluster();
  const std::string target = NewTarget("rollups");
  auto ledger = Ledger::Open(target);
  ASSERT_TRUE(ledger.ok()) << ledger.status().ToString();
  const std::vector<CostRecord> records = AttributeWindow(*c, 0, kSpan, c->price);
  ASSERT_TRUE((*ledger)
                  ->Write(c->b.inventory, {At(0), At(kSpan)}, std::chrono::seconds(kStep), records)
                  .ok());
  // Nothing sealed yet: the reads are records only.
  EXPECT_EQ(ExpectRollupsChangeNothing(**ledger, "unsealed"), 0u);
  const Window budget_windows[] = {{At(0), At(kSpan)}, {At(kHour + 600), At(26 * kHour)}};
  const CostGroup groups[] = {CostGroup::kTeam, CostGroup::kCluster, CostGroup::kClusterTeam};
  std::vector<std::map<std::string, CostSum>> team_costs;
  for (const CostGroup g : groups) {
    for (const Window& w : budget_windows) team_costs.push_back(*(*ledger)->Costs(w, {}, g));
  }
  // A cluster's money is every record's of the window, held and idle.
  double whole = 0;
  for (const CostRecord& r : records) whole += r.price_known ? r.allocated_usd : 0;
  double clusters = 0;
  for (const auto& [cluster, sum] : team_costs[std::size(budget_windows)]) clusters += sum.usd;
  EXPECT_NEAR(clusters, whole, 1e-9 * whole);

  // Sealing stops at the last whole 5 minutes before the instant: of the 30 hours, 29 whole
  // hours, the first day, and 29:00-29:30 in 5-minute periods.
  Result<int64_t> sealed = (*ledger)->Seal(At(29 * kHour + 1800 + 200));
  ASSERT_TRUE(sealed.ok()) << sealed.status().ToString();
  EXPECT_EQ(*sealed, 29);
  EXPECT_EQ(*(*ledger)->SealedThrough(), At(29 * kHour + 1800));
  EXPECT_EQ(*(*ledger)->Seal(At(29 * kHour + 1800 + 200)), 0);  // nothing new
  EXPECT_GT(ExpectRollupsChangeNothing(**ledger, "sealed"), 0u);
  // Team and cluster costs (budgets, rewrites) read the roll-ups too, and come out the same.
  for (size_t i = 0; i < team_costs.size(); ++i) {
    const auto costs = (*ledger)->Costs(budget_windows[i % std::size(budget_windows)], {},
                                        groups[i / std::size(budget_windows)]);
    ASSERT_TRUE(costs.ok()) << costs.status().ToString();
    ASSERT_EQ(costs->size(), team_costs[i].size());
    EXPECT_GE(costs->size(),
              groups[i / std::size(budget_windows)] == CostGroup::kCluster ? 1u : 2u);
    for (const auto& [team, want] : team_costs[i]) {
      ASSERT_TRUE(costs->count(team)) << team;
      const CostSum& got = costs->at(team);
      EXPECT_NEAR(got.usd, want.usd, 1e-9 * std::max(1.0, want.usd)) << team;
      EXPECT_NEAR(got.effective_usd, want.effective_usd, 1e-9 * std::max(1.0, want.usd)) << team;
      EXPECT_NEAR(got.priced_gpu_hours, want.priced_gpu_hours, 1e-9) << team;
      EXPECT_NEAR(got.unpriced_gpu_hours, want.unpriced_gpu_hours, 1e-9) << team;
      EXPECT_GT(got.priced_gpu_hours + got.unpriced_gpu_hours, 0) << team;
    }
  }

  // The whole-window read uses the day, five hours and six 5-minute periods, summed per (unit,
  // holder) since the report is one bucket, and the last half hour as records.
  ReadOptions with;
  with.rollups = true;
  Result<LedgerWindow> w = (*ledger)->Read(Window{At(0), At(kSpan)}, with);
  ASSERT_TRUE(w.ok());
  for (const CostRecord& r : w->records) EXPECT_GE(r.step * kStep, 29 * kHour + 1800);
  int64_t most = 0;
  for (const RolledRecord& r : w->rolled) most = std::max(most, r.records);
  EXPECT_EQ(most, (29 * kHour + 1800) / kStep);  // api-0, held all along
  EXPECT_LE(w->rolled.size(), 8u);               // 4 holders and 4 units' idle, at most
}

TEST_P(LedgerRollups, StepsOfFiveMinutesOrMoreRollHoursFromTheRecords) {
  // 10-minute steps: a 5-minute period would copy its one step's records, so hours are rolled
  // from the records themselves; the reports still agree.
  const auto c = MakeCluster();
  auto ledger = Ledger::Open(NewTarget("tenminutes"));
  ASSERT_TRUE(ledger.ok()) << ledger.status().ToString();
  ASSERT_TRUE((*ledger)
                  ->Write(c->b.inventory, {At(0), At(kSpan)}, std::chrono::minutes(10),
                          AttributeWindow(*c, 0, kSpan, c->price, 600))
                  .ok());
  ASSERT_EQ(*(*ledger)->Seal(At(kSpan)), 30);
  EXPECT_GT(ExpectRollupsChangeNothing(**ledger, "10-minute steps"), 0u);
}

TEST_P(LedgerRollups, AWriteIntoSealedHoursRollsThemAgain) {
  const auto c = MakeCluster();
  auto ledger = Ledger::Open(NewTarget("reroll"));
  ASSERT_TRUE(ledger.ok()) << ledger.status().ToString();
  const Duration step = std::chrono::seconds(kStep);
  ASSERT_TRUE(
      (*ledger)
          ->Write(c->b.inventory, {At(0), At(kSpan)}, step, AttributeWindow(*c, 0, kSpan, c->price))
          .ok());
  ASSERT_TRUE((*ledger)->Seal(At(kSpan)).ok());
  // Read through a cache, as serve's API reads: its periods and their sum must not outlive a
  // roll-up again.
  RollupCache cache(1'000'000);
  ReadOptions with;
  with.rollups = true;
  with.cache = &cache;
  const Window all{At(0), At(kSpan)};
  const Report before = ReportOf(*(*ledger)->Read(all, with), "namespace", IdlePolicy::kSeparate);
  ASSERT_GT(cache.rows(), 0u);

  // Late data: 5h10 to 7h20 attributed again at another price, into sealed hours and the day.
  const PriceFn dearer = testing::ConstantPrice(9);
  const Status rewritten =
      (*ledger)->Write(c->b.inventory, {At(5 * kHour + 600), At(7 * kHour + 1200)}, step,
                       AttributeWindow(*c, 5 * kHour + 600, 7 * kHour + 1200, dearer));
  ASSERT_TRUE(rewritten.ok()) << rewritten.ToString();
  const Report after = ReportOf(*(*ledger)->Read(all, with), "namespace", IdlePolicy::kSeparate);
  EXPECT_GT(after.totals.cost_usd, before.totals.cost_usd + 1);
  ReadOptions uncached = with;
  uncached.cache = nullptr;
  const Report fresh =
      ReportOf(*(*ledger)->Read(all, uncached), "namespace", IdlePolicy::kSeparate);
  EXPECT_NEAR(after.totals.cost_usd, fresh.totals.cost_usd, 1e-9);
  EXPECT_GT(ExpectRollupsChangeNothing(**ledger, "rewritten", false), 0u);
}

// Two clusters in one ledger: a write of one into sealed hours rolls its own rows of them again,
// and the other's stand.
TEST_P(LedgerRollups, AWriteIntoSealedHoursRollsItsOwnClustersRowsAgain) {
  auto east = MakeCluster();
  auto west = MakeCluster();
  for (auto* c : {east.get(), west.get()}) {
    const std::string name = c == east.get() ? "east" : "west";
    for (Node& n : c->b.inventory.nodes) n.cluster = name;
    for (Holder& h : c->b.inventory.holders) h.cluster = name;
  }
  auto ledger = Ledger::Open(NewTarget("fleet_reroll"));
  ASSERT_TRUE(ledger.ok()) << ledger.status().ToString();
  const Duration step = std::chrono::seconds(kStep);
  for (auto* c : {east.get(), west.get()}) {
    ASSERT_TRUE((*ledger)
                    ->Write(c->b.inventory, {At(0), At(kSpan)}, step,
                            AttributeWindow(*c, 0, kSpan, c->price))
                    .ok());
  }
  ASSERT_TRUE((*ledger)->Seal(At(kSpan)).ok());
  ReadOptions with;
  with.rollups = true;
  with.clusters = {"west"};
  const Window all{At(0), At(kSpan)};
  const Report west_before =
      ReportOf(*(*ledger)->Read(all, with), "namespace", IdlePolicy::kSeparate);
  with.clusters = {"east"};
  const Report east_before =
      ReportOf(*(*ledger)->Read(all, with), "namespace", IdlePolicy::kSeparate);

  const PriceFn dearer = testing::ConstantPrice(9);
  ASSERT_TRUE((*ledger)
                  ->Write(east->b.inventory, {At(5 * kHour + 600), At(7 * kHour + 1200)}, step,
                          AttributeWindow(*east, 5 * kHour + 600, 7 * kHour + 1200, dearer))
                  .ok());
  EXPECT_GT(ExpectRollupsChangeNothing(**ledger, "one cluster rewritten", false), 0u);
  const Report east_after =
      ReportOf(*(*ledger)->Read(all, with), "namespace", IdlePolicy::kSeparate);
  EXPECT_GT(east_after.totals.cost_usd, east_before.totals.cost_usd + 1);
  with.clusters = {"west"};
  ExpectSameReport(ReportOf(*(*ledger)->Read(all, with), "namespace", IdlePolicy::kSeparate),
                   west_before, "west, after east's write");
}

TEST_P(LedgerRollups, RetentionTakesTheRollupsOfWhatItRemoves) {
  const auto c = MakeCluster();
  auto ledger = Ledger::Open(NewTarget("retention"));
  ASSERT_TRUE(ledger.ok()) << ledger.status().ToString();
  ASSERT_TRUE((*ledger)
                  ->Write(c->b.inventory, {At(0), At(kSpan)}, std::chrono::seconds(kStep),
                          AttributeWindow(*c, 0, kSpan, c->price))
                  .ok());
  ASSERT_TRUE((*ledger)->Seal(At(kSpan)).ok());
  // Records before 10h30 go; the day, the hours and 5-minute periods that began before go with
  // them.
  ASSERT_TRUE((*ledger)->DeleteBefore(At(10 * kHour + 1800)).ok());
  EXPECT_GT(ExpectRollupsChangeNothing(**ledger, "after retention"), 0u);
  ReadOptions with;
  with.rollups = true;
  Result<LedgerWindow> w = (*ledger)->Read(Window{At(0), At(kSpan)}, with);
  ASSERT_TRUE(w.ok());
  // The window is clipped to what the ledger still holds; steps count from its start.
  EXPECT_EQ(w->window.start, At(10 * kHour + 1800));
  const int64_t from = (UnixMs(w->window.start) - UnixMs(At(0))) / 1000;
  for (const RolledRecord& r : w->rolled) EXPECT_GE(from + r.step * kStep, 10 * kHour + 1800);
  for (const CostRecord& r : w->records) EXPECT_GE(from + r.step * kStep, 10 * kHour + 1800);
  EXPECT_FALSE(w->rolled.empty());
}

}  // namespace
}  // namespace gpucost::ledger
