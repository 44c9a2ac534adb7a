// Property test: random clusters (every sharing mode, nodes and pods coming and going, usage gaps,
// price changes and unknown prices, odd windows and steps) must conserve cost exactly and keep
// every record within its bounds. Fixed seeds, so a failure reproduces.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <map>
#include <random>
#include <set>
#include <tuple>

#include "attribution/attributor.h"
#include "attribution/cluster_builder.h"

namespace gpucost {
namespace {

using testing::At;
using testing::ClusterBuilder;
using testing::CollectSink;

struct Case {
  ClusterBuilder b;
  std::map<std::string, std::vector<PricePeriod>> prices;
  AttributionOptions options;
};

class Gen {
 public:
  explicit Gen(uint32_t seed) : rng_(seed) {}
  int Int(int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng_); }
  double Real(double lo, double hi) { return std::uniform_real_distribution<double>(lo, hi)(rng_); }
  bool Chance(double p) { return Real(0, 1) < p; }

 private:
  std::mt19937 rng_;
};

// Sorted, disjoint spans inside [lo, hi), in seconds.
std::vector<Interval> RandomIntervals(Gen& g, int lo, int hi, int max_count) {
  std::set<int> cuts;
  const int n = g.Int(1, max_count) * 2;
  for (int i = 0; i < n; ++i) cuts.insert(g.Int(lo, hi));
  std::vector<int> v(cuts.begin(), cuts.end());
  std::vector<Interval> out;
  for (size_t i = 0; i + 1 < v.size(); i += 2) out.push_back({At(v[i]), At(v[i + 1])});
  return out;
}

Case MakeCase(uint32_t seed) {
  Gen g(seed);
  Case c;
  ClusterBuilder& b = c.b;
  const int start = g.Int(0, 600);
  const int length = g.Int(60, 4 * 3600);
  const int end = start + length;
  c.options.window = {At(start), At(end)};
  c.options.step = std::chrono::seconds(g.Int(7, 900));
  c.options.staleness = std::chrono::seconds(g.Int(15, 600));
  const int n_nodes = g.Int(1, 4);
  std::vector<std::string> resources;
  for (int ni = 0; ni < n_nodes; ++ni) {
    const std::string name = "node-" + std::to_string(ni);
    const int kind = g.Int(0, 3);
    const NodeIndex n =
        b.AddNode(name, std::array{SharingMode::kNone, SharingMode::kMig, SharingMode::kTimeSlicing,
                                   SharingMode::kHami}[static_cast<size_t>(kind)]);
    if (g.Chance(0.4)) b.inventory.nodes[n].present = RandomIntervals(g, start - 100, end + 100, 2);
    const int gpus = g.Int(1, 3);
    for (int gi = 0; gi < gpus; ++gi) {
      const std::string uuid = name + "-gpu-" + std::to_string(gi);
      if (kind == 1) {
        int left = 7;
        int id = 1;
        while (left > 0 && g.Chance(0.8)) {
          const int slices = std::min(left, std::array{1, 2, 3}[static_cast<size_t>(g.Int(0, 2))]);
          b.AddMig(n, uuid, id++, slices / 7.0, std::to_string(slices) + "g.x");
          left -= slices;
        }
        if (left > 0) b.AddUnit(n, uuid, {PartitionKind::kMig, -1}, left / 7.0, "", false);
      } else if (kind == 2) {
        b.AddReplicas(n, uuid, g.Int(2, 6));
      } else {
        b.AddWhole(n, uuid);
      }
      if (g.Chance(0.8)) {
        DeviceSeries d{n, uuid, -1, {}};
        for (int t = start - 200; t < end; t += g.Int(5, 200)) {
          if (g.Chance(0.9)) d.samples.push_back({At(t), g.Real(-0.1, 1.2)});
        }
        b.usage.devices.push_back(d);
      }
      for (int id = 1; id < 8; ++id) {
        if (kind == 1 && g.Chance(0.5)) b.DeviceUsage(n, uuid, id, g.Real(0, 1), start, end, 45);
      }
    }
    // Prices: a few periods, some unknown, maybe a gap.
    std::vector<PricePeriod> periods;
    int t = start;
    while (t < end) {
      const int next = std::min(end, t + g.Int(30, length));
      if (!g.Chance(0.1)) {
        periods.push_back({{At(t), At(next)},
                           g.Real(0.5, 15),
                           g.Chance(0.15) ? PriceSource::kUnknown : PriceSource::kCatalog,
                           At(t),
                           ""});
      }
      t = next;
    }
    c.prices[name] = periods;
  }
  const int n_holders = g.Int(0, 8);
  for (int h = 0; h < n_holders; ++h)
    b.AddHolder("ns" + std::to_string(h % 3), "p" + std::to_string(h));
  const int n_holdings = n_holders == 0 ? 0 : g.Int(0, 14);
  for (int i = 0; i < n_holdings; ++i) {
    const auto h = static_cast<HolderIndex>(g.Int(0, n_holders - 1));
    const auto n = static_cast<NodeIndex>(g.Int(0, n_nodes - 1));
    const int t0 = g.Int(start - 300, end);
    const int t1 = t0 + g.Int(1, length);
    std::vector<UnitIndex> on_node;
    for (UnitIndex u = 0; u < b.inventory.units.size(); ++u) {
      if (b.inventory.units[u].node == n && b.inventory.units[u].holdable) on_node.push_back(u);
    }
    if (!on_node.empty() && g.Chance(0.2)) {
      b.HoldUnits(h, {on_node[static_cast<size_t>(g.Int(0, static_cast<int>(on_node.size()) - 1))]},
                  t0, t1);
      continue;
    }
    std::string resource = "nvidia.com/gpu";
    if (!on_node.empty()) {
      resource =
          b.inventory
              .units[on_node[static_cast<size_t>(g.Int(0, static_cast<int>(on_node.size()) - 1))]]
              .resource;
    }
    if (g.Chance(0.05)) resource = "nvidia.com/missing";
    const bool hami = b.inventory.nodes[n].sharing == SharingMode::kHami && g.Chance(0.7);
    b.Request(h, n, resource, g.Int(1, 3), t0, t1, hami ? g.Int(5, 100) : -1);
  }
  for (HolderIndex h = 0; h < b.inventory.holders.size(); ++h) {
    if (!b.usage.devices.empty() && g.Chance(0.3)) {
      const DeviceSeries& d = b.usage.devices.front();
      HolderDeviceSeries s{h, d.node, d.gpu_uuid, -1, {}};
      for (int t = start; t < end; t += 60) s.samples.push_back({At(t), g.Real(0, 0.5)});
      b.usage.holders.push_back(s);
    }
  }
  return c;
}

// Node cost computed independently: per unit and step, f x price x present time, and a
// (unit, step) that touches an unknown price is unpriced as a whole.
std::pair<double, double> ExpectedCost(const Case& c) {
  const Inventory& inv = c.b.inventory;
  const int64_t ws = UnixMs(c.options.window.start);
  const int64_t we = UnixMs(c.options.window.end);
  const int64_t step = c.options.step.count();
  CompensatedSum cost;
  CompensatedSum unpriced_hours;
  for (const GpuUnit& u : inv.units) {
    const Node& node = inv.nodes[u.node];
    std::vector<Interval> present = node.present;
    if (present.empty()) present = {{c.options.window.start, c.options.window.end}};
    const auto& periods = c.prices.at(node.name);
    for (int64_t s0 = ws; s0 < we; s0 += step) {
      const int64_t s1 = std::min(we, s0 + step);
      double usd = 0;
      double hours = 0;
      bool unknown = false;
      for (const Interval& p : present) {
        const int64_t a = std::max(s0, UnixMs(p.start));
        const int64_t e = std::min(s1, UnixMs(p.end));
        if (e <= a) continue;
        hours += u.fraction * static_cast<double>(e - a) / 3.6e6;
        int64_t priced_ms = 0;
        for (const PricePeriod& pp : periods) {
          const int64_t x = std::max(a, UnixMs(pp.interval.start));
          const int64_t y = std::min(e, UnixMs(pp.interval.end));
          if (y <= x) continue;
          if (!pp.known()) unknown = true;
          priced_ms += y - x;
          usd += u.fraction * pp.usd_per_gpu_hour * static_cast<double>(y - x) / 3.6e6;
        }
        if (priced_ms < e - a) unknown = true;  // a gap in the price list
      }
      if (unknown) {
        unpriced_hours.Add(hours);
      } else {
        cost.Add(usd);
      }
    }
  }
  return {cost.value(), unpriced_hours.value()};
}

TEST(Property, RandomClustersConserveCostAndStayInBounds) {
  int with_holders = 0;
  int oversubscribed = 0;
  for (uint32_t seed = 1; seed <= 300; ++seed) {
    SCOPED_TRACE("seed " + std::to_string(seed));
    Case c = MakeCase(seed);
    CollectSink sink;
    auto s = Attribute(c.b.inventory, c.b.usage, testing::PricesByNode(c.prices), c.options, sink);
    ASSERT_TRUE(s.ok()) << s.status().ToString();
    const auto [cost, unpriced] = ExpectedCost(c);
    const double tol = 1e-9 * std::max(1.0, cost);
    EXPECT_NEAR(s->node_cost_usd, cost, tol);
    EXPECT_NEAR(s->unpriced_gpu_hours, unpriced, 1e-9 * std::max(1.0, unpriced));
    EXPECT_NEAR(s->allocated_usd + s->idle_usd, s->node_cost_usd, tol);

    CompensatedSum records_usd;
    const double step_h = Hours(c.options.step);
    std::map<std::pair<int64_t, UnitIndex>, std::pair<double, bool>> held;  // gpu_hours, flagged
    std::set<std::tuple<int64_t, UnitIndex, HolderIndex>> keys;
    for (const CostRecord& r : sink.records) {
      ASSERT_TRUE(keys.insert({r.step, r.unit, r.holder}).second) << "duplicate record";
      ASSERT_GE(r.gpu_hours, 0);
      if (r.price_known) {
        ASSERT_GE(r.allocated_usd, 0);
        records_usd.Add(r.allocated_usd);
      } else {
        ASSERT_TRUE(std::isnan(r.allocated_usd));
      }
      if (!std::isnan(r.effective_usd)) {
        ASSERT_GE(r.effective_usd, 0);
        ASSERT_LE(r.effective_usd, r.allocated_usd * (1 + 1e-12) + 1e-15);
        ASSERT_EQ(r.unmeasured_gpu_hours, 0);
      }
      ASSERT_LE(r.unmeasured_gpu_hours, r.gpu_hours);
      if (r.is_idle()) {
        ASSERT_TRUE(std::isnan(r.effective_usd));
      } else {
        auto& [sum, flagged] = held[{r.step, r.unit}];
        sum += r.gpu_hours;
        flagged |= r.oversubscribed;
        ++with_holders;
      }
    }
    EXPECT_NEAR(records_usd.value(), s->node_cost_usd, tol);
    for (const auto& [key, value] : held) {
      const double f = c.b.inventory.units[key.second].fraction;
      // Shares never exceed f: scaled ones sum to f exactly, unflagged ones fit.
      EXPECT_LE(value.first, f * step_h * (1 + 1e-9)) << "unit " << key.second;
      if (value.second) ++oversubscribed;
    }
  }
  // The generator must actually exercise holders and over-subscription.
  RecordProperty("holder_records", with_holders);
  std::printf("holder records %d, oversubscribed unit-steps %d\n", with_holders, oversubscribed);
  EXPECT_GT(with_holders, 1000);
  EXPECT_GT(oversubscribed, 10);
}

}  // namespace
}  // namespace gpucost
