#include "pricing/rate_card.h"

#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>

#include "pricing/glob.h"
#include "pricing/price_fn.h"

namespace gpucost {
namespace {

const Window kWindow{InstantFromUnixMs(1'759'276'800'000), InstantFromUnixMs(1'759'280'400'000)};

Node RateCardNode(std::string name, std::string instance_type, std::string gpu_model,
                  std::string capacity_type) {
  Node n;
  n.cluster = "prod";
  n.name = std::move(name);
  n.instance_type = std::move(instance_type);
  n.gpu_model = std::move(gpu_model);
  n.capacity_type = std::move(capacity_type);
  n.region = "us-east-1";
  n.physical_gpus = 8;
  return n;
}

constexpr std::string_view kCard = R"(
prices:
  - match: {instance_type: p4d.24xlarge}
    usd_per_gpu_hour: 4.10
  - match: {gpu_model: "*T4*", capacity_type: spot}
    usd_per_gpu_hour: 0.16
  - match: {gpu_model: "*T4*"}
    usd_per_gpu_hour: 0.53
default_usd_per_gpu_hour: 2.0
)";

TEST(Glob, StarMatchesAnyRunIncludingEmpty) {
  EXPECT_TRUE(GlobMatch("*T4*", "Tesla T4"));
  EXPECT_TRUE(GlobMatch("*T4*", "T4"));
  EXPECT_TRUE(GlobMatch("p4d.*", "p4d.24xlarge"));
  EXPECT_TRUE(GlobMatch("*", ""));
  EXPECT_TRUE(GlobMatch("a*b*c", "aXXbYYbc"));
  EXPECT_FALSE(GlobMatch("*T4*", "NVIDIA A100"));
  EXPECT_FALSE(GlobMatch("p4d", "p4d.24xlarge"));  // no star: exact
  EXPECT_FALSE(GlobMatch("a*b", "aXbY"));
  EXPECT_FALSE(GlobMatch("x", ""));
}

TEST(RateCard, FirstMatchingRuleWins) {
  auto card = ParseRateCard(kCard, "prices.yaml");
  ASSERT_TRUE(card.ok()) << card.status().ToString();
  ASSERT_EQ(card->rules.size(), 3u);

  // Matches rules 2 and 3; rule 2 comes first.
  const PricePeriod spot =
      card->Lookup(RateCardNode("n1", "g4dn.xlarge", "Tesla T4", "spot"), kWindow);
  EXPECT_EQ(spot.source, PriceSource::kRateCard);
  EXPECT_DOUBLE_EQ(spot.usd_per_gpu_hour, 0.16);
  EXPECT_EQ(spot.why, "prices.yaml rule 2 (gpu_model=*T4*, capacity_type=spot)");
  EXPECT_EQ(spot.interval, (Interval{kWindow.start, kWindow.end}));

  const PricePeriod on_demand =
      card->Lookup(RateCardNode("n2", "g4dn.xlarge", "Tesla T4", "on_demand"), kWindow);
  EXPECT_DOUBLE_EQ(on_demand.usd_per_gpu_hour, 0.53);
  EXPECT_EQ(on_demand.why, "prices.yaml rule 3 (gpu_model=*T4*)");

  const PricePeriod p4d =
      card->Lookup(RateCardNode("n3", "p4d.24xlarge", "NVIDIA A100-SXM4-40GB", "spot"), kWindow);
  EXPECT_DOUBLE_EQ(p4d.usd_per_gpu_hour, 4.10);
  EXPECT_EQ(p4d.why, "prices.yaml rule 1 (instance_type=p4d.24xlarge)");
}

TEST(RateCard, DefaultAppliesWhenNoRuleMatches) {
  auto card = ParseRateCard(kCard, "prices.yaml");
  ASSERT_TRUE(card.ok());
  const PricePeriod p =
      card->Lookup(RateCardNode("n4", "a2-highgpu-1g", "NVIDIA A100", "on_demand"), kWindow);
  EXPECT_EQ(p.source, PriceSource::kDefault);
  EXPECT_DOUBLE_EQ(p.usd_per_gpu_hour, 2.0);
  EXPECT_EQ(p.why, "prices.yaml default_usd_per_gpu_hour");
}

TEST(RateCard, NoMatchAndNoDefaultIsUnknownNotZero) {
  auto card =
      ParseRateCard("prices:\n  - match: {node: gpu-*}\n    usd_per_gpu_hour: 3\n", "prices.yaml");
  ASSERT_TRUE(card.ok()) << card.status().ToString();
  const PricePeriod miss = card->Lookup(RateCardNode("cpu-1", "m5.large", "", ""), kWindow);
  EXPECT_EQ(miss.source, PriceSource::kUnknown);
  EXPECT_FALSE(miss.known());
  EXPECT_NE(miss.why.find("cpu-1"), std::string::npos);
  const PricePeriod hit = card->Lookup(RateCardNode("gpu-7", "m5.large", "", ""), kWindow);
  EXPECT_TRUE(hit.known());
  EXPECT_DOUBLE_EQ(hit.usd_per_gpu_hour, 3.0);
}

// Karpenter's label says "on-demand", EKS's "ON_DEMAND", Azure's "regular": a rule written as
// the label reads matches the nodes it means; a value nobody uses is an error with the valid list.
TEST(RateCard, CapacityTypesAsUsersCopyThemFromTheirLabels) {
  for (const std::string spelling : {"on-demand", "ON_DEMAND", "on_demand", "Regular"}) {
    auto card = ParseRateCard(
        "prices:\n  - match: {capacity_type: " + spelling + "}\n    usd_per_gpu_hour: 3\n",
        "prices.yaml");
    ASSERT_TRUE(card.ok()) << spelling << ": " << card.status().ToString();
    const PricePeriod p =
        card->Lookup(RateCardNode("n1", "g4dn.xlarge", "Tesla T4", "on_demand"), kWindow);
    EXPECT_TRUE(p.known()) << spelling;
    EXPECT_DOUBLE_EQ(p.usd_per_gpu_hour, 3.0) << spelling;
    EXPECT_FALSE(
        card->Lookup(RateCardNode("n2", "g4dn.xlarge", "Tesla T4", "spot"), kWindow).known());
  }
  auto preemptible = ParseRateCard(
      "prices:\n  - match: {capacity_type: preemptible}\n    usd_per_gpu_hour: 1\n", "p.yaml");
  ASSERT_TRUE(preemptible.ok());
  EXPECT_TRUE(preemptible->Lookup(RateCardNode("n", "x", "T4", "spot"), kWindow).known());
  auto bad = ParseRateCard(
      "prices:\n  - match: {capacity_type: ondemnd}\n    usd_per_gpu_hour: 3\n", "prices.yaml");
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("prices.yaml:2"), std::string::npos)
      << bad.status().ToString();
  EXPECT_NE(bad.status().message().find("expected on_demand, spot or reserved"), std::string::npos)
      << bad.status().ToString();
}

