// The price book: each source and their precedence, effective dates, spot, commitments, GPU
// share modes, bills, and the built-in catalog. Expected prices are computed here from the
// catalog's published numbers, never read back from the code under test.
#include "pricing/price_book.h"

#include <gtest/gtest.h>

#include <cmath>

#include "attribution/attributor.h"
#include "pricing/price_fn.h"

namespace gpucost {
namespace {

Instant T(std::string_view text) { return *ParseInstant(text); }

Node MakeNode(std::string name, std::string type, std::string capacity = "on_demand",
              std::string region = "us-east-1") {
  Node n;
  n.cluster = "prod";
  n.name = std::move(name);
  n.instance_type = std::move(type);
  n.capacity_type = std::move(capacity);
  n.region = std::move(region);
  n.physical_gpus = 8;
  return n;
}

PriceBook Book(std::string_view yaml) {
  auto config = ParsePriceBookConfig(yaml, "prices.yaml");
  EXPECT_TRUE(config.ok()) << config.status().ToString();
  return PriceBook(config.ok() ? std::move(config).value() : PriceBookConfig{}, &BuiltinCatalog());
}

const Window kOct{T("2026-10-01"), T("2026-10-02")};

PricePeriod One(const PriceBook& book, const Node& node, Window w = kOct) {
  const auto periods = book.Prices(node, w);
  EXPECT_EQ(periods.size(), 1u);
  return periods.empty() ? PricePeriod{} : periods[0];
}

TEST(Catalog, BuiltinParsesAndHoldsTheReferencePrices) {
  const Catalog& c = BuiltinCatalog();
  EXPECT_EQ(c.date, "2026-11-09");
  EXPECT_GE(c.instances.size(), 60u);
  const CatalogMatch p5 = c.Find("p5.48xlarge", "us-east-1");
  ASSERT_NE(p5.instance, nullptr);
  EXPECT_TRUE(p5.region_exact);
  EXPECT_EQ(p5.instance->gpus, 8);
  ASSERT_EQ(p5.instance->prices.size(), 2u);
  EXPECT_DOUBLE_EQ(p5.instance->prices[0].usd_per_hour, 98.32);
  EXPECT_DOUBLE_EQ(p5.instance->prices[1].usd_per_hour, 55.04);
  const CatalogMatch nd = c.Find("Standard_ND96isr_H100_v5", "westeurope");
  ASSERT_NE(nd.instance, nullptr);
  EXPECT_FALSE(nd.region_exact);
  EXPECT_EQ(c.Find("m5.large", "us-east-1").instance, nullptr);
  // Every price names a listed source, and every entry has its GPUs.
  for (const CatalogInstance& in : c.instances) {
    EXPECT_GT(in.gpus, 0) << in.type;
    for (const CatalogPrice& p : in.prices) EXPECT_TRUE(c.sources.contains(p.source)) << in.type;
  }
}

TEST(Catalog, ErrorsNameTheLine) {
  auto bad = ParseCatalog("instances:\n  - {type: x, gpus: 0, prices: [{usd_per_hour: 1}]}\n",
                          "cat.yaml");
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("cat.yaml:2: gpus: expected a whole number"),
            std::string::npos)
      << bad.status().message();
  auto overlap = ParseCatalog(
      "instances:\n  - {type: x, gpus: 1, prices: [{usd_per_hour: 1, until: 2026-02-01}, "
      "{usd_per_hour: 2, from: 2026-01-01}]}\n",
      "cat.yaml");
  ASSERT_FALSE(overlap.ok());
  EXPECT_NE(overlap.status().message().find("overlap"), std::string::npos);
}

TEST(PriceBook, CatalogPricesOnDemandNodesPerGpu) {
  const PriceBook book = Book("catalog: builtin\n");
  const PricePeriod p = One(book, MakeNode("n", "p4d.24xlarge"));
  EXPECT_EQ(p.source, PriceSource::kCatalog);
  EXPECT_DOUBLE_EQ(p.usd_per_gpu_hour, 21.957642 / 8);
  EXPECT_DOUBLE_EQ(p.list_usd_per_gpu_hour, 21.957642 / 8);
  EXPECT_EQ(p.effective_from, T("2025-06-01"));
  EXPECT_NE(p.why.find("p4d.24xlarge us-east-1 $21.957642/h"), std::string::npos) << p.why;
}

TEST(PriceBook, AWindowAcrossThePriceCutIsPricedOnBothSides) {
  const PriceBook book = Book("catalog: builtin\n");
  const Window w{T("2025-05-31T12:00:00Z"), T("2025-06-01T12:00:00Z")};
  const auto periods = book.Prices(MakeNode("n", "p5.48xlarge"), w);
  ASSERT_EQ(periods.size(), 2u);
  EXPECT_EQ(periods[0].interval.end, T("2025-06-01"));
  EXPECT_DOUBLE_EQ(periods[0].usd_per_gpu_hour, 98.32 / 8);
  EXPECT_DOUBLE_EQ(periods[1].usd_per_gpu_hour, 55.04 / 8);

  // Through the engine: 8 GPUs x 12 h at each price.
  Inventory inv;
  Node node = MakeNode("n", "p5.48xlarge");
  inv.nodes.push_back(node);
  for (int g = 0; g < 8; ++g) {
    GpuUnit u;
    u.node = 0;
    u.gpu_uuid = "GPU-" + std::to_string(g);
    u.resource = "nvidia.com/gpu";
    inv.units.push_back(u);
  }
  struct Sum : CostSink {
    double usd = 0;
    void Consume(std::span<const CostRecord> records) override {
      for (const CostRecord& r : records) usd += r.allocated_usd;
    }
  } sink;
  AttributionOptions options;
  options.window = w;
  options.step = std::chrono::hours(1);
  auto summary = Attribute(inv, Usage{}, book.AsPriceFn(std::make_shared<PriceBook>(book)),
                           options, sink);
  ASSERT_TRUE(summary.ok()) << summary.status().ToString();
  EXPECT_NEAR(sink.usd, 12 * 98.32 + 12 * 55.04, 1e-9);
  EXPECT_NEAR(summary->node_cost_usd, 12 * 98.32 + 12 * 55.04, 1e-9);
}

TEST(PriceBook, SourcesApplyInOrderOverrideRuleCatalogDefault) {
  const PriceBook book = Book(R"(
overrides:
  - match: {node: special}
    usd_per_gpu_hour: 1.25
prices:
  - match: {instance_type: p4d.24xlarge}
    usd_per_gpu_hour: 2.10
default_usd_per_gpu_hour: 0.75
)");
  // The override beats the rule that also matches the node.
  const PricePeriod o = One(book, MakeNode("special", "p4d.24xlarge"));
  EXPECT_EQ(o.source, PriceSource::kOverride);
  EXPECT_DOUBLE_EQ(o.usd_per_gpu_hour, 1.25);
  EXPECT_DOUBLE_EQ(o.list_usd_per_gpu_hour, 21.957642 / 8);  // list still from the catalog
  // The rule beats the catalog.
  const PricePeriod r = One(book, MakeNode("a", "p4d.24xlarge"));
  EXPECT_EQ(r.source, PriceSource::kRateCard);
  EXPECT_DOUBLE_EQ(r.usd_per_gpu_hour, 2.10);
  EXPECT_EQ(r.why, "prices.yaml rule 1 (instance_type=p4d.24xlarge)");
  // The catalog beats the default.
  const PricePeriod c = One(book, MakeNode("b", "g6.xlarge"));
  EXPECT_EQ(c.source, PriceSource::kCatalog);
  EXPECT_DOUBLE_EQ(c.usd_per_gpu_hour, 0.8048);
  // The default prices what nothing else does; list is then unknown (NaN) and equals the price.
  const PricePeriod d = One(book, MakeNode("c", "dgx-a100-onprem"));
  EXPECT_EQ(d.source, PriceSource::kDefault);
  EXPECT_DOUBLE_EQ(d.usd_per_gpu_hour, 0.75);
  EXPECT_TRUE(std::isnan(d.list_usd_per_gpu_hour));
  EXPECT_DOUBLE_EQ(d.list_or_price(), 0.75);
}

TEST(PriceBook, UnknownIsUnknownWithTheReason) {
  const PriceBook book = Book("catalog: builtin\n");
  const PricePeriod p = One(book, MakeNode("c", "dgx-a100-onprem"));
  EXPECT_FALSE(p.known());
  EXPECT_NE(p.why.find("instance type dgx-a100-onprem is not in the catalog"), std::string::npos)
      << p.why;
  const PriceBook off = Book("catalog: none\n");
  EXPECT_FALSE(One(off, MakeNode("n", "p4d.24xlarge")).known());
}

TEST(PriceBook, DatedRulesSplitTheWindow) {
  const PriceBook book = Book(R"(
overrides:
  - match: {node: n}
    usd_per_gpu_hour: 9
    from: 2026-10-01T06:00:00Z
    until: 2026-10-01T18:00:00Z
prices:
  - match: {instance_type: "p4d.*"}
    usd_per_gpu_hour: 2
    until: 2026-10-01T12:00:00Z
)");
  const auto p = book.Prices(MakeNode("n", "p4d.24xlarge"), kOct);
  ASSERT_EQ(p.size(), 3u);
  EXPECT_EQ(p[0].source, PriceSource::kRateCard);  // 00-06
  EXPECT_EQ(p[1].source, PriceSource::kOverride);  // 06-18
  EXPECT_EQ(p[1].interval.start, T("2026-10-01T06:00:00Z"));
  EXPECT_EQ(p[1].interval.end, T("2026-10-01T18:00:00Z"));
  EXPECT_EQ(p[2].source, PriceSource::kCatalog);  // 18-24: the rule has ended
  EXPECT_EQ(p[2].interval.start, T("2026-10-01T18:00:00Z"));
  EXPECT_EQ(p[2].interval.end, T("2026-10-02"));
}

TEST(PriceBook, SpotUsesConfiguredPricesThenDiscountThenObservedThenTypical) {
  // Typical AWS discount from the catalog (an estimate, said so).
  const PricePeriod typical = One(Book("catalog: builtin\n"), MakeNode("s", "g6.xlarge", "spot"));
  EXPECT_EQ(typical.source, PriceSource::kSpot);
  EXPECT_DOUBLE_EQ(typical.usd_per_gpu_hour, 0.8048 * (1 - 0.45));
  EXPECT_DOUBLE_EQ(typical.list_usd_per_gpu_hour, 0.8048);
  EXPECT_NE(typical.why.find("estimate"), std::string::npos);
  // An observed spot price in the catalog (GCP preemptible a2-highgpu-1g).
  const PricePeriod observed =
      One(Book("catalog: builtin\n"), MakeNode("g", "a2-highgpu-1g", "spot", "us-central1"));
  EXPECT_DOUBLE_EQ(observed.usd_per_gpu_hour, 1.102);
  EXPECT_DOUBLE_EQ(observed.list_usd_per_gpu_hour, 3.673385);
  // The user's discount beats the catalog's numbers.
  const PricePeriod mine =
      One(Book("spot: {discount: 0.6}\n"), MakeNode("g", "a2-highgpu-1g", "spot", "us-central1"));
  EXPECT_DOUBLE_EQ(mine.usd_per_gpu_hour, 3.673385 * 0.4);
  // A spot price per instance-hour beats both, divided over the type's GPUs.
  const PriceBook table = Book(R"(
spot:
  discount: 0.6
  prices:
    - match: {instance_type: g6.12xlarge}
      usd_per_hour: 4.80
)");
  const PricePeriod t = One(table, MakeNode("s", "g6.12xlarge", "spot"));
  EXPECT_EQ(t.source, PriceSource::kSpot);
  EXPECT_DOUBLE_EQ(t.usd_per_gpu_hour, 4.80 / 4);
  // On-demand nodes are not touched by spot settings.
  EXPECT_EQ(One(table, MakeNode("o", "g6.12xlarge")).source, PriceSource::kCatalog);
}

TEST(PriceBook, CommitmentsDiscountGpuCostOfOnDemandNodesOnly) {
  auto config = ParsePriceBookConfig(R"(
commitments:
  - match: {instance_type: p5.48xlarge}
    name: 1-yr compute savings plan
    discount: 0.31
    from: 2026-10-01T12:00:00Z
  - match: {instance_type: p4d.24xlarge}
    usd_per_hour: 14.00
  - match: {instance_type: "g5.*"}
    discount: 0.5
prices:
  - match: {instance_type: "g5.*"}
    usd_per_gpu_hour: 1.00
)",
                                     "prices.yaml");
  ASSERT_TRUE(config.ok()) << config.status().ToString();
  const PriceBook b(std::move(config).value(), &BuiltinCatalog());
  const auto p5 = b.Prices(MakeNode("n", "p5.48xlarge"), kOct);
  ASSERT_EQ(p5.size(), 2u);
  EXPECT_EQ(p5[0].source, PriceSource::kCatalog);
  EXPECT_DOUBLE_EQ(p5[0].usd_per_gpu_hour, 6.88);
  EXPECT_EQ(p5[1].source, PriceSource::kCommitment);
  EXPECT_DOUBLE_EQ(p5[1].usd_per_gpu_hour, 6.88 * 0.69);
  EXPECT_DOUBLE_EQ(p5[1].list_usd_per_gpu_hour, 6.88);  // ListCost stays the public price
  EXPECT_NE(p5[1].why.find("1-yr compute savings plan"), std::string::npos) << p5[1].why;
  EXPECT_EQ(p5[1].commitment, "1-yr compute savings plan");
  // An effective instance rate, spread over the GPUs.
  EXPECT_DOUBLE_EQ(One(b, MakeNode("m", "p4d.24xlarge")).usd_per_gpu_hour, 14.0 / 8);
  // Commitments apply to rate-card prices too.
  EXPECT_DOUBLE_EQ(One(b, MakeNode("g", "g5.12xlarge")).usd_per_gpu_hour, 0.5);
  // Never to spot nodes.
  EXPECT_EQ(One(b, MakeNode("s", "p4d.24xlarge", "spot")).source, PriceSource::kSpot);
}

