// The rate card shipped in examples/ stays valid and means what its comments say.
#include <gtest/gtest.h>

#include "pricing/price_book.h"
#include "pricing/rate_card.h"

namespace gpucost {
namespace {

TEST(ExamplePrices, LoadsAndPricesByFirstMatchingRule) {
  auto card = LoadRateCard(std::string(GPUCOST_SOURCE_DIR) + "/examples/prices.yaml");
  ASSERT_TRUE(card.ok()) << card.status().ToString();
  EXPECT_EQ(card->rules.size(), 5u);
  ASSERT_TRUE(card->default_usd_per_gpu_hour.has_value());
  EXPECT_DOUBLE_EQ(*card->default_usd_per_gpu_hour, 2.0);

  const Window w{InstantFromUnixMs(0), InstantFromUnixMs(3'600'000)};
  Node spot_t4;
  spot_t4.gpu_model = "Tesla T4";
  spot_t4.capacity_type = "spot";
  EXPECT_DOUBLE_EQ(card->Lookup(spot_t4, w).usd_per_gpu_hour, 0.16);
  Node t4 = spot_t4;
  t4.capacity_type = "on_demand";
  EXPECT_DOUBLE_EQ(card->Lookup(t4, w).usd_per_gpu_hour, 0.53);
  Node other;
  other.gpu_model = "NVIDIA L4";
  const PricePeriod p = card->Lookup(other, w);
  EXPECT_DOUBLE_EQ(p.usd_per_gpu_hour, 2.0);
  EXPECT_EQ(p.source, PriceSource::kDefault);
}

}  // namespace
}  // namespace gpucost

namespace gpucost {
namespace {

TEST(ExamplePrices, PriceBookExampleMeansWhatItsCommentsSay) {
  auto config = LoadPriceBookConfig(std::string(GPUCOST_SOURCE_DIR) + "/examples/price-book.yaml");
  ASSERT_TRUE(config.ok()) << config.status().ToString();
  const PriceBook book(std::move(config).value(), &BuiltinCatalog());
  const Window w{*ParseInstant("2026-10-01"), *ParseInstant("2026-10-02")};
  Node p5;
  p5.name = "p5-1";
  p5.instance_type = "p5.48xlarge";
  p5.capacity_type = "on_demand";
  p5.region = "us-east-1";
  EXPECT_DOUBLE_EQ(book.Prices(p5, w)[0].usd_per_gpu_hour, 55.04 / 8 * 0.69);
  Node g6 = p5;
  g6.instance_type = "g6.xlarge";
  g6.capacity_type = "spot";
  EXPECT_DOUBLE_EQ(book.Prices(g6, w)[0].usd_per_gpu_hour, 0.40);
  Node g6e = g6;
  g6e.instance_type = "g6e.xlarge";
  EXPECT_DOUBLE_EQ(book.Prices(g6e, w)[0].usd_per_gpu_hour, 1.861 * 0.45);
  Node seven = p5;
  seven.name = "gpu-node-7";
  EXPECT_DOUBLE_EQ(book.Prices(seven, w)[0].usd_per_gpu_hour, 1.40);
  Node mystery;
  mystery.name = "m";
  EXPECT_EQ(book.Prices(mystery, w)[0].source, PriceSource::kDefault);
}

}  // namespace
}  // namespace gpucost