TEST(RateCard, AllSelectorKeysAreRecognised) {
  auto card = ParseRateCard(R"(
prices:
  - match: {node: n1, instance_type: t, gpu_model: g, capacity_type: spot, cluster: prod, region: us-*}
    usd_per_gpu_hour: 1.5
)",
                            "p.yaml");
  ASSERT_TRUE(card.ok()) << card.status().ToString();
  Node n = RateCardNode("n1", "t", "g", "spot");
  EXPECT_EQ(card->Lookup(n, kWindow).source, PriceSource::kRateCard);
  n.region = "eu-west-1";
  EXPECT_EQ(card->Lookup(n, kWindow).source, PriceSource::kUnknown);
}

TEST(RateCard, UnknownMatchKeyNamesFileRuleAndField) {
  auto card = ParseRateCard(R"(prices:
  - match: {instance_type: p4d.24xlarge}
    usd_per_gpu_hour: 4.10
  - match: {rack: r7}
    usd_per_gpu_hour: 1
)",
                            "prices.yaml");
  ASSERT_FALSE(card.ok());
  EXPECT_EQ(card.status().code(), StatusCode::kParseError);
  const std::string msg(card.status().message());
  EXPECT_NE(msg.find("prices.yaml:4: rule 2: match: unknown key \"rack\""), std::string::npos)
      << msg;
}