TEST(PriceBook, GpuShareModesFollowTheWorkedExample) {
  // p5.48xlarge: 8 GPUs, 192 vCPUs, 2048 GiB, $55.04/h (docs/pricing.md).
  const double aws = 9.0 * 8 / (9.0 * 8 + 0.9 * 192 + 0.1 * 2048);
  EXPECT_NEAR(aws, 0.160, 0.0005);  // the reference's 16.0 %
  const double ratio = 0.95 * 8 / (0.95 * 8 + 0.031611 * 192 + 0.004237 * 2048);
  EXPECT_NEAR(ratio, 0.340, 0.0005);  // the reference's 34.0 %
  const Node n = MakeNode("n", "p5.48xlarge");
  EXPECT_DOUBLE_EQ(One(Book("gpu_share: aws-split\n"), n).usd_per_gpu_hour, 55.04 * aws / 8);
  EXPECT_DOUBLE_EQ(One(Book("gpu_share: price-ratio\n"), n).usd_per_gpu_hour, 55.04 * ratio / 8);
  EXPECT_DOUBLE_EQ(One(Book("gpu_share: \"0.8\"\n"), n).usd_per_gpu_hour, 55.04 * 0.8 / 8);
  // A split mode needs vCPUs and memory: without them the type is not priced by the catalog.
  EXPECT_FALSE(One(Book("gpu_share: aws-split\n"), MakeNode("b", "p6-b200.48xlarge")).known());
  EXPECT_TRUE(One(Book("gpu_share: all\n"), MakeNode("b", "p6-b200.48xlarge")).known());
}

