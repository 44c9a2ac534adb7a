// A price above kMaxUsdPerHour (it used to come out as a negative or a zero cost) is an error
// naming the file, the line and the field in price files and the catalog, the flag for
// --price-per-gpu-hour, the line for a bill; the engine refuses one from any price function.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "attribution/price_spans.h"
#include "pricing/catalog.h"
#include "pricing/price_book_config.h"
#include "pricing/price_fn.h"

namespace gpucost {
namespace {

std::string ConfigError(const std::string& yaml) {
  const Result<PriceBookConfig> config = ParsePriceBookConfig(yaml, "prices.yaml");
  return config.ok() ? "(accepted)" : std::string(config.status().message());
}

TEST(PriceLimits, PricesAboveTheBoundAreErrorsWithFileLineAndField) {
  struct Case {
    std::string yaml;
    std::string says;
  };
  const std::string bound = ": must be at most 1000000 USD an hour (docs/pricing.md, \"Limits\")";
  for (const Case& c : {
           Case{"prices:\n  - match: {node: a}\n    usd_per_gpu_hour: 1e13\n",
                "prices.yaml:3: rule 1: usd_per_gpu_hour" + bound + ", got \"1e13\""},
           Case{"default_usd_per_gpu_hour: 1e306\n",
                "prices.yaml:1: default_usd_per_gpu_hour" + bound + ", got \"1e306\""},
           Case{"overrides:\n  - match: {node: a}\n    usd_per_gpu_hour: 1000000.01\n",
                "prices.yaml:3: overrides entry 1: usd_per_gpu_hour" + bound +
                    ", got \"1000000.01\""},
           Case{"spot:\n  prices:\n    - match: {node: a}\n      usd_per_hour: 2e6\n",
                "prices.yaml:4: spot prices entry 1: usd_per_hour" + bound + ", got \"2e6\""},
           Case{"commitments:\n  - match: {node: a}\n    usd_per_hour: 1e9\n",
                "prices.yaml:3: commitments entry 1: usd_per_hour" + bound + ", got \"1e9\""},
       }) {
    EXPECT_EQ(ConfigError(c.yaml), c.says) << c.yaml;
  }
  // The bound itself is a price.
  const Result<PriceBookConfig> at_bound = ParsePriceBookConfig(
      "default_usd_per_gpu_hour: 1000000\nprices:\n  - match: {node: a}\n"
      "    usd_per_gpu_hour: 1e6\n",
      "prices.yaml");
  ASSERT_TRUE(at_bound.ok()) << at_bound.status().ToString();
  EXPECT_EQ(*at_bound->card.default_usd_per_gpu_hour, kMaxUsdPerHour);

  const Result<Catalog> catalog = ParseCatalog(
      "instances:\n  - type: x\n    gpus: 1\n    prices:\n      - {usd_per_hour: 1, spot: 5e6}\n",
      "cat.yaml");
  ASSERT_FALSE(catalog.ok());
  EXPECT_EQ(catalog.status().message(), "cat.yaml:5: spot" + bound + ", got \"5e6\"");
}

TEST(PriceLimits, TheFlagIsHeldToTheSameBound) {
  for (const double usd : {1e306, 1e13, 1000000.5}) {
    PriceOptions options;
    options.usd_per_gpu_hour = usd;
    const Result<PriceFn> fn = MakePriceFn(options);
    ASSERT_FALSE(fn.ok()) << usd;
    EXPECT_EQ(fn.status().code(), StatusCode::kInvalidArgument);
    EXPECT_TRUE(fn.status().message().starts_with(
        "--price-per-gpu-hour: must be at most 1000000 USD an hour"))
        << fn.status().message();
  }
  PriceOptions at_bound;
  at_bound.usd_per_gpu_hour = kMaxUsdPerHour;
  EXPECT_TRUE(MakePriceFn(at_bound).ok());
}

// A bill line of 5e13 USD for one instance-hour (tests/billing/data/legacy_cur.csv's first line
// with its cost changed) would price the node's GPU-hours far past the bound.
TEST(PriceLimits, ABillChargingMoreThanTheBoundPerHourIsAnErrorNamingTheLine) {
  std::ifstream in(std::string(GPUCOST_SOURCE_DIR) + "/tests/billing/data/legacy_cur.csv");
  std::string header, line;
  ASSERT_TRUE(std::getline(in, header) && std::getline(in, line));
  const std::string cost = ",1.0000000000,USD,55.0400000000,55.0400000000,";
  ASSERT_NE(line.find(cost), std::string::npos);  // UsageAmount, CurrencyCode, Rate, Cost
  const auto path = std::filesystem::temp_directory_path() / "gpucost_price_limits_bill.csv";
  {
    std::ofstream out(path);
    out << header << '\n'
        << std::string(line).replace(line.find(cost), cost.size(),
                                     ",1.0000000000,USD,55.0400000000,5e13,")
        << '\n';
  }
  PriceOptions options;
  options.bill_file = path.string();
  const Result<PriceFn> fn = MakePriceFn(options);
  std::filesystem::remove(path);
  ASSERT_FALSE(fn.ok());
  EXPECT_EQ(fn.status().message(),
            path.string() +
                ":2: i-0a1b2c3d4e5f60718: 5e+13 USD for 1 h of use is more than 1000000 "
                "USD an instance-hour (docs/pricing.md, \"Limits\")");
}

// Whatever function prices the nodes, the engine refuses a price above the bound, naming why.
TEST(PriceLimits, TheEngineRefusesAPriceAboveTheBound) {
  Node node;
  node.name = "n1";
  const Instant start = InstantFromUnixMs(1'759'276'800'000);
  const Instant end = start + std::chrono::hours(1);
  PricePeriod p;
  p.interval = Interval{start, end};
  p.source = PriceSource::kRateCard;
  p.why = "somewhere";
  p.usd_per_gpu_hour = 2e6;
  const auto spans = attribution::BuildPriceSpans(node, attribution::ToSpan(start, end), {p});
  ASSERT_FALSE(spans.ok());
  EXPECT_NE(spans.status().message().find("somewhere"), std::string::npos);
  p.usd_per_gpu_hour = kMaxUsdPerHour;
  EXPECT_TRUE(attribution::BuildPriceSpans(node, attribution::ToSpan(start, end), {p}).ok());
}

}  // namespace
}  // namespace gpucost