TEST(RateCard, BadValuesAreErrorsWithLocation) {
  struct Case {
    const char* yaml;
    const char* expect;
  };
  const Case cases[] = {
      {"prices:\n  - match: {node: a}\n    usd_per_gpu_hour: cheap\n",
       "prices.yaml:3: rule 1: usd_per_gpu_hour: not a number: \"cheap\""},
      {"prices:\n  - match: {node: a}\n    usd_per_gpu_hour: -1\n",
       "rule 1: usd_per_gpu_hour: must be a finite number >= 0"},
      {"prices:\n  - match: {node: a}\n    usd_per_gpu_hour: .nan\n",
       "rule 1: usd_per_gpu_hour: must be a finite number >= 0"},
      {"prices:\n  - match: {node: a}\n", "rule 1: usd_per_gpu_hour: missing"},
      {"prices:\n  - usd_per_gpu_hour: 1\n", "rule 1: match: missing"},
      {"prices:\n  - match: {node: a}\n    usd_per_gpu_hour: 1\n    discount: 0.1\n",
       "rule 1: unknown key \"discount\""},
      {"prices:\n  - match: {node: [a, b]}\n    usd_per_gpu_hour: 1\n",
       "rule 1: match: node: expected a string"},
      {"prices:\n  - match: {node: a}\n    usd_per_gpu_hour: 1\ncurrency: EUR\n",
       "prices.yaml:4: unknown key \"currency\""},
      {"default_usd_per_gpu_hour: free\n", "default_usd_per_gpu_hour: not a number"},
      {"prices: {node: a}\n", "prices: expected a list of rules"},
      {"", "prices.yaml: empty price file"},
      {"prices: []\n", "no price rules and no default_usd_per_gpu_hour"},
      {"prices:\n  - match: {node: a\n", "prices.yaml:"},  // YAML syntax error
  };
  for (const Case& c : cases) {
    auto card = ParseRateCard(c.yaml, "prices.yaml");
    ASSERT_FALSE(card.ok()) << c.yaml;
    EXPECT_NE(card.status().message().find(c.expect), std::string::npos)
        << "yaml: " << c.yaml << "\nmessage: " << card.status().message();
  }
}

TEST(RateCard, LoadFromFileUsesPathInWhy) {
  const auto path = std::filesystem::temp_directory_path() / "gpucost_rate_card_test.yaml";
  {
    std::ofstream out(path);
    out << kCard;
  }
  auto card = LoadRateCard(path.string());
  std::filesystem::remove(path);
  ASSERT_TRUE(card.ok()) << card.status().ToString();
  EXPECT_EQ(card->rules[0].why, path.string() + " rule 1 (instance_type=p4d.24xlarge)");

  auto missing = LoadRateCard("/nonexistent/gpucost/prices.yaml");
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.status().code(), StatusCode::kIoError);
  EXPECT_NE(missing.status().message().find("/nonexistent/gpucost/prices.yaml"), std::string::npos);
}

TEST(PriceFn, FlatPriceCoversTheWindow) {
  const PriceFn fn = FlatPriceFn(2.5);
  const auto periods = fn(RateCardNode("n1", "", "", ""), kWindow);
  ASSERT_EQ(periods.size(), 1u);
  EXPECT_EQ(periods[0].source, PriceSource::kDefault);
  EXPECT_DOUBLE_EQ(periods[0].usd_per_gpu_hour, 2.5);
  EXPECT_EQ(periods[0].interval, (Interval{kWindow.start, kWindow.end}));
}

TEST(PriceFn, NoOptionsMeansUnknown) {
  auto fn = MakePriceFn(PriceOptions{});
  ASSERT_TRUE(fn.ok());
  const auto periods = (*fn)(RateCardNode("n1", "", "", ""), kWindow);
  ASSERT_EQ(periods.size(), 1u);
  EXPECT_FALSE(periods[0].known());
}

TEST(PriceFn, FlagReplacesFileDefault) {
  const auto path = std::filesystem::temp_directory_path() / "gpucost_price_fn_test.yaml";
  {
    std::ofstream out(path);
    out << "prices:\n  - match: {gpu_model: \"*T4*\"}\n    usd_per_gpu_hour: 0.5\n"
           "default_usd_per_gpu_hour: 9\n";
  }
  PriceOptions options;
  options.usd_per_gpu_hour = 1.25;
  options.prices_file = path.string();
  auto fn = MakePriceFn(options);
  std::filesystem::remove(path);
  ASSERT_TRUE(fn.ok()) << fn.status().ToString();
  const auto t4 = (*fn)(RateCardNode("n1", "", "Tesla T4", ""), kWindow);
  EXPECT_EQ(t4[0].source, PriceSource::kRateCard);
  EXPECT_DOUBLE_EQ(t4[0].usd_per_gpu_hour, 0.5);
  const auto other = (*fn)(RateCardNode("n2", "", "A100", ""), kWindow);
  EXPECT_EQ(other[0].source, PriceSource::kDefault);
  EXPECT_DOUBLE_EQ(other[0].usd_per_gpu_hour, 1.25);
  EXPECT_EQ(other[0].why, "--price-per-gpu-hour");
}

TEST(PriceFn, NegativeFlagIsAnError) {
  PriceOptions options;
  options.usd_per_gpu_hour = -3;
  auto fn = MakePriceFn(options);
  ASSERT_FALSE(fn.ok());
  EXPECT_EQ(fn.status().code(), StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace gpucost