TEST(PriceBook, OtherRegionsGetTheCatalogRegionSaidSo) {
  const PricePeriod p =
      One(Book("catalog: builtin\n"), MakeNode("n", "Standard_ND96isr_H100_v5", "", "westeurope"));
  EXPECT_DOUBLE_EQ(p.usd_per_gpu_hour, 98.32 / 8);
  EXPECT_NE(p.why.find("no westeurope price in the catalog"), std::string::npos) << p.why;
}

TEST(PriceBook, LabelAndZoneSelectors) {
  const PriceBook book = Book(R"(
prices:
  - match: {"label:slurm.partition": "*premium*"}
    usd_per_gpu_hour: 5
  - match: {zone: us-east-1b}
    usd_per_gpu_hour: 3
)");
  Node a = MakeNode("a", "onprem");
  a.labels = *LabelSet::Make({{"slurm.partition", "gpu,premium"}});
  EXPECT_DOUBLE_EQ(One(book, a).usd_per_gpu_hour, 5);
  Node b = MakeNode("b", "onprem");
  b.zone = "us-east-1b";
  EXPECT_DOUBLE_EQ(One(book, b).usd_per_gpu_hour, 3);
}

TEST(PriceBook, BillChargesPriceTheirHoursAndSumToTheBill) {
  const PriceBook base = Book("catalog: builtin\n");
  PriceBook book = base;
  Node n = MakeNode("n", "p4d.24xlarge");
  n.provider_id = "aws:///us-east-1a/i-0abc";
  // Present for the first hour and for 30 minutes of the second.
  n.present = {{T("2026-10-01T00:00:00Z"), T("2026-10-01T01:30:00Z")}};
  std::vector<BilledCharge> charges = {
      // No usage amount: the node's presence (1 h) stands for it.
      {"i-0abc", T("2026-10-01T00:00:00Z"), T("2026-10-01T01:00:00Z"), 0, 15.15, 15.15, 21.957642,
       "SavingsPlan", "cur.csv:2"},
      // The bill says the instance ran half of this hour.
      {"i-0abc", T("2026-10-01T01:00:00Z"), T("2026-10-01T02:00:00Z"), 0.5, 7.0, 7.0, NAN, "OnDemand",
       "cur.csv:3"},
      {"i-other", T("2026-10-01T00:00:00Z"), T("2026-10-01T01:00:00Z"), 1, 99, 99, NAN, "", "cur.csv:4"},
  };
  book.SetBill(charges, "cur.csv");
  const auto p = book.Prices(n, {T("2026-10-01T00:00:00Z"), T("2026-10-01T03:00:00Z")});
  ASSERT_EQ(p.size(), 3u);
  EXPECT_EQ(p[0].source, PriceSource::kBill);
  EXPECT_DOUBLE_EQ(p[0].usd_per_gpu_hour, 15.15 / 8);
  EXPECT_DOUBLE_EQ(p[0].list_usd_per_gpu_hour, 21.957642 / 8);
  EXPECT_NE(p[0].why.find("cur.csv:2"), std::string::npos) << p[0].why;
  // Half an hour present: the whole charge over 8 GPUs x 0.5 h.
  EXPECT_DOUBLE_EQ(p[1].usd_per_gpu_hour, 7.0 / 4);
  // After the bill: the catalog.
  EXPECT_EQ(p[2].source, PriceSource::kCatalog);
  // GPU cost over the billed hours = the bill: 8 x (1 h x p0 + 0.5 h x p1).
  EXPECT_NEAR(8 * (p[0].usd_per_gpu_hour + 0.5 * p[1].usd_per_gpu_hour), 15.15 + 7.0, 1e-12);
  // A window that cuts a billed hour gets its part: with the usage amount known, 30 minutes of a
  // fully run hour cost half the charge, however little of the hour was loaded.
  std::vector<BilledCharge> whole = {{"i-0abc", T("2026-10-01T00:00:00Z"),
                                      T("2026-10-01T01:00:00Z"), 1.0, 16, 16, NAN, "", "cur.csv:9"}};
  PriceBook cut = base;
  cut.SetBill(whole, "cur.csv");
  Node m = n;
  m.present = {{T("2026-10-01T00:00:00Z"), T("2026-10-01T00:30:00Z")}};
  const auto half = cut.Prices(m, {T("2026-10-01T00:00:00Z"), T("2026-10-01T00:30:00Z")});
  ASSERT_EQ(half.size(), 1u);
  EXPECT_DOUBLE_EQ(8 * 0.5 * half[0].usd_per_gpu_hour, 8.0);
  // An override still wins over the bill.
  auto config = ParsePriceBookConfig("overrides:\n  - match: {node: n}\n    usd_per_gpu_hour: 1\n",
                                     "prices.yaml");
  ASSERT_TRUE(config.ok());
  PriceBook over(std::move(config).value(), &BuiltinCatalog());
  over.SetBill(charges, "cur.csv");
  EXPECT_EQ(over.Prices(n, {T("2026-10-01T00:00:00Z"), T("2026-10-01T01:00:00Z")})[0].source,
            PriceSource::kOverride);
  EXPECT_EQ(InstanceIdFromProviderId("aws:///us-east-1a/i-0abc"), "i-0abc");
  EXPECT_EQ(InstanceIdFromProviderId("gce://proj/us-central1-a/gke-node-1"), "gke-node-1");
}

TEST(PriceBookConfig, ErrorsNameFileLineAndField) {
  struct Case {
    const char* yaml;
    const char* expect;
  };
  const Case cases[] = {
      {"spot: {discount: 1.5}\n", "prices.yaml:1: spot: discount: must be a fraction in [0, 1)"},
      {"commitments:\n  - match: {node: a}\n    discount: 0.3\n    usd_per_hour: 3\n",
       "commitments entry 1: give one of"},
      {"overrides:\n  - match: {node: a}\n    usd_per_gpu_hour: 1\n    from: yesterday\n",
       "prices.yaml:4: overrides entry 1: from: not a date or time: \"yesterday\""},
      {"overrides:\n  - match: {node: a}\n    usd_per_gpu_hour: 1\n    from: 2026-02-01\n"
       "    until: 2026-01-01\n",
       "until must be after from"},
      {"gpu_share: most\n", "prices.yaml:1: gpu_share: expected all, aws-split, price-ratio"},
      {"catalog: aws\n", "catalog: expected builtin or none"},
      {"spot:\n  prices:\n    - match: {node: a}\n      discount: 0.2\n",
       "spot prices entry 1: unknown key \"discount\""},
  };
  for (const Case& c : cases) {
    auto config = ParsePriceBookConfig(c.yaml, "prices.yaml");
    ASSERT_FALSE(config.ok()) << c.yaml;
    EXPECT_NE(config.status().message().find(c.expect), std::string::npos)
        << "yaml: " << c.yaml << "\nmessage: " << config.status().message();
  }
}

TEST(PriceFn, FlagAloneIsFlatButWithAFileItIsTheDefaultRate) {
  PriceOptions flat;
  flat.usd_per_gpu_hour = 12;
  auto fn = MakePriceFn(flat);
  ASSERT_TRUE(fn.ok());
  const auto p = (*fn)(MakeNode("n", "a2-highgpu-1g", "", "us-central1"), kOct);
  ASSERT_EQ(p.size(), 1u);
  EXPECT_DOUBLE_EQ(p[0].usd_per_gpu_hour, 12);  // the catalog is not consulted
  PriceOptions none;
  auto catalog = MakePriceFn(none);
  ASSERT_TRUE(catalog.ok());
  EXPECT_DOUBLE_EQ((*catalog)(MakeNode("n", "a2-highgpu-1g", "", "us-central1"), kOct)[0]
                       .usd_per_gpu_hour,
                   3.673385);
  PriceOptions off;
  off.use_catalog = false;
  auto unknown = MakePriceFn(off);
  ASSERT_TRUE(unknown.ok());
  EXPECT_FALSE((*unknown)(MakeNode("n", "a2-highgpu-1g", "", "us-central1"), kOct)[0].known());
}

}  // namespace
}  // namespace gpucost
